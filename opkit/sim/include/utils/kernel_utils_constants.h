// opkit simulator: Ascend C's named constants (namespace AscendC) beside those of
// basic_api/kernel_tensor.h: element and block sizes, cube block, cache line, mask widths,
// core-type values compared with g_coreType.
#pragma once
#include <cstddef>
#include "basic_api/kernel_tensor.h"

namespace AscendC {
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B16_BYTE_SIZE = 2;
constexpr uint8_t B32_BYTE_SIZE = 4;
constexpr uint8_t B64_BYTE_SIZE = 8;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
constexpr int32_t B32_BIT_SIZE = 32;
constexpr uint32_t ONE_BLOCK_SIZE = 32;
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr int32_t DEFAULT_BLOCK_SIZE = 256;
constexpr int32_t DEFAULT_C0_SIZE = 32;
constexpr uint32_t VECTOR_REG_WIDTH = 256;
#ifndef ASCC_PARAM_BLOCK_CUBE  // CANN's guard: the host tiling headers define it too
#define ASCC_PARAM_BLOCK_CUBE
constexpr int32_t BLOCK_CUBE = 16;
#endif
constexpr uint32_t CACHE_LINE_SIZE = 64;
constexpr int32_t HALF_FACTOR = 2;
constexpr int32_t DOUBLE_FACTOR = 2;
constexpr int32_t MIN_REPEAT_TIMES = 0;
constexpr uint16_t MASK_ARRAY_SIZE = 4;
constexpr uint16_t MAX_HALF_MASK_LEN = 64;
constexpr uint64_t FULL_MASK = 0xffffffffffffffffull;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
// g_coreType values (AIC/AIV of KernelCoreType under the names CANN's macros compare with)
constexpr int32_t AIC_TYPE = AIC;
constexpr int32_t AIV_TYPE = AIV;
// GM the framework reserves at the start of the workspace (GetSysWorkSpacePtr; the chip's value from socs.yaml)
constexpr size_t RESERVED_WORKSPACE = size_t(OPKIT_SIM_SYS_WORKSPACE);
}  // namespace AscendC
