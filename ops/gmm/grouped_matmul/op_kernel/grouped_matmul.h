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
// The data path of one tile (ND2NZ into L1, LoadData into L0A/L0B, Mmad into L0C from the bias or zero,
// Fixpipe out to y) and the streamed tile itself are the GMM family's cube path, shared with
// ops/gmm/grouped_gemm: ops/gmm/common/op_kernel/gmm_cube.h describes them. This class keeps the
// schedules and the x-resident tiles (ComputePiece). Rows of y past the last group are never written.
#ifndef GROUPED_MATMUL_H
#define GROUPED_MATMUL_H

#include "kernel_operator.h"
#include "gmm_cube.h"
#include "grouped_matmul_tiling_data.h"

namespace GroupedMatmulKernel {
using namespace AscendC;

using GmmCube::CeilDiv;
using GmmCube::FRACTAL;
using GmmCube::FRACTAL_ELEMS;
constexpr uint32_t MAX_PARTS = 4;          // xResident: a tile's column parts at most (l0cNum)
constexpr int32_t W_BUFFERS_RESIDENT = 3;  // xResident: weight slices in flight (must match the tiling)
constexpr uint64_t SHORT_AFTER = 1;        // xResident: a run's short tiles follow its first SHORT_AFTER full ones
constexpr uint32_t XLEAD_STEPS = 1;        // xResident: K steps of a row block's first x copy
constexpr uint32_t XCHUNK_STEPS = 2;       // xResident: K steps per later x copy (two 128-deep steps: 512-B GM rows)

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
        if (t_.cube.hasBias != 0) {
            biasGm_.SetGlobalBuffer((__gm__ BiasT*)bias, static_cast<uint64_t>(t_.E) * t_.N);
        }
        groupListGm_.SetGlobalBuffer((__gm__ int64_t*)groupList, t_.E);
        yGm_.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(t_.M) * t_.N);
        if (t_.xResident != 0) {  // x's whole row block in L1, K padded to the fractal
            cube_.Init(t_.cube, t_.cube.baseM * CeilDiv(t_.K, FRACTAL) * FRACTAL * sizeof(T), 1, W_BUFFERS_RESIDENT,
                       t_.l0cNum, static_cast<int32_t>(t_.l0bNum));
        } else {
            cube_.InitStreamed(t_.cube);
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
        const uint32_t baseM = t_.cube.baseM;
        const uint32_t baseN = t_.cube.baseN;
        uint64_t tileBase = 0;  // index in the global queue of group g's first tile
        uint64_t start = 0;     // first row of group g
        for (uint32_t g = 0; g < t_.E; ++g) {
            const int64_t end = static_cast<int64_t>(GroupEnd(g, start));
            const uint32_t rows = static_cast<uint32_t>(end - static_cast<int64_t>(start));
            const uint64_t tiles = static_cast<uint64_t>(CeilDiv(rows, t_.cube.baseM)) * t_.nTiles;
            // my first tile at or after tileBase: the one whose index is me modulo cores
            for (uint64_t tile = GmmCube::FirstOwnTile(tileBase, me, cores); tile < tileBase + tiles; tile += cores) {
                const uint32_t local = static_cast<uint32_t>(tile - tileBase);
                const uint32_t r0 = (local / t_.nTiles) * baseM;
                const uint32_t n0 = (local % t_.nTiles) * baseN;
                const uint64_t m0 = start + r0;
                cube_.StreamTile(xGm_[m0 * t_.K], wGm_[static_cast<uint64_t>(g) * t_.K * t_.N], biasGm_,
                                 static_cast<uint64_t>(g) * t_.N + n0, yGm_[m0 * t_.N + n0], n0,
                                 rows - r0 < baseM ? rows - r0 : baseM, t_.N - n0 < baseN ? t_.N - n0 : baseN, t_.K,
                                 t_.N);
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
        const uint64_t pieceUnits = t_.cube.baseN / FRACTAL;
        // The share's row blocks run last to first: a share starts inside a row block and ends inside
        // a later one, so run backwards every core begins at column 0 of its row block, as its
        // neighbours do: cores of one group read the same weight columns at about the same time and
        // all but the first find them in L2.
        ShareBlock blk;
        const uint64_t blocks = ShareBlocks(lo, hi, units, UINT64_MAX, blk);
        for (uint64_t i = blocks; i-- > 0;) {
            ShareBlocks(lo, hi, units, i, blk);
            // x is copied two K steps a copy after its first step alone (XChunk), so that the block's first
            // Mmad waits for one step of x only.
            LocalTensor<T> xb = cube_.a1Queue.template AllocTensor<T>();
            const uint64_t runUnits = blk.u1 - blk.u0;
            for (uint64_t u = blk.u0, p = 0; u < blk.u1; ++p) {
                const uint32_t n0 = static_cast<uint32_t>(u * FRACTAL);
                const uint64_t uEnd = u + PieceUnits(runUnits, pieceUnits, p, i == 0 ? runUnits : SHORT_AFTER);
                const uint32_t nEnd = uEnd * FRACTAL < t_.N ? static_cast<uint32_t>(uEnd * FRACTAL) : t_.N;
                ComputePiece(blk.g, blk.r0, blk.m, n0, nEnd - n0, xb, u == blk.u0);
                u = uEnd;
            }
            cube_.a1Queue.FreeTensor(xb);
        }
    }

    // Units of piece p of a run of `run` units cut into tiles of at most `full` units: full tiles, but a
    // short remainder below half a tile is merged with one full tile and the two are cut evenly, so no
    // tile of the run is narrower than half a full one (a narrow tile's x step into L0A costs as much as
    // a full tile's, so its steps wait on MTE1, and its weight rows are short bursts). The short tiles
    // follow the run's first shortPos full tiles (all of them when it has fewer): ProcessResident puts them
    // after the first full tile, so that the run's first tile stays full (x's block copy, or the launch's
    // first reads, under a full tile's cube time), the short ones are not the tile before a row block
    // change, and cores whose shares cut a row block differently end their tiles at different times
    // (their Fixpipes, which share HBM, no longer all fall together); in the core's last run they come
    // last, so that its last Fixpipes, which nothing hides, are the narrow tile's.
    __aicore__ inline uint64_t PieceUnits(uint64_t run, uint64_t full, uint64_t p, uint64_t shortPos) const
    {
        if (run <= full) {
            return run;
        }
        const uint64_t r = run % full;
        const uint64_t fulls = r != 0 && r < full / 2 ? run / full - 1 : run / full;
        const uint64_t rest = run - fulls * full;  // the short tiles' units: 0, r, or full + r cut in two
        const uint64_t shorts = rest == 0 ? 0 : (rest > full ? 2 : 1);
        const uint64_t sp = shortPos < fulls ? shortPos : fulls;
        if (p < sp || p >= sp + shorts) {
            return full;
        }
        if (shorts == 1) {
            return rest;
        }
        return (p == sp) == (sp == 0) ? rest / 2 : (rest + 1) / 2;  // the narrower one on the outside
    }

    // The weight of each column unit of a row block of `rows` rows (capped at baseM): its 16-row
    // blocks, but at least 3/4 of a full block's: a tile streams its whole weight slice over K
    // whatever its rows, which on 910B costs about 0.7 of a full tile's cube time.
    __aicore__ inline uint64_t BlockWeight(uint64_t rows) const
    {
        const uint64_t full = t_.cube.baseM / FRACTAL;
        const uint64_t mb = rows >= t_.cube.baseM ? full : (rows + FRACTAL - 1) / FRACTAL;
        const uint64_t least = (3 * full + 3) / 4;
        return mb > least ? mb : least;
    }

    // The weight of one column unit summed over the row blocks of a group of `rows` rows
    __aicore__ inline uint64_t GroupWeight(uint64_t rows) const
    {
        const uint64_t tail = rows % t_.cube.baseM;
        return rows / t_.cube.baseM * BlockWeight(t_.cube.baseM) + (tail != 0 ? BlockWeight(tail) : 0);
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
            for (uint64_t r0 = start; r0 < end && base < hi; r0 += t_.cube.baseM) {
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
                    blk.m = end - r0 < t_.cube.baseM ? static_cast<uint32_t>(end - r0) : t_.cube.baseM;
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
    // x's layout in L1, written on the row block's first tile (loadX): in chunks of K (XChunk), the chunk
    // from column c0 at c0 * baseM, its fractals ZZ ((16-row block i, k block j) at i * chunkBlocks + j):
    // a step moves into L0A with one LoadData per 16-row block. Odd cores copy a step's weight slice
    // before its x chunk, even ones after, so the cores' HBM reads do not all go in step.
    // The weight's K slice is NZ of kk x n (512-B rows from GM for a full tile).
    __aicore__ inline void ComputePiece(uint32_t g, uint32_t m0, uint32_t m, uint32_t n0, uint32_t n,
                                        const LocalTensor<T>& xb, bool loadX)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t mFull = m / FRACTAL;
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t partN = t_.cube.baseN / t_.l0cNum;  // columns of one part
        const uint32_t parts = CeilDiv(n, partN);
        uint32_t hN[MAX_PARTS];
        for (uint32_t h = 0; h < parts; ++h) {
            hN[h] = n - h * partN < partN ? n - h * partN : partN;
        }
        const uint64_t wBase = static_cast<uint64_t>(g) * t_.K * t_.N;
        const bool hasBias = t_.cube.hasBias != 0;
        LocalTensor<float> bias;
        if (hasBias) {
            bias = cube_.LoadBias(biasGm_[static_cast<uint64_t>(g) * t_.N + n0], n);
        }
        LocalTensor<float> c[MAX_PARTS];  // each taken just before its first Mmad: its buffer may still be
                                          // draining the same part of the previous tile
        for (uint32_t k1 = 0; k1 < t_.K; k1 += t_.cube.baseK) {
            const uint32_t kk = t_.K - k1 < t_.cube.baseK ? t_.K - k1 : t_.cube.baseK;
            const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
            const bool first = k1 == 0;
            const bool last = k1 + kk >= t_.K;
            const bool xAfterW = (GetBlockIdx() & 1) != 0;  // odd cores copy the weight slice first
            if (!xAfterW) {
                CopyXChunk(xb, m0, m, k1, loadX);
            }
            LocalTensor<T> b1 = cube_.b1Queue.template AllocTensor<T>();
            GmmCube::CopyWeightSlice(b1, wGm_[wBase], t_.cube.transWeight != 0, k1, n0, kk, n, t_.K, t_.N);
            if (xAfterW) {
                CopyXChunk(xb, m0, m, k1, loadX);
            }
            cube_.b1Queue.EnQue(b1);  // also orders the x copies above (one MTE2 queue) before the LoadData below
            b1 = cube_.b1Queue.template DeQue<T>();
            LocalTensor<T> a2 = cube_.a2Queue.template AllocTensor<T>();
            {  // x's step: per 16-row block its kkBlocks fractals, contiguous in the chunk's ZZ order
                uint32_t c0 = 0;
                uint32_t kc = 0;
                XChunk(k1, c0, kc);
                const uint32_t chunkBlocks = CeilDiv(kc, FRACTAL);
                const uint32_t src = c0 * t_.cube.baseM + (k1 - c0) / FRACTAL * FRACTAL_ELEMS;
                const LoadData2DParams aRow(0, kkBlocks, 1, 0, 0, false, 0);
                for (uint32_t i = 0; i < mBlocks; ++i) {
                    LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], xb[src + i * chunkBlocks * FRACTAL_ELEMS], aRow);
                }
            }
            cube_.a2Queue.EnQue(a2);
            a2 = cube_.a2Queue.template DeQue<T>();
            for (uint32_t h = 0; h < parts; ++h) {
                const uint32_t nb0 = h * partN / FRACTAL;
                const uint32_t hBlocks = CeilDiv(hN[h], FRACTAL);
                LocalTensor<T> b2 = cube_.b2Queue.template AllocTensor<T>();
                // L0B: (j, nb) at j * hBlocks + nb: one LoadData per n block, its k blocks hBlocks apart
                const uint16_t gap = static_cast<uint16_t>(hBlocks - 1);
                for (uint32_t nb = 0; nb < hBlocks; ++nb) {
                    if (t_.cube.transWeight != 0) {
                        LoadData(b2[nb * FRACTAL_ELEMS], b1[(nb0 + nb) * FRACTAL_ELEMS],
                                 LoadData2DParams(0, kkBlocks, nBlocks, 0, gap, false, 0));
                    } else {
                        LoadData(b2[nb * FRACTAL_ELEMS], b1[(nb0 + nb) * kkBlocks * FRACTAL_ELEMS],
                                 LoadData2DParams(0, kkBlocks, 1, 0, gap, true, 0));
                    }
                }
                cube_.b2Queue.EnQue(b2);
                b2 = cube_.b2Queue.template DeQue<T>();
                if (first) {
                    c[h] = cube_.c1Queue.template AllocTensor<float>();
                }
                GmmCube::MmadStep(c[h], a2, b2, hasBias ? bias[h * partN] : bias, hasBias, first, m, hN[h], kk);
                cube_.b2Queue.FreeTensor(b2);
                if (last) {  // L0C -> y, then the buffer is free for the next tile
                    cube_.FixOut(c[h], yGm_[static_cast<uint64_t>(m0) * t_.N + n0 + h * partN], m, hN[h], t_.N);
                }
            }
            cube_.a2Queue.FreeTensor(a2);
            cube_.b1Queue.FreeTensor(b1);
        }
        if (hasBias) {
            cube_.FreeBias(bias);
        }
    }

    // The x chunk holding K column k1: its first column c0 and its kc columns. After a first chunk of
    // XLEAD_STEPS steps the chunks are XCHUNK_STEPS steps.
    __aicore__ inline void XChunk(uint32_t k1, uint32_t& c0, uint32_t& kc) const
    {
        const uint32_t lead = XLEAD_STEPS * t_.cube.baseK;
        const uint32_t chunkK = XCHUNK_STEPS * t_.cube.baseK;
        if (k1 < lead) {
            c0 = 0;
            kc = lead;
        } else {
            c0 = lead + (k1 - lead) / chunkK * chunkK;
            kc = chunkK;
        }
        kc = t_.K - c0 < kc ? t_.K - c0 : kc;
    }

    // x's chunk that starts at K column k1 (XChunk; 512-B GM rows for a full one) into xb: the chunk at
    // k1 * baseM, its fractals ZZ over the chunk ((16-row block i, k block j) at i * chunkBlocks + j).
    // Copied at the chunk's first step (when loadX).
    __aicore__ inline void CopyXChunk(const LocalTensor<T>& xb, uint32_t m0, uint32_t m, uint32_t k1, bool loadX)
    {
        uint32_t c0 = 0;
        uint32_t kc = 0;
        XChunk(k1, c0, kc);
        if (!loadX || c0 != k1) {
            return;
        }
        const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
        const uint32_t mFull = m / FRACTAL;
        const uint64_t src = static_cast<uint64_t>(m0) * t_.K + k1;
        const uint32_t dst = k1 * t_.cube.baseM;
        if (mFull > 0) {
            DataCopy(xb[dst], xGm_[src], Nd2NzParams(mFull, FRACTAL, kc, FRACTAL * t_.K, t_.K, FRACTAL, 1,
                                                     kcBlocks * FRACTAL_ELEMS));
        }
        if (m > mFull * FRACTAL) {
            DataCopy(xb[dst + mFull * kcBlocks * FRACTAL_ELEMS], xGm_[src + mFull * FRACTAL * t_.K],
                     Nd2NzParams(1, m - mFull * FRACTAL, kc, 0, t_.K, FRACTAL, 1, 0));
        }
    }

    GmmCube::CubePath<T, BiasT> cube_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> wGm_;
    GlobalTensor<BiasT> biasGm_;
    GlobalTensor<int64_t> groupListGm_;
    GlobalTensor<T> yGm_;
    GroupedMatmulTilingData t_;
};
}  // namespace GroupedMatmulKernel

#endif  // GROUPED_MATMUL_H
