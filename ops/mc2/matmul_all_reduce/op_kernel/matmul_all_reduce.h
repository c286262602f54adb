// MatmulAllReduce: the kernel class, y = AllReduce_sum(x1 @ x2 + bias + x3) over the ranks of attr group, as a
// mix kernel (AIC:AIV = 1:2). The code below runs on the vector cores; REGIST_MATMUL_OBJ in the entry keeps the
// cube cores in the Matmul API's server loop.
//
// M is cut into communication tiles (op_host/matmul_all_reduce_tiling.cpp): rampCnt (0 to 4) growing tiles of
// rampM[i] rows (the first slice leaves early), tileCnt tiles of tileM rows, then tailCnt (0 or 1) short tail of
// tailM rows. First every vector core ("worker") converts its share of the bias to
// fp32 (the cube's BiasTable adds it), then for each tile, in order:
//
//   1. every worker takes its pieces of the tile (singleCoreM x singleCoreN of the product), without x3:
//        x1[rows, K] @ x2[K, cols] (+ bias[cols]) -- Matmul API, IterateAll on the cube core, Fixpipe rounding
//        fp32 to fp16/bf16 --> staging[rows, cols] (GM workspace, the AllReduce's send buffer)
//      with x3 (which needs the vector add before the one rounding):
//        x1 @ x2 (+ bias) --> piece [rows, stride] fp32 (GM); piece + x3 in fp32, rounded once (UB, vector)
//        --> staging[rows, cols]
//   2. SyncAll: the whole tile is in staging;
//   3. vector core 0 (the one that prepared the collectives) commits the tile's AllReduce: the slice leaves
//      for the other ranks while every core goes on with the next tile.
// At the end vector core 0 waits for every slice (one Wait per slice) and finalizes; HCCL has then summed every
// rank's staging into each rank's y.
#ifndef MATMUL_ALL_REDUCE_H
#define MATMUL_ALL_REDUCE_H

#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "lib/matmul_intf.h"
#include "mc2_kernel.h"
#include "matmul_all_reduce_tiling_data.h"

namespace MatmulAllReduceKernel {
using namespace AscendC;

using Mc2Kernel::ALIGN;
using Mc2Kernel::CeilDiv;
using Mc2Kernel::HcclType;

template <typename T>
class MatmulAllReduce {
public:
    __aicore__ inline MatmulAllReduce() {}

    // Bound to their tiling by REGIST_MATMUL_OBJ in the kernel entry, before any InitBuffer: the fp32 pieces of
    // the x3 path, the rounded pieces of the direct one (cut.direct); a launch uses only one of them.
    Mc2Kernel::PieceMatmul<T> mm;
    Mc2Kernel::DirectMatmul<T> mmDirect;

    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR x3, GM_ADDR y, GM_ADDR userWorkspace,
                                GM_ADDR tilingGm, const MatmulAllReduceTilingData& tiling, TPipe* pipe)
    {
        t_ = tiling;
        op_.Init(x1, x2, bias, userWorkspace, t_.M, t_.N, t_.K, t_.hasBias != 0, t_.cut, pipe);
        const uint64_t mn = static_cast<uint64_t>(t_.M) * t_.N;
        if (t_.hasX3) x3Gm_.SetGlobalBuffer((__gm__ T*)x3, mn);
        y_ = y;
        staging_ = userWorkspace + t_.stagingOffset;
        stagingGm_.SetGlobalBuffer((__gm__ T*)staging_, mn);
        const uint64_t pieceElems = static_cast<uint64_t>(t_.mmTiling.singleCoreM) * t_.cut.pieceStride;
        pieceGm_.SetGlobalBuffer((__gm__ float*)(userWorkspace + t_.cut.pieceOffset) + op_.worker * pieceElems,
                                 pieceElems);
        const uint32_t chunk = t_.cut.rowsPerChunk * t_.cut.pieceStride;
        pipe->InitBuffer(cBuf_, chunk * sizeof(float));
        pipe->InitBuffer(x3Buf_, chunk * sizeof(T));
        pipe->InitBuffer(x3fBuf_, chunk * sizeof(float));
        pipe->InitBuffer(outBuf_, chunk * sizeof(T));
        if (op_.lead) {
            Mc2Kernel::InitHccl(hccl_, tilingGm, offsetof(MatmulAllReduceTilingData, mc2InitTiling),
                                offsetof(MatmulAllReduceTilingData, allReduceTiling));
        }
    }

