// InterleaveRope: the kernel class, run by every vector core (AIV).
//
// Math, per row x[b, n, s, :] of D elements holding h = D/2 interleaved pairs (r_t, i_t) = (x[2t], x[2t+1]):
//     y[t]     = r_t * cos[t]     - i_t * sin[t]          (first half, t < h)
//     y[h + t] = i_t * cos[h + t] + r_t * sin[h + t]      (second half)
// that is y = q * cos + RotateHalf(q) * sin with q = [r, i] (half-split order), RotateHalf(q) = [-i, r],
// with the cos/sin row that belongs to (b, s) under the broadcast pattern of the tiling key.
//
// Layout in UB. Half-rows are Hp = h rounded up to 16 elements apart (32 bytes of fp16/bf16), x and y
// rows Xp = 2 * Hp apart (Xp = D when D is a multiple of 32: then whole tiles move with one copy;
// otherwise DataCopyPad moves one row per block, zero padding, and the one spare 32-byte block some D
// leave at a row's end is zeroed once at start-up). Everything between the copies is packed per
// half-row: r and i are [rows x Hp] arrays, and so are the four cos/sin halves c1 = cos[:h],
// c2 = cos[h:], s1 = sin[:h], s2 = sin[h:] in float32. cos/sin rows are copied whole when D is a
// multiple of 32 (the widening Cast splits the halves with repeat strides), otherwise as half-rows (a
// GM stride skips the other half) so that the widening Cast is contiguous.
//
// Compute, per tile of rows (fp32 throughout, 910B has no bf16 arithmetic):
//   1. De-interleave on the 16-bit data, with shifts and one narrowing Cast instead of a gather. A pair
//      (r_t, i_t) is one 32-bit word w = i_t << 16 | r_t (little-endian), so
//          i bits = w >> 16 (int32, arithmetic: the 16-bit pattern sign-extended)
//          r bits = (w << 16 (uint32)) >> 16 (int32, arithmetic)
//      and Cast int32 -> int16 (exact: the values are in int16 range, so the saturation never applies)
//      packs them into [rows x Hp] 16-bit arrays, the bit patterns of r and i in T. A Cast T -> float
//      widens them. Five single-source instructions over half as many bytes as the float32 tile
//      replace the two float32 Gathers (opkit's cost model: 1 cycle per 256-byte repeat for shifts and
//      Casts, 12 for a 32-bit Gather, 14 for GatherMask).
//   2. a = r * c1 - i * s1 and b = i * c2 + r * s2 (Mul, Mul, Sub, Mul, Mul, Add on packed arrays, no
//      lane wasted, RotateHalf's sign is the Sub).
//   3. One Cast (round to nearest even) per half writes a into the first and b into the second half of
//      each y row (continuous mask of Hp lanes, repeat strides of one half-row / one row).
//
// How one core works:
//   - Keys 1-4: it owns a contiguous range of rows (chosen by the tiling) and walks through it in
//     tiles of up to tileRows rows: CopyIn (GM -> UB, MTE2), Compute (vector unit), CopyOut
//     (UB -> GM, MTE3). Queues with two buffers each (double buffering) let the copies of one tile
//     overlap the compute of the next.
//   - cos/sin per s (keys B1SD, 11SD): the tile's cos/sin rows are copied to the same rows as the x
//     rows they multiply, one copy (one per half) per run of consecutive s (a run ends where a head
//     ends).
//     cos/sin per batch or one row (keys B11D, 111D): only the distinct rows are copied (one per batch
//     the tile touches), and Mul re-reads one half-row for many x rows through a repeat stride of 0
//     on its second source.
//   - Keys B1SD_HEADS / 11SD_HEADS (prefill): the core owns a range of positions (b, s) instead of
//     rows. It takes them in chunks of up to cosRows positions: the chunk's cos/sin rows are copied
//     and widened once, then the heads are walked in groups of headGroup, a tile being the
//     chunk's rows of each head of the group, moved with one strided copy per tile (one per head when
//     D is not a multiple of 32). cos/sin are thus read and widened once per position, not once per
//     head.
#ifndef INTERLEAVE_ROPE_H
#define INTERLEAVE_ROPE_H

