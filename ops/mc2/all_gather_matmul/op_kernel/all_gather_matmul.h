// AllGatherMatmul: the kernel class, gather_out = AllGather(x1) and y = gather_out @ x2 + bias over the ranks of
// attr group, as a mix kernel (AIC:AIV = 1:2). The code below runs on the vector cores; REGIST_MATMUL_OBJ in the
// entry keeps the cube cores in the Matmul API's server loop.
//
// Each rank's x1 is cut along M into communication tiles (op_host/all_gather_matmul_tiling.cpp): tileCnt tiles
// of tileM rows, then tailCnt (0 or 1) short tail of tailM rows.
//
//   1. vector core 0 prepares the AllGathers (tiles, tail) and commits every slice at once: x1 is an input, so
//      the slices can travel from the start; rank p's slice t lands in gather_out at rows p * M + t * tileM;
//   2. every vector core computes its pieces of this rank's own block of y (rows rank * M ...) from its local
//      x1: no communication needed, so it hides the first slices' travel;
//   3. for each tile t, every vector core waits for slice t (Wait: it has landed from every rank), then computes
//      its pieces of tile t of every other rank's block of y from gather_out.
// A piece: x1 or gather_out rows @ x2 (+ bias) (Matmul API; the bias converted to fp32 once, every worker its share,
// for the cube's BiasTable), rounded once to fp16/bf16 by Fixpipe straight into y.
#ifndef ALL_GATHER_MATMUL_H
#define ALL_GATHER_MATMUL_H

#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "lib/matmul_intf.h"
#include "mc2_kernel.h"
#include "all_gather_matmul_tiling_data.h"

namespace AllGatherMatmulKernel {
using namespace AscendC;

using Mc2Kernel::ALIGN;
using Mc2Kernel::CeilDiv;
using Mc2Kernel::HcclType;

template <typename T>
class AllGatherMatmul {
public:
    __aicore__ inline AllGatherMatmul() {}

    // Bound to its tiling by REGIST_MATMUL_OBJ in the kernel entry, before any InitBuffer.
    Mc2Kernel::DirectMatmul<T> mm;

    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y, GM_ADDR gatherOut,
                                GM_ADDR userWorkspace, GM_ADDR tilingGm, const AllGatherMatmulTilingData& tiling,
                                TPipe* pipe)
    {
        t_ = tiling;
        op_.Init(x1, x2, bias, userWorkspace, t_.M, t_.N, t_.K, t_.hasBias != 0, t_.cut, pipe);
        const uint64_t rows = static_cast<uint64_t>(t_.M) * t_.cut.rankDim;
        x1_ = x1;
        gather_ = t_.gatherInWorkspace ? userWorkspace + t_.gatherOffset : gatherOut;
        gatherGm_.SetGlobalBuffer((__gm__ T*)gather_, rows * t_.K);
        yGm_.SetGlobalBuffer((__gm__ T*)y, rows * t_.N);
        Mc2Kernel::InitHccl(hccl_, tilingGm, offsetof(AllGatherMatmulTilingData, mc2InitTiling),
                            offsetof(AllGatherMatmulTilingData, allGatherTiling));
        rank_ = hccl_.GetRankId();
    }

