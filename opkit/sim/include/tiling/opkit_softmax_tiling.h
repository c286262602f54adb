// opkit simulator (host side): the host tiling functions of Ascend C's SoftMax family (namespace
// AscendC; included by tiling/tiling_api.h), with CANN's signatures:
//
//   GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize / SoftMaxTilingFunc
//   GetSoftMaxFlashMaxTmpSize / GetSoftMaxFlashMinTmpSize / SoftMaxFlashTilingFunc
//   GetSoftMaxFlashV2MaxTmpSize / GetSoftMaxFlashV2MinTmpSize / SoftMaxFlashV2TilingFunc
//   GetSoftMaxGradMaxTmpSize / GetSoftMaxGradMinTmpSize / SoftMaxGradTilingFunc
//   IsBasicBlockInSoftMax
//   GetDropOutMaxTmpSize / GetDropOutMinTmpSize / GetDropOutMaxMinTmpSize
//
// The source is viewed as srcM rows of srcK elements (srcK: the last dimension). Scratch sizes
// are in bytes of float scratch; the tiling functions split the rows into blocks of baseM rows
// that fit localWorkSpaceSize and fill every SoftMaxTiling field (src*, outMax*, split*, reduce*,
// rangeM, tail*), for optiling::SoftMaxTiling and AscendC::tiling::SoftMaxTiling alike. The sizes
// depend on the NPU architecture of the run's chip (the register-based 3510/5102 formulas differ).
//
// Arguments CANN rejects with a log line and untouched outputs (an empty shape, a data type size
// other than 2 or 4, a local workspace of 0) stop the run with a diagnostic; what CANN only logs
// (a last dimension that is not 32-byte aligned, SoftmaxFlashV2's isFlashOutputBrc rows that are
// not a whole number of blocks) is a warning.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "adv_api/activation/softmax_plan.h"
#include "graph/tensor.h"
#include "kernel_tiling/kernel_tiling.h"
#include "opkit_host/diag.h"
#include "tiling/opkit_adv_api_tiling.h"  // AscendC::TensorShape
#include "tiling/opkit_library_tiling_data.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
namespace opkit_softmax {

struct Rows {
    uint32_t m = 0, k = 0;
};

inline void CheckType(const char* fn, const char* what, uint32_t size) {
    if (size != 2 && size != 4)
        opkit::host::fail(fn, "%s is %u; the SoftMax APIs support 2 (half) and 4 (float)", what, size);
}

// srcM x srcK of the shape, after CANN's argument checks.
inline Rows RowsOf(const char* fn, const TensorShape& shape, uint32_t typeSize) {
    const std::vector<int64_t> dims = shape.GetDims();
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (dims.empty() || n <= 0)
        opkit::host::fail(fn, "the source shape has %lld elements; it must have at least one",
                          static_cast<long long>(dims.empty() ? 0 : n));
    CheckType(fn, "the data type size", typeSize);
    Rows r;
    r.k = static_cast<uint32_t>(dims.back());
    r.m = static_cast<uint32_t>(n / dims.back());
    if ((static_cast<uint64_t>(r.k) * typeSize) % kBlock != 0)
        opkit::host::warn(fn, "the last dimension (%u elements of %u B) is not 32-byte aligned; the SoftMax APIs need "
                          "it aligned (CANN logs this and goes on)", r.k, typeSize);
    return r;
}

inline void CheckWorkspace(const char* fn, uint32_t bytes) {
    if (bytes == 0) opkit::host::fail(fn, "localWorkSpaceSize is 0; it must be greater than 0");
}

inline uint32_t Arch() {
    return static_cast<uint32_t>(platform_ascendc::PlatformAscendCManager::GetInstance()->GetCurNpuArch());
}

inline void Store(const tiling::SoftMaxTiling& t, tiling::SoftMaxTiling& out) { out = t; }
inline void Store(const tiling::SoftMaxTiling& t, optiling::SoftMaxTiling& out) {
    out.set_srcM(t.srcM);
    out.set_srcK(t.srcK);
    out.set_srcSize(t.srcSize);
    out.set_outMaxM(t.outMaxM);
    out.set_outMaxK(t.outMaxK);
    out.set_outMaxSize(t.outMaxSize);
    out.set_splitM(t.splitM);
    out.set_splitK(t.splitK);
    out.set_splitSize(t.splitSize);
    out.set_reduceM(t.reduceM);
    out.set_reduceK(t.reduceK);
    out.set_reduceSize(t.reduceSize);
    out.set_rangeM(t.rangeM);
    out.set_tailM(t.tailM);
    out.set_tailSplitSize(t.tailSplitSize);
    out.set_tailReduceSize(t.tailReduceSize);
}
inline tiling::SoftMaxTiling Load(const optiling::SoftMaxTiling& t) {
    tiling::SoftMaxTiling p{};
    p.srcK = t.get_srcK();
    p.tailM = t.get_tailM();
    return p;
}
inline tiling::SoftMaxTiling Load(const tiling::SoftMaxTiling& t) { return t; }


}  // namespace opkit_softmax

