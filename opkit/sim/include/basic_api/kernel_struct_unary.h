// opkit simulator: repeat parameters of the unary and tensor-scalar vector instructions.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool halfBlock = false;
    bool repeatStrideMode = false, strideSizeMode = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr) : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr, bool hb)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr), halfBlock(hb) {}
};

}  // namespace AscendC
