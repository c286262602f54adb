// opkit simulator: unary vector instructions (Exp Ln Abs Sqrt Rsqrt Reciprocal Relu Not).
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

// ---- unary --------------------------------------------------------------------------------------
#define OPKIT_VEC_UNARY(NAME, EXPR, ...)                                                                                   \
    template <class T>                                                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, OPKIT_LOC) {             \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        unary_count(#NAME, loc, dst, src, count, [](C<T> a) { return C<T>(EXPR); });                                     \
    }                                                                                                                    \
    template <class T>                                                                                                   \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms, \
                                      uint8_t repeat, const UnaryRepeatParams& p, const opkit::sim::SrcLoc& loc) {        \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src, false, p.srcBlkStride, p.srcRepStride, "source", #NAME, loc)};                             \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                                \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(s + f[1] * sizeof(T)));                                                                    \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime, \
                     const UnaryRepeatParams& p, OPKIT_LOC) {                                                            \
        opkit_##NAME##_masked(dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,       \
                     const UnaryRepeatParams& p, OPKIT_LOC) {                                                            \
        opkit_##NAME##_masked(dst, src, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

OPKIT_VEC_UNARY(Exp, std::exp(a), half, float)
OPKIT_VEC_UNARY(Ln, std::log(a), half, float)
OPKIT_VEC_UNARY(Abs, (opkit::sim::vabs<T>(a)), half, float)
OPKIT_VEC_UNARY(Sqrt, std::sqrt(a), half, float)
OPKIT_VEC_UNARY(Rsqrt, (1.0f / std::sqrt(a)), half, float)
OPKIT_VEC_UNARY(Reciprocal, (1.0f / a), half, float)
OPKIT_VEC_UNARY(Relu, (a != a ? a : (a > 0 ? a : C<T>(0))), half, float, int32_t)
OPKIT_VEC_UNARY(Not, (C<T>(~int64_t(a))), int16_t, uint16_t)

}  // namespace AscendC
