// opkit simulator: scalar-unit helpers: bit counts (GetBitCount, CountLeadingZero, GetSFFValue,
// CountBitsCntSameAsSignBit), scalar conversions (ToFloat, Cast<T, U, RoundMode>, Cast(float) ->
// bfloat16_t, Cast(bfloat16_t) -> float) and GM reads/writes that bypass the data cache.
#pragma once
#include <cmath>
#include "basic_api/kernel_tensor.h"

namespace AscendC {

// Number of 1 bits.
inline int64_t GetBitCount(uint64_t valueIn) { return int64_t(__builtin_popcountll(valueIn)); }
// Number of bits equal to `countValue` (0 or 1).
template <int countValue>
inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue counts 0 or 1 bits");
    int64_t ones = GetBitCount(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}
// Leading zero bits (64 for 0).
inline int64_t CountLeadingZero(uint64_t valueIn) { return valueIn == 0 ? 64 : int64_t(__builtin_clzll(valueIn)); }
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return CountLeadingZero(valueIn); }
// Bits after the sign bit that equal it (0 to 63).
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    uint64_t u = uint64_t(valueIn);
    uint64_t x = (u >> 63) ? ~u : u;
    return (x == 0 ? 64 : int64_t(__builtin_clzll(x))) - 1;
}
// Position of the first `countValue` bit from the least significant end (-1 when there is none).
template <int countValue>
inline int64_t GetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "GetSFFValue finds a 0 or a 1 bit");
    uint64_t x = countValue == 1 ? valueIn : ~valueIn;
    return x == 0 ? -1 : int64_t(__builtin_ctzll(x));
}
template <int countValue>
inline int64_t ScalarGetSFFValue(uint64_t valueIn) { return GetSFFValue<countValue>(valueIn); }

// Scalar conversions (ToFloat, ToBfloat16; exact widening; narrowing rounds to nearest even as the scalar unit does).
template <class T>
inline float ToFloat(const T& bVal) { return float(bVal); }
inline float Cast(const bfloat16_t& bVal) { return float(bVal); }
inline bfloat16_t Cast(const float& fVal) { return bfloat16_t(fVal); }
inline bfloat16_t ToBfloat16(const float& fVal) { return bfloat16_t(fVal); }
template <class T, class U, RoundMode roundMode>
inline U Cast(T valueIn) {
    double v = double(valueIn);
    if (std::is_integral<U>::value) {
        switch (roundMode) {
            case RoundMode::CAST_FLOOR: v = std::floor(v); break;
            case RoundMode::CAST_CEIL: v = std::ceil(v); break;
            case RoundMode::CAST_ROUND: v = std::round(v); break;
            case RoundMode::CAST_TRUNC: v = std::trunc(v); break;
            default: v = std::nearbyint(v); break;
        }
    }
    return U(v);
}
template <class T, class U, RoundMode roundMode>
inline U ScalarCast(T valueIn) { return Cast<T, U, roundMode>(valueIn); }

// GM accesses that bypass the data cache: plain accesses here (GM is coherent host memory).
template <class T>
inline void WriteGmByPassDCache(__gm__ T* addr, T value) { *addr = value; }
template <class T>
inline T ReadGmByPassDCache(__gm__ T* addr) { return *addr; }

}  // namespace AscendC
