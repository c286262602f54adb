// opkit simulator: TopKInfo, the shape TopK reads (asc-devkit adv_api/sort/topk_utils.h).
#pragma once
#include <cstdint>

#include "adv_api/sort/topk_utils_constants.h"

namespace AscendC {

struct TopKInfo {
    int32_t outter = 1;  // rows
    int32_t inner;       // row length in UB: n rounded up to a multiple of 32
    int32_t n;           // real row length
};

}  // namespace AscendC
