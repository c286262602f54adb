// opkit simulator: Sigmoid (advanced API).
#pragma once
#include "basic_api/kernel_operator_vec_unary_intf.h"
#include "basic_api/kernel_operator_vec_binary_scalar_intf.h"
#include "basic_api/kernel_operator_vec_duplicate_intf.h"
#include "basic_api/kernel_operator_vec_binary_intf.h"

namespace AscendC {

// ---- Sigmoid (advanced API) ------------------------------------------------------------------------------
// Emulated as the vector sequence Muls(-1), Exp, Adds(1), Reciprocal, each rounded to T (assumed).
template <class T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                    OPKIT_LOC) {
    OPKIT_DTYPES("Sigmoid", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    (void)sharedTmpBuffer;
    Opd o[2] = {opd(dst, true, 1, 8, "destination", "Sigmoid", loc), opd(src, false, 1, 8, "source", "Sigmoid", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_count("Sigmoid", loc, o, calCount, [&](const uint64_t* f) {
        T x = ld<T>(s + f[1] * sizeof(T));
        T t = down<T>(-up(x));
        t = down<T>(std::exp(up(t)));
        t = down<T>(up(t) + 1.0f);
        st<T>(d + f[0] * sizeof(T), down<T>(1.0f / up(t)));
    });
}
template <class T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Sigmoid", loc);  // no shared tmp buffer: the API takes its scratch from the reserved area
    LocalTensor<uint8_t> none;
    Sigmoid<T, isReuseSource>(dst, src, none, calCount, loc);
}

}  // namespace AscendC
