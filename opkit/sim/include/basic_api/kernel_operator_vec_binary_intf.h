// opkit simulator: binary vector instructions (Add Sub Mul Div Max Min And Or AddRelu SubRelu).
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

#define OPKIT_VEC_BINARY(NAME, EXPR, ...)                                                                                  \
    template <class T>                                                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count, \
                     OPKIT_LOC) {                                                                                        \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[3] = {opd(dst, true, 1, 8, "destination", #NAME, loc), opd(src0, false, 1, 8, "src0", #NAME, loc),        \
                    opd(src1, false, 1, 8, "src1", #NAME, loc)};                                                         \
        uint8_t *d = o[0].p, *p0 = o[1].p, *p1 = o[2].p;                                                                 \
        run_count_chunks(#NAME, loc, o, count, [&](uint64_t k0, uint64_t n) {                                           \
            C<T> va[kChunk], vb[kChunk];                                                                                 \
            load_up_n<T>(p0 + k0 * sizeof(T), va, n);                                                                    \
            load_up_n<T>(p1 + k0 * sizeof(T), vb, n);                                                                    \
            for (uint64_t i = 0; i < kChunk; ++i) {                                                                      \
                C<T> a = va[i], b = vb[i];                                                                               \
                va[i] = C<T>(EXPR);                                                                                      \
            }                                                                                                            \
            store_down_n<T>(d + k0 * sizeof(T), va, n);                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T>                                                                                                   \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                                      const opkit::sim::MaskSpec& ms, uint8_t repeat, const BinaryRepeatParams& p,        \
                                      const opkit::sim::SrcLoc& loc) {                                                   \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[3] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src0, false, p.src0BlkStride, p.src0RepStride, "src0", #NAME, loc),                             \
                    opd(src1, false, p.src1BlkStride, p.src1RepStride, "src1", #NAME, loc)};                            \
        uint8_t *d = o[0].p, *p0 = o[1].p, *p1 = o[2].p;                                                                 \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(p0 + f[1] * sizeof(T))), b = up(ld<T>(p1 + f[2] * sizeof(T)));                              \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const uint64_t mask[], \
                     const uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {                                 \
        opkit_##NAME##_masked(dst, src0, src1, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,    \
                     const uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {                                 \
        opkit_##NAME##_masked(dst, src0, src1, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

OPKIT_VEC_BINARY(Add, a + b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Sub, a - b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Mul, a * b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Div, a / b, half, float)
OPKIT_VEC_BINARY(Max, (opkit::sim::vmax<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Min, (opkit::sim::vmin<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(And, (C<T>(int64_t(a) & int64_t(b))), int16_t, uint16_t)
OPKIT_VEC_BINARY(Or, (C<T>(int64_t(a) | int64_t(b))), int16_t, uint16_t)
OPKIT_VEC_BINARY(AddRelu, (opkit::sim::vmax<T>(a + b, C<T>(0))), half, float, int16_t)
OPKIT_VEC_BINARY(SubRelu, (opkit::sim::vmax<T>(a - b, C<T>(0))), half, float, int16_t)

}  // namespace AscendC
