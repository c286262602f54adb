// MatmulReduceScatter: the kernel class, y_r = rows [r * M / R, (r + 1) * M / R) of sum_p (x1_p @ x2_p + bias_p)
// over the ranks of attr group, as a mix kernel (AIC:AIV = 1:2). The code below runs on the vector cores;
// REGIST_MATMUL_OBJ in the entry keeps the cube cores in the Matmul API's server loop.
//
// The product [M, N] is R blocks of blockM = M / R rows, block p the rows rank p receives. Each block is cut alike
// into communication tiles (op_host/matmul_reduce_scatter_tiling.cpp): tileCnt tiles of tileM rows, then tailCnt
// (0 or 1) short tail of tailM rows. For each tile t, in order:
//
//   1. every vector core ("worker") takes its pieces of tile t of every block p (rows p * blockM + t * tileM ...):
//        x1 rows @ x2 cols (+ bias) -- Matmul API, IterateAll on the cube core, Fixpipe rounding fp32 to
//        fp16/bf16 --> staging (GM workspace, the ReduceScatter's send buffer)
//      (the bias was converted to fp32 once, every worker its share, for the cube's BiasTable);
//   2. SyncAll: tile t of every block is in staging;
//   3. vector core 0 commits tile t's ReduceScatter: rank p receives the sum over the ranks of tile t of block p
//      while every core goes on with the next tile.
// At the end vector core 0 waits for every slice and finalizes.
#ifndef MATMUL_REDUCE_SCATTER_H
#define MATMUL_REDUCE_SCATTER_H

#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "lib/matmul_intf.h"
#include "mc2_kernel.h"
#include "matmul_reduce_scatter_tiling_data.h"

namespace MatmulReduceScatterKernel {
using namespace AscendC;

using Mc2Kernel::ALIGN;
using Mc2Kernel::CeilDiv;
using Mc2Kernel::HcclType;

template <typename T>
class MatmulReduceScatter {
public:
    __aicore__ inline MatmulReduceScatter() {}

    // Bound to its tiling by REGIST_MATMUL_OBJ in the kernel entry, before any InitBuffer.
    Mc2Kernel::DirectMatmul<T> mm;

    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y, GM_ADDR userWorkspace,
                                GM_ADDR tilingGm, const MatmulReduceScatterTilingData& tiling, TPipe* pipe)
    {
        t_ = tiling;
        op_.Init(x1, x2, bias, userWorkspace, t_.M, t_.N, t_.K, t_.hasBias != 0, t_.cut, pipe);
        const uint64_t mn = static_cast<uint64_t>(t_.M) * t_.N;
        y_ = y;
        staging_ = userWorkspace + t_.stagingOffset;
        stagingGm_.SetGlobalBuffer((__gm__ T*)staging_, mn);
        if (op_.lead) {
            Mc2Kernel::InitHccl(hccl_, tilingGm, offsetof(MatmulReduceScatterTilingData, mc2InitTiling),
                                offsetof(MatmulReduceScatterTilingData, reduceScatterTiling));
        }
    }

    __aicore__ inline void Process()
    {
        // The ReduceScatters: slice i of a handle sends block p's rows at staging + (p * blockM * N + i * count)
        // elements to rank p, which receives their sum at y + i * count.
        const uint64_t tileElems = static_cast<uint64_t>(t_.cut.tileM) * t_.N;
        const uint64_t stride = static_cast<uint64_t>(t_.blockM) * t_.N;
        const uint64_t tailStart = tileElems * t_.cut.tileCnt * sizeof(T);
        const auto dtype = HcclType<T>::value;
        if (op_.lead) {
            tileHandle_ = hccl_.ReduceScatter(staging_, y_, tileElems, dtype, HCCL_REDUCE_SUM, stride,
                                              uint8_t(t_.cut.tileCnt));  // @prepare_tile
            if (t_.cut.tailCnt > 0)
                tailHandle_ = hccl_.ReduceScatter(staging_ + tailStart, y_ + tailStart, static_cast<uint64_t>(t_.cut.tailM) * t_.N,
                                                  dtype, HCCL_REDUCE_SUM, stride, uint8_t(t_.cut.tailCnt));
        }
        if (t_.hasBias) {
            op_.ConvertBias();
            SyncAll<true>();  // the whole fp32 bias is in GM before the cube reads any of it
        }
        mm.SetOrgShape(t_.M, t_.N, t_.K, t_.K, t_.N);  // the rounded pieces land in staging's rows of N
        for (uint32_t tile = 0; tile < t_.cut.tileCnt + t_.cut.tailCnt; ++tile) {
            const bool tail = tile >= t_.cut.tileCnt;
            ComputeTile(tile * t_.cut.tileM, tail ? t_.cut.tailM : t_.cut.tileM);
            SyncAll<true>();  // every worker's pieces of this tile (of every block) are in staging
            if (op_.lead) hccl_.Commit(tail ? tailHandle_ : tileHandle_);  // @commit
        }
        if (op_.lead) {
            for (uint32_t i = 0; i < t_.cut.tileCnt; ++i) hccl_.Wait(tileHandle_);  // @wait
            for (uint32_t i = 0; i < t_.cut.tailCnt; ++i) hccl_.Wait(tailHandle_);
            hccl_.Finalize();
        }
        mm.End();
    }

private:
    // This worker's pieces of the tile of rows [row0, row0 + rows) of every block.
    __aicore__ inline void ComputeTile(uint32_t row0, uint32_t rows)
    {
        Mc2Kernel::ForEachPiece(op_.worker, op_.workers, rows, t_.cut.rankDim, t_.mmTiling.singleCoreM,
                                t_.mmTiling.singleCoreN, t_.N,
                                [&](uint32_t block, uint32_t r, uint32_t n0, uint32_t m, uint32_t n) {
                                    ComputePiece(block * t_.blockM + row0 + r, n0, m, n);
                                });
    }

    // staging[m0 : m0 + m, n0 : n0 + n] = round(x1[m0 : m0 + m] @ x2[:, n0 : n0 + n] (+ bias)).
    __aicore__ inline void ComputePiece(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        Mc2Kernel::MatmulPiece(mm, op_.x1[static_cast<uint64_t>(m0) * t_.K], op_.x2, n0, m, n, t_.K, t_.isTransB != 0,
                               op_.hasBias, op_.biasF, stagingGm_[static_cast<uint64_t>(m0) * t_.N + n0]);
    }

    Hccl<HCCL_SERVER_TYPE_AICPU> hccl_;
    HcclHandle tileHandle_ = -1;
    HcclHandle tailHandle_ = -1;
    Mc2Kernel::Operands<T> op_;
    GlobalTensor<T> stagingGm_;
    GM_ADDR y_ = nullptr;
    GM_ADDR staging_ = nullptr;
    MatmulReduceScatterTilingData t_;
};
}  // namespace MatmulReduceScatterKernel

#endif  // MATMUL_REDUCE_SCATTER_H
