// opkit simulator: SoftMax (advanced API, ND; asc-devkit adv_api/activation/softmax.h).
//
// Row-wise softmax over src [srcM, srcK] (SoftMaxShapeInfo, else the tiling's srcM/srcK): for each row,
// max = the largest of the first oriSrcK elements (the valid ones), sum = the sum of exp(x - max) over
// them, dst = exp(x - max) / sum over the whole row (the padding columns too, as the vector unit
// computes them). The forms with sumTensor/maxTensor also write each row's sum and max, repeated over
// one 32-B block of their type (half data may keep them in float). Computed in float (the half forms
// cast up, as CANN's implementation does), the sum by the reduction tree (assumed), rounded once to
// the destination type. Without a sharedTmpBuffer the API takes its scratch from the reserved UB area.
// Written-state: a row's results count as written when its valid elements were; a padding column's
// result needs its own element too (a never-written padding element spoils only its own column).
#pragma once
#include "adv_api/activation/softmaxflashv2.h"  // SoftMaxShapeInfo, SoftmaxConfig

namespace AscendC {
namespace opkit_softmax_k {

template <class T, class U>
inline void run(const LocalTensor<T>& dst, const LocalTensor<U>* sumT, const LocalTensor<U>* maxT, const LocalTensor<T>& src,
                const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("SoftMax", T, half, float);
    using namespace opkit::sim;
    const char* api = "SoftMax";
    if (on_aic()) return;
    const uint32_t m = info.srcM ? info.srcM : tiling.srcM, k = info.srcK ? info.srcK : tiling.srcK;
    const uint32_t kv = info.oriSrcK ? info.oriSrcK : k;
    if (m == 0 || k == 0) fail_at(api, loc, "the source is %u x %u elements (SoftMaxShapeInfo, else the tiling's srcM/srcK)", m, k);
    if ((uint64_t(k) * sizeof(T)) % 32) fail_at(api, loc, "srcK %u x %zu B is not 32-byte aligned", k, sizeof(T));
    if (kv > k) fail_at(api, loc, "oriSrcK %u exceeds srcK %u", kv, k);
    const uint32_t B = 32 / sizeof(U);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    std::vector<T> x;
    const bool all_ok = read_src<T>(s, 0, uint64_t(m) * k, seq, site, api, loc, x);
    // Written-state per row: a row's results need its valid elements (the max and sum read them all);
    // a padding column's result needs its own element too.
    std::vector<uint8_t> row_ok(m, 1);
    if (!all_ok && !trace_only())
        for (uint32_t r = 0; r < m; ++r) row_ok[r] = all_init(A_UB, s.ub + uint64_t(r) * k * sizeof(T), uint64_t(kv) * sizeof(T));
    std::vector<T> y(uint64_t(m) * k);
    std::vector<U> osum(uint64_t(m) * B), omax(uint64_t(m) * B);
    std::vector<float> e(k);
    for (uint32_t r = 0; r < m; ++r) {
        const T* row = x.data() + uint64_t(r) * k;
        float mx = float(row[0]);
        for (uint32_t j = 1; j < kv && !std::isnan(mx); ++j)
            if (std::isnan(float(row[j])) || float(row[j]) > mx) mx = float(row[j]);
        for (uint32_t j = 0; j < k; ++j) e[j] = std::exp(float(row[j]) - mx);
        const float sum = tree_sum<float>(std::vector<float>(e.begin(), e.begin() + kv));
        for (uint32_t j = 0; j < k; ++j) y[uint64_t(r) * k + j] = T(e[j] / sum);
        for (uint32_t j = 0; j < B; ++j) {
            osum[uint64_t(r) * B + j] = U(sum);
            omax[uint64_t(r) * B + j] = U(mx);
        }
    }
    if (!all_ok) warn_at(api, loc, "reads UB bytes that were never written (the results they reach are marked unwritten too)");
    Opd so, mo;
    if (sumT) so = opd(*sumT, true, 1, 8, "sumTensor", api, loc), mo = opd(*maxT, true, 1, 8, "maxTensor", api, loc);
    for (uint32_t r = 0; r < m; ++r) {
        const uint64_t at = uint64_t(r) * k;
        write_dst<T>(d, at, y.data() + at, k, row_ok[r] != 0, seq, site, api, loc);
        if (!all_ok && row_ok[r] && !trace_only())
            for (uint32_t j = kv; j < k; ++j)
                if (!all_init(A_UB, s.ub + (at + j) * sizeof(T), sizeof(T))) set_init(A_UB, d.ub + (at + j) * sizeof(T), sizeof(T), false);
        if (sumT) {
            write_dst<U>(so, uint64_t(r) * B, osum.data() + uint64_t(r) * B, B, row_ok[r] != 0, seq, site, api, loc);
            write_dst<U>(mo, uint64_t(r) * B, omax.data() + uint64_t(r) * B, B, row_ok[r] != 0, seq, site, api, loc);
        }
    }
    trace(P_V, uint64_t(m) * k * sizeof(T), (uint64_t(m) * k * sizeof(T) + 255) / 256 * 5, api, dtype_name<T>());
}

}  // namespace opkit_softmax_k

template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("SoftMax", loc);
    opkit_softmax_k::run<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_softmax_k::run<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftMax on NZ data is not simulated yet");
    opkit::sim::claim_reserved_ub("SoftMax", loc);
    opkit_softmax_k::run<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftMax on NZ data is not simulated yet");
    opkit::sim::claim_reserved_ub("SoftMax", loc);
    opkit_softmax_k::run<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftMax on NZ data is not simulated yet");
    (void)sharedTmpBuffer;
    opkit_softmax_k::run<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftMax on NZ data is not simulated yet");
    (void)sharedTmpBuffer;
    opkit_softmax_k::run<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, loc);
}

}  // namespace AscendC