#include "kernel_operator.h"
#include "interleave_rope_tiling_data.h"

namespace InterleaveRopeKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;              // x and y queues: double buffering
constexpr int32_t TABLE_BUFFER_NUM = 1;        // cos/sin staging: widened right after the copy
constexpr uint32_t FLOATS_PER_REPEAT = 64;     // one vector repeat = 256 bytes = 64 floats
constexpr uint32_t FLOATS_PER_BLOCK = 8;       // one 32-byte block = 8 floats
constexpr uint32_t HALVES_PER_BLOCK = 16;      // one 32-byte block = 16 fp16/bf16
constexpr uint32_t MAX_REPEAT = 255;           // repeatTime is a uint8_t

// T: half or bfloat16_t (x, cos, sin and y share it).
// PER_SEQ: cos/sin have a row per position s; PER_BATCH: cos/sin have rows per batch b.
// HEAD_LOOP (with PER_SEQ only): positions are split across cores and each core loops over heads.
template <typename T, bool PER_SEQ, bool PER_BATCH, bool HEAD_LOOP = false>
class KernelInterleaveRope {
    static_assert(PER_SEQ || !HEAD_LOOP, "the head loop reuses cos/sin rows per position");
    static_assert(sizeof(T) == 2, "x, cos, sin and y are 16-bit (fp16 or bf16)");

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
        half_ = d_ / 2;
        xp_ = tiling.rowStride;
        hp_ = xp_ / 2;
        tileRows_ = tiling.tileRows;
        cosRows_ = tiling.cosRows;
        seqLength_ = tiling.seqLength;
        batchRows_ = tiling.batchRows;
        numHeads_ = tiling.numHeads;
        headGroup_ = tiling.headGroup;
        aligned_ = tiling.alignedRows != 0;
        const uint32_t padded = (d_ + HALVES_PER_BLOCK - 1) / HALVES_PER_BLOCK * HALVES_PER_BLOCK;
        padElems_ = padded - d_;
        gapBlocks_ = (xp_ - padded) / HALVES_PER_BLOCK;

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

