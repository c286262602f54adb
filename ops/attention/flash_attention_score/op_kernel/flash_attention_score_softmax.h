// FlashAttentionScore: the online softmax of a block in few vector passes (the update form of
// SoftmaxFlashV2 with its [rows, 8] statistics, written out from basic instructions).
#ifndef FLASH_ATTENTION_SCORE_SOFTMAX_H
#define FLASH_ATTENTION_SCORE_SOFTMAX_H

#include "kernel_operator.h"

namespace FasKernel {
using namespace AscendC;

constexpr float NEG_MAX = -3.4028234663852886e38f;

// the running row statistics: 8 equal floats (one 32-byte block) per row
struct Stats {
    LocalTensor<float> max, sum;
};

// d = max(s0, s1) (isMax) or s0 + s1 over 64 columns of each of `rows` rows; dp, p0 and p1 are the row pitches
// of d, s0 and s1 in 32-byte blocks
__aicore__ inline void Fold(bool isMax, const LocalTensor<float>& d, uint8_t dp, const LocalTensor<float>& s0,
                            uint8_t p0, const LocalTensor<float>& s1, uint8_t p1, uint8_t rows)
{
    if (isMax) {
        Max(d, s0, s1, 64, rows, BinaryRepeatParams(1, 1, 1, dp, p0, p1));
    } else {
        Add(d, s0, s1, 64, rows, BinaryRepeatParams(1, 1, 1, dp, p0, p1));
    }
}

// row max (isMax) or row sum of x [rows, w] -> rb [rp, 8] (each row's value 8 times), through the
// scratch s [rows, w / 2], a [rp, 64], hb [rp, 32] and rv [rp]
__aicore__ inline void RowReduce(bool isMax, const LocalTensor<float>& x, uint32_t rows, uint32_t w, uint32_t rp,
                                 const LocalTensor<float>& s, const LocalTensor<float>& a,
                                 const LocalTensor<float>& hb, const LocalTensor<float>& rv,
                                 const LocalTensor<float>& rb)
{
    const uint8_t xr = static_cast<uint8_t>(w / 8), sr = static_cast<uint8_t>(w / 16);
    const uint8_t r8 = static_cast<uint8_t>(rows);
    // the 64-column chunks of each row into a [rows, 64], as a tree: a level pairs chunk j with chunk
    // j + k - k/2 of its k chunks, so its instructions are independent and one barrier ends it (a chain
    // a = op(a, chunk) would need a barrier per chunk, each a drain of the vector pipeline)
    uint32_t k = w / 64;
    if (k == 2) {
        Fold(isMax, a, 8, x, xr, x[64], xr, r8);
    } else {
        uint32_t h = k / 2;
        for (uint32_t j = 0; j < h; ++j) {
            Fold(isMax, s[64 * j], sr, x[64 * j], xr, x[64 * (j + k - h)], xr, r8);
        }
        bool odd = (k & 1u) != 0;  // the middle chunk of an odd count stays in x: the last chunk of level 2
        const LocalTensor<float> mid = x[64 * h];
        k -= h;
        while (k > 2) {
            PipeBarrier<PIPE_V>();
            h = k / 2;
            for (uint32_t j = 0; j < h; ++j) {
                const uint32_t i = j + k - h;
                const bool inX = odd && i == k - 1;
                Fold(isMax, s[64 * j], sr, s[64 * j], sr, inX ? mid : s[64 * i], inX ? xr : sr, r8);
            }
            k -= h;
            odd = false;
        }
        PipeBarrier<PIPE_V>();
        Fold(isMax, a, 8, s, sr, odd ? mid : s[64], odd ? xr : sr, r8);
    }
    // [rp, 64] -> one value per row. A sum in one WholeReduceSum (a repeat per row, 3 cycles a repeat in fp32).
    // A max as 8 -> 4 -> 2 -> 1 blocks per row, blocks 2j and 2j + 1 of a row (src block stride 2, src1 one
    // block on), the rows packed densely, so every level is the same instruction over 2, 4 and 8 rows a
    // repeat, then BlockReduceMax: three two-source levels and a block reduction cost about what one
    // WholeReduceMax does (7 cycles a repeat, a repeat per row), without its value/index pairs.
    if (!isMax) {
        PipeBarrier<PIPE_V>();
        WholeReduceSum(rv, a, 64, static_cast<int32_t>(rp), 1, 1, 8);
        PipeBarrier<PIPE_V>();
    } else {
        const LocalTensor<float> lv[4] = {a, hb, a, hb};
        for (uint32_t l = 0; l < 3; ++l) {
            PipeBarrier<PIPE_V>();
            const uint8_t reps = static_cast<uint8_t>(rp >> (l + 1));
            Max(lv[l + 1], lv[l], lv[l][8], 64, reps, BinaryRepeatParams(1, 2, 2, 8, 16, 16));
        }
        PipeBarrier<PIPE_V>();
        BlockReduceMax(rv, hb, static_cast<int32_t>(rp / 8), 64, 1, 1, 8);
        PipeBarrier<PIPE_V>();
    }
    Brcb(rb, rv, static_cast<uint8_t>(rp / 8), BrcbRepeatParams(1, 8));
    PipeBarrier<PIPE_V>();
}

// The online softmax of one part of a block, x [rows, w] fp32 (w = s2Base, a multiple of 64; n valid
// columns), in place, with the scratch tmp (RowReduceBytes of the tiling):
//   max' = max(in.max, rowmax x), x = exp(x - max'), expMax = exp(in.max - max'),
//   sum' = expMax * in.sum + rowsum x
// (the update form of SoftmaxFlashV2, with its [rows, 8] statistics), in the fewest vector passes over
// x: the row max and the row sum each fold the 64-column chunks of a row into one chunk with Max / Add
// (one two-source repeat per row and chunk, a tree of a barrier per level); the max then halves it to one
// 32-byte block per row (block stride 2 pairs the blocks of a row, 2, 4 and 8 rows a repeat) and reduces the
// block (BlockReduceMax, 8 rows a repeat), the sum takes one WholeReduceSum (a repeat per row); Brcb spreads
// the row's value over its 8 floats; x - max' is one
// Sub per 64 columns with max' broadcast by src1 block stride 0, then one Exp over x. s is fp32 scratch of
// rows x w / 2 (the chunk's P buffer, free until P is written).
__aicore__ inline void OnlineSoftmax(const LocalTensor<float>& x, uint32_t rows, int64_t n, uint32_t w,
                                     const Stats& in, const Stats& out, const LocalTensor<float>& expMax,
                                     const LocalTensor<uint8_t>& tmp, const LocalTensor<float>& s)
{
    const uint8_t xr = static_cast<uint8_t>(w / 8);
    const uint32_t rp = (rows + 7) / 8 * 8;  // rows rounded up to whole 8-row repeats (padding rows: scratch)
    LocalTensor<float> base = tmp.ReinterpretCast<float>();
    LocalTensor<float> a = base, hb = base[rp * 64], rv = base[rp * 96], rb = base[rp * 97];
    if (n < static_cast<int64_t>(w)) {  // columns past the block's end: -FLT_MAX, exp gives 0
        for (uint32_t c = static_cast<uint32_t>(n) / 64 * 64; c < w; c += 64) {
            const uint32_t lo = static_cast<uint32_t>(n) > c ? static_cast<uint32_t>(n) - c : 0;
            uint64_t mask[2] = {~((uint64_t(1) << lo) - 1), 0};
            Duplicate(x[c], NEG_MAX, mask, static_cast<uint8_t>(rows), 1, xr);
        }
        PipeBarrier<PIPE_V>();
    }
    RowReduce(true, x, rows, w, rp, s, a, hb, rv, rb);
    Max(out.max, in.max, rb, rows * 8);
    PipeBarrier<PIPE_V>();
    Sub(expMax, in.max, out.max, rows * 8);
    for (uint32_t c = 0; c < w; c += 64) {
        Sub(x[c], x[c], out.max, 64, static_cast<uint8_t>(rows), BinaryRepeatParams(1, 1, 0, xr, xr, 1));
    }
    PipeBarrier<PIPE_V>();
    Exp(x, x, rows * w);
    Exp(expMax, expMax, rows * 8);
    PipeBarrier<PIPE_V>();
    Mul(out.sum, expMax, in.sum, rows * 8);  // independent of the row sum: no barrier of its own
    RowReduce(false, x, rows, w, rp, s, a, hb, rv, rb);
    Add(out.sum, out.sum, rb, rows * 8);
    PipeBarrier<PIPE_V>();
}
}  // namespace FasKernel

#endif  // FLASH_ATTENTION_SCORE_SOFTMAX_H
