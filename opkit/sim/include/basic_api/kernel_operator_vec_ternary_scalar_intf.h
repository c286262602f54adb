// opkit simulator: Axpy (dst = src * scalar + dst): T/U = half/half, float/float, float/half
// (mixed precision: a half source accumulated into a float destination). Computed in float,
// rounded once to T; dst is read as well as written.
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

template <class T, class U>
inline void opkit_axpy_check() {
    static_assert((std::is_same<T, half>::value && std::is_same<U, half>::value) ||
                      (std::is_same<T, float>::value && std::is_same<U, float>::value) ||
                      (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Ascend C Axpy: supported (dst, src) dtypes are (half, half), (float, float), (float, half)");
}
template <class T, class U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count, OPKIT_LOC) {
    opkit_axpy_check<T, U>();
    using namespace opkit::sim;
    Opd o[3] = {opd(dst, true, 1, 8, "destination", "Axpy", loc), opd(src, false, 1, 8, "source", "Axpy", loc),
                opd(dst, false, 1, 8, "destination (accumulated)", "Axpy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    const float a = float(scalarValue);
    run_count("Axpy", loc, o, count, [&](const uint64_t* f) {
        float acc = float(ld<T>(d + f[0] * sizeof(T)));
        st<T>(d + f[0] * sizeof(T), T(float(ld<U>(s + f[1] * sizeof(U))) * a + acc));
    });
}
template <class T, class U>
inline void opkit_axpy_masked(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                              const opkit::sim::MaskSpec& ms, uint8_t repeat, const UnaryRepeatParams& p,
                              const opkit::sim::SrcLoc& loc) {
    opkit_axpy_check<T, U>();
    using namespace opkit::sim;
    Opd o[3] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", "Axpy", loc),
                opd(src, false, p.srcBlkStride, p.srcRepStride, "source", "Axpy", loc),
                opd(dst, false, p.dstBlkStride, p.dstRepStride, "destination (accumulated)", "Axpy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    const float a = float(scalarValue);
    constexpr uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    run_masked("Axpy", loc, o, 256 / wide, ms, repeat, [&](const uint64_t* f) {
        float acc = float(ld<T>(d + f[0] * sizeof(T)));
        st<T>(d + f[0] * sizeof(T), T(float(ld<U>(s + f[1] * sizeof(U))) * a + acc));
    });
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask, const uint8_t repeatTime,
                 const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_axpy_masked(dst, src, scalarValue, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const uint64_t mask[],
                 const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_axpy_masked(dst, src, scalarValue, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}

}  // namespace AscendC
