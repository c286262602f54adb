// opkit simulator: integer rounding helpers and type utilities of Ascend C (namespace AscendC):
// DivCeil, Ceil, ConstCeil, AlignUp, CeilDivision, Conditional.
#pragma once
#include <cstdint>
#include <type_traits>

namespace AscendC {

// a / b rounded up (uint32 arithmetic, as CANN declares them).
constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
inline uint32_t Ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
// a rounded up to a multiple of b.
constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
// num1 / num2 rounded up; 0 when num2 is 0 (signed).
constexpr inline int32_t CeilDivision(int32_t num1, int32_t num2) { return num2 == 0 ? 0 : (num1 + num2 - 1) / num2; }

// Conditional<cond, A, B>::type is A when cond holds, else B (std::conditional's Ascend C name).
template <bool cond, class A, class B> struct Conditional { using type = A; };
template <class A, class B> struct Conditional<false, A, B> { using type = B; };

}  // namespace AscendC
