// opkit simulator: Silu (advanced API).
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

// Silu(x) = x / (1 + exp(-x))
OPKIT_ADV_UNARY(Silu, x / (1.0f + std::exp(-x)))

}  // namespace AscendC

namespace AscendC {

template <class T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit_Silu_impl(dst, src, dataSize, loc);
}

}  // namespace AscendC
