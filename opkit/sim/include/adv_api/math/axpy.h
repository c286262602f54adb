// opkit simulator: Axpy with a shared tmp buffer: dst = src * scalar + dst (advanced math API, lib/math/axpy.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"
#include "basic_api/kernel_operator_vec_ternary_scalar_intf.h"

namespace AscendC {

template <class T, class U, bool isReuseSource = false>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t calCount, OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Axpy", loc);
    Axpy<T, U>(dst, src, scalarValue, int32_t(calCount), loc);
}

}  // namespace AscendC
