// GroupedMatmul: the kernel class, y[rows of group g] = x[rows of group g] @ weight[g] (+ bias[g]),
// on the cube unit (AIC cores), written with the cube instructions.
//
// Scheduling (the streamed path; ProcessResident describes the x-resident one, chosen by the tiling
// for a short K): every group g (rows start_g .. end_g of x, from group_list) is cut into output tiles
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
constexpr uint32_t MAX_PARTS = 4;
constexpr int32_t W_BUFFERS_RESIDENT = 3;  // xResident: weight slices in flight (must match the tiling)   // xResident: a tile's column parts, one L0C buffer each (l0cNum)

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
        if (t_.xResident != 0) {  // x's whole row block, K padded to the fractal
            pipe_.InitBuffer(a1Queue_, 1, t_.baseM * CeilDiv(t_.K, FRACTAL) * FRACTAL * sizeof(T));
        } else {
            pipe_.InitBuffer(a1Queue_, BUFFER_NUM, t_.baseM * kL1 * sizeof(T));
        }
        pipe_.InitBuffer(b1Queue_, t_.xResident != 0 ? W_BUFFERS_RESIDENT : BUFFER_NUM, kL1 * t_.baseN * sizeof(T));
        pipe_.InitBuffer(a2Queue_, BUFFER_NUM, t_.baseM * t_.baseK * sizeof(T));
        // xResident: a tile is l0cNum column parts, each with its own L0B load and L0C buffer
        const uint32_t cN = t_.baseN / t_.l0cNum;
        pipe_.InitBuffer(b2Queue_, BUFFER_NUM, t_.baseK * cN * sizeof(T));
        pipe_.InitBuffer(c1Queue_, t_.l0cNum, t_.baseM * cN * sizeof(float));
        if (t_.hasBias != 0) {
            pipe_.InitBuffer(biasL1Queue_, 1, CeilDiv(t_.baseN, FRACTAL) * FRACTAL * sizeof(BiasT));
            pipe_.InitBuffer(biasBtQueue_, 1, t_.baseN * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        if (t_.xResident != 0) {
            ProcessResident();
            return;
        }
        const uint64_t cores = GetBlockNum();
        const uint64_t me = GetBlockIdx();
        uint64_t tileBase = 0;  // index in the global queue of group g's first tile
        uint64_t start = 0;     // first row of group g
        for (uint32_t g = 0; g < t_.E; ++g) {
            const int64_t end = static_cast<int64_t>(GroupEnd(g, start));
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
    // End of group g's rows (group_list out of contract - a cumulative end below the previous one, past M - is clamped)
    __aicore__ inline uint64_t GroupEnd(uint32_t g, uint64_t start)
    {
        const int64_t v = groupListGm_.GetValue(g);
        int64_t end = t_.groupListType == 0 ? v : static_cast<int64_t>(start) + v;
        end = end < static_cast<int64_t>(start) ? static_cast<int64_t>(start) : end;
        end = end > static_cast<int64_t>(t_.M) ? static_cast<int64_t>(t_.M) : end;
        return static_cast<uint64_t>(end);
    }

    // xResident: the work of all groups is a sequence of row blocks (baseM rows of one group, group
    // order), each cut into ceil(N / 16) column units, each unit weighted by BlockWeight. Core c owns
    // the units starting in [c * W / cores, (c + 1) * W / cores) of the total weight W: even shares
    // whatever the group sizes, and each share a run of neighbouring units, so a core's tiles of one
    // row block follow each other and x's block is read from GM once. A share is cut into tiles of at
    // most baseN columns.
    __aicore__ inline void ProcessResident()
    {
        const uint64_t cores = GetBlockNum();
        const uint64_t me = GetBlockIdx();
        const uint64_t units = CeilDiv(t_.N, FRACTAL);
        uint64_t total = 0;
        uint64_t start = 0;
        for (uint32_t g = 0; g < t_.E; ++g) {
            const uint64_t end = GroupEnd(g, start);
            total += GroupWeight(end - start) * units;
            start = end;
        }
        const uint64_t lo = total * me / cores;
        const uint64_t hi = total * (me + 1) / cores;
        const uint64_t pieceUnits = t_.baseN / FRACTAL;
        // The share's row blocks run last to first: a share starts inside a row block and ends inside
        // a later one, so run backwards every core begins at column 0 of its row block, as its
        // neighbours do: cores of one group read the same weight columns at about the same time and
        // all but the first find them in L2.
        ShareBlock blk;
        for (uint64_t i = ShareBlocks(lo, hi, units, UINT64_MAX, blk); i-- > 0;) {
            ShareBlocks(lo, hi, units, i, blk);
            LocalTensor<T> xb = a1Queue_.AllocTensor<T>();
            for (uint64_t u = blk.u0; u < blk.u1; u += pieceUnits) {
                const uint32_t n0 = static_cast<uint32_t>(u * FRACTAL);
                const uint64_t uEnd = u + pieceUnits < blk.u1 ? u + pieceUnits : blk.u1;
                const uint32_t nEnd = uEnd * FRACTAL < t_.N ? static_cast<uint32_t>(uEnd * FRACTAL) : t_.N;
                ComputePiece(blk.g, blk.r0, blk.m, n0, nEnd - n0, xb, u == blk.u0);
            }
            a1Queue_.FreeTensor(xb);
        }
    }

    // The weight of each column unit of a row block of `rows` rows (capped at baseM): its 16-row
    // blocks, but at least 3/4 of a full block's: a tile streams its whole weight slice over K
    // whatever its rows, which on 910B costs about 0.7 of a full tile's cube time.
    __aicore__ inline uint64_t BlockWeight(uint64_t rows) const
    {
        const uint64_t full = t_.baseM / FRACTAL;
        const uint64_t mb = rows >= t_.baseM ? full : (rows + FRACTAL - 1) / FRACTAL;
        const uint64_t least = (3 * full + 3) / 4;
        return mb > least ? mb : least;
    }

    // The weight of one column unit summed over the row blocks of a group of `rows` rows
    __aicore__ inline uint64_t GroupWeight(uint64_t rows) const
    {
        const uint64_t tail = rows % t_.baseM;
        return rows / t_.baseM * BlockWeight(t_.baseM) + (tail != 0 ? BlockWeight(tail) : 0);
    }

    struct ShareBlock {
        uint32_t g = 0;   // group
        uint32_t r0 = 0;  // first row of the row block
        uint32_t m = 0;   // its rows
        uint64_t u0 = 0;  // the share's column units [u0, u1) of it
        uint64_t u1 = 0;
    };

    // Walks the row blocks (group order) and counts those the units [lo, hi) touch; fills blk with
    // the one numbered want (from 0) and returns the count so far (the whole count if want is past it).
    __aicore__ inline uint64_t ShareBlocks(uint64_t lo, uint64_t hi, uint64_t units, uint64_t want, ShareBlock& blk)
    {
        uint64_t count = 0;
        uint64_t base = 0;  // weight of the row blocks before the current one
        uint64_t start = 0;
        for (uint32_t g = 0; g < t_.E && base < hi; ++g) {
            const uint64_t end = GroupEnd(g, start);
            const uint64_t groupWeight = GroupWeight(end - start) * units;
            if (base + groupWeight <= lo) {  // the whole group lies before the share
                base += groupWeight;
                start = end;
                continue;
            }
            for (uint64_t r0 = start; r0 < end && base < hi; r0 += t_.baseM) {
                const uint64_t w = BlockWeight(end - r0);  // of each unit of this row block
                // the units u of this row block with lo <= base + u * w < hi
                const uint64_t u0 = lo > base ? (lo - base + w - 1) / w : 0;
                const uint64_t u1 = (hi - base + w - 1) / w < units ? (hi - base + w - 1) / w : units;
                base += w * units;
                if (u0 >= u1) {
                    continue;
                }
                if (count == want) {
                    blk.g = g;
                    blk.r0 = static_cast<uint32_t>(r0);
                    blk.m = end - r0 < t_.baseM ? static_cast<uint32_t>(end - r0) : t_.baseM;
                    blk.u0 = u0;
                    blk.u1 = u1;
                    return count + 1;
                }
                ++count;
            }
            start = end;
        }
        return count;
    }

    // One tile (n <= baseN columns) with x's row block resident in L1 (xb), computed as column parts of
    // baseN / l0cNum columns, each in its own L0C buffer. Per K step (baseK deep, one L1 weight slice):
    // x's step into L0A once, then for each part its weight columns into L0B and its Mmad. In the last
    // step each part's Fixpipe is issued right after its Mmad, so it drains under the next parts'
    // Mmads; a part's L0C buffer is taken at its first Mmad, so the next tile's first parts start
    // while the last parts of this one still drain.
    // x's layout in L1, written on the row block's first tile (loadX): K step s at s * baseM * baseK,
    // its fractals ZZ ((16-row block i, k block j) at i * kkBlocks + j): one LoadData moves a step.
    // The weight's K slice is NZ of kk x n (512-B rows from GM for a full tile).
    __aicore__ inline void ComputePiece(uint32_t g, uint32_t m0, uint32_t m, uint32_t n0, uint32_t n,
                                        const LocalTensor<T>& xb, bool loadX)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t mFull = m / FRACTAL;
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t partN = t_.baseN / t_.l0cNum;  // columns of one part
        const uint32_t parts = CeilDiv(n, partN);
        uint32_t hN[MAX_PARTS];
        for (uint32_t h = 0; h < parts; ++h) {
            hN[h] = n - h * partN < partN ? n - h * partN : partN;
        }
        const uint64_t wBase = static_cast<uint64_t>(g) * t_.K * t_.N;
        LocalTensor<float> bias;
        if (t_.hasBias != 0) {
            bias = LoadBias(static_cast<uint64_t>(g) * t_.N + n0, n);
        }
        LocalTensor<float> c[MAX_PARTS];  // each taken just before its first Mmad: its buffer may still be
                                          // draining the same part of the previous tile
        for (uint32_t k1 = 0; k1 < t_.K; k1 += t_.baseK) {
            const uint32_t kk = t_.K - k1 < t_.baseK ? t_.K - k1 : t_.baseK;
            const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
            const bool first = k1 == 0;
            const bool last = k1 + kk >= t_.K;
            if (loadX) {
                const uint64_t src = static_cast<uint64_t>(m0) * t_.K + k1;
                const uint32_t dst = k1 * t_.baseM;
                if (mFull > 0) {
                    DataCopy(xb[dst], xGm_[src], Nd2NzParams(mFull, FRACTAL, kk, FRACTAL * t_.K, t_.K, FRACTAL, 1,
                                                             kkBlocks * FRACTAL_ELEMS));
                }
                if (m > mFull * FRACTAL) {
                    DataCopy(xb[dst + mFull * kkBlocks * FRACTAL_ELEMS], xGm_[src + mFull * FRACTAL * t_.K],
                             Nd2NzParams(1, m - mFull * FRACTAL, kk, 0, t_.K, FRACTAL, 1, 0));
                }
            }
            LocalTensor<T> b1 = b1Queue_.AllocTensor<T>();
            if (t_.transWeight != 0) {  // weight[g] is [N, K]: NZ of n x kk, (k block j, n block nb) at j * nBlocks + nb
                DataCopy(b1, wGm_[wBase + static_cast<uint64_t>(n0) * t_.K + k1],
                         Nd2NzParams(1, n, kk, 0, t_.K, nBlocks * FRACTAL, 1, 0));
            } else {                    // weight[g] is [K, N]: NZ of kk x n, (j, nb) at nb * kkBlocks + j
                DataCopy(b1, wGm_[wBase + static_cast<uint64_t>(k1) * t_.N + n0],
                         Nd2NzParams(1, kk, n, 0, t_.N, kkBlocks * FRACTAL, 1, 0));
            }
            b1Queue_.EnQue(b1);  // also orders the x copies above (one MTE2 queue) before the LoadData below
            b1 = b1Queue_.DeQue<T>();
            LocalTensor<T> a2 = a2Queue_.AllocTensor<T>();
            LoadData(a2, xb[k1 * t_.baseM], LoadData2DParams(0, mBlocks * kkBlocks, 1, 0, 0, false, 0));
            a2Queue_.EnQue(a2);
            a2 = a2Queue_.DeQue<T>();
            for (uint32_t h = 0; h < parts; ++h) {
                const uint32_t nb0 = h * partN / FRACTAL;
                const uint32_t hBlocks = CeilDiv(hN[h], FRACTAL);
                LocalTensor<T> b2 = b2Queue_.AllocTensor<T>();
                // L0B: (j, nb) at j * hBlocks + nb: one LoadData per n block, its k blocks hBlocks apart
                const uint16_t gap = static_cast<uint16_t>(hBlocks - 1);
                for (uint32_t nb = 0; nb < hBlocks; ++nb) {
                    if (t_.transWeight != 0) {
                        LoadData(b2[nb * FRACTAL_ELEMS], b1[(nb0 + nb) * FRACTAL_ELEMS],
                                 LoadData2DParams(0, kkBlocks, nBlocks, 0, gap, false, 0));
                    } else {
                        LoadData(b2[nb * FRACTAL_ELEMS], b1[(nb0 + nb) * kkBlocks * FRACTAL_ELEMS],
                                 LoadData2DParams(0, kkBlocks, 1, 0, gap, true, 0));
                    }
                }
                b2Queue_.EnQue(b2);
                b2 = b2Queue_.DeQue<T>();
                if (first) {
                    c[h] = c1Queue_.AllocTensor<float>();
                }
                MmadParams mmad;
                mmad.m = m;
                mmad.n = hN[h];
                mmad.k = kk;
                if (first && t_.hasBias != 0) {
                    Mmad(c[h], a2, b2, bias[h * partN], mmad);
                } else {
                    mmad.cmatrixInitVal = first;
                    Mmad(c[h], a2, b2, mmad);
                }
                if ((m / 16) * (hN[h] / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page: small Mmads into one L0C
                b2Queue_.FreeTensor(b2);
                if (last) {
                    FixPart(c[h], m0, n0 + h * partN, m, hN[h]);
                }
            }
            a2Queue_.FreeTensor(a2);
            b1Queue_.FreeTensor(b1);
        }
        if (t_.hasBias != 0) {
            biasBtQueue_.FreeTensor(bias);
        }
    }

    // L0C (fp32) -> y[m0 : m0 + m, n0 : n0 + n], rounded to T, then the buffer is free for the next tile
    __aicore__ inline void FixPart(LocalTensor<float>& c, uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        c1Queue_.EnQue(c);
        c = c1Queue_.DeQue<float>();
        FixpipeParamsV220 fix(n, m, CeilDiv(m, FRACTAL) * FRACTAL, t_.N, false);
        fix.quantPre = IsSameType<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::F322F16;
        Fixpipe(yGm_[static_cast<uint64_t>(m0) * t_.N + n0], c, fix);
        c1Queue_.FreeTensor(c);
    }

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
