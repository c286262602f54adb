// FlashAttentionScore: the kernel class, a mix kernel (AIC:AIV = 1:2). Per task of one (batch, query
// head, block of s1Base query rows), a vector core walks the S2 blocks of s2Base columns that the band
// leaves and, per block,
//
//   1. bmm1 (its cube core, Matmul API): S = (scale * Q)[rows, D] x K[cols, D]^T -> fp32 GM workspace -> UB
//      when scale * Q is exact in the input dtype (fp32, or a power-of-two scale): the scale folded into the
//      task's query rows once (ScaleQ) instead of a pass over every score block; else S * scale on the scores
//   2. vector: + pse (scale * the given tensor cast to fp32 for pse_type 1, as is for 0, or
//      -slope * |dist| (sqrt for type 3) from a column-index row with Adds/Abs/Sqrt/Muls), the band
//      (each row's masked range by Duplicate) on the chunks it crosses, the given mask (SelectWithBytesMask),
//      then the online softmax in SoftmaxFlashV2's update form, from basic instructions
//      (flash_attention_score_softmax.h): max' = max(max, rowmax S), P = exp(S - max'),
//      expMax = exp(max - max'), sum' = expMax * sum + rowsum P; acc *= expMax (one mask/repeat Mul
//      per 64 columns, the row value broadcast by block stride 0)
//   3. DropOut on P (bit mode, the drop_mask rows copied or realigned into padded rows), P cast to the
//      input dtype -> GM workspace; bmm2 (cube): P[rows, cols] x V[cols, D2] -> fp32 GM; acc += that
//
// and at the end acc * (1 / sum), with the invalid-row result for a row that every column masks (0,
// softmax_max -FLT_MAX, softmax_sum FLT_MAX: CompareScalar on the maxima and Select), and max / sum as
// SoftmaxFlashV2 keeps them (8 floats per row) copied out. No scalar math touches an element. Layouts
// are read through strides (tiling data), so BSH/SBH/BSND/BNSD/TND are one code path.
#ifndef FLASH_ATTENTION_SCORE_H
#define FLASH_ATTENTION_SCORE_H

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "lib/filter/dropout.h"
#include "lib/index/arithprogression.h"
#include "lib/select/selectwithbytesmask.h"
#include "flash_attention_score_tiling_data.h"
#include "flash_attention_score_softmax.h"

namespace FasKernel {
using namespace AscendC;

constexpr float POS_MAX = 3.4028234663852886e38f;
constexpr int64_t INF_TOKENS = 2147483647;

template <typename V>
__aicore__ inline float ToF(V v)
{
    if constexpr (IsSameType<V, float>::value) {
        return v;
    } else if constexpr (IsSameType<V, bfloat16_t>::value) {
        return ToFloat(v);
    } else {
        return static_cast<float>(v);
    }
}

template <typename T, typename PT>
class FlashAttentionScore {
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
    // K and V are IBShare (the two vector cores of an AIC walk the same blocks of them: RunTask)
    using BType = MatmulType<TPosition::GM, CubeFormat::ND, T, false, LayoutMode::NONE, true>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

public:
    Matmul<AType, BType, CType, BiasType, CFG_IBSHARE_NORM> mm1;
    Matmul<AType, BType, CType, BiasType, CFG_IBSHARE_NORM> mm2;

    __aicore__ inline void Init(GM_ADDR q, GM_ADDR k, GM_ADDR v, GM_ADDR pse, GM_ADDR drop, GM_ADDR mask,
                                GM_ADDR smMax, GM_ADDR smSum, GM_ADDR out, GM_ADDR ws,
                                const FlashAttentionScoreTilingData& t, TPipe* pipe)
    {
        t_ = t;
        core_ = GetBlockIdx();
        qGm_.SetGlobalBuffer((__gm__ T*)q);
        kGm_.SetGlobalBuffer((__gm__ T*)k);
        vGm_.SetGlobalBuffer((__gm__ T*)v);
        pseGm_.SetGlobalBuffer((__gm__ PT*)pse);
        dropGm_.SetGlobalBuffer((__gm__ uint8_t*)drop);
        maskGm_.SetGlobalBuffer((__gm__ uint8_t*)mask);
        maxGm_.SetGlobalBuffer((__gm__ float*)smMax);
        sumGm_.SetGlobalBuffer((__gm__ float*)smSum);
        outGm_.SetGlobalBuffer((__gm__ T*)out);
        tile_ = t_.s1Base * t_.s2Base;
        qPitch_ = (t_.D * static_cast<uint32_t>(sizeof(T)) + 31) / 32 * 32 / static_cast<uint32_t>(sizeof(T));
        // workspace of this vector core: two sets (ping-pong) of the fp32 score tile, the P tile and the
        // fp32 P V step, so that the cube works on block i + 1 / i - 1 while the vector core is on block i,
        // then the task's query rows times the scale (s1Base x dAlign of the input dtype)
        const uint64_t per = static_cast<uint64_t>(tile_) * (sizeof(float) + sizeof(T)) +
                             static_cast<uint64_t>(t_.s1Base) * t_.d2Align * sizeof(float);
        const uint64_t qsBytes = static_cast<uint64_t>(t_.s1Base) * t_.dAlign * sizeof(T);
        qsGm_.SetGlobalBuffer((__gm__ T*)(ws + (2 * per + qsBytes) * core_ + 2 * per), t_.s1Base * qPitch_);
        for (uint32_t k = 0; k < 2; ++k) {
            GM_ADDR mine = ws + (2 * per + qsBytes) * core_ + per * k;
            scoreGm_[k].SetGlobalBuffer((__gm__ float*)mine, tile_);
            pGm_[k].SetGlobalBuffer((__gm__ T*)(mine + tile_ * sizeof(float)), tile_);
            pvGm_[k].SetGlobalBuffer((__gm__ float*)(mine + tile_ * (sizeof(float) + sizeof(T))),
                                     t_.s1Base * t_.d2Align);
        }
        // UB: two score chunks and two P chunks of vecRows x s2Base (a chunk is copied in while the other is
        // worked on; the P V rows and the output rows pass through them too), the accumulator, the statistics
        chunk_ = t_.vecRows * t_.s2Base;
        pipe->InitBuffer(scBuf_, 2 * chunk_ * sizeof(float));
        pipe->InitBuffer(pBuf_, 2 * chunk_ * sizeof(T));
        pipe->InitBuffer(accBuf_, t_.s1Base * t_.d2Align * sizeof(float));
        pipe->InitBuffer(statBuf_, t_.s1Base * 8 * sizeof(float) * 6);  // max x2, sum x2, expMax, 1 / sum
        pipe->InitBuffer(selBuf_, (t_.s1Base + 31) / 32 * 32);
        pipe->InitBuffer(tmpBuf_, t_.smTmpBytes);
        tmp_ = tmpBuf_.Get<uint8_t>();
        Duplicate(tmp_.ReinterpretCast<float>(), 0.0f, t_.smTmpBytes / 4);  // the row reductions' padding rows
        pseRowPitch_ = t_.S2;
        if (t_.auxRows != 0) {
            // the mask / pse / dropout buffers, written once so that the padding of later partial
            // copies is defined
            const uint32_t cells = t_.auxRows * t_.s2Base;
            pipe->InitBuffer(auxFBuf_, cells * sizeof(float));
            pipe->InitBuffer(auxHBuf_, cells * sizeof(half));
            pipe->InitBuffer(bitBuf_, t_.auxRows * t_.bitPitch);
            pipe->InitBuffer(idxBuf_, t_.s2Base * sizeof(float));
            auxF_ = auxFBuf_.Get<float>();
            idx_ = idxBuf_.Get<float>();
            Duplicate(auxF_, 0.0f, cells);
            Duplicate(auxHBuf_.Get<half>(), half(0), cells);
            Duplicate(bitBuf_.Get<half>(), half(0), t_.auxRows * t_.bitPitch / 2);
            PipeBarrier<PIPE_ALL>();
        }
    }

