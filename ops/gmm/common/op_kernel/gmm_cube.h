// The GMM family's cube data path, shared by ops/gmm/grouped_matmul and ops/gmm/grouped_gemm: the L1 /
// L0 buffers, the ND2NZ copies of x and weight slices into L1, the Mmad of one step, the bias row into
// the BiasTable, the Fixpipe out, and the streamed output tile that runs them over K. Each package keeps
// its own scheduling (which core computes which tile) and, for GroupedMatmul, its x-resident tiles.
//
// The data path of one tile (as ops/examples/matmul_bias_act, which describes it step by step):
//   x slice   GM (ND) -- ND2NZ --> A1 (L1) -- LoadData --> A2 (L0A, ZZ)
//   w slice   GM (ND) -- ND2NZ --> B1 (L1) -- LoadData (fractals transposed, unless the weight is) --> B2 (L0B, ZN)
//   bias row  GM -- ND2NZ --> C1 (L1) -- DataCopy (half -> float for an fp16 bias) --> C2 (BiasTable, fp32)
//   Mmad into CO1 (L0C, fp32), the first of a tile from the bias (or from zero), then Fixpipe to y (ND, rounded).
// With a transposed weight [N, K] the slice w[n0 : n0 + n, k1 : k1 + kc] is loaded as NZ of [n, kc]; its
// fractals are already the ZN fractals L0B wants, in order, so one LoadData moves them.
#ifndef GMM_CUBE_H
#define GMM_CUBE_H

#include "kernel_operator.h"
#include "gmm_tiling_data.h"

namespace GmmCube {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // double buffering of L1 and L0A/L0B: must match the tilings
constexpr uint32_t FRACTAL = 16;   // fp16/bf16 fractals are 16 x 16 (512 bytes)
constexpr uint32_t FRACTAL_ELEMS = FRACTAL * FRACTAL;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

// The first tile at or after `base` in a queue dealt round-robin over `cores`: the one whose index is
// `me` modulo cores.
__aicore__ inline uint64_t FirstOwnTile(uint64_t base, uint64_t me, uint64_t cores)
{
    return base + (me + cores - base % cores) % cores;
}

// The weight slice of kc K rows and n columns starting at (k1, n0) of one weight matrix `w` ([K, N], or
// [N, K] when trans) into L1 as NZ: [K, N] gives NZ of kc x n ((k block j, n block nb) at nb * kcBlocks + j),
// [N, K] gives NZ of n x kc ((j, nb) at j * nBlocks + nb).
template <typename T>
__aicore__ inline void CopyWeightSlice(const LocalTensor<T>& b1, const GlobalTensor<T>& w, bool trans, uint32_t k1,
                                       uint32_t n0, uint32_t kc, uint32_t n, uint32_t K, uint32_t N)
{
    if (trans) {
        DataCopy(b1, w[static_cast<uint64_t>(n0) * K + k1], Nd2NzParams(1, n, kc, 0, K, CeilDiv(n, FRACTAL) * FRACTAL, 1, 0));
    } else {
        DataCopy(b1, w[static_cast<uint64_t>(k1) * N + n0], Nd2NzParams(1, kc, n, 0, N, CeilDiv(kc, FRACTAL) * FRACTAL, 1, 0));
    }
}

// One Mmad step of m x n x k into c: the first of a tile starts from the bias (when useBias) or from zero,
// the others accumulate. Small Mmads into one L0C are ordered by a barrier (the Mmad page).
template <typename T>
__aicore__ inline void MmadStep(const LocalTensor<float>& c, const LocalTensor<T>& a2, const LocalTensor<T>& b2,
                                const LocalTensor<float>& bias, bool useBias, bool first, uint32_t m, uint32_t n,
                                uint32_t k)
{
    MmadParams mmad;
    mmad.m = m;
    mmad.n = n;
    mmad.k = k;
    if (first && useBias) {
        Mmad(c, a2, b2, bias, mmad);  // L0C = bias + a2 x b2
    } else {
        mmad.cmatrixInitVal = first;  // first: L0C = a2 x b2; then L0C += a2 x b2
        Mmad(c, a2, b2, mmad);
    }
    if ((m / FRACTAL) * (n / FRACTAL) < 10) {
        PipeBarrier<PIPE_M>();
    }
}

// L0C (fp32, m x n) -> y (ND, row stride ldy), rounded to T
template <typename T>
__aicore__ inline void FixpipeOut(const GlobalTensor<T>& y, const LocalTensor<float>& c, uint32_t m, uint32_t n,
                                  uint32_t ldy)
{
    FixpipeParamsV220 fix(n, m, CeilDiv(m, FRACTAL) * FRACTAL, ldy, false);
    fix.quantPre = IsSameType<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::F322F16;
    Fixpipe(y, c, fix);
}

// The buffers of the cube path and the streamed tile. BiasT is the bias's type in GM: half (converted to
// float on its way into the BiasTable) or float.
template <typename T, typename BiasT>
class CubePath {
public:
    __aicore__ inline CubePath() {}

