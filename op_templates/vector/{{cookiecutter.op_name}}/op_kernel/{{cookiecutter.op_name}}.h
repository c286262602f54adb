{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_H" %}
// {{ T }}: the kernel, z = relu(x + alpha * y) element by element, run by every vector core.
//
// How an Ascend C vector kernel moves data:
//   - x, y and z live in global memory (GM, the HBM). The vector unit only computes on the
//     Unified Buffer (UB), a small on-chip memory of each core (192 KiB on 910B).
//   - Each core owns one slice of the flattened tensors (chosen by the tiling function) and walks
//     through it tile by tile: CopyIn (GM -> UB, on the MTE2 pipe), Compute (on the vector pipe),
//     CopyOut (UB -> GM, on the MTE3 pipe). The pipes run in parallel.
//   - Queues (TQue) carry tiles between the stages: AllocTensor takes a free buffer, EnQue hands
//     it to the next stage, DeQue waits for it, FreeTensor gives it back. EnQue/DeQue are also the
//     synchronisation between the pipes: Compute cannot read a tile before its copy has landed.
//   - With two buffers per queue (double buffering) the copy of tile i+1 overlaps the compute of
//     tile i.
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include "kernel_operator.h"
#include "{{ cookiecutter.op_name }}_tiling_data.h"

namespace {{ T }}Kernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;     // buffers per queue: 2 = double buffering
constexpr uint32_t BLOCK_BYTES = 32;  // DataCopy moves whole 32-byte blocks

// T is the element type of x, y and z: half, bfloat16_t or float.
template <typename T>
class {{ T }} {
public:
    __aicore__ inline {{ T }}() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const {{ T }}TilingData& tiling)
    {
        // This core's slice: the first formerNum cores own formerLength elements each, the others
        // tailLength. Shares are whole 32-byte blocks; the last core's share is cut back to N.
        const uint64_t blockIdx = static_cast<uint64_t>(GetBlockIdx());
        uint64_t offset = 0;
        uint64_t length = 0;
        if (blockIdx < tiling.formerNum) {
            offset = blockIdx * tiling.formerLength;
            length = tiling.formerLength;
        } else {
            offset = tiling.formerNum * tiling.formerLength + (blockIdx - tiling.formerNum) * tiling.tailLength;
            length = tiling.tailLength;
        }
        if (offset >= tiling.totalLength) {
            length = 0;
        } else if (offset + length > tiling.totalLength) {
            length = tiling.totalLength - offset;
        }
        coreLength_ = length;
        tileLength_ = tiling.tileLength;
        alpha_ = tiling.alpha;
        if (coreLength_ == 0) {
            return;  // an empty tensor: nothing to bind, nothing to allocate
        }

        // GlobalTensor: a typed view of GM, here starting at this core's slice.
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, coreLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, coreLength_);
        zGm_.SetGlobalBuffer((__gm__ T*)z + offset, coreLength_);

        // Carve the UB: BUFFER_NUM tiles per queue, plus float32 scratch for fp16/bf16.
        // The tiling function sized tileLength so that all of this fits in the UB.
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(T));
        if constexpr (!IsSameType<T, float>::value) {
            pipe_.InitBuffer(xFloatBuf_, tileLength_ * sizeof(float));
            pipe_.InitBuffer(yFloatBuf_, tileLength_ * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        if (coreLength_ == 0) {
            return;
        }
        const uint32_t tileNum = static_cast<uint32_t>((coreLength_ + tileLength_ - 1) / tileLength_);
        for (uint32_t i = 0; i < tileNum; ++i) {
            const uint64_t start = static_cast<uint64_t>(i) * tileLength_;
            // Every tile is full except possibly the last one.
            const uint32_t count = (i + 1 == tileNum) ? static_cast<uint32_t>(coreLength_ - start) : tileLength_;
            CopyIn(start, count);
            Compute(count);
            CopyOut(start, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t start, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX_.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY_.AllocTensor<T>();
        const uint32_t bytes = count * static_cast<uint32_t>(sizeof(T));
        if (bytes % BLOCK_BYTES == 0) {
            DataCopy(xLocal, xGm_[start], count);
            DataCopy(yLocal, yGm_[start], count);
        } else {
            // A ragged last tile: DataCopy would silently drop the bytes after the last whole
            // 32-byte block. DataCopyPad copies exactly `bytes` and pads the UB block.
            DataCopyExtParams copyParams{1, bytes, 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm_[start], copyParams, padParams);
            DataCopyPad(yLocal, yGm_[start], copyParams, padParams);
        }
        inQueueX_.EnQue(xLocal);
        inQueueY_.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX_.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY_.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ_.AllocTensor<T>();
        // Instructions of one pipe may overlap: PipeBarrier<PIPE_V> makes each vector instruction
        // wait for the one whose result it reads.
        if constexpr (IsSameType<T, float>::value) {
            Muls(zLocal, yLocal, alpha_, count);  // z = alpha * y
            PipeBarrier<PIPE_V>();
            Add(zLocal, xLocal, zLocal, count);   // z = x + z
            PipeBarrier<PIPE_V>();
            Relu(zLocal, zLocal, count);          // z = max(z, 0)
        } else {
            // fp16 and bf16 are computed in float32 (there is no bf16 vector arithmetic on 910B)
            // and rounded once at the end, to nearest even (CAST_RINT).
            LocalTensor<float> xFloat = xFloatBuf_.Get<float>();
            LocalTensor<float> yFloat = yFloatBuf_.Get<float>();
            Cast(xFloat, xLocal, RoundMode::CAST_NONE, count);  // widening is exact
            Cast(yFloat, yLocal, RoundMode::CAST_NONE, count);
            PipeBarrier<PIPE_V>();
            Muls(yFloat, yFloat, alpha_, count);
            PipeBarrier<PIPE_V>();
            Add(xFloat, xFloat, yFloat, count);
            PipeBarrier<PIPE_V>();
            Relu(xFloat, xFloat, count);
            PipeBarrier<PIPE_V>();
            Cast(zLocal, xFloat, RoundMode::CAST_RINT, count);
        }
        outQueueZ_.EnQue<T>(zLocal);
        inQueueX_.FreeTensor(xLocal);
        inQueueY_.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint64_t start, uint32_t count)
    {
        LocalTensor<T> zLocal = outQueueZ_.DeQue<T>();
        const uint32_t bytes = count * static_cast<uint32_t>(sizeof(T));
        if (bytes % BLOCK_BYTES == 0) {
            DataCopy(zGm_[start], zLocal, count);
        } else {
            // Writes exactly `bytes` to GM: nothing past the end of z is touched.
            DataCopyExtParams copyParams{1, bytes, 0, 0, 0};
            DataCopyPad(zGm_[start], zLocal, copyParams);
        }
        outQueueZ_.FreeTensor(zLocal);
    }

    TPipe pipe_;                                      // owns this core's UB allocations
    TQue<TPosition::VECIN, 1> inQueueX_;              // depth 1: double buffering still works,
    TQue<TPosition::VECIN, 1> inQueueY_;              // as each queue gets BUFFER_NUM buffers
    TQue<TPosition::VECOUT, 1> outQueueZ_;
    TBuf<TPosition::VECCALC> xFloatBuf_;              // float32 scratch (fp16/bf16 only)
    TBuf<TPosition::VECCALC> yFloatBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<T> zGm_;
    uint64_t coreLength_ = 0;                         // elements this core owns
    uint32_t tileLength_ = 0;                         // elements per full tile
    float alpha_ = 1.0f;
};
}  // namespace {{ T }}Kernel

#endif  // {{ GUARD }}
