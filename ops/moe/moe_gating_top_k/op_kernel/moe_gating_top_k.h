// MoeGatingTopK: the kernel, run by every vector core on its share of the tokens.
//
// Per token (one row of E experts, fully resident in UB):
//   1. CopyIn: DataCopyPad brings the row in (the next row is prefetched into a second buffer
//      while this one is computed, when UB allows), laid out as `layoutGroups` groups each padded to a
//      multiple of 32 elements (Sort32's group); the pads are set to -inf (Duplicate with a lane
//      mask) and fp16/bf16 are widened to float32 (Cast).
//   2. norm = Sigmoid(x), or softmax (ReduceMax, Adds, Exp, ReduceSum, Muls), in float32;
//      `out` = norm when out_flag (DataCopyPad drops the pads on the way to GM).
//   3. sel = norm + bias. The bias buffer (zeros when there is no bias) holds -inf in the pads,
//      so the pads of sel are -inf and never selected.
//   4. Selection, by tiling key (expert positions in the padded layout travel with the scores as
//      the index half of Sort's (score, index) pairs):
//      - no grouping: one full Sort of the padded row;
//      - DeepSeek-V3 fast path (E 256, 8 groups of 32, 4 kept): Sort32 sorts the 8 groups in one
//        instruction, GatherMask + PairReduceSum give the top-2 sums, Sort32 ranks the 8 group
//        scores, and one MrgSort merges the 4 kept groups' sorted lists (in ascending group order,
//        so equal scores keep the lower expert first);
//      - general grouping: each group sorted (Sort32 or Sort), group scores by GatherMask (+
//        PairReduceSum for the top-2 sum), the groups ranked by Sort, the kept groups' scores and
//        positions copied side by side in ascending group order, and one Sort of those.
//   5. GatherMask (odd elements) extracts the k best positions; Gather picks their norm (the
//      weights, without bias) and, in the general path, their expert ids; ReduceSum + Div
//      renormalise (sigmoid only), Muls applies routed_scaling_factor, Cast rounds to y's dtype.
//   6. CopyOut: DataCopyPad writes k weights and k expert ids.
// Ties: Sort32 and Sort place equal scores in input order and MrgSort keeps the earlier list
// first, so equal scores always resolve to the lower expert index, as the golden expects.
#ifndef MOE_GATING_TOP_K_H
#define MOE_GATING_TOP_K_H

#include "kernel_operator.h"
#include "moe_gating_top_k_tiling_data.h"

namespace MoeGatingTopKKernel {
using namespace AscendC;

constexpr int64_t SORT_GROUP = 32;       // Sort32 orders 32 scores per repeat
constexpr int64_t BLOCK_BYTES = 32;      // UB block
constexpr int64_t PAIR_FLOATS = 2;       // a sorted (score, index) pair: 8 bytes = 2 floats
constexpr int64_t MAX_KEPT_GROUPS = 64;  // grouped layouts have at most 2048 / 32 groups
constexpr int64_t GATHER_LANES = 128;    // float lanes of the group-score gather area
constexpr int64_t REDUCE_BYTES = 64;     // ReduceMax/ReduceSum result
constexpr int64_t PATTERN_BYTES = 32;    // GatherMask pattern (one UB block)
constexpr uint32_t NEG_INF_F32 = 0xFF800000U;
constexpr uint16_t NEG_INF_F16 = 0xFC00U;
constexpr uint16_t NEG_INF_BF16 = 0xFF80U;
constexpr uint32_t PATTERN_BEST = 0b1;        // element 0 of a group's sorted pairs: its best score
constexpr uint32_t PATTERN_BEST_TWO = 0b101;  // elements 0 and 2: the scores of its two best pairs
constexpr uint8_t PATTERN_ODD = 2;            // built-in GatherMask pattern: the index half of each pair
constexpr uint32_t SORTED_LANES = 64;         // GatherMask counter mode: 32 pairs = 64 floats per group
constexpr uint32_t PAIR_LANES = 64;           // PairReduceSum: float lanes per repeat

// Wait until every earlier instruction of one pipe is done before the next pipe goes on.
template <HardEvent EVENT>
__aicore__ inline void WaitPipe()
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(EVENT));
    SetFlag<EVENT>(id);
    WaitFlag<EVENT>(id);
}