    // L1: a1Num x-buffers of a1Bytes, b1Num weight slices of stepK * baseK x baseN; L0A two base blocks,
    // L0B b2Num (two unless given) of a part's columns; L0C `parts` buffers of baseM x baseN / parts in
    // fp32; the bias row in L1 and the BiasTable.
    __aicore__ inline void Init(const GmmCubeTiling& cube, uint32_t a1Bytes, int32_t a1Num, int32_t b1Num,
                                uint32_t parts, int32_t b2Num = BUFFER_NUM)
    {
        t = cube;
        const uint32_t kL1 = t.stepK * t.baseK;
        const uint32_t cN = t.baseN / parts;
        pipe.InitBuffer(a1Queue, a1Num, a1Bytes);
        pipe.InitBuffer(b1Queue, b1Num, kL1 * t.baseN * sizeof(T));
        pipe.InitBuffer(a2Queue, BUFFER_NUM, t.baseM * t.baseK * sizeof(T));
        pipe.InitBuffer(b2Queue, b2Num, t.baseK * cN * sizeof(T));
        pipe.InitBuffer(c1Queue, parts, t.baseM * cN * sizeof(float));
        if (t.hasBias != 0) {
            pipe.InitBuffer(biasL1Queue, 1, CeilDiv(t.baseN, FRACTAL) * FRACTAL * sizeof(BiasT));
            pipe.InitBuffer(biasBtQueue, 1, t.baseN * sizeof(float));
        }
    }

    // The streamed form: two K slices of x and of w in L1, one fp32 tile in L0C
    __aicore__ inline void InitStreamed(const GmmCubeTiling& cube)
    {
        Init(cube, cube.baseM * cube.stepK * cube.baseK * sizeof(T), BUFFER_NUM, BUFFER_NUM, 1);
    }

    // bias[0 : n] -> L1 -> BiasTable (ND2NZ of one row zero-fills to the 32-byte block); a half bias becomes
    // float on the way (the converting L1 -> BiasTable copy, in 64-byte blocks of 16 floats). FreeBias after
    // the tile's first Mmad.
    __aicore__ inline LocalTensor<float> LoadBias(const GlobalTensor<BiasT>& bias, uint32_t n)
    {
        LocalTensor<BiasT> b1 = biasL1Queue.template AllocTensor<BiasT>();
        DataCopy(b1, bias, Nd2NzParams(1, 1, n, 0, n, 1, 1, 0));
        biasL1Queue.EnQue(b1);
        b1 = biasL1Queue.template DeQue<BiasT>();
        LocalTensor<float> bt = biasBtQueue.template AllocTensor<float>();
        if constexpr (IsSameType<BiasT, float>::value) {
            DataCopy(bt, b1, CeilDiv(n, 8) * 8);
        } else {
            DataCopy(bt, b1, DataCopyParams(1, static_cast<uint16_t>(CeilDiv(n, FRACTAL)), 0, 0));
        }
        biasL1Queue.FreeTensor(b1);
        biasBtQueue.EnQue(bt);
        return biasBtQueue.template DeQue<float>();
    }

    __aicore__ inline void FreeBias(LocalTensor<float>& bt)
    {
        biasBtQueue.FreeTensor(bt);
    }

    // L0C buffer c (taken from c1Queue) -> y, then the buffer is free for the next tile
    __aicore__ inline void FixOut(LocalTensor<float>& c, const GlobalTensor<T>& y, uint32_t m, uint32_t n, uint32_t ldy)
    {
        c1Queue.EnQue(c);
        c = c1Queue.template DeQue<float>();
        FixpipeOut(y, c, m, n, ldy);
        c1Queue.FreeTensor(c);
    }