    __aicore__ inline void Process()
    {
        if (core_ < t_.coreNum) {  // the two vector cores of AIC block g take the two tasks of each of its pairs
            const uint32_t g = core_ / 2;
            Task cur = Setup(t_.taskStart[g], core_ % 2);
            int32_t posted = -1;  // the workspace set of the current task's first bmm1, posted by the task before
            for (uint32_t pair = t_.taskStart[g]; pair < t_.taskStart[g + 1]; ++pair) {
                const bool hasNext = pair + 1 < t_.taskStart[g + 1];
                const Task next = Setup(hasNext ? pair + 1 : pair, core_ % 2);
                posted = cur.valid ? RunTask(cur, hasNext ? &next : nullptr, posted) : -1;
                cur = next;
            }
        }
        mm1.End();
        mm2.End();
    }

private:
    __aicore__ inline int64_t Cum(const int64_t* c, int64_t b) const { return b == 0 ? 0 : c[b - 1]; }

    // One task: rows [r0, r0 + m) of one (batch, head), its operands' offsets and the columns [lo, hi] its pair's band
    // leaves (first: the first S2 block). valid: the task exists (a pair's second block may not: an odd number of
    // S1 blocks).
    struct Task {
        bool valid;
        int64_t b, head, r0, m, s1, s2, pre, next, lo, hi, first;
        uint64_t qOff, kOff, vOff, oBase;
    };

    // Task `sub` (0 or 1) of pair `pair`: S1 blocks 2q and 2q + 1 of one (batch, head). Both vector cores of the AIC
    // walk the S2 blocks the band leaves to either block of the pair, in the same order, so that their bmm1 and bmm2
    // read the same K and V blocks one after the other (IBShare: one copy into L1 serves both); the part of a block
    // outside one task's own band is masked for it (MaskBlock), and a row's exp(s - max') weights of a block with
    // nothing valid for it are zeroed by the next valid block's rescale, or leave the row invalid.
    __aicore__ inline Task Setup(uint32_t pair, uint32_t sub) const
    {
        Task k{};
        // pair -> (batch, head, first row of the pair)
        const bool tnd = t_.layout == fas::LAYOUT_TND;
        int64_t b = 0, s1 = t_.S1, s2 = t_.S2;
        const int64_t pairRows = 2 * static_cast<int64_t>(t_.s1Base);
        uint32_t rest = pair;
        for (b = 0; b < static_cast<int64_t>(t_.B); ++b) {
            if (tnd) {
                s1 = t_.cumQ[b] - Cum(t_.cumQ, b);
                s2 = t_.cumKv[b] - Cum(t_.cumKv, b);
            }
            const uint32_t n = t_.N1 * static_cast<uint32_t>((s1 + pairRows - 1) / pairRows);
            if (rest < n) {
                break;
            }
            rest -= n;
        }
        if (b >= static_cast<int64_t>(t_.B)) {
            return k;
        }
        const uint32_t pairsS1 = static_cast<uint32_t>((s1 + pairRows - 1) / pairRows);
        k.head = rest / pairsS1;
        const int64_t p0 = static_cast<int64_t>(rest % pairsS1) * pairRows;  // the pair's first row
        const int64_t pm = s1 - p0 < pairRows ? s1 - p0 : pairRows;          // and its rows
        k.r0 = p0 + static_cast<int64_t>(sub) * t_.s1Base;
        if (k.r0 >= s1) {
            return k;  // the pair's second block does not exist (an odd number of S1 blocks)
        }
        k.valid = true;
        k.b = b;
        k.s1 = s1;
        k.s2 = s2;
        k.m = s1 - k.r0 < t_.s1Base ? s1 - k.r0 : t_.s1Base;
        const int64_t kvHead = k.head / t_.G;
        const uint64_t qBase = tnd ? Cum(t_.cumQ, b) * t_.qStrideS : b * t_.qStrideB;
        const uint64_t kBase = tnd ? Cum(t_.cumKv, b) * t_.kStrideS : b * t_.kStrideB;
        const uint64_t vBase = tnd ? Cum(t_.cumKv, b) * t_.vStrideS : b * t_.vStrideB;
        k.oBase = (tnd ? Cum(t_.cumQ, b) * t_.oStrideS : b * t_.oStrideB) + k.head * t_.oStrideN;
        k.qOff = qBase + k.head * t_.qStrideN + k.r0 * t_.qStrideS;
        k.kOff = kBase + kvHead * t_.kStrideN;
        k.vOff = vBase + kvHead * t_.vStrideN;
        // the band of this batch, counted from the top-left corner
        k.pre = t_.preTokens;
        k.next = t_.nextTokens;
        if (t_.sparseMode == 3) {
            k.pre = INF_TOKENS;
            k.next = s2 - s1;
        } else if (t_.sparseMode == 4) {
            k.pre = t_.preTokens - (s2 - s1);
            k.next = t_.nextTokens + (s2 - s1);
        }
        const bool band = t_.maskShape != fas::MASK_NONE && t_.sparseMode != 1;
        k.lo = 0;
        k.hi = s2 - 1;
        if (band) {  // the columns the band leaves to the pair's rows
            k.lo = p0 - k.pre > 0 ? p0 - k.pre : 0;
            k.hi = p0 + pm - 1 + k.next < s2 - 1 ? p0 + pm - 1 + k.next : s2 - 1;
        }
        const int64_t s2Base = t_.s2Base;
        k.first = k.lo >= 0 && k.lo <= k.hi ? (k.lo / s2Base) * s2Base : s2;
        return k;
    }

