// opkit simulator: ClampMax / ClampMin: min(x, scalar) / max(x, scalar) (advanced math API, lib/math/clamp.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

#define OPKIT_ADV_CLAMP(NAME, PICK)                                                                               \
    template <class T>                                                                                          \
    inline void opkit_##NAME##_run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar, uint32_t n,   \
                                   const opkit::sim::SrcLoc& loc) {                                             \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                    \
        using namespace opkit::sim;                                                                             \
        Opd o[2] = {opd(dst, true, 1, 8, "destination", #NAME, loc), opd(src, false, 1, 8, "source", #NAME, loc)}; \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                       \
        const float c = float(scalar);                                                                          \
        run_count(#NAME, loc, o, n, [&](const uint64_t* f) {                                                   \
            float x = float(ld<T>(s + f[1] * sizeof(T)));                                                       \
            st<T>(d + f[0] * sizeof(T), T(x != x ? x : PICK));                                                  \
        });                                                                                                     \
    }                                                                                                           \
    template <class T, bool isReuseSource = false>                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const T scalar, const uint32_t calCount, OPKIT_LOC) {                                      \
        opkit::sim::adv_tmp_check(sharedTmpBuffer, #NAME, loc);                                                 \
        opkit_##NAME##_run(dst, src, scalar, calCount, loc);                                                    \
    }                                                                                                           \
    template <class T, bool isReuseSource = false>                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar, const uint32_t calCount, OPKIT_LOC) { \
        opkit::sim::claim_reserved_ub(#NAME, loc);                                                              \
        opkit_##NAME##_run(dst, src, scalar, calCount, loc);                                                    \
    }
// NaN in the source passes through (assumed).
OPKIT_ADV_CLAMP(ClampMax, (x < c ? x : c))
OPKIT_ADV_CLAMP(ClampMin, (x > c ? x : c))
#undef OPKIT_ADV_CLAMP

}  // namespace AscendC
