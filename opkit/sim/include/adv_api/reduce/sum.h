// opkit simulator: Sum (advanced API, lib/reduce/sum.h): the sum of each row of src [outter, inner],
// over its first n elements (inner = n rounded up to 32 bytes), into dst[0, outter). Rows add as the
// vector unit's reduction does (per 256-B repeat, then the partial sums; rounded to T after each add).
#pragma once
#include "impl/opkit/reduce_util.h"
#include "impl/opkit/adv_unary.h"

namespace AscendC {

struct SumParams {
    uint32_t outter = 1;
    uint32_t inner = 0;  // n rounded up to 32 bytes of T
    uint32_t n = 0;      // valid elements per row
};

template <class T>
inline void opkit_sum_rows(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sp, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Sum", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Sum";
    const uint32_t per = 32 / uint32_t(sizeof(T));
    if (sp.n == 0 || sp.outter == 0) fail_at(api, loc, "SumParams outter %u, n %u: both must be positive", sp.outter, sp.n);
    if (sp.inner != (sp.n + per - 1) / per * per)
        fail_at(api, loc, "SumParams inner %u must be n = %u rounded up to 32 bytes (%u)", sp.inner, sp.n, (sp.n + per - 1) / per * per);
    CoreState& c = core();
    Opd s = opd(src, false, 1, 8, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, sizeof(T));
    if (uint64_t(sp.outter) * sp.inner * sizeof(T) > s.len)
        fail_at(api, loc, "source local tensor out of bounds: %u rows of %u elements, the tensor holds %u", sp.outter, sp.inner,
                s.len / uint32_t(sizeof(T)));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const size_t E = 256 / sizeof(T);
    std::vector<T> out(sp.outter);
    bool all_ok = true;
    for (uint32_t r = 0; r < sp.outter; ++r) {
        std::vector<T> v;
        all_ok &= read_src<T>(s, uint64_t(r) * sp.inner, sp.n, seq, site, api, loc, v);
        while (v.size() > 1) {
            std::vector<T> part;
            for (size_t i = 0; i < v.size(); i += E)
                part.push_back(tree_sum<T>(std::vector<T>(v.begin() + i, v.begin() + std::min(v.size(), i + E))));
            v.swap(part);
        }
        out[r] = v[0];
    }
    if (!all_ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out.data(), sp.outter, all_ok, seq, site, api, loc);
    const uint64_t bytes = uint64_t(sp.outter) * sp.inner * sizeof(T);
    trace(P_V, bytes, (bytes + 255) / 256, api, dtype_name<T>());
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams,
                OPKIT_LOC) {
    opkit::sim::adv_tmp_check(sharedTmpBuffer, "Sum", loc);
    opkit_sum_rows(dst, src, sumParams, loc);
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sumParams, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Sum", loc);
    opkit_sum_rows(dst, src, sumParams, loc);
}

}  // namespace AscendC
