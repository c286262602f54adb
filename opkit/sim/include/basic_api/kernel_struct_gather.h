// opkit simulator: GatherMask parameters.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 8;
    uint8_t src1RepeatStride = 8;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t b, uint16_t r, uint16_t s0r, uint8_t s1r) : src0BlockStride(b), repeatTimes(r), src0RepeatStride(s0r), src1RepeatStride(s1r) {}
};

}  // namespace AscendC
