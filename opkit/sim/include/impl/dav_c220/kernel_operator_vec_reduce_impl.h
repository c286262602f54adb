// opkit simulator: CANN's impl/dav_c220/kernel_operator_vec_reduce_impl.h, the reduction entry points
// on raw UB addresses that some kernels call directly with the mask register as they set it:
// BlockReduceSum/Max/MinIntrinsicsImpl (vcgadd/vcgmax/vcgmin), PairReduceSumIntrinsicsImpl (vcpadd),
// RepeatReduceSumIntrinsicsImpl (vcadd mode 0). Operands as CANN's: dst, src, repeatTime, then the
// strides (RepeatReduceSum's order is srcBlkStride, dstRepStride, srcRepStride, as there).
#pragma once
#include "utils/cce_vec_intrinsics.h"

namespace AscendC {
#define OPKIT_REDUCE_INTRINSICS_IMPL(NAME, INTR)                                                                     \
    template <typename T>                                                                                           \
    inline void NAME(__ubuf__ T* dstLocal, __ubuf__ T* srcLocal, const int32_t repeatTime, const int32_t dstRepStride, \
                     const int32_t srcBlkStride, const int32_t srcRepStride, OPKIT_LOC) {                           \
        ::INTR(dstLocal, srcLocal, uint8_t(repeatTime), uint16_t(dstRepStride), uint16_t(srcBlkStride),              \
               uint16_t(srcRepStride), loc);                                                                        \
    }
OPKIT_REDUCE_INTRINSICS_IMPL(BlockReduceSumIntrinsicsImpl, vcgadd)
OPKIT_REDUCE_INTRINSICS_IMPL(BlockReduceMaxIntrinsicsImpl, vcgmax)
OPKIT_REDUCE_INTRINSICS_IMPL(BlockReduceMinIntrinsicsImpl, vcgmin)
OPKIT_REDUCE_INTRINSICS_IMPL(PairReduceSumIntrinsicsImpl, vcpadd)
#undef OPKIT_REDUCE_INTRINSICS_IMPL
template <typename T>
inline void RepeatReduceSumIntrinsicsImpl(__ubuf__ T* dstLocal, __ubuf__ T* srcLocal, const int32_t repeatTime,
                                          const int32_t srcBlkStride, const int32_t dstRepStride, const int32_t srcRepStride,
                                          OPKIT_LOC) {
    ::vcadd(dstLocal, srcLocal, uint8_t(repeatTime), uint16_t(dstRepStride), uint16_t(srcBlkStride), uint16_t(srcRepStride), 0,
            loc);
}
}  // namespace AscendC
