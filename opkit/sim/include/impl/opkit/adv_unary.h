// opkit simulator: element-wise advanced APIs computed in float with one rounding to T.
#pragma once
#include "impl/opkit/vec_engine.h"

namespace opkit {
namespace sim {
// A sharedTmpBuffer passed to an advanced API: it must be a UB buffer (its contents are scratch).
inline void adv_tmp_check(const AscendC::LocalTensor<uint8_t>& tmp, const char* api, const SrcLoc& loc) {
    if (!tmp.address_.absAddr) fail_at(api, loc, "sharedTmpBuffer has no buffer (not allocated / Get() not called)");
    if (tmp.arena() != A_UB) fail_at(api, loc, "sharedTmpBuffer must be in UB (VECIN/VECOUT/VECCALC)");
}
}  // namespace sim
}  // namespace opkit

namespace AscendC {

// ---- further advanced element-wise APIs (computed in float, one rounding to T — assumed) ------------------
#define OPKIT_ADV_UNARY(NAME, EXPR)                                                                                  \
    template <class T>                                                                                             \
    inline void opkit_##NAME##_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n, const opkit::sim::SrcLoc& loc, \
                                    const char* api = #NAME) {                                                     \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                       \
        using namespace opkit::sim;                                                                                \
        Opd o[2] = {opd(dst, true, 1, 8, "destination", api, loc), opd(src, false, 1, 8, "source", api, loc)};     \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                          \
        run_count(api, loc, o, n, [&](const uint64_t* f) {                                                         \
            float x = float(ld<T>(s + f[1] * sizeof(T)));                                                          \
            st<T>(d + f[0] * sizeof(T), T(EXPR));                                                                  \
        });                                                                                                        \
    }

// The four documented forms of a unary math API: (dst, src, sharedTmpBuffer, calCount),
// (dst, src, sharedTmpBuffer) and (dst, src[, calCount]) (the last two take their scratch from
// Ascend C's reserved UB area). Without calCount the whole source tensor is processed.
#define OPKIT_ADV_MATH_FORMS(NAME)                                                                                 \
    template <class T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t calCount, OPKIT_LOC) {                                                         \
        opkit::sim::adv_tmp_check(sharedTmpBuffer, #NAME, loc);                                                    \
        opkit_##NAME##_impl(dst, src, calCount, loc);                                                              \
    }                                                                                                              \
    template <class T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     OPKIT_LOC) {                                                                                  \
        opkit::sim::adv_tmp_check(sharedTmpBuffer, #NAME, loc);                                                    \
        opkit_##NAME##_impl(dst, src, src.GetSize(), loc);                                                         \
    }                                                                                                              \
    template <class T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, OPKIT_LOC) {   \
        opkit::sim::claim_reserved_ub(#NAME, loc);                                                                 \
        opkit_##NAME##_impl(dst, src, calCount, loc);                                                              \
    }                                                                                                              \
    template <class T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, OPKIT_LOC) {                            \
        opkit::sim::claim_reserved_ub(#NAME, loc);                                                                 \
        opkit_##NAME##_impl(dst, src, src.GetSize(), loc);                                                         \
    }

}  // namespace AscendC
