// opkit simulator: Brcb repeat parameters.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t b, uint16_t r) : dstBlkStride(b), dstRepStride(r) {}
};

}  // namespace AscendC