        // UB: the tiling sized tileRows and cosRows so that all of this fits (UbBytes there).
        const uint32_t tileElems = tileRows_ * xp_;       // x or y tile, T
        const uint32_t packed = tileRows_ * hp_;          // one packed half-row array, float32
        const uint32_t tablePacked = cosRows_ * hp_;      // one packed cos/sin half, float32
        pipe_.InitBuffer(xQue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(yQue_, BUFFER_NUM, tileElems * sizeof(T));
        pipe_.InitBuffer(cosQue_, TABLE_BUFFER_NUM, cosRows_ * xp_ * sizeof(T));
        pipe_.InitBuffer(sinQue_, TABLE_BUFFER_NUM, cosRows_ * xp_ * sizeof(T));
        pipe_.InitBuffer(bufP_, packed * sizeof(float));
        pipe_.InitBuffer(bufQ_, packed * sizeof(float));
        pipe_.InitBuffer(bufM_, packed * sizeof(float));
        pipe_.InitBuffer(bufN_, packed * sizeof(float));
        pipe_.InitBuffer(tableBuf_, 4 * tablePacked * sizeof(float));
        if (gapBlocks_ != 0) {
            ZeroRowGaps(tileElems);
        }
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
    // Some D leave one 32-byte block at the end of each UB row that no copy writes (rows are Xp
    // apart, a row's copy fills D rounded up to 16 elements). Both x buffers are zeroed once, so
    // that the de-interleave reads defined values there (the lanes it makes are never copied out).
    __aicore__ inline void ZeroRowGaps(uint32_t tileElems)
    {
        LocalTensor<T> b0 = xQue_.AllocTensor<T>();
        LocalTensor<T> b1 = xQue_.AllocTensor<T>();
        Duplicate(b0.template ReinterpretCast<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>(tileElems));
        Duplicate(b1.template ReinterpretCast<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>(tileElems));
        xQue_.FreeTensor(b0);
        xQue_.FreeTensor(b1);
    }

    // The batch of global row g, and the cos/sin row that multiplies it.
    __aicore__ inline uint64_t BatchOf(uint64_t g) const { return g / batchRows_; }
    __aicore__ inline uint64_t CosRowOf(uint64_t g) const
    {
        const uint64_t s = PER_SEQ ? g % seqLength_ : 0;
        return (PER_BATCH ? BatchOf(g) * (PER_SEQ ? seqLength_ : 1) : 0) + s;
    }

    // ---- copies ------------------------------------------------------------------------------------

    // rows rows of D elements from GM (consecutive) to UB rows Xp apart.
    __aicore__ inline void CopyRowsIn(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t rows)
    {
        if (aligned_) {
            DataCopy(dst, src, rows * d_);  // Xp = D, rows * D * 2 bytes: whole 32-byte blocks
        } else {
            // One block per row: D * 2 bytes from GM, zero padding up to 16 elements, then the gap
            // block (if any) skipped in UB.
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(d_ * sizeof(T)), 0,
                                         gapBlocks_, 0};
            DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(padElems_), static_cast<T>(0.0f)};
            DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    // rows rows from UB (Xp apart, [a | b] per row) to consecutive GM rows of D elements.
    __aicore__ inline void CopyRowsOut(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows)
    {
        if (aligned_) {
            DataCopy(dst, src, rows * d_);
        } else {
            // One block per half-row: h * 2 bytes each, Hp apart in UB, back to back in GM.
            DataCopyExtParams copyParams{static_cast<uint16_t>(2 * rows), static_cast<uint32_t>(half_ * sizeof(T)), 0, 0, 0};
            DataCopyPad(dst, src, copyParams);
        }
    }

    // cos/sin rows c0 .. c0 + count - 1 of one table into the staging buffer, from its row t on. With
    // D a multiple of 32 the rows are copied whole (Xp = D apart, one copy) and split into halves by
    // the widening Cast; otherwise their first halves go to region 0 and their second halves to
    // region 1 (regions cosRows * Hp elements apart, half-rows Hp apart, a GM stride skipping the
    // other half), so that the Cast is contiguous.
    __aicore__ inline void CopyTableIn(const LocalTensor<T>& dst, const GlobalTensor<T>& table, uint64_t c0, uint32_t t,
                                       uint32_t count)
    {
        if (aligned_) {
            DataCopy(dst[t * xp_], table[c0 * d_], count * d_);
            return;
        }
        const uint32_t halfBytes = half_ * sizeof(T);
        DataCopyExtParams copyParams{static_cast<uint16_t>(count), halfBytes, halfBytes, 0, 0};  // GM: skip the other half
        DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(hp_ - half_), static_cast<T>(0.0f)};
        DataCopyPad(dst[t * hp_], table[c0 * d_], copyParams, padParams);
        DataCopyPad(dst[(cosRows_ + t) * hp_], table[c0 * d_ + half_], copyParams, padParams);
    }

    // ---- compute pieces ------------------------------------------------------------------------------