// T: the dtype of x, bias and y (half, bfloat16_t or float). PATH: the tiling key.
template <typename T, uint64_t PATH>
class MoeGatingTopK {
public:
    __aicore__ inline MoeGatingTopK() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR expertIdx, GM_ADDR out,
                                const MoeGatingTopKTilingData& tiling, TPipe* pipe)
    {
        t_ = tiling;
        pipe_ = pipe;
        const int64_t blockIdx = GetBlockIdx();
        if (blockIdx >= t_.needCoreNum) {
            rows_ = 0;
            return;
        }
        rows_ = (blockIdx == t_.needCoreNum - 1) ? t_.lastCoreRowCount : t_.perCoreRowCount;
        if (rows_ <= 0) {
            rows_ = 0;
            return;  // T = 0: nothing to bind, nothing to allocate
        }
        const int64_t firstRow = blockIdx * t_.perCoreRowCount;
        experts_ = t_.expertCount;
        k_ = t_.k;
        rowLen_ = t_.rowLength;
        groups_ = t_.layoutGroups;
        groupLen_ = t_.layoutGroupSize;
        groupLenAlign_ = t_.layoutGroupSizeAlign;

        xGm_.SetGlobalBuffer((__gm__ T*)x + firstRow * experts_, rows_ * experts_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + firstRow * k_, rows_ * k_);
        idxGm_.SetGlobalBuffer((__gm__ int32_t*)expertIdx + firstRow * k_, rows_ * k_);
        if (t_.addBias) {
            biasGm_.SetGlobalBuffer((__gm__ T*)bias, experts_);
        }
        if (t_.outFlag) {
            outGm_.SetGlobalBuffer((__gm__ float*)out + firstRow * experts_, rows_ * experts_);
        }

        // UB: the tiling function sums exactly these sizes against the UB capacity.
        const uint32_t rowBytes = static_cast<uint32_t>(rowLen_ * sizeof(float));
        const uint32_t stageBytes = IsSameType<T, float>::value ? 0 : static_cast<uint32_t>(rowLen_ * sizeof(T));
        const uint32_t kBytes = static_cast<uint32_t>(t_.kAlign * sizeof(float));
        pipe_->InitBuffer(xQue_, static_cast<uint8_t>(t_.xBufferNum), rowBytes + stageBytes);
        pipe_->InitBuffer(yQue_, 1, kBytes);
        pipe_->InitBuffer(idxQue_, 1, kBytes);
        if (t_.outFlag) {
            pipe_->InitBuffer(outQue_, 1, rowBytes);
        }
        pipe_->InitBuffer(biasBuf_, rowBytes + stageBytes);
        pipe_->InitBuffer(posBuf_, rowBytes);
        pipe_->InitBuffer(normBuf_, rowBytes);
        pipe_->InitBuffer(selBuf_, rowBytes);
        pipe_->InitBuffer(topBuf_, rowBytes * PAIR_FLOATS);
        pipe_->InitBuffer(pickBuf_, kBytes * 4);
        pipe_->InitBuffer(reduceBuf_, REDUCE_BYTES);
        pipe_->InitBuffer(tmpBuf_, static_cast<uint32_t>(t_.tmpBufBytes));
        if constexpr (PATH != TILING_KEY_NO_GROUP) {
            pipe_->InitBuffer(sortedBuf_, rowBytes * PAIR_FLOATS);
            pipe_->InitBuffer(groupBuf_, static_cast<uint32_t>(PATTERN_BYTES + GATHER_LANES * sizeof(float) +
                                                               t_.groupCountAlign * sizeof(float) * 4));
        }
        if constexpr (PATH == TILING_KEY_GENERAL) {
            pipe_->InitBuffer(candScoreBuf_, rowBytes);
            pipe_->InitBuffer(candPosBuf_, rowBytes);
            pipe_->InitBuffer(expertIdBuf_, rowBytes);
        }
        PrepareConstants();
    }

    __aicore__ inline void Process()
    {
        if (rows_ > 0) {
            CopyIn(0);
        }
        for (int64_t row = 0; row < rows_; ++row) {
            // With two x buffers the copy of the next row (MTE2) overlaps this row's vector work.
            if (t_.xBufferNum > 1 && row + 1 < rows_) {
                CopyIn(row + 1);
            }
            ComputeScores();
            if (t_.outFlag) {
                CopyOutNorm(row);
            }
            Select();
            ComputeWeights();
            CopyOut(row);
            if (t_.xBufferNum == 1 && row + 1 < rows_) {
                CopyIn(row + 1);
            }
        }
    }