    __aicore__ inline void Process()
    {
        // The AllReduces, in row order: one per ramp tile, the long tiles (slice i of the handle reads staging
        // and writes y at i * count elements from its start), the tail.
        const uint64_t tileElems = static_cast<uint64_t>(t_.cut.tileM) * t_.N;
        const uint64_t rowBytes = static_cast<uint64_t>(t_.N) * sizeof(T);
        const auto dtype = HcclType<T>::value;
        if (op_.lead) {
            uint64_t at = 0;  // bytes into staging and y
            for (uint32_t i = 0; i < t_.cut.rampCnt; ++i) {
                rampHandle_[i] = hccl_.AllReduce(staging_ + at, y_ + at, static_cast<uint64_t>(t_.cut.rampM[i]) * t_.N,
                                                 dtype, HCCL_REDUCE_SUM, 1);
                at += t_.cut.rampM[i] * rowBytes;
            }
            GM_ADDR staging = staging_ + at;
            GM_ADDR y = y_ + at;
            tileHandle_ = hccl_.AllReduce(staging, y, tileElems, dtype, HCCL_REDUCE_SUM, uint8_t(t_.cut.tileCnt));  // @prepare_tile
            at += tileElems * t_.cut.tileCnt * sizeof(T);
            if (t_.cut.tailCnt > 0)
                tailHandle_ = hccl_.AllReduce(staging_ + at, y_ + at, static_cast<uint64_t>(t_.cut.tailM) * t_.N,
                                              dtype, HCCL_REDUCE_SUM, uint8_t(t_.cut.tailCnt));
        }
        if (t_.hasBias) {
            op_.ConvertBias();
            SyncAll<true>();  // the whole fp32 bias is in GM before the cube reads any of it
        }
        mm.SetOrgShape(t_.M, t_.N, t_.K, t_.K, t_.cut.pieceStride);
        mmDirect.SetOrgShape(t_.M, t_.N, t_.K, t_.K, t_.N);  // rounded pieces land in staging's rows of N
        const uint32_t tiles = Mc2Kernel::Tiles(t_.cut);
        for (uint32_t tile = 0, row0 = 0; tile < tiles; row0 += Mc2Kernel::TileRows(t_.cut, tile++)) {
            ComputeTile(row0, Mc2Kernel::TileRows(t_.cut, tile));
            SyncAll<true>();  // every worker's pieces of this tile are in staging
            if (op_.lead) hccl_.Commit(HandleOf(tile));  // @commit
        }
        if (op_.lead) {
            for (uint32_t i = 0; i < t_.cut.rampCnt; ++i) hccl_.Wait(rampHandle_[i]);
            for (uint32_t i = 0; i < t_.cut.tileCnt; ++i) hccl_.Wait(tileHandle_);  // @wait
            for (uint32_t i = 0; i < t_.cut.tailCnt; ++i) hccl_.Wait(tailHandle_);
            hccl_.Finalize();
        }
        mm.End();
        mmDirect.End();
    }

private:
    // The AllReduce handle of tile `tile` (ramp, long tiles, tail).
    __aicore__ inline HcclHandle HandleOf(uint32_t tile) const
    {
        if (tile < t_.cut.rampCnt) return rampHandle_[tile];
        return tile < t_.cut.rampCnt + t_.cut.tileCnt ? tileHandle_ : tailHandle_;
    }

