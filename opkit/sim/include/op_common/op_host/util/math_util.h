// opkit simulator (host side): ops-base's integer helpers (op_common/op_host/util/math_util.h,
// also util/math_util.h), namespace Ops::Base, with ops-base's interface and edge cases:
//
//   FloorDiv(x, y)    x / y; x when y == 0
//   FloorAlign(x, a)  x rounded down to a multiple of a; 0 when a == 0
//   CeilDiv(x, y)     x / y rounded up (signed: towards +inf only when x and y have the same sign);
//                     x when y == 0 or x == 0
//   CeilAlign(x, a)   x rounded up to a multiple of a; 0 when a == 0; the type's maximum when the
//                     result does not fit
//   IsFloatEqual(a, b)  |a - b| <= epsilon; NaN equals nothing; infinities equal by sign
//   LastPow2(n)       the largest power of two <= n (1 for n == 0)
//   MurmurHash(p, n, seed)  32-bit MurmurHash3 of n bytes
//   SplitIntoEqualByParts / SplitIntoEqualByFactor  split a length into near-equal blocks
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "op_common/op_host/util/opbase_export.h"

namespace Ops {
namespace Base {

template <typename T>
auto FloorDiv(T x, T y) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    if (y == 0) return x;
    return x / y;
}

template <typename T>
auto FloorAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    if (align == 0) return 0;
    return (x / align) * align;
}

template <typename T>
auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_signed<T>::value, T>::type {
    if (x == 0 || y == 0) return x;
    const T q = x / y;
    const bool same_sign = (x < 0) == (y < 0);
    return (x % y != 0 && same_sign) ? q + 1 : q;
}

template <typename T>
auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_unsigned<T>::value, T>::type {
    if (x == 0 || y == 0) return x;
    return x / y + (x % y != 0 ? 1 : 0);
}

template <typename T>
auto CeilAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type {
    if (align == 0) return 0;
    const T blocks = CeilDiv(x, align);
    if (blocks > std::numeric_limits<T>::max() / align) return std::numeric_limits<T>::max();
    return blocks * align;
}

template <typename T>
auto IsFloatEqual(T a, T b) -> typename std::enable_if<std::is_floating_point<T>::value, bool>::type {
    if (std::isnan(a) || std::isnan(b)) return false;
    if (std::isinf(a) || std::isinf(b)) return std::signbit(a) == std::signbit(b);
    return std::fabs(a - b) <= std::numeric_limits<T>::epsilon();
}

inline uint64_t LastPow2(uint64_t n) {
    if (n == 0) return 1;
    uint64_t p = 1;
    while (n >>= 1) p <<= 1;
    return p;
}

inline uint32_t MurmurHash(const void* src, uint32_t srcLen, uint32_t seed = 271828) {
    auto rotl = [](uint32_t v, int r) { return (v << r) | (v >> (32 - r)); };
    auto mix = [&](uint32_t k) { return rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u; };
    const auto* bytes = static_cast<const uint8_t*>(src);
    uint32_t h = seed;
    const uint32_t blocks = srcLen / 4;
    for (uint32_t b = 0; b < blocks; ++b) {
        uint32_t k;
        std::memcpy(&k, bytes + 4 * b, 4);
        h = rotl(h ^ mix(k), 13) * 5 + 0xe6546b64u;
    }
    uint32_t tail = 0;
    for (uint32_t i = srcLen & 3u; i > 0; --i) tail = (tail << 8) | bytes[4 * blocks + i - 1];
    h ^= mix(tail);
    h ^= srcLen;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// splitCount blocks of splitFactor elements, the last one splitTailFactor.
struct OPBASE_API SplitResult {
    int32_t splitCount = 0;
    int64_t splitFactor = 0;
    int64_t splitTailFactor = 0;
};

// At most `parts` blocks, as equal as possible; false (result untouched) for a length or a part
// count <= 0.
inline bool SplitIntoEqualByParts(int64_t splitLen, int32_t parts, SplitResult& splitResult) {
    if (splitLen <= 0 || parts <= 0) return false;
    const int64_t count = std::min<int64_t>(splitLen, parts);
    const int64_t factor = CeilDiv(splitLen, count);
    splitResult.splitFactor = factor;
    splitResult.splitCount = static_cast<int32_t>(CeilDiv(splitLen, factor));
    splitResult.splitTailFactor = splitLen % factor == 0 ? factor : splitLen % factor;
    return true;
}

// Blocks of `factor` elements (the whole length when it is shorter); a single block reports a
// splitFactor of 0. False (result untouched) for a length or a factor <= 0.
inline bool SplitIntoEqualByFactor(int64_t splitLen, int32_t factor, SplitResult& splitResult) {
    if (splitLen <= 0 || factor <= 0) return false;
    const int64_t f = std::min<int64_t>(splitLen, factor);
    splitResult.splitCount = static_cast<int32_t>(CeilDiv(splitLen, f));
    splitResult.splitTailFactor = splitLen % f == 0 ? f : splitLen % f;
    splitResult.splitFactor = splitResult.splitCount == 1 ? 0 : f;
    return true;
}

}  // namespace Base
}  // namespace Ops
