// opkit simulator: Gelu and FasterGelu (advanced API).
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

// Gelu(x) = x / (1 + exp(-1.59576912 (x + 0.044715 x^3)))  (asc-devkit include/adv_api/activation/gelu.h)
OPKIT_ADV_UNARY(Gelu, x / (1.0f + std::exp(-1.59576912f * (x + 0.044715f * x * x * x))))
// FastGelu form: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))
OPKIT_ADV_UNARY(FasterGelu, x / (1.0f + std::exp(-1.702f * std::fabs(x))) * std::exp(0.851f * (x - std::fabs(x))))

}  // namespace AscendC

namespace AscendC {

template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const uint32_t dataSize, OPKIT_LOC) {
    (void)tmp;
    opkit_Gelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Gelu", loc);
    opkit_Gelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const uint32_t dataSize, OPKIT_LOC) {
    (void)tmp;
    opkit_FasterGelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("FasterGelu", loc);
    opkit_FasterGelu_impl(dst, src, dataSize, loc);
}

}  // namespace AscendC
