{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_H" %}
// {{ T }}: the kernel, RMSNorm over the last axis, run by every vector core.
//
//     rstd[r] = 1 / sqrt(sum(x[r, :]^2) / D + epsilon)      one value per row r
//     y[r, j] = x[r, j] * rstd[r] * gamma[j]
//
// x is seen as R rows of D elements. Each core owns a run of whole rows (chosen by the tiling
// function) and walks through it a tile of rows at a time:
//   - CopyIn (GM -> UB, MTE2 pipe): DataCopyPad moves the rows of the tile. In UB every row starts
//     on a 32-byte block, so a row occupies rowStride >= D elements; the padding after each row is
//     filled with zeros by DataCopyPad itself (isPad with paddingValue 0), so that instructions
//     over the whole tile read defined data. The reductions never read it: they count D lanes.
//   - Compute (vector pipe), in float32 (910B has no bf16 vector arithmetic; fp16 and bf16 are
//     widened exactly by Cast): square, sum each row, rstd, broadcast rstd over its row, multiply
//     by rstd and gamma, and round back to the output dtype once (CAST_RINT).
//   - CopyOut (UB -> GM, MTE3 pipe): DataCopyPad writes D elements per row (the padding stays in UB)
//     and the tile's rstd values.
// TQue queues carry the tiles between the stages and order the pipes; with two buffers per queue
// (double buffering) the copies of one tile overlap the compute of the next.
//
// Two shapes of row, two ways to use the vector unit (one repeat = 256 bytes = 64 floats):
//   - short rows (rowStride <= 64): one repeat per row, so a single instruction handles up to 255
//     rows (WholeReduceSum sums the first D lanes of every repeat; Mul walks the rows by repeat);
//   - long rows: one instruction per row (ReduceSum over D elements; Mul over the row's repeats).
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include "kernel_operator.h"
#include "{{ cookiecutter.op_name }}_tiling_data.h"

namespace {{ T }}Kernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;           // buffers per queue: 2 = double buffering
constexpr uint32_t BLOCK_BYTES = 32;        // UB operands start on 32-byte blocks
constexpr uint32_t FLOATS_PER_BLOCK = 8;    // float32 elements in one 32-byte block
constexpr uint32_t FLOATS_PER_REPEAT = 64;  // float32 elements in one vector repeat (256 bytes)
constexpr uint32_t MAX_REPEAT = 255;        // repeats of one vector instruction

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

__aicore__ inline uint32_t AlignUp(uint32_t a, uint32_t b)
{
    return CeilDiv(a, b) * b;
}

__aicore__ inline uint32_t MinU32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

// T is the element type of x, gamma and y: half, bfloat16_t or float. rstd is always float.
template <typename T>
class {{ T }} {
public:
    __aicore__ inline {{ T }}() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR rstd, const {{ T }}TilingData& tiling)
    {
        // This core's rows: the first formerNum cores own formerRows rows each, the others tailRows.
        const uint64_t blockIdx = static_cast<uint64_t>(GetBlockIdx());
        uint64_t firstRow = 0;
        if (blockIdx < tiling.formerNum) {
            firstRow = blockIdx * tiling.formerRows;
            coreRows_ = tiling.formerRows;
        } else {
            firstRow = tiling.formerNum * tiling.formerRows + (blockIdx - tiling.formerNum) * tiling.tailRows;
            coreRows_ = tiling.tailRows;
        }
        if (firstRow >= tiling.rowNum) {
            coreRows_ = 0;
        } else if (firstRow + coreRows_ > tiling.rowNum) {
            coreRows_ = tiling.rowNum - firstRow;
        }
        rowLength_ = tiling.rowLength;
        rowStride_ = tiling.rowStride;
        tileRows_ = tiling.tileRows;
        epsilon_ = tiling.epsilon;
        avgFactor_ = tiling.avgFactor;
        if (coreRows_ == 0) {
            return;  // no rows for this core (or an empty x): nothing to bind, nothing to allocate
        }

        // GlobalTensor: a typed view of GM, here starting at this core's first row.
        xGm_.SetGlobalBuffer((__gm__ T*)x + firstRow * rowLength_, coreRows_ * rowLength_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + firstRow * rowLength_, coreRows_ * rowLength_);
        rstdGm_.SetGlobalBuffer((__gm__ float*)rstd + firstRow, coreRows_);
        gammaGm_.SetGlobalBuffer((__gm__ T*)gamma, rowLength_);

        // Carve the UB. The tiling function sized tileRows with the same list of buffers
        // (UbBytes in op_host/{{ cookiecutter.op_name }}_tiling.cpp), so all of this fits.
        const uint32_t tileElems = tileRows_ * rowStride_;
        const uint32_t tileRows8 = AlignUp(tileRows_, FLOATS_PER_BLOCK);  // per-row floats, whole blocks
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(outQueueRstd_, BUFFER_NUM, tileRows8 * sizeof(float));
        pipe_.InitBuffer(gammaQueue_, 1, rowStride_ * sizeof(T));
        pipe_.InitBuffer(rstdBlockBuf_, tileRows8 * BLOCK_BYTES);
        pipe_.InitBuffer(workBuf_, AlignUp(CeilDiv(rowLength_, FLOATS_PER_REPEAT), FLOATS_PER_BLOCK) * sizeof(float));
        if constexpr (!IsSameType<T, float>::value) {
            pipe_.InitBuffer(xFloatBuf_, tileElems * sizeof(float));
            pipe_.InitBuffer(yFloatBuf_, tileElems * sizeof(float));
            pipe_.InitBuffer(gammaFloatBuf_, rowStride_ * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        if (coreRows_ == 0) {
            return;
        }
        LoadGamma();
        const uint32_t tileNum = static_cast<uint32_t>((coreRows_ + tileRows_ - 1) / tileRows_);
        for (uint32_t i = 0; i < tileNum; ++i) {
            const uint64_t startRow = static_cast<uint64_t>(i) * tileRows_;
            // Every tile is full except possibly the last one.
            const uint32_t rows = (i + 1 == tileNum) ? static_cast<uint32_t>(coreRows_ - startRow) : tileRows_;
            CopyIn(startRow, rows);
            Compute(rows);
            CopyOut(startRow, rows);
        }
        gammaQueue_.FreeTensor(gammaLocal_);
    }

private:
    // gamma is read once per core and kept in UB (as float32) for every tile.
    __aicore__ inline void LoadGamma()
    {
        LocalTensor<T> gammaIn = gammaQueue_.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(rowStride_ - rowLength_), 0};
        DataCopyPad(gammaIn, gammaGm_, copyParams, padParams);
        gammaQueue_.EnQue(gammaIn);
        gammaLocal_ = gammaQueue_.DeQue<T>();  // waits for the copy (MTE2) before the vector unit reads it
        if constexpr (IsSameType<T, float>::value) {
            gammaFloat_ = gammaLocal_;
        } else {
            gammaFloat_ = gammaFloatBuf_.Get<float>();
            Cast(gammaFloat_, gammaLocal_, RoundMode::CAST_NONE, rowStride_);  // widening is exact
        }
    }

    __aicore__ inline void CopyIn(uint64_t startRow, uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX_.AllocTensor<T>();
        // `rows` blocks of D elements, back to back in GM. In UB each block starts on a 32-byte
        // boundary and is followed by rowStride - D zeros (fewer than 32 bytes).
        const uint32_t rowBytes = static_cast<uint32_t>(rowLength_ * sizeof(T));
        DataCopyExtParams copyParams{static_cast<uint16_t>(rows), rowBytes, 0, 0, 0};
        DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(rowStride_ - rowLength_), 0};
        DataCopyPad(xLocal, xGm_[startRow * rowLength_], copyParams, padParams);
        inQueueX_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX_.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY_.AllocTensor<T>();
        LocalTensor<float> rstdLocal = outQueueRstd_.AllocTensor<float>();
        LocalTensor<float> rstdBlock = rstdBlockBuf_.Get<float>();
        const uint32_t count = rows * rowStride_;                     // the whole tile, padding included
        const uint32_t rows8 = AlignUp(rows, FLOATS_PER_BLOCK);      // rstd entries, whole blocks

        // Instructions of one pipe may overlap: PipeBarrier<PIPE_V> makes each vector instruction
        // wait for the ones whose results it reads or overwrites.
        // 1. x in float32, and its squares. For float32 the squares, and then y, are computed
        //    straight in the output tile; fp16 and bf16 need float32 scratch.
        LocalTensor<float> xFloat;
        LocalTensor<float> yFloat;
        if constexpr (IsSameType<T, float>::value) {
            xFloat = xLocal;
            yFloat = yLocal;
        } else {
            xFloat = xFloatBuf_.Get<float>();
            yFloat = yFloatBuf_.Get<float>();
            Cast(xFloat, xLocal, RoundMode::CAST_NONE, count);  // widening is exact
            PipeBarrier<PIPE_V>();
        }
        Mul(yFloat, xFloat, xFloat, count);  // the zero padding squares to zero
        // rstd entries past the last row (up to a whole block) are zeroed: Brcb reads whole blocks.
        Duplicate(rstdLocal, 0.0f, rows8);
        PipeBarrier<PIPE_V>();

        // 2. rstdLocal[r] = sum of the D squares of row r.
        RowSums(rstdLocal, yFloat, rows);
        PipeBarrier<PIPE_V>();

        // 3. rstd = 1 / sqrt(sum * (1 / D) + epsilon).
        Muls(rstdLocal, rstdLocal, avgFactor_, rows8);
        PipeBarrier<PIPE_V>();
        Adds(rstdLocal, rstdLocal, epsilon_, rows8);
        PipeBarrier<PIPE_V>();
        Rsqrt(rstdLocal, rstdLocal, rows8);
        PipeBarrier<PIPE_V>();

        // 4. Broadcast: block r of rstdBlock (8 floats) holds rstd[r] eight times. Brcb takes 8
        //    values per repeat and writes each one over a whole 32-byte block.
        const uint32_t brcbRepeats = rows8 / FLOATS_PER_BLOCK;
        const BrcbRepeatParams brcbParams(1, 8);  // blocks of one repeat adjacent, repeats 8 blocks apart
        for (uint32_t k = 0; k < brcbRepeats; k += MAX_REPEAT) {
            const uint32_t n = MinU32(MAX_REPEAT, brcbRepeats - k);
            const uint8_t repeats = static_cast<uint8_t>(n);
            Brcb(rstdBlock[k * FLOATS_PER_REPEAT], rstdLocal[k * FLOATS_PER_BLOCK], repeats, brcbParams);
        }
        PipeBarrier<PIPE_V>();

        // 5. y = x * rstd * gamma, row by row.
        ScaleRows(yFloat, xFloat, rstdBlock, rows);
        PipeBarrier<PIPE_V>();
        MulGamma(yFloat, rows);

        // 6. Back to the output dtype, rounded once to nearest even.
        if constexpr (!IsSameType<T, float>::value) {
            PipeBarrier<PIPE_V>();
            Cast(yLocal, yFloat, RoundMode::CAST_RINT, count);
        }
        outQueueY_.EnQue<T>(yLocal);
        outQueueRstd_.EnQue<float>(rstdLocal);
        inQueueX_.FreeTensor(xLocal);
    }

    // sums[r] = squares[r, 0] + ... + squares[r, D - 1] for r < rows. The padding lanes are not read.
    __aicore__ inline void RowSums(const LocalTensor<float>& sums, const LocalTensor<float>& squares, uint32_t rows)
    {
        if (rowStride_ <= FLOATS_PER_REPEAT) {
            // One repeat per row: WholeReduceSum sums the first D lanes of every repeat and writes
            // the results one float apart (dstRepStride 1), up to 255 rows per instruction.
            const int32_t mask = static_cast<int32_t>(rowLength_);  // the first D lanes of each repeat
            const int32_t rowBlocks = static_cast<int32_t>(rowStride_ / FLOATS_PER_BLOCK);
            for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
                const int32_t n = static_cast<int32_t>(MinU32(MAX_REPEAT, rows - r));
                WholeReduceSum(sums[r], squares[r * rowStride_], mask, n, 1, 1, rowBlocks);
            }
        } else {
            // Longer rows: ReduceSum over the D elements of each row. Its destination needs only
            // 4-byte alignment, so the sums can be packed one float apart.
            LocalTensor<float> work = workBuf_.Get<float>();
            for (uint32_t r = 0; r < rows; ++r) {
                ReduceSum(sums[r], squares[r * rowStride_], work, static_cast<int32_t>(rowLength_));
            }
        }
    }

    // dst[r, :] = src[r, :] * rstd[r], where block r of rstdBlock holds rstd[r] in all 8 lanes.
    // The padding lanes are computed too (zeros stay zeros), so the whole tile stays defined.
    __aicore__ inline void ScaleRows(const LocalTensor<float>& dst, const LocalTensor<float>& src,
        const LocalTensor<float>& rstdBlock, uint32_t rows)
    {
        if (rowStride_ <= FLOATS_PER_REPEAT) {
            // Repeat r reads row r of src and block r of rstdBlock: src1 block stride 0 (the same
            // block for all 8 blocks of the repeat), src1 repeat stride 1 block (the next row's).
            const uint8_t rowBlocks = static_cast<uint8_t>(rowStride_ / FLOATS_PER_BLOCK);
            const BinaryRepeatParams params(1, 1, 0, rowBlocks, rowBlocks, 1);
            for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
                const uint32_t n = MinU32(MAX_REPEAT, rows - r);
                Mul(dst[r * rowStride_], src[r * rowStride_], rstdBlock[r * FLOATS_PER_BLOCK],
                    static_cast<uint64_t>(rowStride_), static_cast<uint8_t>(n), params);
            }
        } else {
            // Every repeat of row r reads block r of rstdBlock: src1 block and repeat strides 0.
            const uint32_t fullRepeats = rowStride_ / FLOATS_PER_REPEAT;
            const uint32_t tail = rowStride_ % FLOATS_PER_REPEAT;
            const BinaryRepeatParams params(1, 1, 0, 8, 8, 0);
            for (uint32_t r = 0; r < rows; ++r) {
                const LocalTensor<float> rowDst = dst[r * rowStride_];
                const LocalTensor<float> rowSrc = src[r * rowStride_];
                const LocalTensor<float> block = rstdBlock[r * FLOATS_PER_BLOCK];
                for (uint32_t k = 0; k < fullRepeats; k += MAX_REPEAT) {
                    const uint32_t n = MinU32(MAX_REPEAT, fullRepeats - k);
                    Mul(rowDst[k * FLOATS_PER_REPEAT], rowSrc[k * FLOATS_PER_REPEAT], block,
                        static_cast<uint64_t>(FLOATS_PER_REPEAT), static_cast<uint8_t>(n), params);
                }
                if (tail > 0) {
                    Mul(rowDst[fullRepeats * FLOATS_PER_REPEAT], rowSrc[fullRepeats * FLOATS_PER_REPEAT], block,
                        static_cast<uint64_t>(tail), 1, params);
                }
            }
        }
    }

    // y[r, :] *= gamma for every row of the tile.
    __aicore__ inline void MulGamma(const LocalTensor<float>& y, uint32_t rows)
    {
        if (rowStride_ <= FLOATS_PER_REPEAT) {
            // One repeat per row; src1 repeat stride 0 reads gamma again for every row.
            const uint8_t rowBlocks = static_cast<uint8_t>(rowStride_ / FLOATS_PER_BLOCK);
            const BinaryRepeatParams params(1, 1, 1, rowBlocks, rowBlocks, 0);
            for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
                const uint32_t n = MinU32(MAX_REPEAT, rows - r);
                Mul(y[r * rowStride_], y[r * rowStride_], gammaFloat_, static_cast<uint64_t>(rowStride_),
                    static_cast<uint8_t>(n), params);
            }
        } else {
            for (uint32_t r = 0; r < rows; ++r) {
                Mul(y[r * rowStride_], y[r * rowStride_], gammaFloat_, static_cast<int32_t>(rowStride_));
            }
        }
    }

    __aicore__ inline void CopyOut(uint64_t startRow, uint32_t rows)
    {
        // y: D elements per row to GM; the padding after each row in UB is skipped.
        LocalTensor<T> yLocal = outQueueY_.DeQue<T>();
        DataCopyExtParams yParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm_[startRow * rowLength_], yLocal, yParams);
        outQueueY_.FreeTensor(yLocal);
        // rstd: one float per row, exactly `rows` of them.
        LocalTensor<float> rstdLocal = outQueueRstd_.DeQue<float>();
        DataCopyExtParams rstdParams{1, static_cast<uint32_t>(rows * sizeof(float)), 0, 0, 0};
        DataCopyPad(rstdGm_[startRow], rstdLocal, rstdParams);
        outQueueRstd_.FreeTensor(rstdLocal);
    }

    TPipe pipe_;                                 // owns this core's UB allocations
    TQue<TPosition::VECIN, 1> inQueueX_;         // depth 1: double buffering still works,
    TQue<TPosition::VECOUT, 1> outQueueY_;       // as each queue gets BUFFER_NUM buffers
    TQue<TPosition::VECOUT, 1> outQueueRstd_;
    TQue<TPosition::VECIN, 1> gammaQueue_;       // one buffer: gamma, kept for the whole run
    TBuf<TPosition::VECCALC> rstdBlockBuf_;      // rstd broadcast to one block per row
    TBuf<TPosition::VECCALC> workBuf_;           // ReduceSum's work area
    TBuf<TPosition::VECCALC> xFloatBuf_;         // float32 scratch (fp16/bf16 only)
    TBuf<TPosition::VECCALC> yFloatBuf_;
    TBuf<TPosition::VECCALC> gammaFloatBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> gammaGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<float> rstdGm_;
    LocalTensor<T> gammaLocal_;                  // gamma as loaded
    LocalTensor<float> gammaFloat_;              // gamma in float32 (the same tensor for float32)
    uint64_t coreRows_ = 0;                      // rows this core owns
    uint32_t rowLength_ = 0;                     // D
    uint32_t rowStride_ = 0;                     // row pitch in UB, elements
    uint32_t tileRows_ = 0;                      // rows per full tile
    float epsilon_ = 1e-6f;
    float avgFactor_ = 1.0f;
};
}  // namespace {{ T }}Kernel

#endif  // {{ GUARD }}
