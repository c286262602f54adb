// opkit simulator: the operator forms of the vector instructions on LocalTensor, as CANN declares them
// (basic_api/kernel_tensor.h, "symbol override"): `dst = a + b` runs Add(dst, a, b, dst.GetSize()), and
// likewise -, *, / (Sub, Mul, Div), | and & (Or, And; 32-bit integers run as twice as many 16-bit lanes),
// and the comparisons <, >, ==, !=, <=, >= run Compare(dst, a, b, mode, a.GetSize()) into a bit mask.
// An operator expression only describes the instruction; it runs when assigned to a LocalTensor, and
// its operands must be LocalTensors of one dtype. On this arch the comparison forms take half or float
// sources (LocalTensor::operator= is declared for SymbolOverrideCompare<half> and <float> only).
#pragma once
#include <type_traits>
#include "basic_api/kernel_operator_vec_binary_intf.h"
#include "basic_api/kernel_operator_vec_cmpsel_intf.h"

namespace AscendC {

#define OPKIT_SYMBOL_OVERRIDE(CLASS, OP, CALL)                                                          \
    template <class T>                                                                                  \
    class CLASS {                                                                                       \
    public:                                                                                             \
        using opkit_symbol_override = void;                                                             \
        CLASS(const LocalTensor<T>& src0, const LocalTensor<T>& src1) : src0_(src0), src1_(src1) {}     \
        void Process(const LocalTensor<T>& dst) const { CALL; }                                         \
                                                                                                        \
    private:                                                                                            \
        LocalTensor<T> src0_, src1_;                                                                    \
    };                                                                                                  \
    template <class T>                                                                                  \
    inline CLASS<T> operator OP(const LocalTensor<T>& src0, const LocalTensor<T>& src1) {               \
        return CLASS<T>(src0, src1);                                                                    \
    }

namespace opkit_symbol {
// And/Or: 32-bit integer tensors run as twice as many 16-bit lanes (CANN's AndImpl/OrImpl with count * 2).
template <class T>
using bit_lane_t = typename std::conditional<std::is_same<T, int32_t>::value, int16_t,
                                             typename std::conditional<std::is_same<T, uint32_t>::value, uint16_t, T>::type>::type;
template <class T, class F>
inline void run_bitwise(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, F op) {
    using L = bit_lane_t<T>;
    constexpr int32_t lanes = int32_t(sizeof(T) / sizeof(L));
    op(dst.template ReinterpretCast<L>(), a.template ReinterpretCast<L>(), b.template ReinterpretCast<L>(),
       int32_t(dst.GetSize()) * lanes);
}
}  // namespace opkit_symbol

OPKIT_SYMBOL_OVERRIDE(SymbolOverrideAdd, +, Add(dst, src0_, src1_, int32_t(dst.GetSize())))
OPKIT_SYMBOL_OVERRIDE(SymbolOverrideSub, -, Sub(dst, src0_, src1_, int32_t(dst.GetSize())))
OPKIT_SYMBOL_OVERRIDE(SymbolOverrideMul, *, Mul(dst, src0_, src1_, int32_t(dst.GetSize())))
OPKIT_SYMBOL_OVERRIDE(SymbolOverrideDiv, /, Div(dst, src0_, src1_, int32_t(dst.GetSize())))
OPKIT_SYMBOL_OVERRIDE(SymbolOverrideAnd, &,
                      opkit_symbol::run_bitwise(dst, src0_, src1_, [](const auto& d, const auto& a, const auto& b, int32_t n) {
                          And(d, a, b, n);
                      }))
OPKIT_SYMBOL_OVERRIDE(SymbolOverrideOr, |,
                      opkit_symbol::run_bitwise(dst, src0_, src1_, [](const auto& d, const auto& a, const auto& b, int32_t n) {
                          Or(d, a, b, n);
                      }))
#undef OPKIT_SYMBOL_OVERRIDE

// Comparison forms: the destination is the bit mask (one bit per source element, typically uint8_t).
template <class T>
class SymbolOverrideCompare {
public:
    using opkit_symbol_override = void;
    SymbolOverrideCompare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode)
        : src0_(src0), src1_(src1), mode_(mode) {}
    template <class U>
    void Process(const LocalTensor<U>& dst) const {
        static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                      "Ascend C: the comparison operators on LocalTensor take half or float sources on " OPKIT_SIM_ARCH_NAME);
        Compare(dst, src0_, src1_, mode_, src0_.GetSize());
    }

private:
    LocalTensor<T> src0_, src1_;
    CMPMODE mode_;
};
#define OPKIT_SYMBOL_COMPARE(OP, MODE)                                                                 \
    template <class T>                                                                                 \
    inline SymbolOverrideCompare<T> operator OP(const LocalTensor<T>& src0, const LocalTensor<T>& src1) { \
        return SymbolOverrideCompare<T>(src0, src1, CMPMODE::MODE);                                    \
    }
OPKIT_SYMBOL_COMPARE(<, LT)
OPKIT_SYMBOL_COMPARE(>, GT)
OPKIT_SYMBOL_COMPARE(==, EQ)
OPKIT_SYMBOL_COMPARE(!=, NE)
OPKIT_SYMBOL_COMPARE(<=, LE)
OPKIT_SYMBOL_COMPARE(>=, GE)
#undef OPKIT_SYMBOL_COMPARE

}  // namespace AscendC
