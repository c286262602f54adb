// opkit simulator: Exp with a Taylor-expansion level: e^x (advanced math API, lib/math/exp.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

// taylorExpandLevel selects how many Taylor terms the chip adds to its exp; here e^x is computed in
// float directly (the level changes the chip's rounding error, not the value), one rounding to T.
OPKIT_ADV_UNARY(ExpAdv, float(std::exp(double(x))))
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Exp", loc);
    opkit_ExpAdv_impl(dst, src, calCount, loc, "Exp");
}
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Exp", loc);
    opkit_ExpAdv_impl(dst, src, calCount, loc, "Exp");
}

}  // namespace AscendC
