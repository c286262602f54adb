// GroupedMatmul: the kernel class, y[rows of group g] = x[rows of group g] @ weight[g] (+ bias[g]),
// on the cube unit (AIC cores), written with the cube instructions.
//
// Scheduling: every group g (rows start_g .. end_g of x, from group_list) is cut into output tiles
// of baseM x baseN, row block major. The tiles of all groups form one global queue in group order,
// and core c takes tiles c, c + blockDim, c + 2 * blockDim, ... of that queue: the round-robin runs
// on across group boundaries, so many small groups, empty groups or one huge group all keep every
// core busy. Each core walks group_list once (E scalar reads) to find its tiles.
//
// The data path of one tile (as ops/examples/matmul_bias_act, which describes it step by step):
//   x slice   GM (ND) -- ND2NZ --> A1 (L1) -- LoadData --> A2 (L0A, ZZ)
//   w slice   GM (ND) -- ND2NZ --> B1 (L1) -- LoadData (fractals transposed, unless the weight is) --> B2 (L0B, ZN)
//   bias row  GM -- ND2NZ --> C1 (L1) -- DataCopy (half -> float for an fp16 bias) --> C2 (BiasTable, fp32)
//   Mmad into CO1 (L0C, fp32), the first of a tile from the bias (or from zero), then Fixpipe to y (ND, rounded).
// With a transposed weight [E, N, K] the slice w[g][n0 : n0 + n, k1 : k1 + kc] is loaded as NZ of
// [n, kc]; its fractals are already the ZN fractals L0B wants, in order, so one LoadData moves them.
// Rows of y past the last group are never written.
#ifndef GROUPED_MATMUL_H
#define GROUPED_MATMUL_H

#include "kernel_operator.h"
#include "grouped_matmul_tiling_data.h"

namespace GroupedMatmulKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;   // double buffering of L1 and L0A/L0B: must match the tiling
constexpr uint32_t FRACTAL = 16;    // fp16/bf16 fractals are 16 x 16 (512 bytes)
constexpr uint32_t FRACTAL_ELEMS = FRACTAL * FRACTAL;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

