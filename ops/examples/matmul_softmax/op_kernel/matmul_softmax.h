// MatmulSoftmax: the kernel class, y = softmax(x @ w) along N, as a mix kernel (AIC:AIV = 1:2).
//
// Every cube core (AIC) serves the Matmul requests of its vector cores (AIV); the code below runs
// on the vector cores (REGIST_MATMUL_OBJ in the entry keeps the cube cores in the Matmul API's
// server loop). Block b owns rows [b * 2 * rowsPerCore, (b + 1) * 2 * rowsPerCore) of x and y, its
// vector core s = GetSubBlockIdx() the half starting rowsPerCore * s rows in, and:
//
//   1. Matmul (cube core), requested by vector core 0 for the whole block:
//        x[blockRows, K] (GM) x w[K, N] (GM) -- IterateAll -->  logits[blockRows, N] fp32 (GM workspace)
//      GM -> L1 -> L0A/L0B -> Mmad -> L0C -> Fixpipe, all inside the Matmul API, w read once for both
//      vector cores; the logits' rows are rowStride (N rounded up to 16) floats apart: SetOrgShape's
//      orgKc. Vector core 0 then sets a cross-core flag (mode 1: the other vector core of its block),
//      which vector core 1 waits for before it reads its half.
//   2. Softmax (each vector core, its own rows), rowsPerChunk rows at a time, double-buffered:
//      CopyIn   logits chunk GM -> UB (VECIN), whole padded rows           MTE2
//      Compute  SoftMax in fp32 over the first N columns of each row, in place,
//               with the shared tmp buffer; Cast to fp16/bf16 (VECOUT)     V
//      CopyOut  DataCopyPad: N elements of each row UB -> y (GM)           MTE3
//
// Why through GM and whole rows: a softmax row needs all N logits, and on 910B the cube and vector
// cores share no buffer (even GetTensorC to UB travels L0C -> GM -> UB), so the cube writes the
// block's whole band once and each vector core reads each of its rows once; N is then limited by UB
// (one row of N fp32 logits and its scratch), not by L0C. The padding columns N..rowStride of the
// logits are never written; the SoftMax's max and sum run over the first N columns only
// (SoftMaxShapeInfo oriSrcK = N), so whatever they hold reaches no result, and the results in the
// padding are not copied out.
#ifndef MATMUL_SOFTMAX_H
#define MATMUL_SOFTMAX_H

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "matmul_softmax_tiling_data.h"

namespace MatmulSoftmaxKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;   // double buffering of the logits in and y out: must match the tiling
constexpr uint16_t LOGITS_READY = 3; // cross-core flag: vector core 0 -> 1, the block's logits are in GM

template <typename T>
class MatmulSoftmax {
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
    using BType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

public:
    __aicore__ inline MatmulSoftmax() {}

