// opkit simulator: Power: x^y for tensor^tensor, tensor^scalar and scalar^tensor (advanced math API, lib/math/power.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

template <class T>
inline void opkit_power_run(const LocalTensor<T>& dst, const LocalTensor<T>* base, T baseS, const LocalTensor<T>* expo, T expoS, uint32_t n,
                            const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Power", T, half, float, int32_t);
    using namespace opkit::sim;
    Opd o[3] = {opd(dst, true, 1, 8, "destination", "Power", loc),
                opd(base ? *base : dst, false, 1, 8, "src0", "Power", loc), opd(expo ? *expo : dst, false, 1, 8, "src1", "Power", loc)};
    o[1].read_init = base != nullptr;
    o[2].read_init = expo != nullptr;
    uint8_t *d = o[0].p, *p0 = o[1].p, *p1 = o[2].p;
    run_count("Power", loc, o, n, [&](const uint64_t* f) {
        double a = base ? double(ld<T>(p0 + f[1] * sizeof(T))) : double(baseS);
        double b = expo ? double(ld<T>(p1 + f[2] * sizeof(T))) : double(expoS);
        if constexpr (std::is_integral<T>::value) {
            // integer power by repeated multiplication (wrapping); negative exponents give 0 unless |a| == 1
            int64_t r = 1, x = int64_t(a), e = int64_t(b);
            if (e < 0) r = (x == 1) ? 1 : (x == -1 ? ((e & 1) ? -1 : 1) : 0);
            else for (; e > 0; --e) r = int64_t(int32_t(r * x));
            st<T>(d + f[0] * sizeof(T), T(r));
        } else {
            st<T>(d + f[0] * sizeof(T), T(float(std::pow(a, b))));
        }
    });
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Power", loc);
    opkit_power_run<T>(dst, &src0, T(0), &src1, T(0), calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Power", loc);
    opkit_power_run<T>(dst, &src0, T(0), &src1, T(0), calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, OPKIT_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, src0.GetSize(), loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, OPKIT_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, src0.GetSize(), loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Power", loc);
    opkit_power_run<T>(dst, &src0, T(0), nullptr, src1Scalar, calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Power", loc);
    opkit_power_run<T>(dst, &src0, T(0), nullptr, src1Scalar, calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar, OPKIT_LOC) {
    Power<T, isReuseSource>(dst, src0, src1Scalar, src0.GetSize(), loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Power", loc);
    opkit_power_run<T>(dst, nullptr, src0Scalar, &src1, T(0), calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1, uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Power", loc);
    opkit_power_run<T>(dst, nullptr, src0Scalar, &src1, T(0), calCount, loc);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1, OPKIT_LOC) {
    Power<T, isReuseSource>(dst, src0Scalar, src1, src1.GetSize(), loc);
}

}  // namespace AscendC