// ---- SoftMax ---------------------------------------------------------------------------------

inline uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxMaxTmpSize", srcShape, dataTypeSize);
    return SoftMaxMaxBytes(r.m, r.k, dataTypeSize, Arch());
}

inline uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxMinTmpSize", srcShape, dataTypeSize);
    return SoftMaxMinBytes(r.m, r.k, dataTypeSize, Arch());
}

template <class Tiling>
inline void opkit_softmax_tiling(const char* fn, const TensorShape& srcShape, uint32_t dataTypeSize,
                                 uint32_t localWorkSpaceSize, Tiling& out) {
    using namespace opkit_softmax;
    const Rows r = RowsOf(fn, srcShape, dataTypeSize);
    CheckWorkspace(fn, localWorkSpaceSize);
    Store(SoftMaxPlan(r.m, r.k, dataTypeSize, localWorkSpaceSize), out);
}

inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              optiling::SoftMaxTiling& softmaxTiling) {
    opkit_softmax_tiling("AscendC::SoftMaxTilingFunc", srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}
inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              tiling::SoftMaxTiling& softmaxTiling) {
    opkit_softmax_tiling("AscendC::SoftMaxTilingFunc", srcShape, dataTypeSize, localWorkSpaceSize, softmaxTiling);
}

// ---- SoftMaxFlash ----------------------------------------------------------------------------

inline uint32_t GetSoftMaxFlashMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                          const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxFlashMaxTmpSize", srcShape, dataTypeSize);
    return FlashBytes(r.m, r.k, dataTypeSize, isUpdate, true, Arch());
}
inline uint32_t GetSoftMaxFlashMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                          const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxFlashMinTmpSize", srcShape, dataTypeSize);
    return FlashBytes(r.m, r.k, dataTypeSize, isUpdate, false, Arch());
}

template <class Tiling>
inline void opkit_softmax_flash_tiling(const TensorShape& srcShape, uint32_t dataTypeSize, uint32_t localWorkSpaceSize,
                                       Tiling& out, bool isUpdate) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::SoftMaxFlashTilingFunc";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize);
    CheckWorkspace(fn, localWorkSpaceSize);
    Store(FlashPlan(r.m, r.k, dataTypeSize, localWorkSpaceSize, isUpdate), out);
}
inline void SoftMaxFlashTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                   const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxFlashTiling,
                                   const bool isUpdate = false) {
    opkit_softmax_flash_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxFlashTiling, isUpdate);
}
inline void SoftMaxFlashTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                   const uint32_t localWorkSpaceSize, tiling::SoftMaxTiling& softmaxFlashTiling,
                                   const bool isUpdate = false) {
    opkit_softmax_flash_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxFlashTiling, isUpdate);
}

// ---- SoftmaxFlashV2 --------------------------------------------------------------------------

inline uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::GetSoftMaxFlashV2MinTmpSize";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize1);
    CheckType(fn, "dataTypeSize2", dataTypeSize2);
    return V2MinBytes(r.m, r.k, dataTypeSize1, dataTypeSize2, isUpdate, isBasicBlock, isFlashOutputBrc, Arch());
}

