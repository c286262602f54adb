// InterleaveRope: the kernel class, run by every vector core (AIV).
//
// Math, per row x[b, n, s, :] of D elements holding D/2 interleaved pairs (r_t, i_t) = (x[2t], x[2t+1]):
//     q   = [r_0 .. r_{D/2-1}, i_0 .. i_{D/2-1}]          (half-split order)
//     y   = q * cos + RotateHalf(q) * sin,   RotateHalf(q) = [-i, r]
// with the cos/sin row that belongs to (b, s) under the broadcast pattern of the tiling key.
//
// How one core works:
//   - Keys 1-4: it owns a contiguous range of rows (chosen by the tiling) and walks through it in
//     tiles of up to tileRows rows: CopyIn (GM -> UB, MTE2), Compute (vector unit), CopyOut
//     (UB -> GM, MTE3). Queues with two buffers each (double buffering) let the copies of one tile
//     overlap the compute of the next.
//   - In UB every row starts on a 32-byte boundary: rows are Dp = D rounded up to 16 elements apart
//     (Dp = D when D * 2 bytes is already whole 32-byte blocks; then plain DataCopy moves a tile,
//     otherwise DataCopyPad moves it row by row with the pad lanes filled with zeros).
//   - The vector unit of 910B has no bf16 arithmetic, so everything is computed in float32: the
//     tile is Cast to float, then two Gather instructions with precomputed byte offsets build q and
//     the swapped copy sw = [i, r] (the de-interleave and the half swap in one step each).
//     RotateHalf's sign goes into sin: sin' = sin * [-1 .. -1, +1 .. +1]. Then
//     y = q * cos + sw * sin' (Mul, Mul, Add), and one Cast (round to nearest even) back to T.
//   - cos/sin per s (keys B1SD, 11SD): the tile's cos/sin rows are copied to the same UB rows as
//     the x rows they multiply, one copy per run of consecutive s (a run ends where a head ends),
//     and the products are plain element-wise Mul over the tile.
//     cos/sin per batch or one row (keys B11D, 111D): only the distinct rows are copied (one per
//     batch the tile touches), and Mul re-reads one row for many x rows through a repeat stride of
//     0 on its second source.
//   - Keys B1SD_HEADS / 11SD_HEADS (prefill): the core owns a range of positions (b, s) instead of
//     rows. It takes them in chunks of up to cosRows positions: the chunk's cos/sin rows are copied
//     and converted once, then the heads are walked in groups of headGroup, a tile being the
//     chunk's rows of each head of the group (one contiguous copy per head). cos/sin are thus read
//     once per position instead of once per head.
#ifndef INTERLEAVE_ROPE_H
#define INTERLEAVE_ROPE_H

#include "kernel_operator.h"
#include "interleave_rope_tiling_data.h"

namespace InterleaveRopeKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;              // buffers per queue: double buffering
constexpr uint32_t FLOATS_PER_REPEAT = 64;     // one vector repeat = 256 bytes = 64 floats
constexpr uint32_t FLOATS_PER_BLOCK = 8;       // one 32-byte block = 8 floats
constexpr uint32_t MAX_REPEAT = 255;           // repeatTime is a uint8_t