    // This worker's pieces of the tile of rows [row0, row0 + rows).
    __aicore__ inline void ComputeTile(uint32_t row0, uint32_t rows)
    {
        Mc2Kernel::ForEachPiece(op_.worker, op_.workers, rows, 1, t_.mmTiling.singleCoreM, t_.mmTiling.singleCoreN,
                                t_.N, [&](uint32_t, uint32_t r, uint32_t n0, uint32_t m, uint32_t n) {
                                    ComputePiece(row0 + r, n0, m, n);
                                });
    }

    // staging[m0 : m0 + m, n0 : n0 + n] = round(x1[m0 : m0 + m] @ x2[:, n0 : n0 + n] (+ bias) (+ x3)).
    __aicore__ inline void ComputePiece(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        const GlobalTensor<T> a = op_.x1[static_cast<uint64_t>(m0) * t_.K];
        const GlobalTensor<T> dst = stagingGm_[static_cast<uint64_t>(m0) * t_.N + n0];
        if (t_.cut.direct) {
            Mc2Kernel::MatmulPiece(mmDirect, a, op_.x2, n0, m, n, t_.K, t_.isTransB != 0, op_.hasBias, op_.biasF,
                                   dst);
            return;
        }
        Mc2Kernel::MatmulPiece(mm, a, op_.x2, n0, m, n, t_.K, t_.isTransB != 0, op_.hasBias, op_.biasF, pieceGm_);
        const uint32_t s = t_.cut.pieceStride;
        const uint32_t nPad = CeilDiv(n, ALIGN) * ALIGN;
        for (uint32_t r = 0; r < m; r += t_.cut.rowsPerChunk) {
            const uint32_t rows = std::min(t_.cut.rowsPerChunk, m - r);
            LocalTensor<float> c = cBuf_.Get<float>();
            LocalTensor<T> x3 = x3Buf_.Get<T>();
            LocalTensor<float> x3f = x3fBuf_.Get<float>();
            DataCopy(c, pieceGm_[static_cast<uint64_t>(r) * s], rows * s);
            const DataCopyExtParams in{static_cast<uint16_t>(rows), static_cast<uint32_t>(n * sizeof(T)),
                                       static_cast<uint32_t>((t_.N - n) * sizeof(T)), (s - nPad) / ALIGN, 0};
            DataCopyPad(x3, x3Gm_[static_cast<uint64_t>(m0 + r) * t_.N + n0], in, DataCopyPadExtParams<T>{false, 0, 0, 0});
            PipeBarrier<PIPE_ALL>();
            for (uint32_t i = 0; i < rows; ++i) {
                Cast(x3f[i * s], x3[i * s], RoundMode::CAST_NONE, n);
                PipeBarrier<PIPE_V>();
                Add(c[i * s], c[i * s], x3f[i * s], n);
            }
            PipeBarrier<PIPE_V>();
            Mc2Kernel::StoreRows<T>(outBuf_, c, stagingGm_[static_cast<uint64_t>(m0 + r) * t_.N + n0], rows, n,
                                    t_.N, s);
        }
    }

    Hccl<HCCL_SERVER_TYPE_AICPU> hccl_;
    HcclHandle rampHandle_[MC2_MAX_RAMP] = {};
    HcclHandle tileHandle_ = -1;
    HcclHandle tailHandle_ = -1;
    Mc2Kernel::Operands<T> op_;
    TBuf<TPosition::VECCALC> cBuf_, x3Buf_, x3fBuf_, outBuf_;
    GlobalTensor<T> x3Gm_, stagingGm_;
    GlobalTensor<float> pieceGm_;
    GM_ADDR y_ = nullptr;
    GM_ADDR staging_ = nullptr;
    MatmulAllReduceTilingData t_;
};
}  // namespace MatmulAllReduceKernel

#endif  // MATMUL_ALL_REDUCE_H
