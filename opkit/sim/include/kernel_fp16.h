// opkit simulator: the 16-bit floating-point types `half` (IEEE binary16) and `bfloat16_t`.
//
// Both are plain 16-bit structs holding the bit pattern. Conversions from float/double round to
// nearest, ties to even; with -mf16c the float<->half conversions use the F16C instructions,
// otherwise an exact software path is used (both give identical bits). Arithmetic goes through
// float: `a + b` yields a float, and assigning it to a half rounds once (for + - * / of two
// halves this equals the correctly rounded half result, since float has >= 2*11+2 bits).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace opkit {
namespace fp {

inline uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint64_t d2u(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }

// binary16 -> float, exact.
inline float half_bits_to_float_sw(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return u2f(sign | 0x7f800000u | (man << 13));  // inf / nan (payload kept)
    if (exp == 0) {
        if (man == 0) return u2f(sign);
        // subnormal: value = man * 2^-24, exact in float
        float v = float(man) * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    return u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

// Round a double to binary16, nearest-even. Exact for every double input (one rounding).
inline uint16_t double_to_half_bits_sw(double d) {
    uint64_t u = d2u(d);
    uint16_t sign = uint16_t((u >> 48) & 0x8000u);
    double a = std::fabs(d);
    if (std::isnan(d)) return uint16_t(sign | 0x7e00u | ((u >> 42) & 0x1ffu));
    if (a >= 65520.0) return uint16_t(sign | 0x7c00u);  // rounds to inf
    if (a < 0x1p-14) {
        // subnormal range: quantum 2^-24
        double q = std::nearbyint(a * 0x1p24);  // current rounding mode = nearest-even
        return uint16_t(sign | uint16_t(q));  // q may be 1024 -> smallest normal, encoding is continuous
    }
    int e;
    double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    // half: 1.x * 2^(e-1), 10 fraction bits -> scale m by 2^11
    double q = std::nearbyint(m * 2048.0);  // in [1024, 2048]
    uint32_t mant = uint32_t(q);
    int exp = e - 1;
    if (mant == 2048) { mant = 1024; exp += 1; }
    if (exp > 15) return uint16_t(sign | 0x7c00u);
    return uint16_t(sign | uint16_t((exp + 15) << 10) | uint16_t(mant - 1024));
}

inline float half_bits_to_float(uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    return half_bits_to_float_sw(h);
#endif
}

inline uint16_t float_to_half_bits(float f) {
#if defined(__F16C__)
    return uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
    return double_to_half_bits_sw(double(f));
#endif
}

// Bulk conversions (same bits as the element-wise ones above; 8 lanes at a time with F16C).
inline void half_bits_to_float_n(const uint16_t* s, float* d, size_t n) {
    size_t i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
#endif
    for (; i < n; ++i) d[i] = half_bits_to_float(s[i]);
}
inline void float_to_half_bits_n(const float* s, uint16_t* d, size_t n) {
    size_t i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
    for (; i < n; ++i) d[i] = float_to_half_bits(s[i]);
}

inline float bf16_bits_to_float(uint16_t b) { return u2f(uint32_t(b) << 16); }

inline uint16_t float_to_bf16_bits(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);  // quiet NaN
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return uint16_t(u >> 16);
}

}  // namespace fp
}  // namespace opkit

#define OPKIT_FP16_COMMON(NAME)                                                                 \
    uint16_t val_ = 0;                                                                          \
    NAME() = default;                                                                           \
    template <class T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>    \
    NAME(T v) { val_ = from_float_(v); }                                                        \
    template <class T, typename std::enable_if<!std::is_arithmetic<T>::value &&                 \
        !std::is_same<T, NAME>::value && std::is_convertible<T, float>::value, int>::type = 0>   \
    explicit NAME(const T& v) { val_ = from_float_(float(v)); }                                 \
    static NAME from_bits(uint16_t b) { NAME h; h.val_ = b; return h; }                         \
    uint16_t bits() const { return val_; }                                                      \
    operator float() const { return to_float_(); }                                              \
    float ToFloat() const { return to_float_(); }                                               \
    template <class T> NAME& operator+=(T o) { *this = NAME(float(*this) + float(o)); return *this; } \
    template <class T> NAME& operator-=(T o) { *this = NAME(float(*this) - float(o)); return *this; } \
    template <class T> NAME& operator*=(T o) { *this = NAME(float(*this) * float(o)); return *this; } \
    template <class T> NAME& operator/=(T o) { *this = NAME(float(*this) / float(o)); return *this; } \
    NAME operator-() const { return from_bits(uint16_t(val_ ^ 0x8000u)); }                      \
    NAME& operator++() { *this = NAME(float(*this) + 1.0f); return *this; }                     \
    NAME& operator--() { *this = NAME(float(*this) - 1.0f); return *this; }

// IEEE binary16.
struct half {
    OPKIT_FP16_COMMON(half)
private:
    float to_float_() const { return opkit::fp::half_bits_to_float(val_); }
    static uint16_t from_float_(float v) { return opkit::fp::float_to_half_bits(v); }
    static uint16_t from_float_(double v) { return opkit::fp::double_to_half_bits_sw(v); }
    static uint16_t from_float_(long double v) { return opkit::fp::double_to_half_bits_sw(double(v)); }
    template <class T>
    static uint16_t from_float_(T v) { return opkit::fp::double_to_half_bits_sw(double(v)); }
};

// bfloat16: the upper half of an IEEE binary32.
struct bfloat16_t {
    OPKIT_FP16_COMMON(bfloat16_t)
private:
    float to_float_() const { return opkit::fp::bf16_bits_to_float(val_); }
    static uint16_t from_float_(float v) { return opkit::fp::float_to_bf16_bits(v); }
    // double -> bf16 via float: may round twice for doubles that are not floats (documented).
    template <class T>
    static uint16_t from_float_(T v) { return opkit::fp::float_to_bf16_bits(float(v)); }
};
#undef OPKIT_FP16_COMMON

static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit types");
static_assert(std::is_trivially_copyable<half>::value, "half must be trivially copyable");

namespace opkit {
template <class T> struct is_f16 : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value> {};
template <class T> inline float to_f(T v) { return float(v); }
}  // namespace opkit