// T: half or bfloat16_t (x, cos, sin and y share it).
// PER_SEQ: cos/sin have a row per position s; PER_BATCH: cos/sin have rows per batch b.
// HEAD_LOOP (with PER_SEQ only): positions are split across cores and each core loops over heads.
template <typename T, bool PER_SEQ, bool PER_BATCH, bool HEAD_LOOP = false>
class KernelInterleaveRope {
    static_assert(PER_SEQ || !HEAD_LOOP, "the head loop reuses cos/sin rows per position");

public:
    __aicore__ inline KernelInterleaveRope() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y, const InterleaveRopeTilingData& tiling)
    {
        // This core's units (rows, or positions with HEAD_LOOP): the first formerNum cores own
        // formerRows units, the others tailRows.
        const uint64_t totalUnits = HEAD_LOOP ? tiling.totalRows / tiling.numHeads : tiling.totalRows;
        const uint64_t blockIdx = static_cast<uint64_t>(GetBlockIdx());
        if (blockIdx < tiling.formerNum) {
            rowStart_ = blockIdx * tiling.formerRows;
            rowCount_ = tiling.formerRows;
        } else {
            rowStart_ = tiling.formerNum * tiling.formerRows + (blockIdx - tiling.formerNum) * tiling.tailRows;
            rowCount_ = tiling.tailRows;
        }
        if (rowStart_ >= totalUnits) {
            rowCount_ = 0;
        } else if (rowStart_ + rowCount_ > totalUnits) {
            rowCount_ = totalUnits - rowStart_;
        }
        if (rowCount_ == 0) {
            return;  // nothing to do on this core: no buffers, no copies
        }
        d_ = tiling.hiddenDim;
        dp_ = tiling.rowStride;
        tileRows_ = tiling.tileRows;
        cosRows_ = tiling.cosRows;
        seqLength_ = tiling.seqLength;
        batchRows_ = tiling.batchRows;
        numHeads_ = tiling.numHeads;
        headGroup_ = tiling.headGroup;
        aligned_ = tiling.alignedRows != 0;

        // GM views: x and y from this core's first row on (whole with HEAD_LOOP); cos and sin whole.
        const uint64_t batches = tiling.totalRows / tiling.batchRows;
        const uint64_t tableRows = (PER_BATCH ? batches : 1) * (PER_SEQ ? seqLength_ : 1);
        if constexpr (HEAD_LOOP) {
            xGm_.SetGlobalBuffer((__gm__ T*)x, tiling.totalRows * d_);
            yGm_.SetGlobalBuffer((__gm__ T*)y, tiling.totalRows * d_);
        } else {
            xGm_.SetGlobalBuffer((__gm__ T*)x + rowStart_ * d_, rowCount_ * d_);
            yGm_.SetGlobalBuffer((__gm__ T*)y + rowStart_ * d_, rowCount_ * d_);
        }
        cosGm_.SetGlobalBuffer((__gm__ T*)cos, tableRows * d_);
        sinGm_.SetGlobalBuffer((__gm__ T*)sin, tableRows * d_);

        // UB: the tiling sized tileRows and cosRows so that all of this fits.
        const uint32_t tileElems = tileRows_ * dp_;
        const uint32_t cosElems = cosRows_ * dp_;
        pipe_.InitBuffer(xQue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(cosQue_, BUFFER_NUM, cosElems * sizeof(T));
        pipe_.InitBuffer(sinQue_, BUFFER_NUM, cosElems * sizeof(T));
        pipe_.InitBuffer(yQue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(xFloatBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(qFloatBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(swFloatBuf_, tileElems * sizeof(float));
        pipe_.InitBuffer(cosFloatBuf_, cosElems * sizeof(float));
        pipe_.InitBuffer(sinFloatBuf_, cosElems * sizeof(float));
        pipe_.InitBuffer(offsetQBuf_, tileElems * sizeof(uint32_t));
        pipe_.InitBuffer(offsetSwBuf_, tileElems * sizeof(uint32_t));
        pipe_.InitBuffer(signBuf_, dp_ * sizeof(float));
        BuildTables();
    }

    __aicore__ inline void Process()
    {
        if (rowCount_ == 0) {
            return;
        }
        if constexpr (HEAD_LOOP) {
            ProcessHeads();
        } else {
            for (uint64_t r0 = 0; r0 < rowCount_; r0 += tileRows_) {
                const uint32_t rows = static_cast<uint32_t>((rowCount_ - r0 < tileRows_) ? rowCount_ - r0 : tileRows_);
                CopyIn(r0, rows);
                Compute(r0, rows);
                CopyOut(r0, rows);
            }
        }
    }

private:
    // The Gather offsets (bytes into the float tile) and the sign row, built once per core.
    // Row 0 is written by the scalar unit; the other rows of the offset tables are row 0 plus
    // t * Dp * 4 bytes, filled by doubling with vector Adds.
    __aicore__ inline void BuildTables()
    {
        LocalTensor<uint32_t> offQ = offsetQBuf_.Get<uint32_t>();
        LocalTensor<uint32_t> offSw = offsetSwBuf_.Get<uint32_t>();
        LocalTensor<float> sign = signBuf_.Get<float>();
        const uint32_t half = d_ / 2;
        for (uint32_t j = 0; j < dp_; ++j) {
            uint32_t fromQ = j;  // pad lanes read themselves (zeros)
            uint32_t fromSw = j;
            float s = 0.0f;
            if (j < half) {
                fromQ = 2 * j;       // q[j] = r_j = x[2j]
                fromSw = 2 * j + 1;  // sw[j] = i_j = x[2j+1]
                s = -1.0f;           // RotateHalf: -i in the first half
            } else if (j < d_) {
                fromQ = 2 * (j - half) + 1;  // q[D/2 + t] = i_t
                fromSw = 2 * (j - half);     // sw[D/2 + t] = r_t
                s = 1.0f;
            }
            offQ.SetValue(j, fromQ * static_cast<uint32_t>(sizeof(float)));
            offSw.SetValue(j, fromSw * static_cast<uint32_t>(sizeof(float)));
            sign.SetValue(j, s);
        }
        // The scalar writes must land before the vector unit reads them.
        event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        LocalTensor<int32_t> offQ32 = offQ.template ReinterpretCast<int32_t>();
        LocalTensor<int32_t> offSw32 = offSw.template ReinterpretCast<int32_t>();
        for (uint32_t done = 1; done < tileRows_; done *= 2) {
            const uint32_t rows = (tileRows_ - done < done) ? tileRows_ - done : done;
            const int32_t shift = static_cast<int32_t>(done * dp_ * sizeof(float));
            Adds(offQ32[done * dp_], offQ32, shift, static_cast<int32_t>(rows * dp_));
            Adds(offSw32[done * dp_], offSw32, shift, static_cast<int32_t>(rows * dp_));
            PipeBarrier<PIPE_V>();
        }
    }

    // The batch of global row g, and the cos/sin row that multiplies it.
    __aicore__ inline uint64_t BatchOf(uint64_t g) const { return g / batchRows_; }
    __aicore__ inline uint64_t CosRowOf(uint64_t g) const
    {
        const uint64_t s = PER_SEQ ? g % seqLength_ : 0;
        return (PER_BATCH ? BatchOf(g) * (PER_SEQ ? seqLength_ : 1) : 0) + s;
    }

    // rows rows of D elements from GM to UB rows Dp apart.
    __aicore__ inline void CopyRowsIn(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t rows)
    {
        if (aligned_) {
            DataCopy(dst, src, rows * d_);  // rows * D * 2 bytes: whole 32-byte blocks
        } else {
            // One block per row: D * 2 bytes from GM, padded with zeros up to Dp elements in UB.
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(d_ * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(dp_ - d_), static_cast<T>(0.0f)};
            DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    __aicore__ inline void CopyIn(uint64_t r0, uint32_t rows)
    {
        LocalTensor<T> xT = xQue_.AllocTensor<T>();
        CopyRowsIn(xT, xGm_[r0 * d_], rows);
        xQue_.EnQue(xT);

        LocalTensor<T> cosT = cosQue_.AllocTensor<T>();
        LocalTensor<T> sinT = sinQue_.AllocTensor<T>();
        const uint64_t g0 = rowStart_ + r0;  // global index of the tile's first row
        if constexpr (PER_SEQ) {
            // UB row t gets the cos/sin row of x row g0 + t. Within one head s runs on
            // consecutively, so each head the tile touches is one contiguous copy.
            uint32_t t = 0;
            while (t < rows) {
                const uint64_t g = g0 + t;
                const uint64_t left = seqLength_ - g % seqLength_;
                const uint32_t run = static_cast<uint32_t>((left < rows - t) ? left : rows - t);
                const uint64_t c = CosRowOf(g);
                CopyRowsIn(cosT[t * dp_], cosGm_[c * d_], run);
                CopyRowsIn(sinT[t * dp_], sinGm_[c * d_], run);
                t += run;
            }
        } else {
            // Only the distinct rows: one per batch the tile touches (or the single row).
            const uint64_t c0 = CosRowOf(g0);
            const uint32_t distinct = DistinctRows(g0, rows);
            CopyRowsIn(cosT, cosGm_[c0 * d_], distinct);
            CopyRowsIn(sinT, sinGm_[c0 * d_], distinct);
        }
        cosQue_.EnQue(cosT);
        sinQue_.EnQue(sinT);
    }

    // Keys B11D/111D: how many cos/sin rows the tile [g0, g0 + rows) uses.
    __aicore__ inline uint32_t DistinctRows(uint64_t g0, uint32_t rows) const
    {
        return PER_BATCH ? static_cast<uint32_t>(BatchOf(g0 + rows - 1) - BatchOf(g0) + 1) : 1;
    }

    // dst row r = src0 row r * the one row `row`, for `rows` rows Dp apart: the row is re-read for
    // every repeat (src1 repeat stride 0), in column chunks of one repeat (64 floats, the last
    // one masked).
    __aicore__ inline void MulRows(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                   const LocalTensor<float>& row, uint32_t rows)
    {
        const uint8_t rowBlocks = static_cast<uint8_t>(dp_ / FLOATS_PER_BLOCK);
        for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
            const uint32_t repeat = (rows - r < MAX_REPEAT) ? rows - r : MAX_REPEAT;
            for (uint32_t c = 0; c < dp_; c += FLOATS_PER_REPEAT) {
                const uint64_t mask = (dp_ - c < FLOATS_PER_REPEAT) ? dp_ - c : FLOATS_PER_REPEAT;
                Mul(dst[r * dp_ + c], src0[r * dp_ + c], row[c], mask, static_cast<uint8_t>(repeat),
                    {1, 1, 1, rowBlocks, rowBlocks, 0});
            }
        }
    }

    __aicore__ inline void Compute(uint64_t r0, uint32_t rows)
    {
        const uint32_t n = rows * dp_;
        const uint64_t g0 = rowStart_ + r0;
        const uint32_t tableRows = PER_SEQ ? rows : DistinctRows(g0, rows);
        LocalTensor<T> xT = xQue_.DeQue<T>();
        LocalTensor<T> cosT = cosQue_.DeQue<T>();
        LocalTensor<T> sinT = sinQue_.DeQue<T>();
        LocalTensor<float> xF = xFloatBuf_.Get<float>();
        LocalTensor<float> qF = qFloatBuf_.Get<float>();
        LocalTensor<float> swF = swFloatBuf_.Get<float>();
        LocalTensor<float> cosF = cosFloatBuf_.Get<float>();
        LocalTensor<float> sinF = sinFloatBuf_.Get<float>();
        LocalTensor<uint32_t> offQ = offsetQBuf_.Get<uint32_t>();
        LocalTensor<uint32_t> offSw = offsetSwBuf_.Get<uint32_t>();
        LocalTensor<float> sign = signBuf_.Get<float>();

        // 1. Widen to float32 (exact for fp16 and bf16).
        Cast(xF, xT, RoundMode::CAST_NONE, n);
        Cast(cosF, cosT, RoundMode::CAST_NONE, tableRows * dp_);
        Cast(sinF, sinT, RoundMode::CAST_NONE, tableRows * dp_);
        PipeBarrier<PIPE_V>();
        xQue_.FreeTensor(xT);
        cosQue_.FreeTensor(cosT);
        sinQue_.FreeTensor(sinT);

        // 2. De-interleave: q = [r, i] and sw = [i, r], row by row; sin' = sin * sign.
        Gather(qF, xF, offQ, 0, n);
        Gather(swF, xF, offSw, 0, n);
        MulRows(sinF, sinF, sign, tableRows);
        PipeBarrier<PIPE_V>();

        // 3. q * cos and sw * sin'.
        if constexpr (PER_SEQ) {
            Mul(qF, qF, cosF, n);
            Mul(swF, swF, sinF, n);
        } else {
            // Runs of rows of one batch share one cos/sin row.
            uint32_t t = 0;
            uint32_t table = 0;
            while (t < rows) {
                const uint64_t g = g0 + t;
                const uint64_t left = PER_BATCH ? batchRows_ - g % batchRows_ : rows - t;
                const uint32_t run = static_cast<uint32_t>((left < rows - t) ? left : rows - t);
                MulRows(qF[t * dp_], qF[t * dp_], cosF[table * dp_], run);
                MulRows(swF[t * dp_], swF[t * dp_], sinF[table * dp_], run);
                t += run;
                ++table;
            }
        }
        PipeBarrier<PIPE_V>();

        // 4. y = q * cos + sw * sin', rounded once to T (nearest even).
        Add(qF, qF, swF, n);
        PipeBarrier<PIPE_V>();
        LocalTensor<T> yT = yQue_.AllocTensor<T>();
        Cast(yT, qF, RoundMode::CAST_RINT, n);
        yQue_.EnQue<T>(yT);
    }

    // rows rows of D elements from UB rows Dp apart to GM.
    __aicore__ inline void CopyRowsOut(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows)
    {
        if (aligned_) {
            DataCopy(dst, src, rows * d_);
        } else {
            // One block per row: exactly D * 2 bytes to GM; the pad lanes stay in UB.
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(d_ * sizeof(T)), 0, 0, 0};
            DataCopyPad(dst, src, copyParams);
        }
    }

    __aicore__ inline void CopyOut(uint64_t r0, uint32_t rows)
    {
        LocalTensor<T> yT = yQue_.DeQue<T>();
        CopyRowsOut(yGm_[r0 * d_], yT, rows);
        yQue_.FreeTensor(yT);
    }

    // ---- HEAD_LOOP: positions split across cores, heads looped inside ---------------------------

    __aicore__ inline void ProcessHeads()
    {
        const uint64_t end = rowStart_ + rowCount_;
        uint64_t pos = rowStart_;  // a position: b * S + s
        while (pos < end) {
            // A chunk: up to cosRows consecutive positions of one batch.
            const uint64_t b = pos / seqLength_;
            const uint64_t s = pos % seqLength_;
            uint64_t k = end - pos;
            k = (k < seqLength_ - s) ? k : seqLength_ - s;
            k = (k < cosRows_) ? k : cosRows_;
            const uint32_t positions = static_cast<uint32_t>(k);
            LoadTables(CosRowOf(b * batchRows_ + s), positions);
            for (uint32_t h0 = 0; h0 < numHeads_; h0 += headGroup_) {
                const uint32_t heads = (numHeads_ - h0 < headGroup_) ? numHeads_ - h0 : headGroup_;
                const uint64_t firstRow = (b * numHeads_ + h0) * seqLength_ + s;  // head h0, position s
                CopyInHeads(firstRow, heads, positions);
                ComputeHeads(heads, positions);
                CopyOutHeads(firstRow, heads, positions);
            }
            pos += k;
        }
    }

    // cos/sin rows c0 .. c0 + positions - 1 into float32, RotateHalf's sign folded into sin. They
    // stay in cosFloatBuf_/sinFloatBuf_ while the heads are walked.
    __aicore__ inline void LoadTables(uint64_t c0, uint32_t positions)
    {
        LocalTensor<T> cosT = cosQue_.AllocTensor<T>();
        LocalTensor<T> sinT = sinQue_.AllocTensor<T>();
        CopyRowsIn(cosT, cosGm_[c0 * d_], positions);
        CopyRowsIn(sinT, sinGm_[c0 * d_], positions);
        cosQue_.EnQue(cosT);
        sinQue_.EnQue(sinT);
        cosT = cosQue_.DeQue<T>();
        sinT = sinQue_.DeQue<T>();
        LocalTensor<float> cosF = cosFloatBuf_.Get<float>();
        LocalTensor<float> sinF = sinFloatBuf_.Get<float>();
        Cast(cosF, cosT, RoundMode::CAST_NONE, positions * dp_);
        Cast(sinF, sinT, RoundMode::CAST_NONE, positions * dp_);
        PipeBarrier<PIPE_V>();
        cosQue_.FreeTensor(cosT);
        sinQue_.FreeTensor(sinT);
        MulRows(sinF, sinF, signBuf_.Get<float>(), positions);
        PipeBarrier<PIPE_V>();
    }

    // Head j of the group lands in UB rows [j * positions, (j + 1) * positions): one copy per head,
    // its rows being consecutive in GM. Heads are S rows apart in GM.
    __aicore__ inline void CopyInHeads(uint64_t firstRow, uint32_t heads, uint32_t positions)
    {
        LocalTensor<T> xT = xQue_.AllocTensor<T>();
        for (uint32_t j = 0; j < heads; ++j) {
            CopyRowsIn(xT[j * positions * dp_], xGm_[(firstRow + j * seqLength_) * d_], positions);
        }
        xQue_.EnQue(xT);
    }

    __aicore__ inline void ComputeHeads(uint32_t heads, uint32_t positions)
    {
        const uint32_t headElems = positions * dp_;
        const uint32_t n = heads * headElems;
        LocalTensor<T> xT = xQue_.DeQue<T>();
        LocalTensor<float> xF = xFloatBuf_.Get<float>();
        LocalTensor<float> qF = qFloatBuf_.Get<float>();
        LocalTensor<float> swF = swFloatBuf_.Get<float>();
        LocalTensor<float> cosF = cosFloatBuf_.Get<float>();
        LocalTensor<float> sinF = sinFloatBuf_.Get<float>();
        Cast(xF, xT, RoundMode::CAST_NONE, n);
        PipeBarrier<PIPE_V>();
        xQue_.FreeTensor(xT);
        Gather(qF, xF, offsetQBuf_.Get<uint32_t>(), 0, n);
        Gather(swF, xF, offsetSwBuf_.Get<uint32_t>(), 0, n);
        PipeBarrier<PIPE_V>();
        for (uint32_t j = 0; j < heads; ++j) {  // every head meets the same cos/sin rows
            Mul(qF[j * headElems], qF[j * headElems], cosF, headElems);
            Mul(swF[j * headElems], swF[j * headElems], sinF, headElems);
        }
        PipeBarrier<PIPE_V>();
        Add(qF, qF, swF, n);
        PipeBarrier<PIPE_V>();
        LocalTensor<T> yT = yQue_.AllocTensor<T>();
        Cast(yT, qF, RoundMode::CAST_RINT, n);
        yQue_.EnQue<T>(yT);
    }

    __aicore__ inline void CopyOutHeads(uint64_t firstRow, uint32_t heads, uint32_t positions)
    {
        LocalTensor<T> yT = yQue_.DeQue<T>();
        for (uint32_t j = 0; j < heads; ++j) {
            CopyRowsOut(yGm_[(firstRow + j * seqLength_) * d_], yT[j * positions * dp_], positions);
        }
        yQue_.FreeTensor(yT);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, 1> xQue_;
    TQue<TPosition::VECIN, 1> cosQue_;
    TQue<TPosition::VECIN, 1> sinQue_;
    TQue<TPosition::VECOUT, 1> yQue_;
    TBuf<TPosition::VECCALC> xFloatBuf_;    // x tile in float32
    TBuf<TPosition::VECCALC> qFloatBuf_;    // q, then q * cos, then y
    TBuf<TPosition::VECCALC> swFloatBuf_;   // sw, then sw * sin'
    TBuf<TPosition::VECCALC> cosFloatBuf_;  // cos rows in float32
    TBuf<TPosition::VECCALC> sinFloatBuf_;  // sin rows in float32, then sin'
    TBuf<TPosition::VECCALC> offsetQBuf_;   // Gather byte offsets building q
    TBuf<TPosition::VECCALC> offsetSwBuf_;  // Gather byte offsets building sw
    TBuf<TPosition::VECCALC> signBuf_;      // one row: -1 (first half), +1 (second half), 0 (pad)
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<T> cosGm_;
    GlobalTensor<T> sinGm_;
    uint64_t rowStart_ = 0;   // global index of this core's first row (position with HEAD_LOOP)
    uint64_t rowCount_ = 0;   // rows (positions with HEAD_LOOP) this core owns
    uint64_t batchRows_ = 1;  // N * S
    uint32_t seqLength_ = 1;  // S
    uint32_t d_ = 0;          // D
    uint32_t dp_ = 0;         // row pitch in UB, elements
    uint32_t tileRows_ = 0;
    uint32_t cosRows_ = 0;
    uint32_t numHeads_ = 1;   // N
    uint32_t headGroup_ = 1;  // heads per tile (HEAD_LOOP)
    bool aligned_ = true;
};

template <typename T, bool PER_SEQ, bool PER_BATCH, bool HEAD_LOOP = false>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y, const InterleaveRopeTilingData& tiling)
{
    KernelInterleaveRope<T, PER_SEQ, PER_BATCH, HEAD_LOOP> op;
    op.Init(x, cos, sin, y, tiling);
    op.Process();
}
}  // namespace InterleaveRopeKernel

#endif  // INTERLEAVE_ROPE_H