    // Runs task `tk`. `posted`: the workspace set of its first bmm1 when the task before posted it (else -1). With
    // `nx`, the next task of this vector core, the last step posts the next task's first bmm1 (when its query rows
    // need no scaling pass, which uses the chunk buffers) into the workspace set this task's last block leaves free,
    // so the cube computes it under the last step's vector work; returns that set, or -1.
    __aicore__ inline int32_t RunTask(const Task& tk, const Task* nx, int32_t posted)
    {
        const int64_t b = tk.b, head = tk.head, r0 = tk.r0, m = tk.m, s1 = tk.s1, s2 = tk.s2;
        const int64_t pre = tk.pre, next = tk.next, hi = tk.hi, first = tk.first;
        const uint64_t qOff = tk.qOff, kOff = tk.kOff, vOff = tk.vOff;
        const bool prefetch = nx != nullptr && nx->valid && nx->first <= nx->hi && t_.foldScale == 0;
        LocalTensor<float> acc = accBuf_.Get<float>();
        LocalTensor<float> st = statBuf_.Get<float>();
        const uint32_t rowv = t_.s1Base * 8;  // per-row values: one 32-byte block (8 floats) per row
        LocalTensor<float> maxT[2] = {st, st[rowv]};
        LocalTensor<float> sumT[2] = {st[2 * rowv], st[3 * rowv]};
        LocalTensor<float> expMax = st[4 * rowv];
        const uint32_t accLen = t_.s1Base * t_.d2Align;
        Duplicate(acc, 0.0f, accLen);
        Duplicate(st, NEG_MAX, 2 * rowv);          // both max buffers: rows past m stay defined
        Duplicate(sumT[0], 0.0f, 2 * rowv);
        uint32_t cur = 0;
        const int64_t s2Base = t_.s2Base;
        // The software pipeline over the S2 blocks c0 = first, first + s2Base, ... <= hi (index i), workspace
        // sets alternating with i (starting at set 1 when the first bmm1 came from the task before). At the top of step i the vector core posts bmm2(i - 1) (its P is in GM) and,
        // once the scores of block i are there, bmm1(i + 1), so the cube works on both while the vector core
        // walks block i chunk by chunk: scale, pse, mask, the online softmax, dropout, P to GM. Then acc +=
        // PV(i - 1) and acc *= expMax(i): acc holds the blocks before i - 1 scaled to the running max of block
        // i - 1 when PV(i - 1) is added. The last PV is added after the loop.
        const Dims mk{m, qOff, kOff, vOff};
        uint32_t k = posted >= 0 ? static_cast<uint32_t>(posted) : 0u;
        if (first <= hi && posted < 0) {
            if (t_.foldScale != 0) {
                ScaleQ(qOff, m);
            }
            PostBmm1(mk, first, s2, hi, k);
        }
        int32_t prefetched = -1;
        // Inside the vector core the pipes hand the UB chunks over by event flags, not barriers, so the
        // copies (MTE2 in, MTE3 out) overlap the vector work: per chunk buffer u (0, 1) MTE2 -> V (loaded),
        // V -> MTE2 (free), V -> MTE3 (P ready), MTE3 -> V (P copied out).
        busy_ = Busy{};
        PipeBarrier<PIPE_ALL>();
        const int64_t vr = t_.vecRows;
        const int64_t chunks = (m + vr - 1) / vr;
        Post post{false, 0, 0, 0};  // bmm2 of the previous block
        for (int64_t c0 = first; c0 <= hi; c0 += s2Base, k ^= 1u) {
            const int64_t n = s2 - c0 < s2Base ? s2 - c0 : s2Base;
            // the columns the pair's band reaches (the rest of the block is masked for both tasks) and the width
            // the vector core works on: the row pitch of the block's chunks in UB
            const int64_t nv = hi + 1 - c0 < n ? hi + 1 - c0 : n;
            const int64_t w = nv <= 128 ? 128 : (nv + 63) / 64 * 64;  // the row reductions fold 64-column halves
            if (post.on) {
                PostBmm2(post, m, vOff);
            }
            mm1.WaitIterateAll();
            if (c0 + s2Base <= hi || prefetch) {
                // bmm1 overwrites the scores of block i - 1: the vector core's copies of them are done
                SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
                WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
                if (c0 + s2Base <= hi) {
                    PostBmm1(mk, c0 + s2Base, s2, hi, k ^ 1u);
                } else {  // the last step: the next task's first bmm1, into the set this block leaves
                    PostBmm1(Dims{nx->m, nx->qOff, nx->kOff, nx->vOff}, nx->first, nx->s2, nx->hi, k ^ 1u);
                    prefetched = static_cast<int32_t>(k ^ 1u);
                }
            }
            const bool pseAdd = t_.pseShape != fas::PSE_NONE;
            if (SlopePse()) {  // AddPse's distances
                ArithProgression<float>(idx_, static_cast<float>(c0), 1.0f, static_cast<int32_t>(s2Base));
                PipeBarrier<PIPE_V>();
            }
            LoadChunk(scoreGm_[k], 0, vr, s2Base, w, m);
            for (int64_t q = 0; q < chunks; ++q) {
                const int64_t i0 = q * vr, rows = m - i0 < vr ? m - i0 : vr;
                const uint32_t u = static_cast<uint32_t>(q & 1);
                if (q + 1 < chunks) {
                    LoadChunk(scoreGm_[k], q + 1, vr, s2Base, w, m);
                }
                LocalTensor<float> x = scBuf_.Get<float>()[u * chunk_];
                const uint32_t st0 = static_cast<uint32_t>(i0 * 8);
                WaitFlag<HardEvent::MTE2_V>(static_cast<event_t>(u));
                // scale, pse, mask, then the online softmax (SoftmaxFlashV2's update form): max' = max(max, rowmax S),
                // P = exp(S - max'), expMax = exp(max - max'), sum' = expMax * sum + rowsum P
                const Block blk{b, head, r0 + i0, rows, c0, nv, s1, s2, w};
                if (t_.foldScale != 0) {
                    if (pseAdd) {  // the scores come scaled (ScaleQ): pse_type 1 adds scale * pse
                        AddPse(x, blk);
                    }
                } else {
                    if (pseAdd && t_.pseType == 1) {
                        AddPse(x, blk);
                    }
                    Muls(x, x, t_.scale, static_cast<uint32_t>(rows * w));
                    PipeBarrier<PIPE_V>();  // what reads or rewrites x next depends on it
                    if (pseAdd && t_.pseType != 1) {
                        AddPse(x, blk);
                    }
                }
                MaskBlock(x, blk, pre, next);
                const Stats in{maxT[cur][st0], sumT[cur][st0]}, out{maxT[1 - cur][st0], sumT[1 - cur][st0]};
                // the P buffer is the row reductions' scratch until P is written: its last copy out is done
                LocalTensor<T> p = pBuf_.Get<T>()[u * chunk_];
                if (busy_.p[u]) {
                    WaitFlag<HardEvent::MTE3_V>(static_cast<event_t>(u));
                }
                OnlineSoftmax(x, static_cast<uint32_t>(rows), nv, static_cast<uint32_t>(w), in, out, expMax[st0], tmp_,
                              p.template ReinterpretCast<float>());
                // dropout, P to the input dtype -> GM
                if (t_.hasDrop) {
                    Dropout(x, blk);
                }
                if constexpr (IsSameType<T, float>::value) {
                    DataCopy(p, x, static_cast<uint32_t>(rows * w));
                } else {
                    Cast(p, x, RoundMode::CAST_RINT, static_cast<uint32_t>(rows * w));
                }
                SetFlag<HardEvent::V_MTE2>(static_cast<event_t>(u));
                busy_.sc[u] = true;
                SetFlag<HardEvent::V_MTE3>(static_cast<event_t>(u));
                WaitFlag<HardEvent::V_MTE3>(static_cast<event_t>(u));
                const uint16_t pBlocks = static_cast<uint16_t>(w * sizeof(T) / 32);
                DataCopy(pGm_[k][i0 * s2Base], p,
                         DataCopyParams(static_cast<uint16_t>(rows), pBlocks, 0,
                                        static_cast<uint16_t>((s2Base - w) * sizeof(T) / 32)));
                SetFlag<HardEvent::MTE3_V>(static_cast<event_t>(u));
                busy_.p[u] = true;
            }
            cur = 1 - cur;
            // the previous block's P V, then the rescale of everything so far to this block's max
            if (post.on) {
                AddPv(acc, m, post.k);
            }
            RowMul(acc, expMax, static_cast<uint32_t>(m));
            post = Post{true, k, c0, nv};
        }
        if (post.on) {
            PostBmm2(post, m, vOff);
            AddPv(acc, m, post.k);
        }
        // the flags still set
        for (uint32_t u = 0; u < 2; ++u) {
            if (busy_.sc[u]) {
                WaitFlag<HardEvent::V_MTE2>(static_cast<event_t>(u));
            }
            if (busy_.p[u]) {
                WaitFlag<HardEvent::MTE3_V>(static_cast<event_t>(u));
            }
        }
        busy_ = Busy{};
        PipeBarrier<PIPE_ALL>();
        Finish(acc, maxT[cur], sumT[cur], b, head, r0, m, tk.oBase);
        return prefetched;
    }

