// opkit simulator: element-wise advanced APIs computed in float with one rounding to T.
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

// ---- further advanced element-wise APIs (computed in float, one rounding to T — assumed) ------------------
#define OPKIT_ADV_UNARY(NAME, EXPR)                                                                                  \
    template <class T>                                                                                             \
    inline void opkit_##NAME##_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n, const opkit::sim::SrcLoc& loc) { \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                       \
        using namespace opkit::sim;                                                                                \
        Opd o[2] = {opd(dst, true, 1, 8, "destination", #NAME, loc), opd(src, false, 1, 8, "source", #NAME, loc)}; \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                          \
        run_count(#NAME, loc, o, n, [&](const uint64_t* f) {                                                      \
            float x = float(ld<T>(s + f[1] * sizeof(T)));                                                          \
            st<T>(d + f[0] * sizeof(T), T(EXPR));                                                                  \
        });                                                                                                        \
    }

}  // namespace AscendC