    // One streamed output tile: y[0 : m, 0 : n] = x[0 : m, :] @ w[:, n0 : n0 + n] (+ bias[biasOff : biasOff + n]),
    // with x the tile's first row of an [., K] matrix, w one whole weight matrix ([K, N], or [N, K] with
    // transWeight), biasGm the bias (read only with hasBias) and y the tile's first element of an [., N] matrix. Per K slice of
    // stepK * baseK an x slice and a weight slice go to L1 (double-buffered), per baseK step into L0A / L0B,
    // the Mmads accumulate in one L0C tile, and one Fixpipe writes it out.
    __aicore__ inline void StreamTile(const GlobalTensor<T>& x, const GlobalTensor<T>& w, const GlobalTensor<BiasT>& biasGm,
                                      uint64_t biasOff, const GlobalTensor<T>& y, uint32_t n0, uint32_t m, uint32_t n,
                                      uint32_t K, uint32_t N)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t kL1 = t.stepK * t.baseK;
        const bool trans = t.transWeight != 0;
        LocalTensor<float> bias;
        if (t.hasBias != 0) {
            bias = LoadBias(biasGm[biasOff], n);
        }
        LocalTensor<float> c = c1Queue.template AllocTensor<float>();
        bool first = true;
        for (uint32_t k1 = 0; k1 < K; k1 += kL1) {
            const uint32_t kc = K - k1 < kL1 ? K - k1 : kL1;
            const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
            LocalTensor<T> a1 = a1Queue.template AllocTensor<T>();
            LocalTensor<T> b1 = b1Queue.template AllocTensor<T>();
            DataCopy(a1, x[k1], Nd2NzParams(1, m, kc, 0, K, mBlocks * FRACTAL, 1, 0));
            CopyWeightSlice(b1, w, trans, k1, n0, kc, n, K, N);
            a1Queue.EnQue(a1);
            b1Queue.EnQue(b1);
            a1 = a1Queue.template DeQue<T>();
            b1 = b1Queue.template DeQue<T>();
            for (uint32_t k2 = 0; k2 < kc; k2 += t.baseK) {
                const uint32_t kk = kc - k2 < t.baseK ? kc - k2 : t.baseK;
                const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
                LocalTensor<T> a2 = a2Queue.template AllocTensor<T>();
                const LoadData2DParams aRow(0, kkBlocks, mBlocks, 0, 0, false, 0);
                for (uint32_t i = 0; i < mBlocks; ++i) {
                    LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], a1[((k2 / FRACTAL) * mBlocks + i) * FRACTAL_ELEMS], aRow);
                }
                LocalTensor<T> b2 = b2Queue.template AllocTensor<T>();
                if (trans) {
                    // B1 fractal (n block nb, k block j) sits at j * nBlocks + nb: B2's order already
                    LoadData(b2, b1[(k2 / FRACTAL) * nBlocks * FRACTAL_ELEMS],
                             LoadData2DParams(0, kkBlocks * nBlocks, 1, 0, 0, false, 0));
                } else {
                    const LoadData2DParams bRow(0, nBlocks, kcBlocks, 0, 0, true, 0);
                    for (uint32_t j = 0; j < kkBlocks; ++j) {
                        LoadData(b2[j * nBlocks * FRACTAL_ELEMS], b1[(k2 / FRACTAL + j) * FRACTAL_ELEMS], bRow);
                    }
                }
                a2Queue.EnQue(a2);
                b2Queue.EnQue(b2);
                a2 = a2Queue.template DeQue<T>();
                b2 = b2Queue.template DeQue<T>();
                MmadStep(c, a2, b2, bias, t.hasBias != 0, first, m, n, kk);
                first = false;
                a2Queue.FreeTensor(a2);
                b2Queue.FreeTensor(b2);
            }
            a1Queue.FreeTensor(a1);
            b1Queue.FreeTensor(b1);
        }
        if (t.hasBias != 0) {
            FreeBias(bias);
        }
        FixOut(c, y, m, n, N);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> a1Queue;
    TQue<TPosition::B1, 1> b1Queue;
    TQue<TPosition::A2, 1> a2Queue;
    TQue<TPosition::B2, 1> b2Queue;
    TQue<TPosition::CO1, 1> c1Queue;
    TQue<TPosition::C1, 1> biasL1Queue;
    TQue<TPosition::C2, 1> biasBtQueue;
    GmmCubeTiling t;
};
}  // namespace GmmCube

#endif  // GMM_CUBE_H