    // which UB chunks a later copy must wait for (a flag of the other pipe is set): the score chunks (V -> MTE2)
    // and the P chunks (MTE3 -> V)
    struct Busy {
        bool sc[2] = {false, false};
        bool p[2] = {false, false};
    };

    // chunk q of a workspace block (rowsPer rows a chunk, rows `gmPitch` elements apart, of the task's m) -> score
    // chunk buffer q % 2, the first `width` elements of each row, densely, once the vector core is done with that
    // buffer; MTE2 -> V is set when it is in
    __aicore__ inline void LoadChunk(const GlobalTensor<float>& src, int64_t q, int64_t rowsPer, int64_t gmPitch,
                                     int64_t width, int64_t m)
    {
        const int64_t i0 = q * rowsPer, rows = m - i0 < rowsPer ? m - i0 : rowsPer;
        const uint32_t u = static_cast<uint32_t>(q & 1);
        if (busy_.sc[u]) {
            WaitFlag<HardEvent::V_MTE2>(static_cast<event_t>(u));
            busy_.sc[u] = false;
        }
        LocalTensor<float> dst = scBuf_.Get<float>()[u * chunk_];
        if (width == gmPitch) {
            DataCopy(dst, src[i0 * gmPitch], static_cast<uint32_t>(rows * width));
        } else {
            DataCopy(dst, src[i0 * gmPitch],
                     DataCopyParams(static_cast<uint16_t>(rows), static_cast<uint16_t>(width * 4 / 32),
                                    static_cast<uint16_t>((gmPitch - width) * 4 / 32), 0));
        }
        SetFlag<HardEvent::MTE2_V>(static_cast<event_t>(u));
    }

    // rows and operand offsets of a task
    struct Dims {
        int64_t m;
        uint64_t qOff, kOff, vOff;
    };