inline uint32_t GetSoftMaxFlashV2MaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    using namespace opkit_softmax;
    (void)isFlashOutputBrc;
    const char* fn = "AscendC::GetSoftMaxFlashV2MaxTmpSize";
    Rows r = RowsOf(fn, srcShape, dataTypeSize1);
    CheckType(fn, "dataTypeSize2", dataTypeSize2);
    const uint32_t pb = kBlock / dataTypeSize2;
    if (RegBase(Arch())) {
        if (!isUpdate) return std::max(RegBaseWhole(r.m, r.k, 4), r.m * PlainRow(r.k, pb)) * kF32;
        if (r.m <= 2) return V2RegUpdateSmall(r.m, r.k, dataTypeSize1, dataTypeSize2, pb) * kF32;
        if (V2Basic(isBasicBlock, r.m, r.k))
            return r.m * (dataTypeSize1 == 2 ? pb + r.k + kUnit : pb + kUnit) * kF32;
        return r.m * V2Row(dataTypeSize1, r.k, pb) * kF32;
    }
    if (V2Basic(isBasicBlock, r.m, r.k)) {
        while (r.m * r.k >= kUnit * kBasicMin) r.m /= 2;  // at most 255 repeats per call
        return r.m * V2BasicRow(dataTypeSize1, r.k, pb) * kF32;
    }
    return r.m * V2Row(dataTypeSize1, r.k, pb) * kF32;
}

template <class Tiling>
inline void opkit_softmax_flash_v2_tiling(const TensorShape& srcShape, uint32_t dataTypeSize1, uint32_t dataTypeSize2,
                                          uint32_t localWorkSpaceSize, Tiling& out, bool isBasicBlock,
                                          bool isFlashOutputBrc) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::SoftMaxFlashV2TilingFunc";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize1);
    CheckType(fn, "dataTypeSize2", dataTypeSize2);
    CheckWorkspace(fn, localWorkSpaceSize);
    const tiling::SoftMaxTiling t =
        V2Plan(r.m, r.k, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, isBasicBlock, isFlashOutputBrc);
    const uint32_t brcRows = kBlock / dataTypeSize1;
    Store(t, out);
    // CANN logs this (the tiling is filled all the same).
    if (isFlashOutputBrc && (t.rangeM > 1 || t.tailM != 0) && t.reduceM % brcRows != 0)
        opkit::host::warn(fn, "with isFlashOutputBrc the rows per block (reduceM %u) must be a multiple of %u for a "
                          "%u-byte source; adjust localWorkSpaceSize (%u B)", t.reduceM, brcRows, dataTypeSize1,
                          localWorkSpaceSize);
}

inline void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     optiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    opkit_softmax_flash_v2_tiling(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, softmaxFlashTiling,
                                  isBasicBlock, isFlashOutputBrc);
}
inline void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                     tiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                                     const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    opkit_softmax_flash_v2_tiling(srcShape, dataTypeSize1, dataTypeSize2, localWorkSpaceSize, softmaxFlashTiling,
                                  isBasicBlock, isFlashOutputBrc);
}

// ---- SoftmaxGrad -----------------------------------------------------------------------------

namespace opkit_softmax {
inline uint32_t GradRow(uint32_t size, uint32_t k, uint32_t pb, bool isFront) {
    if (size == 2) return pb * 2 + k * 3 + kUnit;
    return isFront ? pb + k + kUnit : pb * 2 + k + kUnit;
}
}  // namespace opkit_softmax

inline uint32_t GetSoftMaxGradMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxGradMaxTmpSize", srcShape, dataTypeSize);
    return r.m * GradRow(dataTypeSize, r.k, kBlock / dataTypeSize, isFront) * kF32;
}
inline uint32_t GetSoftMaxGradMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isFront,
                                         const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxGradMinTmpSize", srcShape, dataTypeSize);
    if (RegBase(Arch())) return (isFront ? RoundUp(r.m, kUnit) : RoundUp(r.m * 2, kUnit * 2)) * kF32;
    return GradRow(dataTypeSize, r.k, kBlock / dataTypeSize, isFront) * kF32;
}

