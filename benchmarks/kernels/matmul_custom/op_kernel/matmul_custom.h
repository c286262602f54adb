// MatmulCustom: c = a @ b on the cube unit, float16 in, float32 accumulation and output.
//
// The data path of one output tile of baseM x baseN (the steps the Matmul API's default
// template takes for a GM/ND operand pair, written out with the cube instructions):
//
//   a [M, K] (GM, ND) -- DataCopy ND2NZ --> A1 (L1) -- LoadData -->             A2 (L0A, ZZ fractals)
//   b [K, N] (GM, ND) -- DataCopy ND2NZ --> B1 (L1) -- LoadData, transposed --> B2 (L0B, ZN fractals)
//   A2, B2 -- Mmad --> CO1 (L0C, fp32) -- Fixpipe NZ -> ND --> c [M, N] (GM, ND, fp32)
//
// K is walked in GM -> L1 copies of stepK * baseK (stepK = 1: one base block of a and one of b per
// copy; stepK > 1: the multi-block "large packet" load), each feeding stepK Mmads of depth baseK
// that accumulate in L0C. L1 and L0A/L0B are double-buffered (two buffers each, SetFlag/WaitFlag
// with one event ID per buffer, as the Matmul API synchronises its pipes), so the next copy
// overlaps the current Mmads; L0C holds one tile. Output tiles are dealt to the cube cores
// round-robin: block b computes tiles b, b + blockDim, ... in row-major order.
// Tails: the last tile row has M % baseM rows, the last column N % baseN columns and the last K
// copy K % (stepK * baseK) elements; ND2NZ zero-fills columns of a past K and Mmad multiplies only
// the first k elements, so rows of b past K are never read.
#ifndef MATMUL_CUSTOM_H
#define MATMUL_CUSTOM_H

#include "kernel_operator.h"
#include "matmul_custom_tiling_data.h"

namespace MatmulCustomKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // must match the tiling
constexpr uint32_t FRACTAL = 16;
constexpr uint32_t FRACTAL_ELEMS = FRACTAL * FRACTAL;

__aicore__ inline uint32_t CeilDiv(uint32_t x, uint32_t y)
{
    return (x + y - 1) / y;
}

class MatmulCustom {
public:
    __aicore__ inline MatmulCustom() {}

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MatmulCustomTilingData& tiling)
    {
        t_ = tiling;
        aGm_.SetGlobalBuffer((__gm__ half*)a, static_cast<uint64_t>(t_.M) * t_.K);
        bGm_.SetGlobalBuffer((__gm__ half*)b, static_cast<uint64_t>(t_.K) * t_.N);
        cGm_.SetGlobalBuffer((__gm__ float*)c, static_cast<uint64_t>(t_.M) * t_.N);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        a1Len_ = t_.baseM * kL1;
        b1Len_ = kL1 * t_.baseN;
        a2Len_ = t_.baseM * t_.baseK;
        b2Len_ = t_.baseK * t_.baseN;
        pipe_.InitBuffer(a1Buf_, BUFFER_NUM * a1Len_ * sizeof(half));
        pipe_.InitBuffer(b1Buf_, BUFFER_NUM * b1Len_ * sizeof(half));
        pipe_.InitBuffer(a2Buf_, BUFFER_NUM * a2Len_ * sizeof(half));
        pipe_.InitBuffer(b2Buf_, BUFFER_NUM * b2Len_ * sizeof(half));
        pipe_.InitBuffer(c1Buf_, t_.baseM * t_.baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        // Every buffer starts free: its "consumer done" event is set once up front and waited for
        // once at the end, so each producer can wait for it unconditionally.
        for (int32_t i = 0; i < BUFFER_NUM; ++i) {
            SetFlag<HardEvent::MTE1_MTE2>(i);  // L1 buffer i may be written
            SetFlag<HardEvent::M_MTE1>(i);     // L0A/L0B buffer i may be written
        }
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);  // L0C may be written
        const uint32_t tiles = t_.mTiles * t_.nTiles;
        for (uint32_t tile = GetBlockIdx(); tile < tiles; tile += GetBlockNum()) {
            const uint32_t m0 = (tile / t_.nTiles) * t_.baseM;
            const uint32_t n0 = (tile % t_.nTiles) * t_.baseN;
            ComputeTile(m0, n0, std::min(t_.baseM, t_.M - m0), std::min(t_.baseN, t_.N - n0));
        }
        for (int32_t i = 0; i < BUFFER_NUM; ++i) {
            WaitFlag<HardEvent::MTE1_MTE2>(i);
            WaitFlag<HardEvent::M_MTE1>(i);
        }
        WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
    }

