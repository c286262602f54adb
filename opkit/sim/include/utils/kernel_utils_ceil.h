// opkit simulator: integer rounding helpers and type utilities of Ascend C (namespace AscendC):
// DivCeil, Ceil, ConstCeil, AlignUp, CeilDivision, CeilAlign, Conditional.
#pragma once
#include <cstdint>
#include <type_traits>
#include "opkit_sim_runtime.h"

namespace AscendC {

// a / b rounded up (uint32 arithmetic, as CANN declares them).
constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
inline uint32_t Ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
// a rounded up to a multiple of b.
constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
// The typed forms CANN declares beside the Matmul API's utilities (impl/adv_api/detail/matmul/utils/
// matmul_utils.h): Ceil<T>(T, T) and CeilAlign<T>(T, T) return T. Overload resolution then works as
// on the chip: two uint32_t arguments take the non-template Ceil above, two int32_t (or two uint64_t)
// take the template and return their own type, mixed types convert to the uint32_t form.
template <class T>
inline T Ceil(T num1, T num2) {
    static_assert(std::is_integral<T>::value, "Ascend C Ceil: integer operands");
    if (num2 <= T(0)) ::opkit::sim::fail_at("Ceil", ::opkit::sim::SrcLoc(), "the divisor must be larger than 0 (got %lld)", (long long)num2);
    return (num1 + num2 - 1) / num2;
}
template <class T>
inline T CeilAlign(T num1, T num2) { return Ceil(num1, num2) * num2; }

// num1 / num2 rounded up; 0 when num2 is 0 (signed).
constexpr inline int32_t CeilDivision(int32_t num1, int32_t num2) { return num2 == 0 ? 0 : (num1 + num2 - 1) / num2; }

// Conditional<cond, A, B>::type is A when cond holds, else B (std::conditional's Ascend C name).
template <bool cond, class A, class B> struct Conditional { using type = A; };
template <class A, class B> struct Conditional<false, A, B> { using type = B; };

}  // namespace AscendC
