// opkit simulator: tensor-scalar vector instructions (Adds Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight).
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

// ---- tensor-scalar ------------------------------------------------------------------------------
#define OPKIT_VEC_SCALAR_X(NAME, EXPR, PRE, ...)                                                                                  \
    template <class T, class U>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const int32_t& count, OPKIT_LOC) { \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        const C<T> b = up(static_cast<T>(scalar));                                                                       \
        const bool flag = false;                                                                                         \
        (void)flag;                                                                                                      \
        PRE;                                                                                                             \
        unary_count(#NAME, loc, dst, src, count, [=](C<T> a) { return C<T>(EXPR); });                                 \
    }                                                                                                                    \
    template <class T, class U>                                                                                          \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar,               \
                                      const opkit::sim::MaskSpec& ms, uint8_t repeat, const UnaryRepeatParams& p,         \
                                      const opkit::sim::SrcLoc& loc, const bool flag = false) {                          \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src, false, p.srcBlkStride, p.srcRepStride, "source", #NAME, loc)};                             \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                                \
        const C<T> b = up(static_cast<T>(scalar));                                                                       \
        (void)flag;                                                                                                      \
        PRE;                                                                                                             \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(s + f[1] * sizeof(T)));                                                                    \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, class U, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const uint64_t mask[],        \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, class U, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, uint64_t mask,                \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    } \
    /* CANN's <T, isSetMask> spelling: the scalar has the tensor's type (NAME<float, false>(...)) */                       \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalar, const uint64_t mask[],        \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalar, uint64_t mask,                \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

#define OPKIT_VEC_SCALAR(NAME, EXPR, ...) OPKIT_VEC_SCALAR_X(NAME, EXPR, (void)0, __VA_ARGS__)

OPKIT_VEC_SCALAR(Adds, a + b, int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Muls, a * b, int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Maxs, (opkit::sim::vmax<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Mins, (opkit::sim::vmin<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(LeakyRelu, (a >= 0 ? a : a * b), half, float)
// Shifts, as documented for A2/A3: unsigned types shift logically; signed types shift
// arithmetically — ShiftLeft keeps the sign bit and drops the one below it (int16 0xAAAA << 1 is
// 0xD554), ShiftRight copies the sign bit in. The count is checked: [0, 16] for 16-bit types,
// [0, 32] for 32-bit ones. ShiftRight's repeat forms take roundEn: for signed types the result is
// incremented when the last bit shifted out is 1.
}  // namespace AscendC
namespace opkit {
namespace sim {
template <class T>
inline void check_shift(const char* api, const SrcLoc& loc, int64_t count) {
    const int64_t bits = int64_t(sizeof(T)) * 8;
    if (count < 0 || count > bits)
        fail_at(api, loc, "shift count %lld is outside [0, %lld] for a %lld-bit type", (long long)count, (long long)bits,
                (long long)bits);
}
template <class T>
inline T shift_left(T a, int64_t n) {
    using U = typename std::make_unsigned<T>::type;
    const int bits = int(sizeof(T)) * 8;
    const U ua = static_cast<U>(a);
    const U moved = n >= bits ? U(0) : static_cast<U>(ua << n);
    if (!std::is_signed<T>::value) return static_cast<T>(moved);
    const U sign = static_cast<U>(U(1) << (bits - 1));
    return static_cast<T>(static_cast<U>((ua & sign) | (moved & static_cast<U>(~sign))));
}
template <class T>
inline T shift_right(T a, int64_t n, bool round) {
    const int bits = int(sizeof(T)) * 8;
    if (!std::is_signed<T>::value) return n >= bits ? T(0) : static_cast<T>(a >> n);
    const int64_t v = int64_t(a);
    int64_t r = n >= bits ? (v < 0 ? -1 : 0) : (v >> n);
    if (round && n > 0 && n <= bits && ((static_cast<uint64_t>(v) >> (n - 1)) & 1u)) r += 1;
    return static_cast<T>(r);
}
}  // namespace sim
}  // namespace opkit
namespace AscendC {
OPKIT_VEC_SCALAR_X(ShiftLeft, (C<T>(opkit::sim::shift_left<T>(T(a), int64_t(b)))),
                   (opkit::sim::check_shift<T>("ShiftLeft", loc, int64_t(b))), int16_t, uint16_t, int32_t, uint32_t)
OPKIT_VEC_SCALAR_X(ShiftRight, (C<T>(opkit::sim::shift_right<T>(T(a), int64_t(b), flag))),
                   (opkit::sim::check_shift<T>("ShiftRight", loc, int64_t(b))), int16_t, uint16_t, int32_t, uint32_t)
template <class T, class U, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const uint64_t mask[],
                       const uint8_t repeatTime, const UnaryRepeatParams& p, bool roundEn, OPKIT_LOC) {
    opkit_ShiftRight_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime,
                            p, loc, roundEn);
}
template <class T, class U, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, uint64_t mask,
                       const uint8_t repeatTime, const UnaryRepeatParams& p, bool roundEn, OPKIT_LOC) {
    opkit_ShiftRight_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime,
                            p, loc, roundEn);
}

}  // namespace AscendC
