// opkit simulator: SoftmaxFlashV2 (advanced API, ND, one dtype).
#pragma once
#include "impl/opkit/reduce_util.h"
#include "kernel_tiling/kernel_tiling.h"

namespace AscendC {

// ---- SoftmaxFlashV2 (advanced API, ND, one dtype) -----------------------------------------------------------------
// Row-wise online softmax over src [srcM, srcK]: max = rowmax(x) (isUpdate: max(inMax, rowmax)),
// dst = exp(x - max), sum = rowsum(dst) (isUpdate: inSum * expMax + rowsum, expMax = exp(inMax - max)).
// max/sum/expMax and the in* tensors hold each row's value repeated over one 32-B block.
// Each step rounds to T; row sums use the reduction tree (assumed).
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0, oriSrcK = 0;
    uint32_t mode = 0;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, 0};
constexpr SoftmaxConfig SOFTMAX_REDUCE_CFG = {true, 0, 0, 1};

constexpr tiling::SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(uint32_t srcM, uint32_t srcK, uint32_t dtypeSize1, uint32_t dtypeSize2,
                                                      uint32_t localWorkSpaceSize, bool isUpdate = false, bool isBasicBlock = false,
                                                      bool isDataFormatNZ = false, bool isFlashOutputBrc = false) {
    tiling::SoftMaxTiling t{};
    t.srcM = srcM; t.srcK = srcK; t.srcSize = srcM * srcK;
    t.outMaxM = srcM; t.outMaxK = 32 / (dtypeSize2 ? dtypeSize2 : 4); t.outMaxSize = t.outMaxM * t.outMaxK;
    t.splitM = srcM; t.splitK = srcK; t.splitSize = srcM * srcK;
    t.reduceM = srcM; t.reduceK = t.outMaxK; t.reduceSize = t.outMaxSize; t.rangeM = 1;
    (void)dtypeSize1; (void)localWorkSpaceSize; (void)isUpdate; (void)isBasicBlock; (void)isDataFormatNZ; (void)isFlashOutputBrc;
    return t;
}

template <class T, bool isUpdate>
inline void opkit_softmax_flash_v2(const LocalTensor<T>& dst, const LocalTensor<T>& sumT, const LocalTensor<T>& maxT, const LocalTensor<T>& src,
                                   const LocalTensor<T>& expMaxT, const LocalTensor<T>& inSumT, const LocalTensor<T>& inMaxT,
                                   const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("SoftmaxFlashV2", T, half, float);
    using namespace opkit::sim;
    const char* api = "SoftmaxFlashV2";
    if (on_aic()) return;
    uint32_t m = info.srcM ? info.srcM : tiling.srcM, k = info.srcK ? info.srcK : tiling.srcK;
    uint32_t kv = info.oriSrcK ? info.oriSrcK : k;
    if ((uint64_t(k) * sizeof(T)) % 32) fail_at(api, loc, "srcK %u x %zu B is not 32-byte aligned", k, sizeof(T));
    if (kv > k) fail_at(api, loc, "oriSrcK %u exceeds srcK %u", kv, k);
    const uint32_t B = 32 / sizeof(T);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    Opd mx = opd(maxT, true, 1, 8, "max", api, loc), sm = opd(sumT, true, 1, 8, "expSum", api, loc);
    std::vector<T> x, inMax, inSum;
    bool ok = read_src<T>(s, 0, uint64_t(m) * k, seq, site, api, loc, x);
    if (isUpdate) {
        Opd im = opd(inMaxT, false, 1, 8, "inMax", api, loc), is = opd(inSumT, false, 1, 8, "inExpSum", api, loc);
        ok &= read_src<T>(im, 0, uint64_t(m) * B, seq, site, api, loc, inMax);
        ok &= read_src<T>(is, 0, uint64_t(m) * B, seq, site, api, loc, inSum);
    }
    std::vector<T> y(uint64_t(m) * k), omax(uint64_t(m) * B), osum(uint64_t(m) * B), oexp(uint64_t(m) * B);
    for (uint32_t r = 0; r < m; ++r) {
        const T* row = x.data() + uint64_t(r) * k;
        std::vector<T> valid(row, row + kv);
        T rmax;
        uint32_t idx;
        arg_best(valid, true, rmax, idx);
        T mnew = rmax;
        if (isUpdate) mnew = down<T>(vmax<T>(up(inMax[uint64_t(r) * B]), up(rmax)));
        for (uint32_t j = 0; j < k; ++j) {
            T diff = down<T>(up(row[j]) - up(mnew));
            y[uint64_t(r) * k + j] = down<T>(std::exp(up(diff)));
        }
        T rsum = tree_sum<T>(std::vector<T>(y.begin() + uint64_t(r) * k, y.begin() + uint64_t(r) * k + kv));
        T em = T(0), snew = rsum;
        if (isUpdate) {
            T d0 = down<T>(up(inMax[uint64_t(r) * B]) - up(mnew));
            em = down<T>(std::exp(up(d0)));
            T prod = down<T>(up(inSum[uint64_t(r) * B]) * up(em));
            snew = down<T>(up(prod) + up(rsum));
        }
        for (uint32_t j = 0; j < B; ++j) {
            omax[uint64_t(r) * B + j] = mnew;
            osum[uint64_t(r) * B + j] = snew;
            oexp[uint64_t(r) * B + j] = em;
        }
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, y.data(), y.size(), ok, seq, site, api, loc);
    write_dst<T>(mx, 0, omax.data(), omax.size(), ok, seq, site, api, loc);
    write_dst<T>(sm, 0, osum.data(), osum.size(), ok, seq, site, api, loc);
    if (isUpdate) {
        Opd ex = opd(expMaxT, true, 1, 8, "expMax", api, loc);
        write_dst<T>(ex, 0, oexp.data(), oexp.size(), ok, seq, site, api, loc);
    }
    trace(P_V, uint64_t(m) * k * sizeof(T), (uint64_t(m) * k * sizeof(T) + 255) / 256 * 4, api, dtype_name<T>());
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSum, const LocalTensor<T>& max, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMax, const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax, const tiling::SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& info = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftmaxFlashV2 on NZ data is not simulated yet");
    opkit::sim::claim_reserved_ub("SoftmaxFlashV2", loc);
    opkit_softmax_flash_v2<T, isUpdate>(dst, expSum, max, src, expMax, inExpSum, inMax, tiling, info, loc);
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSum, const LocalTensor<T>& max, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMax, const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& info = {},
                           OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftmaxFlashV2 on NZ data is not simulated yet");
    (void)sharedTmpBuffer;
    opkit_softmax_flash_v2<T, isUpdate>(dst, expSum, max, src, expMax, inExpSum, inMax, tiling, info, loc);
}

}  // namespace AscendC