    // x tile (rows rows, Xp apart) -> P = r and Q = i, float32 [rows x Hp]. Frees the x tile.
    __aicore__ inline void Deinterleave(LocalTensor<T>& xT, uint32_t rows)
    {
        const int32_t words = static_cast<int32_t>(rows * hp_);  // one 32-bit word per pair (pad pairs too)
        LocalTensor<int32_t> pI = bufP_.Get<int32_t>();
        LocalTensor<int32_t> qI = bufQ_.Get<int32_t>();
        ShiftLeft(bufP_.Get<uint32_t>(), xT.template ReinterpretCast<uint32_t>(), static_cast<uint32_t>(16), words);
        ShiftRight(qI, xT.template ReinterpretCast<int32_t>(), static_cast<int32_t>(16), words);  // i, sign-extended
        PipeBarrier<PIPE_V>();
        xQue_.FreeTensor(xT);
        ShiftRight(pI, pI, static_cast<int32_t>(16), words);  // r, sign-extended
        PipeBarrier<PIPE_V>();
        LocalTensor<int16_t> bits = bufN_.Get<int16_t>();  // r bits, then i bits
        Cast(bits, pI, RoundMode::CAST_NONE, static_cast<uint32_t>(words));
        Cast(bits[words], qI, RoundMode::CAST_NONE, static_cast<uint32_t>(words));
        PipeBarrier<PIPE_V>();
        Cast(bufP_.Get<float>(), bits.template ReinterpretCast<T>(), RoundMode::CAST_NONE, static_cast<uint32_t>(words));
        Cast(bufQ_.Get<float>(), bits[words].template ReinterpretCast<T>(), RoundMode::CAST_NONE,
             static_cast<uint32_t>(words));
        PipeBarrier<PIPE_V>();
    }

    // The staged cos/sin of `rows` table rows to float32 halves (tableBuf_: c1, c2, s1, s2).
    __aicore__ inline void WidenTables(LocalTensor<T>& cosT, LocalTensor<T>& sinT, uint32_t rows)
    {
        const uint32_t region = cosRows_ * hp_;
        LocalTensor<float> tab = tableBuf_.Get<float>();
        if (aligned_) {
            WidenHalf(tab, cosT, 0, rows);                 // c1
            WidenHalf(tab[region], cosT, hp_, rows);       // c2
            WidenHalf(tab[2 * region], sinT, 0, rows);     // s1
            WidenHalf(tab[3 * region], sinT, hp_, rows);   // s2
        } else {
            const uint32_t n = rows * hp_;
            Cast(tab, cosT, RoundMode::CAST_NONE, n);
            Cast(tab[region], cosT[region], RoundMode::CAST_NONE, n);
            Cast(tab[2 * region], sinT, RoundMode::CAST_NONE, n);
            Cast(tab[3 * region], sinT[region], RoundMode::CAST_NONE, n);
        }
        PipeBarrier<PIPE_V>();
        cosQue_.FreeTensor(cosT);
        sinQue_.FreeTensor(sinT);
    }

