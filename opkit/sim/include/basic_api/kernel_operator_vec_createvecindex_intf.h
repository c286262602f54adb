// opkit simulator: CreateVecIndex.
#pragma once
#include "impl/opkit/reduce_util.h"

namespace AscendC {

template <class T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const T firstValue, uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("CreateVecIndex", T, half, float, int16_t, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "CreateVecIndex", loc)};
    uint8_t* d = o[0].p;
    C<T> f0 = up(firstValue);
    run_count("CreateVecIndex", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), down<T>(f0 + C<T>(f[0]))); });
}

}  // namespace AscendC