private:
    // c[m0 : m0 + m, n0 : n0 + n]
    __aicore__ inline void ComputeTile(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        LocalTensor<float> c = c1Buf_.Get<float>();
        WaitFlag<HardEvent::FIX_M>(EVENT_ID0);  // the previous tile's Fixpipe has read L0C
        bool first = true;
        for (uint32_t k1 = 0; k1 < t_.K; k1 += kL1) {
            const uint32_t kc = std::min(kL1, t_.K - k1);
            const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
            const int32_t l1 = static_cast<int32_t>(l1Count_++ % BUFFER_NUM);
            LocalTensor<half> a1 = a1Buf_.Get<half>()[l1 * a1Len_];
            LocalTensor<half> b1 = b1Buf_.Get<half>()[l1 * b1Len_];
            // GM -> L1 (MTE2): a[m0 : m0 + m, k1 : k1 + kc] and b[k1 : k1 + kc, n0 : n0 + n] as NZ
            WaitFlag<HardEvent::MTE1_MTE2>(l1);
            DataCopy(a1, aGm_[static_cast<uint64_t>(m0) * t_.K + k1], Nd2NzParams(1, m, kc, 0, t_.K, mBlocks * FRACTAL, 1, 0));
            DataCopy(b1, bGm_[static_cast<uint64_t>(k1) * t_.N + n0], Nd2NzParams(1, kc, n, 0, t_.N, kcBlocks * FRACTAL, 1, 0));
            SetFlag<HardEvent::MTE2_MTE1>(l1);
            WaitFlag<HardEvent::MTE2_MTE1>(l1);
            for (uint32_t k2 = 0; k2 < kc; k2 += t_.baseK) {
                const uint32_t kk = std::min(t_.baseK, kc - k2);
                const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
                const uint32_t kb0 = k2 / FRACTAL;
                const int32_t l0 = static_cast<int32_t>(l0Count_++ % BUFFER_NUM);
                LocalTensor<half> a2 = a2Buf_.Get<half>()[l0 * a2Len_];
                LocalTensor<half> b2 = b2Buf_.Get<half>()[l0 * b2Len_];
                WaitFlag<HardEvent::M_MTE1>(l0);
                // L1 -> L0A (MTE1). A1 is NZ (K block kb holds mBlocks fractals, one per row block),
                // A2 is ZZ (row block i holds kkBlocks fractals): A2 fractal (i, kb) = A1 fractal (kb0 + kb, i).
                // One instruction per row block or per K block, whichever is fewer.
                if (mBlocks <= kkBlocks) {
                    const LoadData2DParams row(0, kkBlocks, mBlocks, 0, 0, false, 0);
                    for (uint32_t i = 0; i < mBlocks; ++i) {
                        LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], a1[(kb0 * mBlocks + i) * FRACTAL_ELEMS], row);
                    }
                } else {
                    const LoadData2DParams col(0, mBlocks, 1, 0, kkBlocks - 1, false, 0);
                    for (uint32_t kb = 0; kb < kkBlocks; ++kb) {
                        LoadData(a2[kb * FRACTAL_ELEMS], a1[(kb0 + kb) * mBlocks * FRACTAL_ELEMS], col);
                    }
                }
                // L1 -> L0B (MTE1), each fractal transposed. B1 is NZ (column block j holds kcBlocks
                // fractals down K), B2 is ZN (K block kb holds nBlocks fractals): B2 fractal (kb, j) =
                // B1 fractal (j, kb0 + kb), transposed.
                if (kkBlocks <= nBlocks) {
                    const LoadData2DParams row(0, nBlocks, kcBlocks, 0, 0, true, 0);
                    for (uint32_t kb = 0; kb < kkBlocks; ++kb) {
                        LoadData(b2[kb * nBlocks * FRACTAL_ELEMS], b1[(kb0 + kb) * FRACTAL_ELEMS], row);
                    }
                } else {
                    const LoadData2DParams col(0, kkBlocks, 1, 0, nBlocks - 1, true, 0);
                    for (uint32_t j = 0; j < nBlocks; ++j) {
                        LoadData(b2[j * FRACTAL_ELEMS], b1[(j * kcBlocks + kb0) * FRACTAL_ELEMS], col);
                    }
                }
                if (k2 + t_.baseK >= kc) {
                    SetFlag<HardEvent::MTE1_MTE2>(l1);  // the last read of this L1 buffer is issued
                }
                SetFlag<HardEvent::MTE1_M>(l0);
                WaitFlag<HardEvent::MTE1_M>(l0);
                MmadParams mmad;
                mmad.m = m;
                mmad.n = n;
                mmad.k = kk;
                mmad.cmatrixInitVal = first;  // the first Mmad of a tile starts L0C, the others accumulate
                first = false;
                Mmad(c, a2, b2, mmad);
                if ((m / 16) * (n / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page: small Mmads into one L0C
                SetFlag<HardEvent::M_MTE1>(l0);
            }
        }
        // L0C -> GM (FIX): NZ -> ND rows of N floats
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        FixpipeParamsV220 fix(n, m, mBlocks * FRACTAL, t_.N, false);
        Fixpipe(cGm_[static_cast<uint64_t>(m0) * t_.N + n0], c, fix);
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
    }

    TPipe pipe_;
    TBuf<TPosition::A1> a1Buf_;
    TBuf<TPosition::B1> b1Buf_;
    TBuf<TPosition::A2> a2Buf_;
    TBuf<TPosition::B2> b2Buf_;
    TBuf<TPosition::CO1> c1Buf_;
    GlobalTensor<half> aGm_;
    GlobalTensor<half> bGm_;
    GlobalTensor<float> cGm_;
    MatmulCustomTilingData t_;
    uint32_t a1Len_ = 0;
    uint32_t b1Len_ = 0;
    uint32_t a2Len_ = 0;
    uint32_t b2Len_ = 0;
    uint32_t l1Count_ = 0;  // GM -> L1 copies so far: picks the L1 buffer (ping-pong)
    uint32_t l0Count_ = 0;  // L0A/L0B loads so far: picks the L0 buffer (ping-pong)
};
}  // namespace MatmulCustomKernel

#endif  // MATMUL_CUSTOM_H
