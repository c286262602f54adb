// opkit simulator: the CCE vector intrinsics (global namespace, as the bisheng compiler provides them)
// that classic kernels call on raw UB addresses: vadd vsub vmul vdiv vmax vmin, vadds vmuls vmaxs
// vmins, vexp vln vabs vrec vsqrt vrsqrt vrelu, vcadd (one sum per repeat), vcgadd/vcgmax/vcgmin (one
// result per 32-B block), vcpadd (sums of adjacent pairs) and vector_dup. A
// __ubuf__ address is a LocalTensor's GetPhyAddr() (a UB byte offset; checked to lie in the kernel's
// UB). They use the mask register as it stands (set_vector_mask / set_mask_norm / set_mask_count)
// and run, with every check, as the Ascend C API of the same instruction with isSetMask = false.
#pragma once
#include "basic_api/kernel_operator_vec_binary_intf.h"
#include "basic_api/kernel_operator_vec_binary_scalar_intf.h"
#include "basic_api/kernel_operator_vec_duplicate_intf.h"
#include "basic_api/kernel_operator_vec_reduce_intf.h"
#include "basic_api/kernel_operator_vec_unary_intf.h"
#include "impl/dav_c220/kernel_operator_data_copy_impl.h"

#define OPKIT_CCE_BINARY(name, API)                                                                                     \
    template <class T>                                                                                                   \
    inline void name(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint8_t repeat, uint8_t dstBlockStride,        \
                     uint8_t src0BlockStride, uint8_t src1BlockStride, uint8_t dstRepeatStride, uint8_t src0RepeatStride, \
                     uint8_t src1RepeatStride, OPKIT_LOC) {                                                               \
        using AscendC::opkit_detail::ub_view;                                                                            \
        AscendC::API<T, false>(ub_view(dst, #name, loc), ub_view(src0, #name, loc), ub_view(src1, #name, loc), uint64_t(0), repeat, \
                               AscendC::BinaryRepeatParams(dstBlockStride, src0BlockStride, src1BlockStride, dstRepeatStride, \
                                                           src0RepeatStride, src1RepeatStride), loc);                     \
    }
OPKIT_CCE_BINARY(vadd, Add)
OPKIT_CCE_BINARY(vsub, Sub)
OPKIT_CCE_BINARY(vmul, Mul)
OPKIT_CCE_BINARY(vdiv, Div)
OPKIT_CCE_BINARY(vmax, Max)
OPKIT_CCE_BINARY(vmin, Min)
#undef OPKIT_CCE_BINARY

#define OPKIT_CCE_SCALAR(name, API)                                                                                     \
    template <class T>                                                                                                   \
    inline void name(__ubuf__ T* dst, __ubuf__ T* src, T scalar, uint8_t repeat, uint16_t dstBlockStride, uint16_t srcBlockStride, \
                     uint16_t dstRepeatStride, uint16_t srcRepeatStride, OPKIT_LOC) {                                     \
        using AscendC::opkit_detail::ub_view;                                                                            \
        AscendC::API<T, false>(ub_view(dst, #name, loc), ub_view(src, #name, loc), scalar, uint64_t(0), repeat,                 \
                               AscendC::UnaryRepeatParams(dstBlockStride, srcBlockStride, uint8_t(dstRepeatStride),      \
                                                          uint8_t(srcRepeatStride)), loc);                               \
    }
OPKIT_CCE_SCALAR(vadds, Adds)
OPKIT_CCE_SCALAR(vmuls, Muls)
OPKIT_CCE_SCALAR(vmaxs, Maxs)
OPKIT_CCE_SCALAR(vmins, Mins)
#undef OPKIT_CCE_SCALAR

#define OPKIT_CCE_UNARY(name, API)                                                                                      \
    template <class T>                                                                                                   \
    inline void name(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dstBlockStride, uint16_t srcBlockStride,  \
                     uint8_t dstRepeatStride, uint8_t srcRepeatStride, OPKIT_LOC) {                                       \
        using AscendC::opkit_detail::ub_view;                                                                            \
        AscendC::API<T, false>(ub_view(dst, #name, loc), ub_view(src, #name, loc), uint64_t(0), repeat,                         \
                               AscendC::UnaryRepeatParams(dstBlockStride, srcBlockStride, dstRepeatStride, srcRepeatStride), loc); \
    }
OPKIT_CCE_UNARY(vexp, Exp)
OPKIT_CCE_UNARY(vln, Ln)
OPKIT_CCE_UNARY(vabs, Abs)
OPKIT_CCE_UNARY(vrec, Reciprocal)
OPKIT_CCE_UNARY(vsqrt, Sqrt)
OPKIT_CCE_UNARY(vrsqrt, Rsqrt)
OPKIT_CCE_UNARY(vrelu, Relu)
#undef OPKIT_CCE_UNARY

// vcadd: the sum of each repeat's enabled lanes into dst (one element per repeat at dstRepeatStride);
// the last operand selects the mode: 0 as WholeReduceSum; other modes are refused (not modelled).
template <class T>
inline void vcadd(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dstRepeatStride, uint16_t srcBlockStride,
                  uint16_t srcRepeatStride, int mode, OPKIT_LOC) {
    using AscendC::opkit_detail::ub_view;
    if (mode != 0) opkit::sim::fail_at("vcadd", loc, "mode %d is not modelled by the simulator (mode 0 is WholeReduceSum)", mode);
    AscendC::WholeReduceSum<T, false>(ub_view(dst, "vcadd", loc), ub_view(src, "vcadd", loc), 0, repeat, dstRepeatStride,
                                      srcBlockStride, srcRepeatStride, loc);
}
// vcgadd / vcgmax / vcgmin: the sum / max / min of each 32-B block's enabled lanes (BlockReduceSum/Max/Min);
// vcpadd: the sums of adjacent lanes (PairReduceSum). Operands: dst, src, repeat, dstRepeatStride,
// srcBlockStride, srcRepeatStride.
#define OPKIT_CCE_REDUCE(name, API)                                                                                   \
    template <class T>                                                                                                \
    inline void name(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dstRepeatStride, uint16_t srcBlockStride, \
                     uint16_t srcRepeatStride, OPKIT_LOC) {                                                           \
        using AscendC::opkit_detail::ub_view;                                                                         \
        AscendC::API<T, false>(ub_view(dst, #name, loc), ub_view(src, #name, loc), repeat, int32_t(0), dstRepeatStride,        \
                               srcBlockStride, srcRepeatStride, loc);                                                 \
    }
OPKIT_CCE_REDUCE(vcgadd, BlockReduceSum)
OPKIT_CCE_REDUCE(vcgmax, BlockReduceMax)
OPKIT_CCE_REDUCE(vcgmin, BlockReduceMin)
OPKIT_CCE_REDUCE(vcpadd, PairReduceSum)
#undef OPKIT_CCE_REDUCE
// vector_dup: scalar into every enabled lane of `repeat` repeats (the source strides are unused).
template <class T>
inline void vector_dup(__ubuf__ T* dst, T scalar, uint8_t repeat, uint16_t dstBlockStride, uint16_t srcBlockStride,
                       uint8_t dstRepeatStride, uint8_t srcRepeatStride, OPKIT_LOC) {
    (void)srcBlockStride;
    (void)srcRepeatStride;
    AscendC::Duplicate<T, false>(AscendC::opkit_detail::ub_view(dst, "vector_dup", loc), scalar, uint64_t(0), repeat, dstBlockStride,
                                 dstRepeatStride, loc);
}