    // bmm1 of the block at column c0 into workspace set k, posted without waiting: the columns the band reaches
    // (hi: the pair's last), rows s2Base apart
    __aicore__ inline void PostBmm1(const Dims& d, int64_t c0, int64_t s2, int64_t hi, uint32_t k)
    {
        int64_t n = s2 - c0 < t_.s2Base ? s2 - c0 : t_.s2Base;
        n = hi + 1 - c0 < n ? hi + 1 - c0 : n;
        const bool folded = t_.foldScale != 0;
        mm1.SetOrgShape(static_cast<int>(d.m), static_cast<int>(n), static_cast<int>(folded ? qPitch_ : t_.qStrideS),
                        static_cast<int>(t_.kStrideS), static_cast<int>(t_.s2Base));
        mm1.SetTensorA(folded ? qsGm_ : qGm_[d.qOff]);
        mm1.SetTensorB(kGm_[d.kOff + c0 * t_.kStrideS], true);
        mm1.SetTail(static_cast<int>(d.m), static_cast<int>(n), static_cast<int>(t_.D));
        mm1.template IterateAll<false>(scoreGm_[k], 0, false, true);
    }

    // the task's m query rows times the scale -> qsGm_ (rows of qPitch_), the A operand of every bmm1 of the
    // task: one pass over m x D instead of one over every m x s2Base score block. Through the score tile
    // (fp32) and the P tile (input dtype), in chunks of rows that fit them; the rounding of scale * Q to the
    // input dtype is the only difference from scaling the fp32 scores.
    __aicore__ inline void ScaleQ(uint64_t qOff, int64_t m)
    {
        LocalTensor<float> f = scBuf_.Get<float>();
        LocalTensor<T> h = pBuf_.Get<T>();
        const int64_t chunk = 2 * static_cast<int64_t>(chunk_) / qPitch_;  // rows through the chunk buffers
        for (int64_t i0 = 0; i0 < m; i0 += chunk) {
            const uint32_t rows = static_cast<uint32_t>(m - i0 < chunk ? m - i0 : chunk);
            const uint32_t cnt = rows * qPitch_;
            if constexpr (IsSameType<T, float>::value) {
                LoadRows(f, qGm_[qOff + i0 * t_.qStrideS], rows, t_.D, t_.qStrideS, qPitch_);
                SetFlag<HardEvent::MTE2_V>(EVENT_ID3);
                WaitFlag<HardEvent::MTE2_V>(EVENT_ID3);
                Muls(f, f, t_.scale, cnt);
            } else {
                LoadRows(h, qGm_[qOff + i0 * t_.qStrideS], rows, t_.D, t_.qStrideS, qPitch_);
                SetFlag<HardEvent::MTE2_V>(EVENT_ID3);
                WaitFlag<HardEvent::MTE2_V>(EVENT_ID3);
                Cast(f, h, RoundMode::CAST_NONE, cnt);
                PipeBarrier<PIPE_V>();
                Muls(f, f, t_.scale, cnt);
                PipeBarrier<PIPE_V>();
                Cast(h, f, RoundMode::CAST_RINT, cnt);
            }
            SetFlag<HardEvent::V_MTE3>(EVENT_ID3);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID3);
            if constexpr (IsSameType<T, float>::value) {
                DataCopy(qsGm_[i0 * qPitch_], f, cnt);
            } else {
                DataCopy(qsGm_[i0 * qPitch_], h, cnt);
            }
            PipeBarrier<PIPE_ALL>();
        }
        SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
    }

    // wait for the P V of workspace set k and add it to the accumulator, through the score chunk buffers
    __aicore__ inline void AddPv(LocalTensor<float>& acc, int64_t m, uint32_t k)
    {
        mm2.WaitIterateAll();
        const int64_t pitch = t_.d2Align;
        const int64_t rowsPer = static_cast<int64_t>(chunk_) / pitch;
        const int64_t chunks = (m + rowsPer - 1) / rowsPer;
        LoadChunk(pvGm_[k], 0, rowsPer, pitch, pitch, m);
        for (int64_t q = 0; q < chunks; ++q) {
            const int64_t i0 = q * rowsPer, rows = m - i0 < rowsPer ? m - i0 : rowsPer;
            const uint32_t u = static_cast<uint32_t>(q & 1);
            if (q + 1 < chunks) {
                LoadChunk(pvGm_[k], q + 1, rowsPer, pitch, pitch, m);
            }
            WaitFlag<HardEvent::MTE2_V>(static_cast<event_t>(u));
            Add(acc[i0 * pitch], acc[i0 * pitch], scBuf_.Get<float>()[u * chunk_], static_cast<uint32_t>(rows * pitch));
            SetFlag<HardEvent::V_MTE2>(static_cast<event_t>(u));
            busy_.sc[u] = true;
        }
    }

    // bmm2 of a block whose P went to workspace set k: P is in GM (MTE3 done) before it is posted
    struct Post {
        bool on;
        uint32_t k;
        int64_t c0, n;
    };
    __aicore__ inline void PostBmm2(const Post& w, int64_t m, uint64_t vOff)
    {
        SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
        mm2.SetOrgShape(static_cast<int>(m), static_cast<int>(t_.vStrideS), static_cast<int>(t_.s2Base),
                        static_cast<int>(w.n), static_cast<int>(t_.d2Align));
        mm2.SetTensorA(pGm_[w.k]);
        mm2.SetTensorB(vGm_[vOff + w.c0 * t_.vStrideS]);
        mm2.SetTail(static_cast<int>(m), static_cast<int>(t_.D2), static_cast<int>(w.n));
        mm2.template IterateAll<false>(pvGm_[w.k], 0, false, true);
    }

    // one S1 x S2 block of a (batch, head): rows [r0, r0 + m), columns [c0, c0 + n) of an s1 x s2 head
    struct Block {
        int64_t b, h, r0, m, c0, n, s1, s2;
        int64_t w;  // the row pitch of the block's chunk in UB (n rounded up to 64)
    };

    // x[i, 0 : d2Align) *= v[i] for the first m rows (v: one 32-byte block per row). One mask/repeat
    // instruction per 64 columns: the repeat walks the rows, src1's block stride 0 repeats the row's
    // value over the 8 blocks of a repeat.
    __aicore__ inline void RowMul(const LocalTensor<float>& x, const LocalTensor<float>& v, uint32_t m)
    {
        const uint8_t rep = static_cast<uint8_t>(t_.d2Align / 8);
        for (uint32_t c = 0; c < t_.d2Align; c += 64) {
            const uint64_t mask = t_.d2Align - c < 64 ? t_.d2Align - c : 64;
            Mul(x[c], x[c], v, mask, static_cast<uint8_t>(m), BinaryRepeatParams(1, 1, 0, rep, rep, 1));
        }
    }

