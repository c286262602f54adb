// opkit simulator: SoftMax and AdjustSoftMaxRes (advanced API, adv_api/activation/softmax.h).
#pragma once
#include "adv_api/activation/softmax_common.h"

namespace AscendC {

// ---- SoftMax: dst = exp(x - rowmax) / rowsum, with the row max and sum as outputs ---------------
// Same-type form, half-source/float-statistics form, and the form without sum/max; each with the
// scratch from the reserved area or from sharedTmpBuffer. ND or NZ (isDataFormatNZ).
#define OPKIT_SOFTMAX_FLAGS(NZ) \
    opkit::sim::softmax::flags_of<config>(opkit::sim::softmax::Kind::SoftMax, false, isBasicBlock, NZ)

template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(isDataFormatNZ), io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(isDataFormatNZ), io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(false), io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(false), io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(isDataFormatNZ), io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_SOFTMAX_FLAGS(isDataFormatNZ), io, tiling, softmaxShapeInfo, loc);
}
#undef OPKIT_SOFTMAX_FLAGS

// ---- AdjustSoftMaxRes: rows whose max equals `from` (bit pattern) become `to` -------------------
// stepSizeMode 0: each row's max is the first element of its 32-byte block of maxTensor; otherwise
// one max per row. `from` holds the bits of a T2 value (0x3f800000 for float 1.0, 0x3c00 for half
// 1.0). Returns whether any row matched. The whole srcK of a matched row is set (documented).
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor, const uint32_t from,
                             const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo, OPKIT_LOC) {
    OPKIT_DTYPES("AdjustSoftMaxRes", T1, half, float);
    OPKIT_DTYPES("AdjustSoftMaxRes (maxTensor)", T2, half, float);
    using namespace opkit::sim;
    const char* api = "AdjustSoftMaxRes";
    if (on_aic()) return false;
    if (isDataFormatNZ && stepSizeMode != 0)
        fail_at(api, loc, "a non-zero stepSizeMode (one max per row) needs an ND maxTensor (documented); use stepSizeMode 0 "
                "with isDataFormatNZ");
    const uint32_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK;
    if (m == 0 || k == 0) fail_at(api, loc, "softmaxShapeInfo is [%u, %u]; set srcM and srcK", m, k);
    if ((uint64_t(k) * sizeof(T1)) % 32)
        fail_at(api, loc, "srcK %u x %zu B is not 32-byte aligned (documented: the last axis must be)", k, sizeof(T1));
    const uint32_t step = stepSizeMode == 0 ? 32 / sizeof(T2) : 1;
    const uint32_t seq = issue(P_V);
    const uint16_t site = core().site(api, loc);
    Opd mo = opd(maxTensor, false, 1, 8, "maxTensor", api, loc), ro = opd(softMaxRes, true, 1, 8, "softMaxRes", api, loc);
    std::vector<T2> mx;
    std::vector<T1> res;
    bool ok = read_src<T2>(mo, 0, uint64_t(m) * step, seq, site, api, loc, mx);
    ok &= read_src<T1>(ro, 0, uint64_t(m) * k, seq, site, api, loc, res);
    bool any = false;
    for (uint32_t r = 0; r < m; ++r) {
        uint32_t bits = 0;
        std::memcpy(&bits, &mx[uint64_t(r) * step], sizeof(T2));
        const uint32_t want = sizeof(T2) == 2 ? (from & 0xffffu) : from;
        if (bits != want) continue;
        any = true;
        for (uint32_t c = 0; c < k; ++c) res[opkit::sim::softmax::at<T1>(isDataFormatNZ, m, k, r, c)] = to;
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T1>(ro, 0, res.data(), res.size(), ok, seq, site, api, loc);
    trace(P_V, uint64_t(m) * k * sizeof(T1), (uint64_t(m) * k * sizeof(T1) + 255) / 256, api, dtype_name<T1>());
    return any;
}

}  // namespace AscendC
