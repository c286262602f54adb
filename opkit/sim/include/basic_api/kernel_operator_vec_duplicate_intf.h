// opkit simulator: Duplicate (scalar broadcast into UB).
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

// ---- Duplicate ----------------------------------------------------------------------------------
template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, const int32_t& count, OPKIT_LOC) {
    OPKIT_DTYPES("Duplicate", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "Duplicate", loc)};
    uint8_t* d = o[0].p;
    run_count("Duplicate", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), scalar); });
}
template <class T>
inline void opkit_dup_masked(const LocalTensor<T>& dst, const T& scalar, const opkit::sim::MaskSpec& ms, uint8_t repeat,
                             uint16_t blk, uint8_t rep, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Duplicate", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, blk, rep, "destination", "Duplicate", loc)};
    uint8_t* d = o[0].p;
    run_masked("Duplicate", loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), scalar); });
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride, OPKIT_LOC) {
    opkit_dup_masked(dst, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, dstBlockStride,
                     dstRepeatStride, loc);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, const uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, OPKIT_LOC) {
    opkit_dup_masked(dst, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, dstBlockStride,
                     dstRepeatStride, loc);
}

}  // namespace AscendC