    // Bound to its tiling by REGIST_MATMUL_OBJ in the kernel entry, before any InitBuffer.
    Matmul<AType, BType, CType, BiasType> mm;

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR userWorkspace, const MatmulSoftmaxTilingData& tiling,
                                TPipe* pipe)
    {
        t_ = tiling;
        const uint32_t block = GetBlockIdx() / GetTaskRation();  // GetBlockIdx() counts vector cores
        sub_ = GetSubBlockIdx();
        blockRow0_ = block * 2 * t_.rowsPerCore;  // below M: the tiling launches only blocks with rows
        blockRows_ = std::min(2 * t_.rowsPerCore, t_.M - blockRow0_);
        row0_ = blockRow0_ + sub_ * t_.rowsPerCore;
        rows_ = row0_ < t_.M ? std::min(t_.rowsPerCore, t_.M - row0_) : 0;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(t_.M) * t_.K);
        wGm_.SetGlobalBuffer((__gm__ T*)w, static_cast<uint64_t>(t_.K) * t_.N);
        yGm_.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(t_.M) * t_.N);
        logitsGm_.SetGlobalBuffer((__gm__ float*)userWorkspace, static_cast<uint64_t>(t_.M) * t_.rowStride);
        const uint32_t chunkElems = t_.rowsPerChunk * t_.rowStride;
        pipe->InitBuffer(inQueue_, BUFFER_NUM, chunkElems * sizeof(float));
        pipe->InitBuffer(outQueue_, BUFFER_NUM, chunkElems * sizeof(T));
        pipe->InitBuffer(tmpBuf_, t_.tmpBytes);
    }

    __aicore__ inline void Process()
    {
        if (sub_ == 0) {
            // 1. The logits of the block's rows, on the cube core: C = x[blockRow0 : blockRow0 + blockRows] @ w.
            mm.SetOrgShape(t_.M, t_.N, t_.K, t_.K, t_.rowStride);
            mm.SetTensorA(xGm_[static_cast<uint64_t>(blockRow0_) * t_.K]);
            mm.SetTensorB(wGm_);
            mm.SetTail(blockRows_, t_.N, t_.K);  // the last block may have fewer rows than the tiling's
            mm.IterateAll(logitsGm_[static_cast<uint64_t>(blockRow0_) * t_.rowStride]);  // synchronous: done on return
            CrossCoreSetFlag<1, PIPE_MTE3>(LOGITS_READY);  // tell vector core 1 (set even when it has no rows)
        } else {
            CrossCoreWaitFlag(LOGITS_READY);  // vector core 0 saw the logits arrive
        }
        // 2. The softmax of this core's rows, chunk by chunk.
        for (uint32_t r = 0; r < rows_; r += t_.rowsPerChunk) {
            const uint32_t n = std::min(t_.rowsPerChunk, rows_ - r);
            CopyIn(r, n);
            Compute(n);
            CopyOut(r, n);
        }
        mm.End();
    }

private:
    // logits[row0 + r : row0 + r + n, 0 : rowStride] -> UB: whole padded rows, one contiguous copy.
    __aicore__ inline void CopyIn(uint32_t r, uint32_t n)
    {
        LocalTensor<float> in = inQueue_.AllocTensor<float>();
        DataCopy(in, logitsGm_[static_cast<uint64_t>(row0_ + r) * t_.rowStride], n * t_.rowStride);
        inQueue_.EnQue(in);
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<float> in = inQueue_.DeQue<float>();
        LocalTensor<T> out = outQueue_.AllocTensor<T>();
        LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();
        // n rows of rowStride floats, of which the first N are the row: max, exp and sum over those.
        const SoftMaxShapeInfo shape{n, t_.rowStride, n, t_.N};
        SoftMax<float>(in, in, tmp, t_.smTiling, shape);
        Cast(out, in, RoundMode::CAST_RINT, n * t_.rowStride);  // fp32 -> fp16/bf16, round to nearest even
        outQueue_.EnQue(out);
        inQueue_.FreeTensor(in);
    }

    // UB -> y[row0 + r : row0 + r + n, 0 : N]: N elements of each row; the UB rows are whole 32-byte
    // blocks apart (rowStride * sizeof(T) = 32 * ceil(N * sizeof(T) / 32)), so no gaps on either side.
    __aicore__ inline void CopyOut(uint32_t r, uint32_t n)
    {
        LocalTensor<T> out = outQueue_.DeQue<T>();
        const DataCopyExtParams rowsOut{static_cast<uint16_t>(n), static_cast<uint32_t>(t_.N * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[static_cast<uint64_t>(row0_ + r) * t_.N], out, rowsOut);
        outQueue_.FreeTensor(out);
    }

    TQue<TPosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> wGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<float> logitsGm_;
    MatmulSoftmaxTilingData t_;
    uint32_t sub_ = 0;        // this vector core in its block: 0 requests the Matmul, 1 waits for it
    uint32_t blockRow0_ = 0;  // the block's first row and its number of rows
    uint32_t blockRows_ = 0;
    uint32_t row0_ = 0;       // this vector core's first row and its number of rows (0: nothing to do)
    uint32_t rows_ = 0;
};
}  // namespace MatmulSoftmaxKernel

#endif  // MATMUL_SOFTMAX_H
