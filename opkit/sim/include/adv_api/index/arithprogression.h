// opkit simulator: ArithProgression (and its Arange spelling).
#pragma once
#include "impl/opkit/reduce_util.h"

namespace AscendC {

// ---- index ramps -------------------------------------------------------------------------------------
template <class T>
inline void ArithProgression(const LocalTensor<T>& dst, const T first, const T diff, const int32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("ArithProgression", T, half, float, int16_t, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "ArithProgression", loc)};
    uint8_t* d = o[0].p;
    C<T> f0 = up(first), df = up(diff);
    run_count("ArithProgression", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), down<T>(f0 + C<T>(f[0]) * df)); });
}
template <class T>
inline void Arange(const LocalTensor<T>& dst, const T first, const T diff, const int32_t count, OPKIT_LOC) {
    ArithProgression(dst, first, diff, count, loc);
}

}  // namespace AscendC
