// opkit simulator: scalar type names of Ascend C beside half/bfloat16_t: float16_t/float32_t and
// the packed 4-bit integer int4b_t (two per byte in memory; LocalTensor<int4b_t> counts elements).
#pragma once
#include <cstdint>
#include "kernel_fp16.h"

#ifndef OPKIT_SIM_NO_FLOAT_ALIASES
using float16_t = half;
using float32_t = float;
#endif

namespace AscendC {
// A signed 4-bit integer value in [-8, 7]. Arithmetic goes through int; conversions wrap to 4 bits
// as the hardware's 4-bit lanes do.
struct int4b_t {
    int8_t v = 0;
    int4b_t() = default;
    constexpr int4b_t(int x) : v(int8_t(int8_t(uint8_t(x) << 4) >> 4)) {}
    constexpr operator int() const { return v; }
};
}  // namespace AscendC
using AscendC::int4b_t;