template <typename T, typename BiasT>  // BiasT: half with fp16 x (as ops-transformer), float with bf16 x
class GroupedMatmul {
public:
    __aicore__ inline GroupedMatmul() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR groupList, GM_ADDR y,
                                const GroupedMatmulTilingData& tiling)
    {
        t_ = tiling;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(t_.M) * t_.K);
        wGm_.SetGlobalBuffer((__gm__ T*)weight, static_cast<uint64_t>(t_.E) * t_.K * t_.N);
        if (t_.hasBias != 0) {
            biasGm_.SetGlobalBuffer((__gm__ BiasT*)bias, static_cast<uint64_t>(t_.E) * t_.N);
        }
        groupListGm_.SetGlobalBuffer((__gm__ int64_t*)groupList, t_.E);
        yGm_.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(t_.M) * t_.N);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        pipe_.InitBuffer(a1Queue_, BUFFER_NUM, t_.baseM * kL1 * sizeof(T));
        pipe_.InitBuffer(b1Queue_, BUFFER_NUM, kL1 * t_.baseN * sizeof(T));
        pipe_.InitBuffer(a2Queue_, BUFFER_NUM, t_.baseM * t_.baseK * sizeof(T));
        pipe_.InitBuffer(b2Queue_, BUFFER_NUM, t_.baseK * t_.baseN * sizeof(T));
        pipe_.InitBuffer(c1Queue_, 1, t_.baseM * t_.baseN * sizeof(float));
        if (t_.hasBias != 0) {
            pipe_.InitBuffer(biasL1Queue_, 1, CeilDiv(t_.baseN, FRACTAL) * FRACTAL * sizeof(BiasT));
            pipe_.InitBuffer(biasBtQueue_, 1, t_.baseN * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        const uint64_t cores = GetBlockNum();
        const uint64_t me = GetBlockIdx();
        uint64_t tileBase = 0;  // index in the global queue of group g's first tile
        uint64_t start = 0;     // first row of group g
        for (uint32_t g = 0; g < t_.E; ++g) {
            // group_list out of contract (a cumulative end below the previous one, past M) is clamped
            const int64_t v = groupListGm_.GetValue(g);
            int64_t end = t_.groupListType == 0 ? v : static_cast<int64_t>(start) + v;
            end = end < static_cast<int64_t>(start) ? static_cast<int64_t>(start) : end;
            end = end > static_cast<int64_t>(t_.M) ? static_cast<int64_t>(t_.M) : end;
            const uint32_t rows = static_cast<uint32_t>(end - static_cast<int64_t>(start));
            const uint64_t tiles = static_cast<uint64_t>(CeilDiv(rows, t_.baseM)) * t_.nTiles;
            // my first tile at or after tileBase: the one whose index is me modulo cores
            for (uint64_t tile = tileBase + (me + cores - tileBase % cores) % cores; tile < tileBase + tiles;
                 tile += cores) {
                const uint32_t local = static_cast<uint32_t>(tile - tileBase);
                const uint32_t r0 = (local / t_.nTiles) * t_.baseM;
                const uint32_t n0 = (local % t_.nTiles) * t_.baseN;
                ComputeTile(g, static_cast<uint32_t>(start) + r0, n0, rows - r0 < t_.baseM ? rows - r0 : t_.baseM,
                            t_.N - n0 < t_.baseN ? t_.N - n0 : t_.baseN);
            }
            tileBase += tiles;
            start = static_cast<uint64_t>(end);
        }
    }

private:
    // y[m0 : m0 + m, n0 : n0 + n] = x[m0 : m0 + m, :] @ weight[g][:, n0 : n0 + n] (+ bias[g][n0 : n0 + n])
    __aicore__ inline void ComputeTile(uint32_t g, uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        const uint64_t wBase = static_cast<uint64_t>(g) * t_.K * t_.N;
        LocalTensor<float> bias;
        if (t_.hasBias != 0) {
            bias = LoadBias(static_cast<uint64_t>(g) * t_.N + n0, n);
        }
        LocalTensor<float> c = c1Queue_.AllocTensor<float>();
        bool first = true;
        for (uint32_t k1 = 0; k1 < t_.K; k1 += kL1) {
            const uint32_t kc = t_.K - k1 < kL1 ? t_.K - k1 : kL1;
            const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
            LocalTensor<T> a1 = a1Queue_.AllocTensor<T>();
            LocalTensor<T> b1 = b1Queue_.AllocTensor<T>();
            DataCopy(a1, xGm_[static_cast<uint64_t>(m0) * t_.K + k1], Nd2NzParams(1, m, kc, 0, t_.K, mBlocks * FRACTAL, 1, 0));
            if (t_.transWeight != 0) {  // weight[g] is [N, K]: the slice is n rows of kc
                DataCopy(b1, wGm_[wBase + static_cast<uint64_t>(n0) * t_.K + k1],
                         Nd2NzParams(1, n, kc, 0, t_.K, nBlocks * FRACTAL, 1, 0));
            } else {                    // weight[g] is [K, N]: the slice is kc rows of n
                DataCopy(b1, wGm_[wBase + static_cast<uint64_t>(k1) * t_.N + n0],
                         Nd2NzParams(1, kc, n, 0, t_.N, kcBlocks * FRACTAL, 1, 0));
            }
            a1Queue_.EnQue(a1);
            b1Queue_.EnQue(b1);
            a1 = a1Queue_.DeQue<T>();
            b1 = b1Queue_.DeQue<T>();
            for (uint32_t k2 = 0; k2 < kc; k2 += t_.baseK) {
                const uint32_t kk = kc - k2 < t_.baseK ? kc - k2 : t_.baseK;
                const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
                LocalTensor<T> a2 = a2Queue_.AllocTensor<T>();
                const LoadData2DParams aRow(0, kkBlocks, mBlocks, 0, 0, false, 0);
                for (uint32_t i = 0; i < mBlocks; ++i) {
                    LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], a1[((k2 / FRACTAL) * mBlocks + i) * FRACTAL_ELEMS], aRow);
                }
                LocalTensor<T> b2 = b2Queue_.AllocTensor<T>();
                if (t_.transWeight != 0) {
                    // B1 fractal (n block nb, k block j) sits at j * nBlocks + nb: B2's order already
                    LoadData(b2, b1[(k2 / FRACTAL) * nBlocks * FRACTAL_ELEMS],
                             LoadData2DParams(0, kkBlocks * nBlocks, 1, 0, 0, false, 0));
                } else {
                    const LoadData2DParams bRow(0, nBlocks, kcBlocks, 0, 0, true, 0);
                    for (uint32_t j = 0; j < kkBlocks; ++j) {
                        LoadData(b2[j * nBlocks * FRACTAL_ELEMS], b1[(k2 / FRACTAL + j) * FRACTAL_ELEMS], bRow);
                    }
                }
                a2Queue_.EnQue(a2);
                b2Queue_.EnQue(b2);
                a2 = a2Queue_.DeQue<T>();
                b2 = b2Queue_.DeQue<T>();
                MmadParams mmad;
                mmad.m = m;
                mmad.n = n;
                mmad.k = kk;
                if (first && t_.hasBias != 0) {
                    Mmad(c, a2, b2, bias, mmad);  // L0C = bias + a2 x b2
                } else {
                    mmad.cmatrixInitVal = first;  // first: L0C = a2 x b2; then L0C += a2 x b2
                    Mmad(c, a2, b2, mmad);
                }
                if ((m / 16) * (n / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page: small Mmads into one L0C
                first = false;
                a2Queue_.FreeTensor(a2);
                b2Queue_.FreeTensor(b2);
            }
            a1Queue_.FreeTensor(a1);
            b1Queue_.FreeTensor(b1);
        }
        if (t_.hasBias != 0) {
            biasBtQueue_.FreeTensor(bias);
        }
        c1Queue_.EnQue(c);
        c = c1Queue_.DeQue<float>();
        FixpipeParamsV220 fix(n, m, mBlocks * FRACTAL, t_.N, false);
        fix.quantPre = IsSameType<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::F322F16;
        Fixpipe(yGm_[static_cast<uint64_t>(m0) * t_.N + n0], c, fix);
        c1Queue_.FreeTensor(c);
    }

    // bias[off : off + n] -> L1 -> BiasTable (ND2NZ of one row zero-fills to the 32-byte block); a half bias
    // becomes float on the way (the converting L1 -> BiasTable copy, in 64-byte blocks of 16 floats)
    __aicore__ inline LocalTensor<float> LoadBias(uint64_t off, uint32_t n)
    {
        LocalTensor<BiasT> b1 = biasL1Queue_.AllocTensor<BiasT>();
        DataCopy(b1, biasGm_[off], Nd2NzParams(1, 1, n, 0, n, 1, 1, 0));
        biasL1Queue_.EnQue(b1);
        b1 = biasL1Queue_.DeQue<BiasT>();
        LocalTensor<float> bt = biasBtQueue_.AllocTensor<float>();
        if constexpr (IsSameType<BiasT, float>::value) {
            DataCopy(bt, b1, CeilDiv(n, 8) * 8);
        } else {
            DataCopy(bt, b1, DataCopyParams(1, static_cast<uint16_t>(CeilDiv(n, FRACTAL)), 0, 0));
        }
        biasL1Queue_.FreeTensor(b1);
        biasBtQueue_.EnQue(bt);
        return biasBtQueue_.DeQue<float>();
    }

    TPipe pipe_;
    TQue<TPosition::A1, 1> a1Queue_;
    TQue<TPosition::B1, 1> b1Queue_;
    TQue<TPosition::A2, 1> a2Queue_;
    TQue<TPosition::B2, 1> b2Queue_;
    TQue<TPosition::CO1, 1> c1Queue_;
    TQue<TPosition::C1, 1> biasL1Queue_;
    TQue<TPosition::C2, 1> biasBtQueue_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> wGm_;
    GlobalTensor<BiasT> biasGm_;
    GlobalTensor<int64_t> groupListGm_;
    GlobalTensor<T> yGm_;
    GroupedMatmulTilingData t_;
};
}  // namespace GroupedMatmulKernel

#endif  // GROUPED_MATMUL_H