    // DataCopyPad of `rows` rows of `n` elements, `gmPitch` elements apart in GM, into UB rows of
    // `ubPitch` elements (ubPitch * sizeof(U) a multiple of 32)
    template <typename U>
    __aicore__ inline void LoadRows(const LocalTensor<U>& dst, const GlobalTensor<U>& src, uint32_t rows, uint32_t n,
                                    uint64_t gmPitch, uint32_t ubPitch)
    {
        const uint32_t bytes = n * sizeof(U);
        const uint32_t padded = (bytes + 31) / 32 * 32;
        const DataCopyExtParams p{static_cast<uint16_t>(rows), bytes, static_cast<uint32_t>((gmPitch - n) * sizeof(U)),
                                  (ubPitch * static_cast<uint32_t>(sizeof(U)) - padded) / 32, 0};
        DataCopyPad(dst, src, p, DataCopyPadExtParams<U>{false, 0, 0, U(0)});
    }

    // pse added to the block: the given [.., S1|1, S2] tensor (cast to fp32), or -slope * |dist| (pse_type
    // 3: sqrt) from the slopes, dist = j + kv_start - i - q_start, computed on the vector unit from the
    // column index row idx_ (c0, c0 + 1, ...)
    __aicore__ inline void AddPse(LocalTensor<float>& sc, const Block& k)
    {
        const int64_t s2Base = k.w;  // the chunk's row pitch
        const uint32_t rc = t_.auxRows;
        const bool slope = SlopePse();
        float sl = 0.0f;
        uint64_t head = 0;  // element of (b, h, row 0, column c0) in real_shift
        if (slope) {
            sl = ToF(pseGm_.GetValue(t_.pseShape == fas::PSE_SLOPE_BN ? k.b * t_.N1 + k.h : k.h));
        } else if (t_.pseShape == fas::PSE_BNSS) {
            head = (static_cast<uint64_t>(k.b) * t_.N1 + k.h) * k.s1 * k.s2 + k.c0;
        } else if (t_.pseShape == fas::PSE_BN1S) {
            head = (static_cast<uint64_t>(k.b) * t_.N1 + k.h) * k.s2 + k.c0;
        } else {  // PSE_1NSS
            head = static_cast<uint64_t>(k.h) * k.s1 * k.s2 + k.c0;
        }
        // scores that come scaled (ScaleQ): pse_type 1's scale * (Q K^T + pse) adds scale * pse
        const bool pre = t_.foldScale != 0 && t_.pseType == 1;
        const float f = pre ? t_.scale : 1.0f;
        if (t_.pseShape == fas::PSE_BN1S) {  // one row for every query row
            LoadPse(head, 1, k.n, s2Base);
            if (pre) {
                Muls(auxF_, auxF_, f, static_cast<uint32_t>(s2Base));
                PipeBarrier<PIPE_V>();
            }
            for (int64_t i = 0; i < k.m; ++i) {
                Add(sc[i * s2Base], sc[i * s2Base], auxF_, static_cast<uint32_t>(s2Base));
            }
            PipeBarrier<PIPE_V>();
            return;
        }
        for (int64_t i0 = 0; i0 < k.m; i0 += rc) {
            const uint32_t rows = static_cast<uint32_t>(k.m - i0 < rc ? k.m - i0 : rc);
            const uint32_t cnt = rows * static_cast<uint32_t>(s2Base);
            if (slope) {
                for (uint32_t i = 0; i < rows; ++i) {
                    const int64_t off = t_.kvStartIdx - t_.qStartIdx - (k.r0 + i0 + i);
                    Adds(auxF_[i * s2Base], idx_, static_cast<float>(off), static_cast<uint32_t>(s2Base));
                }
                PipeBarrier<PIPE_V>();
                Abs(auxF_, auxF_, cnt);
                PipeBarrier<PIPE_V>();
                if (t_.pseType == 3) {
                    Sqrt(auxF_, auxF_, cnt);
                    PipeBarrier<PIPE_V>();
                }
                Muls(auxF_, auxF_, -sl * f, cnt);
                PipeBarrier<PIPE_V>();
            } else {
                LoadPse(head + static_cast<uint64_t>(k.r0 + i0) * k.s2, rows, k.n, s2Base);
                if (pre) {
                    Muls(auxF_, auxF_, f, cnt);
                    PipeBarrier<PIPE_V>();
                }
            }
            Add(sc[i0 * s2Base], sc[i0 * s2Base], auxF_, cnt);
            PipeBarrier<PIPE_V>();
        }
    }

    // rows x n of real_shift (row pitch s2) -> auxF_ as fp32, rows `pitch` elements apart
    __aicore__ inline void LoadPse(uint64_t at, uint32_t rows, int64_t n, int64_t pitch)
    {
        const uint32_t s2Base = static_cast<uint32_t>(pitch);
        PipeBarrier<PIPE_ALL>();
        if constexpr (IsSameType<PT, float>::value) {
            LoadRows(auxF_, pseGm_[at], rows, static_cast<uint32_t>(n), pseRowPitch_, s2Base);
            PipeBarrier<PIPE_ALL>();
        } else {
            LocalTensor<PT> h = auxHBuf_.Get<PT>();
            LoadRows(h, pseGm_[at], rows, static_cast<uint32_t>(n), pseRowPitch_, s2Base);
            PipeBarrier<PIPE_ALL>();
            Cast(auxF_, h, RoundMode::CAST_NONE, rows * s2Base);
            PipeBarrier<PIPE_V>();
        }
    }

    // pse generated from slopes (types 2, 3): -slope * |dist| from the column-index row idx_
    __aicore__ inline bool SlopePse() const
    {
        return t_.pseShape == fas::PSE_SLOPE_BN || t_.pseShape == fas::PSE_SLOPE_N;
    }

