// FlashAttentionScore: the kernel class, a mix kernel (AIC:AIV = 1:2), the straightforward form
// (no software pipeline yet): per task of one (batch, query head, block of s1Base query rows), a
// vector core walks the S2 blocks of s2Base columns that the band leaves and, per block,
//
//   1. bmm1 (its cube core, Matmul API): S = Q[rows, D] x K[cols, D]^T -> fp32 GM workspace
//   2. vector: S * scale (+ pse, before the scale for pse_type 1), masked scores and the columns past
//      S2 set to -FLT_MAX, then the online softmax: m' = max(m, rowmax S), alpha = exp(m - m'),
//      P = exp(S - m'), l = alpha * l + rowsum P, acc *= alpha
//   3. dropout on P (bit mask, least significant bit first, kept / keep_prob), P cast to the input
//      dtype -> GM workspace; bmm2 (cube): P[rows, cols] x V[cols, D2] -> fp32 GM; acc += that
//
// and at the end writes acc / l (0 for a row that every column masks: the invalid-row result, with
// softmax_max -FLT_MAX and softmax_sum FLT_MAX), and max / sum replicated 8 times per row. Layouts are
// read through strides (tiling data), so BSH/SBH/BSND/BNSD/TND are one code path.
#ifndef FLASH_ATTENTION_SCORE_H
#define FLASH_ATTENTION_SCORE_H

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "flash_attention_score_tiling_data.h"

namespace FasKernel {
using namespace AscendC;

constexpr float NEG_MAX = -3.4028234663852886e38f;
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
    using BType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

public:
    Matmul<AType, BType, CType, BiasType> mm1;
    Matmul<AType, BType, CType, BiasType> mm2;

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
        const uint64_t per = static_cast<uint64_t>(tile_) * (sizeof(float) + sizeof(T)) +
                             static_cast<uint64_t>(t_.s1Base) * t_.d2Align * sizeof(float);
        GM_ADDR mine = ws + per * core_;
        scoreGm_.SetGlobalBuffer((__gm__ float*)mine, tile_);
        pGm_.SetGlobalBuffer((__gm__ T*)(mine + tile_ * sizeof(float)), tile_);
        pvGm_.SetGlobalBuffer((__gm__ float*)(mine + tile_ * (sizeof(float) + sizeof(T))), t_.s1Base * t_.d2Align);
        pipe->InitBuffer(scBuf_, tile_ * sizeof(float));
        pipe->InitBuffer(pBuf_, tile_ * sizeof(T));
        pipe->InitBuffer(accBuf_, t_.s1Base * t_.d2Align * sizeof(float));
        pipe->InitBuffer(pvBuf_, t_.s1Base * t_.d2Align * sizeof(float));
        pipe->InitBuffer(outBuf_, t_.s1Base * t_.d2Align * sizeof(T));
        pipe->InitBuffer(statBuf_, t_.s1Base * 8 * sizeof(float) * 2);
    }

    __aicore__ inline void Process()
    {
        if (core_ < t_.coreNum) {
            for (uint32_t task = t_.taskStart[core_]; task < t_.taskStart[core_ + 1]; ++task) {
                RunTask(task);
            }
        }
        mm1.End();
        mm2.End();
    }

