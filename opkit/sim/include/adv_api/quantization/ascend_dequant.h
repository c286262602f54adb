// opkit simulator: AscendDequant (advanced API).
#pragma once
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_operator_vec_vconv_intf.h"

namespace AscendC {

// ---- AscendDequant (advanced API): dst(x, y) = src(x, y) * deqScale(y) for y < calCount ---------------------------
// src int32 [m, n]; dst rows padded to 32 B; products in fp32, one RINT rounding to dstT (assumed);
// DEQUANT_WITH_SINGLE_ROW turns {1, n, c} into {n / c, c, c} when c is a multiple of 32 / sizeof(dstT)
// and n % c == 0 (documented). Columns from calCount to the padded row end are left undefined.
enum class DeQuantMode : uint8_t { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };
struct DequantParams {
    uint32_t m = 0, n = 0, calCount = 0;
};
template <class dstT, class scaleT, DeQuantMode mode>
inline void opkit_dequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>* scaleT_, float scalar,
                          DequantParams p, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("AscendDequant", dstT, half, float, bfloat16_t);
    using namespace opkit::sim;
    const char* api = "AscendDequant";
    if (on_aic()) return;
    if (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount && p.calCount % (32 / sizeof(dstT)) == 0 &&
        p.n % p.calCount == 0) {
        p = DequantParams{p.n / p.calCount, p.calCount, p.calCount};
    }
    if ((uint64_t(p.n) * 4) % 32) fail_at(api, loc, "a source row of %u int32 values is not 32-byte aligned", p.n);
    if (p.calCount > p.n) fail_at(api, loc, "calCount %u exceeds the row length n = %u", p.calCount, p.n);
    uint64_t nd = (uint64_t(p.n) * sizeof(dstT) + 31) / 32 * 32 / sizeof(dstT);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    std::vector<int32_t> sv;
    bool ok = read_src<int32_t>(s, 0, uint64_t(p.m) * p.n, seq, site, api, loc, sv);
    std::vector<scaleT> sc;
    if (scaleT_) {
        Opd so = opd(*scaleT_, false, 1, 8, "deqScale", api, loc);
        ok &= read_src<scaleT>(so, 0, p.calCount, seq, site, api, loc, sc);
    }
    for (uint32_t r = 0; r < p.m; ++r) {
        std::vector<dstT> row(p.calCount);
        for (uint32_t k = 0; k < p.calCount; ++k) {
            float f = float(sv[uint64_t(r) * p.n + k]) * (scaleT_ ? float(sc[k]) : scalar);
            row[k] = cast_to_rint<dstT>(f);
        }
        if (p.calCount) write_dst<dstT>(d, uint64_t(r) * nd, row.data(), p.calCount, ok, seq, site, api, loc);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    trace(P_V, uint64_t(p.m) * p.calCount * sizeof(dstT), (uint64_t(p.m) * p.n * 4 + 255) / 256 * 3, api, dtype_name<dstT>());
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>& deqScale,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0.0f, params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>& deqScale,
                          DequantParams params, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendDequant", loc);
    opkit_dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0.0f, params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || opkit::is_f16<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr), float(deqScale), params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || opkit::is_f16<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale, DequantParams params, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendDequant", loc);
    opkit_dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr), float(deqScale), params, loc);
}

}  // namespace AscendC