    // masked scores -> -FLT_MAX. The band (modes 0, 2, 3, 4), only on the chunks it crosses: each row's
    // masked columns are one range (j > i + next) or (j < i - pre), set by Duplicate, the range's partial
    // 64-column pieces through a bit mask: no work buffer, no compare, and the rows' instructions are
    // independent (one barrier ends them). The given mask (modes 0 and 1): its bytes through
    // SelectWithBytesMask, auxRows rows a pass.
    __aicore__ inline void MaskBlock(LocalTensor<float>& sc, const Block& k, int64_t pre, int64_t next)
    {
        if (t_.maskShape == fas::MASK_NONE) {
            return;
        }
        const int64_t s2Base = k.w;  // the chunk's row pitch
        const bool band = t_.sparseMode != 1;
        const bool upper = band && (k.c0 + k.n - 1) - k.r0 > next;  // some j - i > next in the chunk
        const bool lower = band && (k.r0 + k.m - 1) - k.c0 > pre;   // some i - j > pre
        if (upper || lower) {
            for (int64_t i = 0; i < k.m; ++i) {
                const int64_t row = k.r0 + i;
                const LocalTensor<float> x = sc[i * s2Base];
                if (upper) {  // columns c0 + jj > row + next
                    const int64_t from = row + next + 1 - k.c0;
                    NegRange(x, from < 0 ? 0 : from, s2Base);
                }
                if (lower) {  // columns c0 + jj < row - pre
                    const int64_t to = row - pre - k.c0;
                    NegRange(x, 0, to > s2Base ? s2Base : to);
                }
            }
            PipeBarrier<PIPE_V>();
        }
        if (t_.sparseMode > 1) {
            return;
        }
        const uint32_t rc = t_.auxRows;
        uint64_t head = 0;
        const uint64_t cols = t_.layout == fas::LAYOUT_TND ? static_cast<uint64_t>(t_.S2) : static_cast<uint64_t>(k.s2);
        if (t_.maskShape == fas::MASK_1NSS) {
            head = static_cast<uint64_t>(k.h) * k.s1 * k.s2;
        } else if (t_.maskShape == fas::MASK_B1SS) {
            head = static_cast<uint64_t>(k.b) * k.s1 * k.s2;
        } else if (t_.maskShape == fas::MASK_BNSS) {
            head = (static_cast<uint64_t>(k.b) * t_.N1 + k.h) * k.s1 * k.s2;
        }
        LocalTensor<uint8_t> bytes = auxHBuf_.Get<uint8_t>();
        for (int64_t i0 = 0; i0 < k.m; i0 += rc) {
            const uint32_t rows = static_cast<uint32_t>(k.m - i0 < rc ? k.m - i0 : rc);
            PipeBarrier<PIPE_ALL>();
            LoadRows(bytes, maskGm_[head + static_cast<uint64_t>(k.r0 + i0) * cols + k.c0], rows,
                     static_cast<uint32_t>(k.n), cols, static_cast<uint32_t>(s2Base));
            PipeBarrier<PIPE_ALL>();
            const SelectWithBytesMaskShapeInfo info{rows, static_cast<uint32_t>(s2Base), static_cast<uint32_t>(s2Base)};
            LocalTensor<float> x = sc[i0 * s2Base];
            SelectWithBytesMask<float, uint8_t>(x, x, NEG_MAX, bytes, tmp_, info);
            PipeBarrier<PIPE_V>();
        }
    }

    // x[from, to) = -FLT_MAX (one row): the whole 64-column pieces in one count-mode Duplicate, a partial
    // piece at either end with a bit mask of its columns
    __aicore__ inline void NegRange(const LocalTensor<float>& x, int64_t from, int64_t to)
    {
        if (from >= to) {
            return;
        }
        const int64_t a = (from + 63) / 64 * 64, e = to / 64 * 64;  // the whole pieces: [a, e)
        if (a > e) {  // inside one piece
            const int64_t c = from / 64 * 64;
            uint64_t mask[2] = {Bits(from - c, to - c), 0};
            Duplicate(x[c], NEG_MAX, mask, 1, 1, 8);
            return;
        }
        if (from < a) {
            uint64_t mask[2] = {Bits(from - (a - 64), 64), 0};
            Duplicate(x[a - 64], NEG_MAX, mask, 1, 1, 8);
        }
        if (e > a) {
            Duplicate(x[a], NEG_MAX, static_cast<int32_t>(e - a));
        }
        if (to > e) {
            uint64_t mask[2] = {Bits(0, to - e), 0};
            Duplicate(x[e], NEG_MAX, mask, 1, 1, 8);
        }
    }

    // the bits [lo, hi) of a 64-bit element mask (0 <= lo < hi <= 64)
    __aicore__ static inline uint64_t Bits(int64_t lo, int64_t hi)
    {
        const uint64_t top = hi >= 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
        return top & ~((uint64_t(1) << lo) - 1);
    }

    // P * keep / keep_prob through DropOut (bit mode, padded mask rows of bitPitch bytes): keep = bit
    // e % 8 of byte e / 8 of drop_mask, e the element of [B, N1, S1, S2] (TND: batch after batch). The
    // rows' bits are copied in when every row starts on a byte (S2 % 8 == 0), else realigned bytewise.
    __aicore__ inline void Dropout(LocalTensor<float>& sc, const Block& k)
    {
        uint64_t base = 0;
        if (t_.layout == fas::LAYOUT_TND) {
            for (int64_t bb = 0; bb < k.b; ++bb) {
                base += static_cast<uint64_t>(t_.N1) * (t_.cumQ[bb] - Cum(t_.cumQ, bb)) * (t_.cumKv[bb] - Cum(t_.cumKv, bb));
            }
        } else {
            base = static_cast<uint64_t>(k.b) * t_.N1 * k.s1 * k.s2;
        }
        base += static_cast<uint64_t>(k.h) * k.s1 * k.s2 + k.c0;
        const int64_t s2Base = k.w;  // the chunk's row pitch
        const uint32_t rc = t_.auxRows, pitch = t_.bitPitch;
        const uint32_t nBytes = static_cast<uint32_t>((k.n + 7) / 8);
        LocalTensor<uint8_t> bits = bitBuf_.Get<uint8_t>();
        for (int64_t i0 = 0; i0 < k.m; i0 += rc) {
            const uint32_t rows = static_cast<uint32_t>(k.m - i0 < rc ? k.m - i0 : rc);
            const uint64_t e0 = base + static_cast<uint64_t>(k.r0 + i0) * k.s2;
            PipeBarrier<PIPE_ALL>();
            if (t_.dropAligned) {
                if ((nBytes + 31) / 32 * 32 < pitch) {  // the bytes past the rows' copies: defined
                    Duplicate(bits.ReinterpretCast<half>(), half(0), rc * pitch / 2);
                    PipeBarrier<PIPE_ALL>();
                }
                LoadRows(bits, dropGm_[e0 / 8], rows, nBytes, static_cast<uint64_t>(k.s2 / 8), pitch);
            } else {
                for (uint32_t i = 0; i < rows; ++i) {
                    const uint64_t e = e0 + static_cast<uint64_t>(i) * k.s2;
                    const uint64_t at = e / 8;
                    const uint32_t sh = static_cast<uint32_t>(e % 8);
                    for (uint32_t q = 0; q < pitch; ++q) {
                        uint32_t v = 0;
                        if (q < nBytes) {
                            v = static_cast<uint32_t>(dropGm_.GetValue(at + q)) >> sh;
                            if (sh != 0 && at + q + 1 < t_.dropBytes) {
                                v |= static_cast<uint32_t>(dropGm_.GetValue(at + q + 1)) << (8 - sh);
                            }
                        }
                        bits.SetValue(i * pitch + q, static_cast<uint8_t>(v & 0xFFu));
                    }
                }
            }
            PipeBarrier<PIPE_ALL>();
            DropOutShapeInfo info;
            info.firstAxis = rows;
            info.srcLastAxis = static_cast<uint32_t>(s2Base);
            info.maskLastAxis = pitch;
            DropOut<float, false, DROPOUT_MODE_BIT_MISALIGN>(sc[i0 * s2Base], sc[i0 * s2Base], bits, tmp_, t_.keepProb, info);
        }
        PipeBarrier<PIPE_V>();
    }