private:
    __aicore__ inline int64_t Cum(const int64_t* c, int64_t b) const { return b == 0 ? 0 : c[b - 1]; }

    __aicore__ inline void RunTask(uint32_t task)
    {
        // task -> (batch, head, first row)
        const bool tnd = t_.layout == fas::LAYOUT_TND;
        int64_t b = 0, s1 = t_.S1, s2 = t_.S2;
        uint32_t rest = task;
        for (b = 0; b < static_cast<int64_t>(t_.B); ++b) {
            if (tnd) {
                s1 = t_.cumQ[b] - Cum(t_.cumQ, b);
                s2 = t_.cumKv[b] - Cum(t_.cumKv, b);
            }
            const uint32_t n = t_.N1 * static_cast<uint32_t>((s1 + t_.s1Base - 1) / t_.s1Base);
            if (rest < n) {
                break;
            }
            rest -= n;
        }
        const uint32_t blocksS1 = static_cast<uint32_t>((s1 + t_.s1Base - 1) / t_.s1Base);
        const int64_t head = rest / blocksS1;
        const int64_t r0 = static_cast<int64_t>(rest % blocksS1) * t_.s1Base;
        const int64_t m = s1 - r0 < t_.s1Base ? s1 - r0 : t_.s1Base;
        const int64_t kvHead = head / t_.G;
        const uint64_t qBase = tnd ? Cum(t_.cumQ, b) * t_.qStrideS : b * t_.qStrideB;
        const uint64_t kBase = tnd ? Cum(t_.cumKv, b) * t_.kStrideS : b * t_.kStrideB;
        const uint64_t vBase = tnd ? Cum(t_.cumKv, b) * t_.vStrideS : b * t_.vStrideB;
        const uint64_t oBase = tnd ? Cum(t_.cumQ, b) * t_.oStrideS : b * t_.oStrideB;
        const uint64_t qOff = qBase + head * t_.qStrideN + r0 * t_.qStrideS;
        const uint64_t kOff = kBase + kvHead * t_.kStrideN;
        const uint64_t vOff = vBase + kvHead * t_.vStrideN;

        // the band of this batch, counted from the top-left corner
        int64_t pre = t_.preTokens, next = t_.nextTokens;
        if (t_.sparseMode == 3) {
            pre = INF_TOKENS;
            next = s2 - s1;
        } else if (t_.sparseMode == 4) {
            pre = t_.preTokens - (s2 - s1);
            next = t_.nextTokens + (s2 - s1);
        }
        const bool band = t_.maskShape != fas::MASK_NONE && t_.sparseMode != 1;
        int64_t lo = 0, hi = s2 - 1;
        if (band) {
            lo = r0 - pre > 0 ? r0 - pre : 0;
            hi = r0 + m - 1 + next < s2 - 1 ? r0 + m - 1 + next : s2 - 1;
        }

        LocalTensor<float> sc = scBuf_.Get<float>();
        LocalTensor<T> p = pBuf_.Get<T>();
        LocalTensor<float> acc = accBuf_.Get<float>();
        LocalTensor<float> pv = pvBuf_.Get<float>();
        LocalTensor<float> stat = statBuf_.Get<float>();  // [0, s1Base): max, [s1Base, 2 s1Base): sum
        const uint32_t accLen = t_.s1Base * t_.d2Align;
        Duplicate(acc, 0.0f, accLen);
        for (int64_t i = 0; i < t_.s1Base; ++i) {
            stat.SetValue(i, NEG_MAX);
            stat.SetValue(t_.s1Base + i, 0.0f);
        }
        PipeBarrier<PIPE_ALL>();
        const int64_t s2Base = t_.s2Base;
        for (int64_t c0 = lo >= 0 && lo <= hi ? (lo / s2Base) * s2Base : s2; c0 <= hi; c0 += s2Base) {
            const int64_t n = s2 - c0 < s2Base ? s2 - c0 : s2Base;
            // 1. S = Q K^T
            mm1.SetOrgShape(static_cast<int>(m), static_cast<int>(n), static_cast<int>(t_.qStrideS),
                            static_cast<int>(t_.kStrideS), static_cast<int>(s2Base));
            mm1.SetTensorA(qGm_[qOff]);
            mm1.SetTensorB(kGm_[kOff + c0 * t_.kStrideS], true);
            mm1.SetTail(static_cast<int>(m), static_cast<int>(n), static_cast<int>(t_.D));
            mm1.IterateAll(scoreGm_);
            PipeBarrier<PIPE_ALL>();
            DataCopy(sc, scoreGm_, static_cast<uint32_t>(m * s2Base));
            PipeBarrier<PIPE_ALL>();
            // 2. scale, pse, mask, online softmax
            const bool pseAdd = t_.pseShape != fas::PSE_NONE;
            if (pseAdd && t_.pseType == 1) {
                AddPse(sc, b, head, r0, m, c0, n, s1, s2, 1.0f);
                PipeBarrier<PIPE_ALL>();
            }
            Muls(sc, sc, t_.scale, static_cast<uint32_t>(m * s2Base));
            PipeBarrier<PIPE_ALL>();
            if (pseAdd && t_.pseType != 1) {
                AddPse(sc, b, head, r0, m, c0, n, s1, s2, 1.0f);
            }
            MaskBlock(sc, b, head, r0, m, c0, n, s1, s2, pre, next);
            for (int64_t i = 0; i < m; ++i) {
                float mx = stat.GetValue(i);
                for (int64_t j = 0; j < n; ++j) {
                    const float x = sc.GetValue(i * s2Base + j);
                    mx = x > mx ? x : mx;
                }
                const float old = stat.GetValue(i);
                const float alpha = old <= NEG_MAX ? 0.0f : std::exp(old - mx);
                stat.SetValue(i, mx);
                stat.SetValue(t_.s1Base + i, stat.GetValue(t_.s1Base + i) * alpha);
                stat.SetValue(2 * t_.s1Base + i, alpha);  // scratch: the rescale of the row
                for (int64_t j = n; j < s2Base; ++j) {
                    sc.SetValue(i * s2Base + j, NEG_MAX);
                }
                PipeBarrier<PIPE_ALL>();
                Adds(sc[i * s2Base], sc[i * s2Base], -mx, static_cast<uint32_t>(s2Base));
                PipeBarrier<PIPE_ALL>();
                Muls(acc[i * t_.d2Align], acc[i * t_.d2Align], alpha, t_.d2Align);
            }
            PipeBarrier<PIPE_ALL>();
            Exp(sc, sc, static_cast<uint32_t>(m * s2Base));
            PipeBarrier<PIPE_ALL>();
            for (int64_t i = 0; i < m; ++i) {
                float rs = 0.0f;
                for (int64_t j = 0; j < n; ++j) {
                    rs += sc.GetValue(i * s2Base + j);
                }
                stat.SetValue(t_.s1Base + i, stat.GetValue(t_.s1Base + i) + rs);
            }
            // 3. dropout, P to the input dtype, P V
            if (t_.hasDrop) {
                Dropout(sc, b, head, r0, m, c0, n, s1, s2);
            }
            PipeBarrier<PIPE_ALL>();
            if constexpr (IsSameType<T, float>::value) {
                DataCopy(p, sc, static_cast<uint32_t>(m * s2Base));
            } else {
                Cast(p, sc, RoundMode::CAST_RINT, static_cast<uint32_t>(m * s2Base));
            }
            PipeBarrier<PIPE_ALL>();
            DataCopy(pGm_, p, static_cast<uint32_t>(m * s2Base));
            PipeBarrier<PIPE_ALL>();
            mm2.SetOrgShape(static_cast<int>(m), static_cast<int>(t_.vStrideS), static_cast<int>(s2Base),
                            static_cast<int>(n), static_cast<int>(t_.d2Align));
            mm2.SetTensorA(pGm_);
            mm2.SetTensorB(vGm_[vOff + c0 * t_.vStrideS]);
            mm2.SetTail(static_cast<int>(m), static_cast<int>(t_.D2), static_cast<int>(n));
            mm2.IterateAll(pvGm_);
            PipeBarrier<PIPE_ALL>();
            DataCopy(pv, pvGm_, static_cast<uint32_t>(m * t_.d2Align));
            PipeBarrier<PIPE_ALL>();
            Add(acc, acc, pv, static_cast<uint32_t>(m * t_.d2Align));
            PipeBarrier<PIPE_ALL>();
        }
        Finish(acc, stat, b, head, r0, m, oBase + head * t_.oStrideN);
    }

    // pse (given, or generated from slopes) added to the block
    __aicore__ inline void AddPse(LocalTensor<float>& sc, int64_t b, int64_t h, int64_t r0, int64_t m, int64_t c0,
                                  int64_t n, int64_t s1, int64_t s2, float)
    {
        const int64_t s2Base = t_.s2Base;
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                const int64_t r = r0 + i, c = c0 + j;
                float add = 0.0f;
                if (t_.pseShape == fas::PSE_SLOPE_BN || t_.pseShape == fas::PSE_SLOPE_N) {
                    const float slope = ToF(pseGm_.GetValue(t_.pseShape == fas::PSE_SLOPE_BN ? b * t_.N1 + h : h));
                    int64_t dist = c + t_.kvStartIdx - r - t_.qStartIdx;
                    dist = dist < 0 ? -dist : dist;
                    const float df = static_cast<float>(dist);
                    add = -slope * (t_.pseType == 3 ? std::sqrt(df) : df);
                } else {
                    uint64_t idx = 0;
                    if (t_.pseShape == fas::PSE_BNSS) {
                        idx = ((static_cast<uint64_t>(b) * t_.N1 + h) * s1 + r) * s2 + c;
                    } else if (t_.pseShape == fas::PSE_BN1S) {
                        idx = (static_cast<uint64_t>(b) * t_.N1 + h) * s2 + c;
                    } else {  // PSE_1NSS
                        idx = (static_cast<uint64_t>(h) * s1 + r) * s2 + c;
                    }
                    add = ToF(pseGm_.GetValue(idx));
                }
                sc.SetValue(i * s2Base + j, sc.GetValue(i * s2Base + j) + add);
            }
        }
    }

    // masked scores -> -FLT_MAX: the band of the sparse mode and the given mask (modes 0 and 1)
    __aicore__ inline void MaskBlock(LocalTensor<float>& sc, int64_t b, int64_t h, int64_t r0, int64_t m, int64_t c0,
                                     int64_t n, int64_t s1, int64_t s2, int64_t pre, int64_t next)
    {
        if (t_.maskShape == fas::MASK_NONE) {
            return;
        }
        const int64_t s2Base = t_.s2Base;
        const bool given = t_.sparseMode <= 1;
        const bool band = t_.sparseMode != 1;
        const uint64_t cols = t_.layout == fas::LAYOUT_TND ? static_cast<uint64_t>(t_.S2) : static_cast<uint64_t>(s2);
        for (int64_t i = 0; i < m; ++i) {
            const int64_t r = r0 + i;
            for (int64_t j = 0; j < n; ++j) {
                const int64_t c = c0 + j;
                bool masked = band && (c - r > next || r - c > pre);
                if (!masked && given) {
                    uint64_t idx = static_cast<uint64_t>(r) * cols + c;
                    if (t_.maskShape == fas::MASK_1NSS) {
                        idx += static_cast<uint64_t>(h) * s1 * s2;
                    } else if (t_.maskShape == fas::MASK_B1SS) {
                        idx += static_cast<uint64_t>(b) * s1 * s2;
                    } else if (t_.maskShape == fas::MASK_BNSS) {
                        idx += (static_cast<uint64_t>(b) * t_.N1 + h) * s1 * s2;
                    }
                    masked = maskGm_.GetValue(idx) != 0;
                }
                if (masked) {
                    sc.SetValue(i * s2Base + j, NEG_MAX);
                }
            }
        }
    }

    // P * keep / keep_prob, keep = bit e % 8 of byte e / 8 of drop_mask, e the element of [B, N1, S1, S2]
    __aicore__ inline void Dropout(LocalTensor<float>& sc, int64_t b, int64_t h, int64_t r0, int64_t m, int64_t c0,
                                   int64_t n, int64_t s1, int64_t s2)
    {
        uint64_t base = 0;
        if (t_.layout == fas::LAYOUT_TND) {
            for (int64_t bb = 0; bb < b; ++bb) {
                base += static_cast<uint64_t>(t_.N1) * (t_.cumQ[bb] - Cum(t_.cumQ, bb)) * (t_.cumKv[bb] - Cum(t_.cumKv, bb));
            }
        } else {
            base = static_cast<uint64_t>(b) * t_.N1 * s1 * s2;
        }
        base += static_cast<uint64_t>(h) * s1 * s2;
        const float inv = 1.0f / t_.keepProb;
        const int64_t s2Base = t_.s2Base;
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                const uint64_t e = base + static_cast<uint64_t>(r0 + i) * s2 + (c0 + j);
                const bool keep = ((dropGm_.GetValue(e / 8) >> (e % 8)) & 1) != 0;
                sc.SetValue(i * s2Base + j, keep ? sc.GetValue(i * s2Base + j) * inv : 0.0f);
            }
        }
    }

    __aicore__ inline void Finish(LocalTensor<float>& acc, LocalTensor<float>& stat, int64_t b, int64_t h, int64_t r0,
                                  int64_t m, uint64_t oHead)
    {
        LocalTensor<T> o = outBuf_.Get<T>();
        for (int64_t i = 0; i < m; ++i) {
            const float mx = stat.GetValue(i);
            const bool invalid = mx <= NEG_MAX;
            const float sum = stat.GetValue(t_.s1Base + i);
            PipeBarrier<PIPE_ALL>();
            Muls(acc[i * t_.d2Align], acc[i * t_.d2Align], invalid ? 0.0f : 1.0f / sum, t_.d2Align);
            PipeBarrier<PIPE_ALL>();
            const int64_t r = r0 + i;
            const uint64_t row = t_.layout == fas::LAYOUT_TND
                                     ? (static_cast<uint64_t>(Cum(t_.cumQ, b) + r) * t_.N1 + h) * 8
                                     : ((static_cast<uint64_t>(b) * t_.N1 + h) * t_.S1 + r) * 8;
            for (int64_t k = 0; k < 8; ++k) {
                maxGm_.SetValue(row + k, invalid ? NEG_MAX : mx);
                sumGm_.SetValue(row + k, invalid ? POS_MAX : sum);
            }
        }
        PipeBarrier<PIPE_ALL>();
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(o, acc, static_cast<uint32_t>(m * t_.d2Align));
        } else {
            Cast(o, acc, RoundMode::CAST_RINT, static_cast<uint32_t>(m * t_.d2Align));
        }
        PipeBarrier<PIPE_ALL>();
        const DataCopyExtParams rows{static_cast<uint16_t>(m), static_cast<uint32_t>(t_.D2 * sizeof(T)), 0,
                                     static_cast<uint32_t>((t_.oStrideS - t_.D2) * sizeof(T)), 0};
        DataCopyPad(outGm_[oHead + r0 * t_.oStrideS], o, rows);
        PipeBarrier<PIPE_ALL>();
    }

    TBuf<TPosition::VECCALC> scBuf_, pBuf_, accBuf_, pvBuf_, outBuf_, statBuf_;
    GlobalTensor<T> qGm_, kGm_, vGm_, outGm_, pGm_;
    GlobalTensor<PT> pseGm_;
    GlobalTensor<uint8_t> dropGm_, maskGm_;
    GlobalTensor<float> maxGm_, sumGm_, scoreGm_, pvGm_;
    FlashAttentionScoreTilingData t_;
    uint32_t core_ = 0;
    uint32_t tile_ = 0;
};
}  // namespace FasKernel

#endif  // FLASH_ATTENTION_SCORE_H
