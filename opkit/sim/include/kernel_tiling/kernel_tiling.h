// opkit simulator: kernel-side tiling structures of the Ascend C libraries.
#pragma once
#include <cstdint>

namespace AscendC {
namespace tiling {
// Matmul tiling as the kernel sees it: CANN's 50 int32 fields in CANN's order (the host class
// optiling::TCubeTiling in tiling/opkit_matmul_tiling.h serialises the same list).
struct TCubeTiling {
    int32_t usedCoreNum = 0, M = 0, N = 0, Ka = 0, Kb = 0, singleCoreM = 0, singleCoreN = 0, singleCoreK = 0, baseM = 0, baseN = 0,
            baseK = 0, depthA1 = 0, depthB1 = 0, stepM = 0, stepN = 0, isBias = 0, transLength = 0, iterateOrder = 0, shareMode = 0,
            shareL1Size = 0, shareL0CSize = 0, shareUbSize = 0, batchM = 0, batchN = 0, singleBatchM = 0, singleBatchN = 0, stepKa = 0,
            stepKb = 0, depthAL1CacheUB = 0, depthBL1CacheUB = 0, dbL0A = 0, dbL0B = 0, dbL0C = 0, ALayoutInfoB = 0, ALayoutInfoS = 0,
            ALayoutInfoN = 0, ALayoutInfoG = 0, ALayoutInfoD = 0, BLayoutInfoB = 0, BLayoutInfoS = 0, BLayoutInfoN = 0, BLayoutInfoG = 0,
            BLayoutInfoD = 0, CLayoutInfoB = 0, CLayoutInfoS1 = 0, CLayoutInfoN = 0, CLayoutInfoG = 0, CLayoutInfoS2 = 0, BatchNum = 0,
            mxTypePara = 0;
};
// SoftMax tiling (the kernel only passes it to the SoftMax APIs).
struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0, splitSize = 0,
             reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0, tailReduceSize = 0;
};
// TopK tiling: CANN's 32 fields in CANN's order (TopKTilingFunc fills them; the TopK API reads them).
struct TopkTiling {
    int32_t tmpLocalSize = 0, allDataSize = 0, innerDataSize = 0;
    uint32_t sortRepeat = 0;
    int32_t mrgSortRepeat = 0, kAlignFourBytes = 0, kAlignTwoBytes = 0, maskOffset = 0, maskVreducev2FourBytes = 0,
            maskVreducev2TwoBytes = 0, mrgSortSrc1offset = 0, mrgSortSrc2offset = 0, mrgSortSrc3offset = 0,
            mrgSortTwoQueueSrc1Offset = 0, mrgFourQueueTailPara1 = 0, mrgFourQueueTailPara2 = 0, srcIndexOffset = 0;
    uint32_t copyUbToUbBlockCount = 0;
    int32_t topkMrgSrc1MaskSizeOffset = 0, topkNSmallSrcIndexOffset = 0;
    uint32_t vreduceValMask0 = 0, vreduceValMask1 = 0, vreduceIdxMask0 = 0, vreduceIdxMask1 = 0;
    uint16_t vreducehalfValMask0 = 0, vreducehalfValMask1 = 0, vreducehalfValMask2 = 0, vreducehalfValMask3 = 0,
             vreducehalfValMask4 = 0, vreducehalfValMask5 = 0, vreducehalfValMask6 = 0, vreducehalfValMask7 = 0;
};
static_assert(sizeof(TopkTiling) == 112, "TopkTiling: CANN's layout is 24 four-byte and 8 two-byte fields");
}  // namespace tiling
}  // namespace AscendC
using AscendC::tiling::TCubeTiling;
using AscendC::tiling::SoftMaxTiling;
using AscendC::tiling::TopkTiling;