    // out = acc / sum; a row that every column masks (max still -FLT_MAX) gets 0, softmax_max -FLT_MAX
    // and softmax_sum FLT_MAX (the invalid-row result): CompareScalar on the row maxima, two Selects.
    __aicore__ inline void Finish(LocalTensor<float>& acc, LocalTensor<float>& maxT, LocalTensor<float>& sumT, int64_t b,
                                  int64_t h, int64_t r0, int64_t m, uint64_t oHead)
    {
        LocalTensor<float> recip = statBuf_.Get<float>()[5 * t_.s1Base * 8];
        LocalTensor<uint8_t> valid = selBuf_.Get<uint8_t>();
        const uint32_t rowv = t_.s1Base * 8;
        PipeBarrier<PIPE_V>();
        CompareScalar(valid, maxT, NEG_MAX, CMPMODE::GT, rowv);
        Duplicate(recip, 1.0f, rowv);
        PipeBarrier<PIPE_V>();
        Div(recip, recip, sumT, rowv);
        PipeBarrier<PIPE_V>();
        Select(recip, valid, recip, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, rowv);
        Select(sumT, valid, sumT, POS_MAX, SELMODE::VSEL_TENSOR_SCALAR_MODE, rowv);
        PipeBarrier<PIPE_V>();
        RowMul(acc, recip, static_cast<uint32_t>(m));
        // the output rows, converted chunk by chunk in the P chunk buffer (free by now)
        LocalTensor<T> o = pBuf_.Get<T>();
        const int64_t rowsPer = static_cast<int64_t>(2 * chunk_) / t_.d2Align;
        for (int64_t i0 = 0; i0 < m; i0 += rowsPer) {
            const int64_t rows = m - i0 < rowsPer ? m - i0 : rowsPer;
            const uint32_t cnt = static_cast<uint32_t>(rows * t_.d2Align);
            PipeBarrier<PIPE_ALL>();
            if constexpr (IsSameType<T, float>::value) {
                DataCopy(o, acc[i0 * t_.d2Align], cnt);
            } else {
                Cast(o, acc[i0 * t_.d2Align], RoundMode::CAST_RINT, cnt);
            }
            PipeBarrier<PIPE_ALL>();
            const DataCopyExtParams prm{static_cast<uint16_t>(rows), static_cast<uint32_t>(t_.D2 * sizeof(T)), 0,
                                        static_cast<uint32_t>((t_.oStrideS - t_.D2) * sizeof(T)), 0};
            DataCopyPad(outGm_[oHead + (r0 + i0) * t_.oStrideS], o, prm);
        }
        // softmax_max / softmax_sum: 8 floats per row, rows N1 * 8 floats apart in TND
        const bool tnd = t_.layout == fas::LAYOUT_TND;
        const uint64_t row = tnd ? (static_cast<uint64_t>(Cum(t_.cumQ, b) + r0) * t_.N1 + h) * 8
                                 : ((static_cast<uint64_t>(b) * t_.N1 + h) * t_.S1 + r0) * 8;
        const DataCopyExtParams stats{static_cast<uint16_t>(m), 32, 0, tnd ? (t_.N1 - 1) * 32 : 0, 0};
        DataCopyPad(maxGm_[row], maxT, stats);
        DataCopyPad(sumGm_[row], sumT, stats);
        PipeBarrier<PIPE_ALL>();
    }

    TBuf<TPosition::VECCALC> scBuf_, pBuf_, accBuf_, statBuf_, tmpBuf_, selBuf_;
    TBuf<TPosition::VECCALC> auxFBuf_, auxHBuf_, bitBuf_, idxBuf_;
    LocalTensor<float> auxF_, idx_;
    LocalTensor<uint8_t> tmp_;
    uint64_t pseRowPitch_ = 0;
    Busy busy_;
    GlobalTensor<T> qGm_, kGm_, vGm_, outGm_, pGm_[2], qsGm_;
    GlobalTensor<PT> pseGm_;
    GlobalTensor<uint8_t> dropGm_, maskGm_;
    GlobalTensor<float> maxGm_, sumGm_, scoreGm_[2], pvGm_[2];
    FlashAttentionScoreTilingData t_;
    uint32_t core_ = 0;
    uint32_t tile_ = 0;   // s1Base x s2Base: one step's scores or P in the workspace
    uint32_t chunk_ = 0;  // vecRows x s2Base: one UB chunk of them
    uint32_t qPitch_ = 0;  // elements per row of the scaled query rows: D rounded up to 32 bytes
};
}  // namespace FasKernel

#endif  // FLASH_ATTENTION_SCORE_H