private:
    // ---- constants of the core: bias (+ -inf pads), position ramp, patterns ----------------------
    __aicore__ inline void PrepareConstants()
    {
        LocalTensor<float> bias = biasBuf_.Get<float>();
        if (t_.addBias) {
            LocalTensor<T> raw = RawView(bias);
            DataCopyPad(raw, biasGm_, RowCopyParams(sizeof(T)), DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)});
            WaitPipe<HardEvent::MTE2_V>();
            PadRaw(raw);
            if constexpr (!IsSameType<T, float>::value) {
                PipeBarrier<PIPE_V>();
                Cast(bias, raw, RoundMode::CAST_NONE, static_cast<uint32_t>(rowLen_));
            }
        } else {
            Duplicate(bias, 0.0f, static_cast<int32_t>(rowLen_));
            PipeBarrier<PIPE_V>();
            FillPads<uint32_t>(bias.template ReinterpretCast<uint32_t>(), NEG_INF_F32);
        }
        // Positions in the padded layout: the index half of every sorted pair.
        ArithProgression(posBuf_.Get<int32_t>(), static_cast<int32_t>(0), static_cast<int32_t>(1),
                         static_cast<int32_t>(rowLen_));
        if constexpr (PATH == TILING_KEY_GENERAL) {
            // Expert id of every padded position (pads get ids past their group; never chosen).
            LocalTensor<int32_t> ids = expertIdBuf_.Get<int32_t>();
            for (int64_t g = 0; g < groups_; ++g) {
                ArithProgression(ids[g * groupLenAlign_], static_cast<int32_t>(g * groupLen_), static_cast<int32_t>(1),
                                 static_cast<int32_t>(groupLenAlign_));
            }
        }
        if constexpr (PATH != TILING_KEY_NO_GROUP) {
            Duplicate(Gathered(), 0.0f, static_cast<int32_t>(GATHER_LANES));
            ArithProgression(GroupIndex(), static_cast<int32_t>(0), static_cast<int32_t>(1),
                             static_cast<int32_t>(t_.groupCountAlign));
            LocalTensor<uint32_t> pattern = groupBuf_.template GetWithOffset<uint32_t>(PATTERN_BYTES / sizeof(uint32_t), 0);
            pattern.SetValue(0, t_.groupSelectMode == 1 ? PATTERN_BEST_TWO : PATTERN_BEST);
            for (uint32_t i = 1; i < PATTERN_BYTES / sizeof(uint32_t); ++i) {
                pattern.SetValue(i, 0U);
            }
            WaitPipe<HardEvent::S_V>();
        }
        PipeBarrier<PIPE_V>();
    }

    // DataCopyPad parameters for one row: layoutGroups blocks of layoutGroupSize elements, each
    // block starting at a multiple of layoutGroupSizeAlign elements in UB. A block ends on the
    // next 32-byte boundary and the UB-side gap (in 32-byte blocks) covers the rest of the pad, so
    // the two always add up to layoutGroupSizeAlign elements. In GM the blocks are contiguous.
    // The UB-side gap is dstStride going in (GM -> UB) and srcStride going out (UB -> GM).
    __aicore__ inline DataCopyExtParams RowCopyParams(uint32_t elemBytes, bool toGm = false) const
    {
        const uint32_t ubGap = static_cast<uint32_t>((groupLenAlign_ - groupLen_) * elemBytes / BLOCK_BYTES);
        return DataCopyExtParams{static_cast<uint16_t>(groups_), static_cast<uint32_t>(groupLen_ * elemBytes),
                                 toGm ? ubGap : 0U, toGm ? 0U : ubGap, 0};
    }

    // Where the raw (not yet widened) row lies: fp16/bf16 after the float32 row, float32 in place.
    __aicore__ inline LocalTensor<T> RawView(const LocalTensor<float>& row) const
    {
        if constexpr (IsSameType<T, float>::value) {
            return row;
        } else {
            return row[rowLen_].template ReinterpretCast<T>();
        }
    }

    // Set elements [layoutGroupSize, layoutGroupSizeAlign) of every group to the bit pattern
    // `bits` (-inf). They all lie in the last 32 elements of the group: one masked repeat per group.
    template <typename U>
    __aicore__ inline void FillPads(const LocalTensor<U>& row, U bits)
    {
        const int64_t tail = groupLen_ % SORT_GROUP;
        if (tail == 0) {
            return;
        }
        uint64_t mask[2] = {((1ULL << SORT_GROUP) - 1) & ~((1ULL << tail) - 1), 0};
        const uint8_t repStride =
            groups_ > 1 ? static_cast<uint8_t>(groupLenAlign_ * sizeof(U) / BLOCK_BYTES) : static_cast<uint8_t>(8);
        Duplicate(row[groupLen_ - tail], bits, mask, static_cast<uint8_t>(groups_), 1, repStride);
    }

    __aicore__ inline void PadRaw(const LocalTensor<T>& raw)
    {
        if constexpr (IsSameType<T, float>::value) {
            FillPads<uint32_t>(raw.template ReinterpretCast<uint32_t>(), NEG_INF_F32);
        } else if constexpr (IsSameType<T, half>::value) {
            FillPads<uint16_t>(raw.template ReinterpretCast<uint16_t>(), NEG_INF_F16);
        } else {
            FillPads<uint16_t>(raw.template ReinterpretCast<uint16_t>(), NEG_INF_BF16);
        }
    }

    // ---- group area: pattern | gathered scores | group scores | group ids | sorted groups ----------
    __aicore__ inline LocalTensor<float> Gathered()
    {
        return groupBuf_.template GetWithOffset<float>(GATHER_LANES, PATTERN_BYTES);
    }
    __aicore__ inline LocalTensor<float> GroupScore()
    {
        return groupBuf_.template GetWithOffset<float>(static_cast<uint32_t>(t_.groupCountAlign),
                                                       PATTERN_BYTES + GATHER_LANES * sizeof(float));
    }
    __aicore__ inline LocalTensor<int32_t> GroupIndex()
    {
        return groupBuf_.template GetWithOffset<int32_t>(
            static_cast<uint32_t>(t_.groupCountAlign),
            static_cast<uint32_t>(PATTERN_BYTES + GATHER_LANES * sizeof(float) + t_.groupCountAlign * sizeof(float)));
    }
    __aicore__ inline LocalTensor<float> GroupSorted()
    {
        return groupBuf_.template GetWithOffset<float>(
            static_cast<uint32_t>(t_.groupCountAlign * PAIR_FLOATS),
            static_cast<uint32_t>(PATTERN_BYTES + GATHER_LANES * sizeof(float) + t_.groupCountAlign * sizeof(float) * 2));
    }

    // ---- 1. one row in ------------------------------------------------------------------------
    __aicore__ inline void CopyIn(int64_t row)
    {
        LocalTensor<float> xLocal = xQue_.AllocTensor<float>();
        DataCopyPad(RawView(xLocal), xGm_[row * experts_], RowCopyParams(sizeof(T)),
                    DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)});
        xQue_.EnQue(xLocal);
    }

    // ---- 2./3. norm and selection scores ------------------------------------------------------------
    __aicore__ inline void ComputeScores()
    {
        LocalTensor<float> xLocal = xQue_.DeQue<float>();
        LocalTensor<T> raw = RawView(xLocal);
        LocalTensor<float> norm = normBuf_.Get<float>();
        const uint32_t n = static_cast<uint32_t>(rowLen_);
        PadRaw(raw);
        if constexpr (!IsSameType<T, float>::value) {
            PipeBarrier<PIPE_V>();
            Cast(xLocal, raw, RoundMode::CAST_NONE, n);
        }
        PipeBarrier<PIPE_V>();
        if (t_.normType == 1) {
            LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();
            Sigmoid(norm, xLocal, tmp, n);
        } else {
            LocalTensor<float> red = reduceBuf_.Get<float>();
            LocalTensor<float> tmp = tmpBuf_.Get<float>();
            ReduceMax(red, xLocal, tmp, static_cast<int32_t>(n), false);
            WaitPipe<HardEvent::V_S>();
            const float rowMax = red.GetValue(0);
            WaitPipe<HardEvent::S_V>();
            Adds(norm, xLocal, -rowMax, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            Exp(norm, norm, static_cast<int32_t>(n));
            PipeBarrier<PIPE_V>();
            ReduceSum(red, norm, tmp, static_cast<int32_t>(n));
            WaitPipe<HardEvent::V_S>();
            const float rowSum = red.GetValue(0);
            WaitPipe<HardEvent::S_V>();
            Muls(norm, norm, 1.0f / rowSum, static_cast<int32_t>(n));
        }
        PipeBarrier<PIPE_V>();
        Add(selBuf_.Get<float>(), norm, biasBuf_.Get<float>(), static_cast<int32_t>(n));
        PipeBarrier<PIPE_V>();
        xQue_.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOutNorm(int64_t row)
    {
        LocalTensor<float> o = outQue_.AllocTensor<float>();
        DataCopy(o, normBuf_.Get<float>(), static_cast<uint32_t>(rowLen_));
        outQue_.EnQue(o);
        o = outQue_.DeQue<float>();
        DataCopyPad(outGm_[row * experts_], o, RowCopyParams(sizeof(float), true));
        outQue_.FreeTensor(o);
    }

    // ---- 4. selection: the best pairs end up at the front of topBuf_ --------------------------------
    __aicore__ inline void Select()
    {
        LocalTensor<float> sel = selBuf_.Get<float>();
        LocalTensor<uint32_t> pos = posBuf_.Get<uint32_t>();
        LocalTensor<float> top = topBuf_.Get<float>();
        LocalTensor<float> tmp = tmpBuf_.Get<float>();
        if constexpr (PATH == TILING_KEY_NO_GROUP) {
            Sort<float, true>(top, sel, pos, tmp, static_cast<int32_t>(rowLen_ / SORT_GROUP));
            PipeBarrier<PIPE_V>();
            return;
        }
        SortGroups(sel, pos, tmp);
        RankGroups(tmp);
        int64_t kept[MAX_KEPT_GROUPS];
        ReadKeptGroups(kept);
        LocalTensor<float> sorted = sortedBuf_.Get<float>();
        if constexpr (PATH == TILING_KEY_DEEPSEEK_V3) {
            // 4 kept groups of 32 sorted pairs: one 4-way merge, lists in ascending group order.
            const int64_t stride = groupLenAlign_ * PAIR_FLOATS;
            MrgSortSrcList<float> lists(sorted[kept[0] * stride], sorted[kept[1] * stride], sorted[kept[2] * stride],
                                        sorted[kept[3] * stride]);
            MrgSort4Info info;
            for (int32_t i = 0; i < 4; ++i) {
                info.elementLengths[i] = static_cast<uint16_t>(groupLen_);
            }
            info.ifExhaustedSuspension = false;
            info.validBit = 0b1111;
            info.repeatTimes = 1;
            MrgSort(top, lists, info);
        } else {
            // The kept groups' scores and positions side by side, in ascending group order, then one
            // Sort: equal scores stay in input order, i.e. the lower expert first.
            LocalTensor<float> candScore = candScoreBuf_.Get<float>();
            LocalTensor<uint32_t> candPos = candPosBuf_.Get<uint32_t>();
            const uint32_t len = static_cast<uint32_t>(groupLenAlign_);
            for (int64_t i = 0; i < t_.kGroup; ++i) {
                DataCopy(candScore[i * groupLenAlign_], sel[kept[i] * groupLenAlign_], len);
                DataCopy(candPos[i * groupLenAlign_], pos[kept[i] * groupLenAlign_], len);
            }
            PipeBarrier<PIPE_V>();
            Sort<float, true>(top, candScore, candPos, tmp,
                              static_cast<int32_t>(t_.kGroup * groupLenAlign_ / SORT_GROUP));
        }
        PipeBarrier<PIPE_V>();
    }

    // Sort every group of the padded row on its own: sortedBuf_ holds groups of sorted pairs.
    __aicore__ inline void SortGroups(const LocalTensor<float>& sel, const LocalTensor<uint32_t>& pos,
                                      LocalTensor<float>& tmp)
    {
        LocalTensor<float> sorted = sortedBuf_.Get<float>();
        if (groupLenAlign_ == SORT_GROUP) {
            Sort32(sorted, sel, pos, static_cast<int32_t>(groups_));
        } else {
            for (int64_t g = 0; g < groups_; ++g) {
                Sort<float, true>(sorted[g * groupLenAlign_ * PAIR_FLOATS], sel[g * groupLenAlign_],
                                  pos[g * groupLenAlign_], tmp, static_cast<int32_t>(groupLenAlign_ / SORT_GROUP));
                PipeBarrier<PIPE_V>();
            }
        }
        PipeBarrier<PIPE_V>();
    }

    // Group scores (max, or sum of the top 2) and the groups sorted by them, best first.
    __aicore__ inline void RankGroups(LocalTensor<float>& tmp)
    {
        LocalTensor<float> sorted = sortedBuf_.Get<float>();
        LocalTensor<uint32_t> pattern = groupBuf_.template GetWithOffset<uint32_t>(PATTERN_BYTES / sizeof(uint32_t), 0);
        LocalTensor<float> score = GroupScore();
        const int64_t groupCountAlign = t_.groupCountAlign;
        uint64_t kept = 0;
        // Counter mode: 64 floats (32 pairs) per group, groups a padded group apart.
        GatherMaskParams params{1, static_cast<uint16_t>(groups_),
                                static_cast<uint16_t>(groupLenAlign_ * PAIR_FLOATS * sizeof(float) / BLOCK_BYTES), 0};
        if (t_.groupSelectMode == 1) {
            LocalTensor<float> gathered = Gathered();
            GatherMask(gathered, sorted, pattern, true, SORTED_LANES, params, kept);
            PipeBarrier<PIPE_V>();
            const int64_t lanes = groups_ * 2;
            PairReduceSum(score, gathered, static_cast<int32_t>((lanes + PAIR_LANES - 1) / PAIR_LANES),
                          static_cast<int32_t>(lanes < PAIR_LANES ? lanes : PAIR_LANES), 1, 1, 8);
        } else {
            GatherMask(score, sorted, pattern, true, SORTED_LANES, params, kept);
        }
        PipeBarrier<PIPE_V>();
        if (groups_ < groupCountAlign) {  // groups past G rank last
            const uint64_t upto = groupCountAlign >= 64 ? ~0ULL : ((1ULL << groupCountAlign) - 1);
            uint64_t mask[2] = {upto & ~((1ULL << groups_) - 1), 0};
            Duplicate(score.template ReinterpretCast<uint32_t>(), NEG_INF_F32, mask, 1, 1, 8);
            PipeBarrier<PIPE_V>();
        }
        LocalTensor<uint32_t> index = GroupIndex().template ReinterpretCast<uint32_t>();
        if (groupCountAlign == SORT_GROUP) {
            Sort32(GroupSorted(), score, index, 1);
        } else {
            LocalTensor<float> groupSorted = GroupSorted();
            Sort<float, true>(groupSorted, score, index, tmp, static_cast<int32_t>(groupCountAlign / SORT_GROUP));
        }
        PipeBarrier<PIPE_V>();
    }

    // The k_group best groups, read by the scalar unit and put in ascending order.
    __aicore__ inline void ReadKeptGroups(int64_t* kept)
    {
        LocalTensor<uint32_t> ranked = GroupSorted().template ReinterpretCast<uint32_t>();
        WaitPipe<HardEvent::V_S>();
        for (int64_t i = 0; i < t_.kGroup; ++i) {
            const int64_t g = static_cast<int64_t>(ranked.GetValue(static_cast<uint32_t>(i * PAIR_FLOATS + 1)));
            int64_t j = i;
            while (j > 0 && kept[j - 1] > g) {
                kept[j] = kept[j - 1];
                --j;
            }
            kept[j] = g;
        }
        WaitPipe<HardEvent::S_V>();
    }

    // ---- 5. the k best: positions, weights, expert ids ----------------------------------------------
    __aicore__ inline void ComputeWeights()
    {
        const uint32_t kAlign = static_cast<uint32_t>(t_.kAlign);
        LocalTensor<uint32_t> picked = pickBuf_.template GetWithOffset<uint32_t>(kAlign, 0);
        LocalTensor<int32_t> offsets = pickBuf_.template GetWithOffset<int32_t>(kAlign, kAlign * sizeof(float));
        LocalTensor<float> weights = pickBuf_.template GetWithOffset<float>(kAlign, kAlign * sizeof(float) * 2);
        LocalTensor<float> divisor = pickBuf_.template GetWithOffset<float>(kAlign, kAlign * sizeof(float) * 3);
        const int32_t k = static_cast<int32_t>(k_);
        uint64_t kept = 0;
        // The index halves of the first kAlign pairs: 32 pairs (256 bytes) per repeat.
        GatherMask(picked, topBuf_.Get<float>().template ReinterpretCast<uint32_t>(), PATTERN_ODD, false, 0U,
                   GatherMaskParams{1, static_cast<uint16_t>(kAlign / SORT_GROUP), 8, 0}, kept);
        PipeBarrier<PIPE_V>();
        Muls(offsets, picked.template ReinterpretCast<int32_t>(), static_cast<int32_t>(sizeof(float)), k);
        PipeBarrier<PIPE_V>();
        Gather(weights, normBuf_.Get<float>(), offsets.template ReinterpretCast<uint32_t>(), 0U, static_cast<uint32_t>(k));
        PipeBarrier<PIPE_V>();
        if (t_.normType == 1) {  // renormalise the chosen sigmoid scores (not done for softmax)
            LocalTensor<float> red = reduceBuf_.Get<float>();
            ReduceSum(red, weights, tmpBuf_.Get<float>(), k);
            WaitPipe<HardEvent::V_S>();
            const float sum = red.GetValue(0) + t_.eps;
            WaitPipe<HardEvent::S_V>();
            Duplicate(divisor, sum, k);
            PipeBarrier<PIPE_V>();
            Div(weights, weights, divisor, k);
            PipeBarrier<PIPE_V>();
        }
        LocalTensor<T> yOut = yQue_.AllocTensor<T>();
        if constexpr (IsSameType<T, float>::value) {
            Muls(yOut, weights, t_.routedScalingFactor, k);
        } else {
            Muls(weights, weights, t_.routedScalingFactor, k);
            PipeBarrier<PIPE_V>();
            Cast(yOut, weights, RoundMode::CAST_RINT, static_cast<uint32_t>(k));
        }
        yQue_.EnQue(yOut);

        LocalTensor<int32_t> idxOut = idxQue_.AllocTensor<int32_t>();
        if constexpr (PATH == TILING_KEY_GENERAL) {
            Gather(idxOut, expertIdBuf_.Get<int32_t>(), offsets.template ReinterpretCast<uint32_t>(), 0U,
                   static_cast<uint32_t>(k));
        } else {  // one group, or groups without padding: the position is the expert id
            Adds(idxOut, picked.template ReinterpretCast<int32_t>(), static_cast<int32_t>(0), k);
        }
        idxQue_.EnQue(idxOut);
    }

    // ---- 6. out ---------------------------------------------------------------------------------------
    __aicore__ inline void CopyOut(int64_t row)
    {
        LocalTensor<T> yOut = yQue_.DeQue<T>();
        DataCopyPad(yGm_[row * k_], yOut, DataCopyExtParams{1, static_cast<uint32_t>(k_ * sizeof(T)), 0, 0, 0});
        yQue_.FreeTensor(yOut);
        LocalTensor<int32_t> idxOut = idxQue_.DeQue<int32_t>();
        DataCopyPad(idxGm_[row * k_], idxOut, DataCopyExtParams{1, static_cast<uint32_t>(k_ * sizeof(int32_t)), 0, 0, 0});
        idxQue_.FreeTensor(idxOut);
    }

    MoeGatingTopKTilingData t_;
    TPipe* pipe_ = nullptr;
    TQue<QuePosition::VECIN, 2> xQue_;      // rows: float32 view, fp16/bf16 staging after it
    TQue<QuePosition::VECOUT, 1> yQue_;     // k weights in y's dtype
    TQue<QuePosition::VECOUT, 1> idxQue_;   // k expert ids
    TQue<QuePosition::VECOUT, 1> outQue_;   // the norm of one row (out_flag)
    TBuf<TPosition::VECCALC> biasBuf_;      // bias (or 0) with -inf pads, float32
    TBuf<TPosition::VECCALC> posBuf_;       // 0, 1, 2, ...: positions in the padded layout
    TBuf<TPosition::VECCALC> normBuf_;      // sigmoid/softmax of the row
    TBuf<TPosition::VECCALC> selBuf_;       // norm + bias: the selection scores
    TBuf<TPosition::VECCALC> sortedBuf_;    // every group sorted: (score, position) pairs
    TBuf<TPosition::VECCALC> groupBuf_;     // pattern, gathered scores, group scores, ids, ranking
    TBuf<TPosition::VECCALC> candScoreBuf_; // general path: the kept groups' scores side by side
    TBuf<TPosition::VECCALC> candPosBuf_;   // ... and their positions
    TBuf<TPosition::VECCALC> expertIdBuf_;  // general path: expert id of every padded position
    TBuf<TPosition::VECCALC> topBuf_;       // the final sorted (score, position) pairs
    TBuf<TPosition::VECCALC> pickBuf_;      // positions, byte offsets, weights, divisor of the k best
    TBuf<TPosition::VECCALC> reduceBuf_;    // ReduceMax / ReduceSum result
    TBuf<TPosition::VECCALC> tmpBuf_;       // scratch of Sigmoid, Sort, ReduceMax, ReduceSum
    GlobalTensor<T> xGm_;
    GlobalTensor<T> biasGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<int32_t> idxGm_;
    GlobalTensor<float> outGm_;
    int64_t rows_ = 0;
    int64_t experts_ = 0;
    int64_t k_ = 0;
    int64_t rowLen_ = 0;
    int64_t groups_ = 0;
    int64_t groupLen_ = 0;
    int64_t groupLenAlign_ = 0;
};
}  // namespace MoeGatingTopKKernel

#endif  // MOE_GATING_TOP_K_H
