// FlashAttentionScore: the tiling data, a plain struct that the host fills and the kernel reads.
//
// Host (op_host/flash_attention_score_tiling.cpp) and kernel compile this same header. Sizes are in
// elements; the layout strides let one kernel read every input_layout: element (b, n, s, d) of a
// tensor of the layout sits at b * strideB + n * strideN + s * strideS + d (TND: batch b starts at
// row cum[b - 1] of the tokens, strideB unused).
#ifndef FLASH_ATTENTION_SCORE_TILING_DATA_H
#define FLASH_ATTENTION_SCORE_TILING_DATA_H

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"

namespace fas {
// input_layout, as ops-transformer's tiling key numbers them (BSH/BSND 1, SBH 2, BNSD 3, TND 4).
enum Layout : uint32_t { LAYOUT_BSH = 1, LAYOUT_SBH = 2, LAYOUT_BNSD = 3, LAYOUT_TND = 4, LAYOUT_BSND = 5 };
// where the mask of a (b, n) head is read from
enum MaskShape : uint32_t { MASK_NONE = 0, MASK_SS = 1, MASK_1NSS = 2, MASK_B1SS = 3, MASK_BNSS = 4, MASK_COMPRESSED = 5 };
// how the pse of a (b, n) head is read
enum PseShape : uint32_t { PSE_NONE = 0, PSE_BNSS = 1, PSE_BN1S = 2, PSE_1NSS = 3, PSE_SLOPE_BN = 4, PSE_SLOPE_N = 5 };
constexpr uint32_t MAX_BATCH = 64;   // TND: batches whose lengths the tiling passes to the kernel
}  // namespace fas

struct FlashAttentionScoreTilingData {
    // problem
    uint32_t B, N1, N2, G, S1, S2, D, D2;  // TND: S1/S2 are the longest sequences
    uint32_t layout;                       // fas::Layout
    uint32_t sparseMode;                   // as given (0..4)
    int64_t preTokens, nextTokens;         // the band, counted from the top-left corner (modes 3/4 turned into it)
    float scale, keepProb;
    uint32_t pseType, pseShape;            // pse_type, fas::PseShape
    uint32_t maskShape, hasDrop;           // fas::MaskShape; drop_mask read (keep_prob < 1)
    int64_t qStartIdx, kvStartIdx;         // offsets of the generated pse (types 2/3)
    // layout strides (elements) of query, key/value and attention_out
    uint64_t qStrideB, qStrideN, qStrideS;
    uint64_t kStrideB, kStrideN, kStrideS;
    uint64_t vStrideB, vStrideN, vStrideS;
    uint64_t oStrideB, oStrideN, oStrideS;
    // blocks
    uint32_t s1Base, s2Base;               // rows of Q (a task) and columns of K of one step
    uint32_t vecRows;                      // rows of the vector core's score chunks (two in UB at once)
    uint32_t dAlign, d2Align;              // D, D2 rounded up to 16
    uint32_t smTmpBytes;                   // the shared scratch of SoftmaxFlashV2 / DropOut / SelectWithBytesMask
    uint32_t auxRows;                      // rows per pass of the mask / pse / dropout work (0: none of them)
    uint32_t bitPitch;                     // bytes per row of the bit buffers (dropout mask, compare results)
    uint32_t dropAligned;                  // every drop_mask row of a block starts on a byte (S2 % 8 == 0)
    uint32_t foldScale;                    // scale * Q is exact in the input dtype: scaled once per task (ScaleQ)
    uint64_t dropBytes;                    // bytes of drop_mask the kernel may read
    // cores
    uint32_t coreNum;                      // vector cores that take tasks (two per AIC block)
    uint32_t tasksTotal;                   // B * N1 * ceil(S1 / s1Base) (TND: summed per batch)
    uint32_t taskStart[50];                // first pair of S1 blocks of AIC block g: [taskStart[g], taskStart[g + 1])
    uint32_t pad0;
    int64_t cumQ[fas::MAX_BATCH];          // TND: cumulative query lengths (also B = 1 otherwise)
    int64_t cumKv[fas::MAX_BATCH];
    AscendC::tiling::TCubeTiling bmm1;     // S = Q [s1Base, D] x K^T [D, s2Base]
    AscendC::tiling::TCubeTiling bmm2;     // O = P [s1Base, s2Base] x V [s2Base, D2]
};

#endif  // FLASH_ATTENTION_SCORE_TILING_DATA_H