    // Columns col0 .. col0 + Hp of `rows` whole staged rows (Xp apart) -> packed float32 [rows x Hp]:
    // one repeat per half-row (up to 64 lanes), repeat strides of Xp elements of T and Hp floats
    // (both Hp / 8 blocks).
    __aicore__ inline void WidenHalf(const LocalTensor<float>& dst, const LocalTensor<T>& src, uint32_t col0, uint32_t rows)
    {
        const uint8_t stride = static_cast<uint8_t>(hp_ / FLOATS_PER_BLOCK);
        for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
            const uint32_t repeat = (rows - r < MAX_REPEAT) ? rows - r : MAX_REPEAT;
            for (uint32_t c = 0; c < hp_; c += FLOATS_PER_REPEAT) {
                const uint64_t mask = (hp_ - c < FLOATS_PER_REPEAT) ? hp_ - c : FLOATS_PER_REPEAT;
                Cast(dst[r * hp_ + c], src[r * xp_ + col0 + c], RoundMode::CAST_NONE, mask, static_cast<uint8_t>(repeat),
                     {1, 1, stride, stride});
            }
        }
    }

    // dst row r = src0 row r * the one half-row `row`, for `rows` packed rows: the row is re-read for
    // every repeat (src1 repeat stride 0), in column chunks of one repeat (64 floats, the last masked).
    __aicore__ inline void MulRows(const LocalTensor<float>& dst, const LocalTensor<float>& src0,
                                   const LocalTensor<float>& row, uint32_t rows)
    {
        const uint8_t rowBlocks = static_cast<uint8_t>(hp_ / FLOATS_PER_BLOCK);
        for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
            const uint32_t repeat = (rows - r < MAX_REPEAT) ? rows - r : MAX_REPEAT;
            for (uint32_t c = 0; c < hp_; c += FLOATS_PER_REPEAT) {
                const uint64_t mask = (hp_ - c < FLOATS_PER_REPEAT) ? hp_ - c : FLOATS_PER_REPEAT;
                Mul(dst[r * hp_ + c], src0[r * hp_ + c], row[c], mask, static_cast<uint8_t>(repeat),
                    {1, 1, 1, rowBlocks, rowBlocks, 0});
            }
        }
    }

    // dst = src * table half `which` (0 c1, 1 c2, 2 s1, 3 s2) for the tile's rows. With a cos/sin row
    // per position the table has `blockRows` rows and each block of blockRows tile rows (one head)
    // meets it whole; per batch or single, runs of rows of one batch share one table row.
    __aicore__ inline void MulTable(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t which,
                                    uint64_t g0, uint32_t rows, uint32_t blockRows)
    {
        LocalTensor<float> tab = tableBuf_.Get<float>()[which * cosRows_ * hp_];
        if constexpr (PER_SEQ) {
            const uint32_t n = blockRows * hp_;
            for (uint32_t r = 0; r < rows; r += blockRows) {
                Mul(dst[r * hp_], src[r * hp_], tab, static_cast<int32_t>(n));
            }
        } else {
            uint32_t t = 0;
            uint32_t table = 0;
            while (t < rows) {
                const uint64_t g = g0 + t;
                const uint64_t left = PER_BATCH ? batchRows_ - g % batchRows_ : rows - t;
                const uint32_t run = static_cast<uint32_t>((left < rows - t) ? left : rows - t);
                MulRows(dst[t * hp_], src[t * hp_], tab[table * hp_], run);
                t += run;
                ++table;
            }
        }
    }

    // a = r * c1 - i * s1 into M, b = i * c2 + r * s2 into Q; then both rounded into the y tile.
    __aicore__ inline void Rotate(uint64_t g0, uint32_t rows, uint32_t blockRows)
    {
        LocalTensor<float> p = bufP_.Get<float>();
        LocalTensor<float> q = bufQ_.Get<float>();
        LocalTensor<float> m = bufM_.Get<float>();
        LocalTensor<float> n = bufN_.Get<float>();
        const int32_t count = static_cast<int32_t>(rows * hp_);
        MulTable(m, p, 0, g0, rows, blockRows);  // r * c1
        MulTable(n, q, 2, g0, rows, blockRows);  // i * s1
        PipeBarrier<PIPE_V>();
        Sub(m, m, n, count);                     // a
        PipeBarrier<PIPE_V>();
        MulTable(n, p, 3, g0, rows, blockRows);  // r * s2
        MulTable(q, q, 1, g0, rows, blockRows);  // i * c2
        PipeBarrier<PIPE_V>();
        Add(q, q, n, count);                     // b
        PipeBarrier<PIPE_V>();
        LocalTensor<T> yT = yQue_.AllocTensor<T>();
        CastHalf(yT, m, 0, rows);
        CastHalf(yT, q, hp_, rows);
        yQue_.EnQue<T>(yT);
    }

    // src (packed [rows x Hp] float32) -> column col0 .. col0 + Hp of the y rows (Xp apart), rounded
    // to nearest even: one repeat per half-row (up to 64 lanes), repeat strides of Hp floats and of
    // Xp elements of T (both Hp / 8 blocks).
    __aicore__ inline void CastHalf(const LocalTensor<T>& yT, const LocalTensor<float>& src, uint32_t col0, uint32_t rows)
    {
        const uint8_t stride = static_cast<uint8_t>(hp_ / FLOATS_PER_BLOCK);
        for (uint32_t r = 0; r < rows; r += MAX_REPEAT) {
            const uint32_t repeat = (rows - r < MAX_REPEAT) ? rows - r : MAX_REPEAT;
            for (uint32_t c = 0; c < hp_; c += FLOATS_PER_REPEAT) {
                const uint64_t mask = (hp_ - c < FLOATS_PER_REPEAT) ? hp_ - c : FLOATS_PER_REPEAT;
                Cast(yT[r * xp_ + col0 + c], src[r * hp_ + c], RoundMode::CAST_RINT, mask, static_cast<uint8_t>(repeat),
                     {1, 1, stride, stride});
            }
        }
    }

    // ---- keys 1-4: rows split across cores ----------------------------------------------------------

    // Keys B11D/111D: how many cos/sin rows the tile [g0, g0 + rows) uses.
    __aicore__ inline uint32_t DistinctRows(uint64_t g0, uint32_t rows) const
    {
        return PER_BATCH ? static_cast<uint32_t>(BatchOf(g0 + rows - 1) - BatchOf(g0) + 1) : 1;
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
            // Table row t goes with x row g0 + t. Within one head s runs on consecutively, so each
            // head the tile touches is one copy per half.
            uint32_t t = 0;
            while (t < rows) {
                const uint64_t g = g0 + t;
                const uint64_t left = seqLength_ - g % seqLength_;
                const uint32_t run = static_cast<uint32_t>((left < rows - t) ? left : rows - t);
                const uint64_t c = CosRowOf(g);
                CopyTableIn(cosT, cosGm_, c, t, run);
                CopyTableIn(sinT, sinGm_, c, t, run);
                t += run;
            }
        } else {
            // Only the distinct rows: one per batch the tile touches (or the single row).
            const uint64_t c0 = CosRowOf(g0);
            const uint32_t distinct = DistinctRows(g0, rows);
            CopyTableIn(cosT, cosGm_, c0, 0, distinct);
            CopyTableIn(sinT, sinGm_, c0, 0, distinct);
        }
        cosQue_.EnQue(cosT);
        sinQue_.EnQue(sinT);
    }

    __aicore__ inline void Compute(uint64_t r0, uint32_t rows)
    {
        const uint64_t g0 = rowStart_ + r0;
        LocalTensor<T> xT = xQue_.DeQue<T>();
        Deinterleave(xT, rows);
        LocalTensor<T> cosT = cosQue_.DeQue<T>();
        LocalTensor<T> sinT = sinQue_.DeQue<T>();
        WidenTables(cosT, sinT, PER_SEQ ? rows : DistinctRows(g0, rows));
        Rotate(g0, rows, rows);
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
                LocalTensor<T> xT = xQue_.DeQue<T>();
                Deinterleave(xT, heads * positions);
                Rotate(firstRow, heads * positions, positions);
                CopyOutHeads(firstRow, heads, positions);
            }
            pos += k;
        }
    }

    // The chunk's cos/sin half-rows (table rows c0 .. c0 + positions - 1) to float32. They stay in
    // tableBuf_ while the heads are walked.
    __aicore__ inline void LoadTables(uint64_t c0, uint32_t positions)
    {
        LocalTensor<T> cosT = cosQue_.AllocTensor<T>();
        LocalTensor<T> sinT = sinQue_.AllocTensor<T>();
        CopyTableIn(cosT, cosGm_, c0, 0, positions);
        CopyTableIn(sinT, sinGm_, c0, 0, positions);
        cosQue_.EnQue(cosT);
        sinQue_.EnQue(sinT);
        cosT = cosQue_.DeQue<T>();
        sinT = sinQue_.DeQue<T>();
        WidenTables(cosT, sinT, positions);
    }

    // Head j of the group lands in UB rows [j * positions, (j + 1) * positions). Heads are S rows apart
    // in GM: with Xp = D one strided copy moves the whole group (a block of positions rows per head),
    // otherwise one copy per head (a block per row).
    __aicore__ inline void CopyInHeads(uint64_t firstRow, uint32_t heads, uint32_t positions)
    {
        LocalTensor<T> xT = xQue_.AllocTensor<T>();
        if (aligned_) {
            const uint32_t blockBytes = positions * d_ * sizeof(T);
            const uint32_t gapBytes = (seqLength_ - positions) * d_ * sizeof(T);
            DataCopyExtParams copyParams{static_cast<uint16_t>(heads), blockBytes, gapBytes, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, static_cast<T>(0.0f)};
            DataCopyPad(xT, xGm_[firstRow * d_], copyParams, padParams);
        } else {
            for (uint32_t j = 0; j < heads; ++j) {
                CopyRowsIn(xT[j * positions * xp_], xGm_[(firstRow + j * seqLength_) * d_], positions);
            }
        }
        xQue_.EnQue(xT);
    }

    __aicore__ inline void CopyOutHeads(uint64_t firstRow, uint32_t heads, uint32_t positions)
    {
        LocalTensor<T> yT = yQue_.DeQue<T>();
        if (aligned_) {
            const uint32_t blockBytes = positions * d_ * sizeof(T);
            const uint32_t gapBytes = (seqLength_ - positions) * d_ * sizeof(T);
            DataCopyExtParams copyParams{static_cast<uint16_t>(heads), blockBytes, 0, gapBytes, 0};
            DataCopyPad(yGm_[firstRow * d_], yT, copyParams);
        } else {
            for (uint32_t j = 0; j < heads; ++j) {
                CopyRowsOut(yGm_[(firstRow + j * seqLength_) * d_], yT[j * positions * xp_], positions);
            }
        }
        yQue_.FreeTensor(yT);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, 1> xQue_;
    TQue<TPosition::VECIN, 1> cosQue_;      // cos rows as copied (CopyTableIn), cosRows * Xp elements
    TQue<TPosition::VECIN, 1> sinQue_;      // sin rows, the same way
    TQue<TPosition::VECOUT, 1> yQue_;
    TBuf<TPosition::VECCALC> bufP_;         // r << 16, r sign-extended, r (float32), then r * s2 ... see Rotate
    TBuf<TPosition::VECCALC> bufQ_;         // i sign-extended, i (float32), i * c2, b
    TBuf<TPosition::VECCALC> bufM_;         // r * c1, a
    TBuf<TPosition::VECCALC> bufN_;         // the 16-bit r and i patterns, then i * s1, r * s2
    TBuf<TPosition::VECCALC> tableBuf_;     // c1, c2, s1, s2 in float32, cosRows * Hp each
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    GlobalTensor<T> cosGm_;
    GlobalTensor<T> sinGm_;
    uint64_t rowStart_ = 0;   // global index of this core's first row (position with HEAD_LOOP)
    uint64_t rowCount_ = 0;   // rows (positions with HEAD_LOOP) this core owns
    uint64_t batchRows_ = 1;  // N * S
    uint32_t seqLength_ = 1;  // S
    uint32_t d_ = 0;          // D
    uint32_t half_ = 0;       // h = D / 2
    uint32_t xp_ = 0;         // Xp: x/y row pitch in UB, elements
    uint32_t hp_ = 0;         // Hp: half-row pitch, elements
    uint32_t padElems_ = 0;   // zeros DataCopyPad appends to a row (D up to a multiple of 16)
    uint32_t gapBlocks_ = 0;  // 32-byte blocks between that and the next row (0 or 1)
    uint32_t tileRows_ = 0;
    uint32_t cosRows_ = 0;
    uint32_t numHeads_ = 1;   // N
    uint32_t headGroup_ = 1;  // heads per tile (HEAD_LOOP)
    bool aligned_ = true;     // D a multiple of 32: Xp = D, halves on 32-byte boundaries
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