    __aicore__ inline void Process()
    {
        // 1. The AllGathers: slice i of rank p lands at recv + (p * M * K + i * count) elements.
        const uint64_t tileElems = static_cast<uint64_t>(t_.cut.tileM) * t_.K;
        const uint64_t stride = static_cast<uint64_t>(t_.M) * t_.K;
        const uint64_t tailStart = tileElems * t_.cut.tileCnt * sizeof(T);
        const auto dtype = HcclType<T>::value;
        if (op_.lead) {
            tileHandle_ = hccl_.AllGather(x1_, gather_, tileElems, dtype, stride, uint8_t(t_.cut.tileCnt));  // @prepare_tile
            if (t_.cut.tailCnt > 0)
                tailHandle_ = hccl_.AllGather(x1_ + tailStart, gather_ + tailStart, static_cast<uint64_t>(t_.cut.tailM) * t_.K,
                                              dtype, stride, uint8_t(t_.cut.tailCnt));
            for (uint32_t i = 0; i < t_.cut.tileCnt; ++i) hccl_.Commit(tileHandle_);  // @commit
            for (uint32_t i = 0; i < t_.cut.tailCnt; ++i) hccl_.Commit(tailHandle_);
        }
        op_.ConvertBias();
        SyncAll<true>();  // the handles exist before any core waits on them, the fp32 bias is whole in GM
        tileHandle_ = 0;  // the handles the lead prepared, in order
        tailHandle_ = t_.cut.tailCnt > 0 ? 1 : -1;
        mm.SetOrgShape(t_.M * t_.cut.rankDim, t_.N, t_.K, t_.K, t_.N);  // the rounded pieces land in y's rows of N
        // 2. This rank's own block from its local x1.
        ComputeRows(op_.x1, 0, rank_ * t_.M, t_.M, 0, 1);
        // 3. Tile by tile, once it has landed, the other ranks' rows.
        for (uint32_t tile = 0; tile < t_.cut.tileCnt + t_.cut.tailCnt; ++tile) {
            const bool tail = tile >= t_.cut.tileCnt;
            hccl_.Wait(tail ? tailHandle_ : tileHandle_);  // @wait
            const uint32_t rows = tail ? t_.cut.tailM : t_.cut.tileM;
            ComputeRows(gatherGm_, tile * t_.cut.tileM, tile * t_.cut.tileM, rows, rank_, t_.cut.rankDim);
        }
        if (op_.lead) hccl_.Finalize();
        mm.End();
    }

private:
    // The rows [row0, row0 + rows) of the block of every rank p != skip (one block when ranks is 1: src rows
    // srcRow0.. of the local x1 into y rows dstRow0..; else gather_out's rows p * M + row0.. into y's).
    __aicore__ inline void ComputeRows(const GlobalTensor<T>& src, uint32_t srcRow0, uint32_t dstRow0, uint32_t rows,
                                       uint32_t skip, uint32_t ranks)
    {
        const uint32_t blocks = ranks == 1 ? 1 : ranks - 1;
        Mc2Kernel::ForEachPiece(op_.worker, op_.workers, rows, blocks, t_.mmTiling.singleCoreM,
                                t_.mmTiling.singleCoreN, t_.N,
                                [&](uint32_t j, uint32_t r, uint32_t n0, uint32_t m, uint32_t n) {
                                    const uint32_t p = j < skip ? j : j + 1;  // every rank but this one
                                    const uint32_t base = ranks > 1 ? p * t_.M + srcRow0 : srcRow0;
                                    const uint32_t ybase = ranks > 1 ? p * t_.M + dstRow0 : dstRow0;
                                    ComputePiece(src, base + r, ybase + r, n0, m, n);
                                });
    }

    // y[yRow : yRow + m, n0 : n0 + n] = round(src[aRow : aRow + m] @ x2[:, n0 : n0 + n] (+ bias)).
    __aicore__ inline void ComputePiece(const GlobalTensor<T>& src, uint32_t aRow, uint32_t yRow, uint32_t n0,
                                        uint32_t m, uint32_t n)
    {
        Mc2Kernel::MatmulPiece(mm, src[static_cast<uint64_t>(aRow) * t_.K], op_.x2, n0, m, n, t_.K, t_.isTransB != 0,
                               op_.hasBias, op_.biasF, yGm_[static_cast<uint64_t>(yRow) * t_.N + n0]);
    }

    Hccl<HCCL_SERVER_TYPE_AICPU> hccl_;
    HcclHandle tileHandle_ = -1;
    HcclHandle tailHandle_ = -1;
    Mc2Kernel::Operands<T> op_;
    GlobalTensor<T> gatherGm_, yGm_;
    GM_ADDR x1_ = nullptr;
    GM_ADDR gather_ = nullptr;
    AllGatherMatmulTilingData t_;
    uint32_t rank_ = 0;
};
}  // namespace AllGatherMatmulKernel

#endif  // ALL_GATHER_MATMUL_H