template <class Tiling>
inline void opkit_softmax_grad_tiling(const TensorShape& srcShape, uint32_t dataTypeSize, uint32_t localWorkSpaceSize,
                                      Tiling& out, bool isFront) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::SoftMaxGradTilingFunc";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize);
    CheckWorkspace(fn, localWorkSpaceSize);
    const uint32_t pb = kBlock / dataTypeSize;
    uint32_t base = SnapRows(localWorkSpaceSize / kF32 / GradRow(dataTypeSize, r.k, pb, isFront), r.m);
    base = BasicBlockRows(base, r.m, r.k);
    Store(Plan(r.m, r.k, pb, base), out);
}
inline void SoftMaxGradTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    opkit_softmax_grad_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxGradTiling, isFront);
}
inline void SoftMaxGradTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                  const uint32_t localWorkSpaceSize, tiling::SoftMaxTiling& softmaxGradTiling,
                                  const bool isFront = false) {
    opkit_softmax_grad_tiling(srcShape, dataTypeSize, localWorkSpaceSize, softmaxGradTiling, isFront);
}

// ---- IsBasicBlockInSoftMax -------------------------------------------------------------------

// True when the tiling has no tail block and srcK is a multiple of 64 in [256 B / size, 2048).
template <class Tiling>
inline bool opkit_is_basic_block(const Tiling& t, uint32_t dataTypeSize) {
    using namespace opkit_softmax;
    if (dataTypeSize == 0) return false;
    const tiling::SoftMaxTiling p = Load(t);
    return p.tailM == 0 && p.srcK >= kBasicMin / dataTypeSize && p.srcK < kBasicMax && p.srcK % kUnit == 0;
}
inline bool IsBasicBlockInSoftMax(optiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    return opkit_is_basic_block(tiling, dataTypeSize);
}
inline bool IsBasicBlockInSoftMax(tiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    return opkit_is_basic_block(tiling, dataTypeSize);
}

// ---- DropOut ---------------------------------------------------------------------------------

namespace opkit_dropout_tiling {
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat
inline uint64_t Elements(const char* fn, const TensorShape& shape, uint32_t typeSize, bool isReuseSource) {
    if (typeSize != 2 && typeSize != 4)
        opkit::host::fail(fn, "typeSize is %u; DropOut supports 2 (half) and 4 (float)", typeSize);
    const std::vector<int64_t> dims = shape.GetDims();
    if (dims.empty()) opkit::host::fail(fn, "the source shape has no dimensions; it must have at least one");
    if (isReuseSource) opkit::host::warn(fn, "isReuseSource is reserved (CANN logs that it may have no effect)");
    uint64_t n = 1;
    for (int64_t d : dims) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
    return n;
}
}  // namespace opkit_dropout_tiling

// The minimum is two vector repeats; the maximum holds two float copies of the whole source.
inline uint32_t GetDropOutMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    (void)opkit_dropout_tiling::Elements("AscendC::GetDropOutMinTmpSize", srcShape, typeSize, isReuseSource);
    return 2 * opkit_dropout_tiling::kRepeatBytes;
}
inline uint32_t GetDropOutMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    const uint64_t n = opkit_dropout_tiling::Elements("AscendC::GetDropOutMaxTmpSize", srcShape, typeSize, isReuseSource);
    return static_cast<uint32_t>(std::max<uint64_t>(2 * opkit_dropout_tiling::kRepeatBytes, 2 * n * sizeof(float)));
}
inline void GetDropOutMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    const uint64_t n = opkit_dropout_tiling::Elements("AscendC::GetDropOutMaxMinTmpSize", srcShape, typeSize, isReuseSource);
    minValue = 2 * opkit_dropout_tiling::kRepeatBytes;
    maxValue = static_cast<uint32_t>(std::max<uint64_t>(minValue, 2 * n * sizeof(float)));
}

}  // namespace AscendC
