// opkit simulator (host side): the host tiling functions of Ascend C's SoftMax family (namespace
// AscendC; included by tiling/tiling_api.h), with CANN's signatures:
//
//   GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize / SoftMaxTilingFunc
//   GetSoftMaxFlashMaxTmpSize / GetSoftMaxFlashMinTmpSize / SoftMaxFlashTilingFunc
//   GetSoftMaxFlashV2MaxTmpSize / GetSoftMaxFlashV2MinTmpSize / SoftMaxFlashV2TilingFunc
//   GetSoftMaxGradMaxTmpSize / GetSoftMaxGradMinTmpSize / SoftMaxGradTilingFunc
//   IsBasicBlockInSoftMax
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

#include "graph/tensor.h"
#include "kernel_tiling/kernel_tiling.h"
#include "opkit_host/diag.h"
#include "tiling/opkit_adv_api_tiling.h"  // AscendC::TensorShape
#include "tiling/opkit_library_tiling_data.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
namespace opkit_softmax {

constexpr uint32_t kBlock = 32;          // bytes of one UB block
constexpr uint32_t kF32 = 4;             // the scratch is counted in floats
constexpr uint32_t kRowTile = 8;         // rows of a basic tile (one block of floats)
constexpr uint32_t kUnit = 64;           // floats of one basic-block unit (one repeat)
constexpr uint32_t kBasicMin = 256;      // bytes: smallest basic-block row
constexpr uint32_t kBasicMax = 2048;     // elements: basic blocks need srcK below this
constexpr uint32_t kSpecialK = 1024;     // the basic-block row length with a double unit

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
inline bool RegBase(uint32_t arch) { return arch == 3510 || arch == 5102; }
inline uint32_t RoundUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

// Rows per block when the rows split: a multiple of the basic tile once above it.
inline uint32_t SnapRows(uint32_t base, uint32_t m, uint32_t tile = kRowTile) {
    base = std::min(base, m);
    if (base < m && base > tile) base -= base % tile;
    return base;
}

// Basic blocks (m a multiple of 8, k of 64): a divisor of m in steps of 8, kept under 255
// repeats of the basic unit.
inline void BasicBlockRows(uint32_t& base, uint32_t m, uint32_t k) {
    if (!(base > kRowTile && m % kRowTile == 0 && k % kUnit == 0)) return;
    base -= base % kRowTile;
    while (m % base != 0) base -= kRowTile;
    while (base * k >= kUnit * kBasicMin) base /= 2;
}

inline tiling::SoftMaxTiling Plan(uint32_t m, uint32_t k, uint32_t perBlock, uint32_t base) {
    tiling::SoftMaxTiling t{};
    t.srcM = m;
    t.srcK = k;
    t.srcSize = m * k;
    t.outMaxM = m;
    t.outMaxK = perBlock;
    t.outMaxSize = m * perBlock;
    t.splitM = base;
    t.splitK = k;
    t.splitSize = base * k;
    t.reduceM = base;
    t.reduceK = perBlock;
    t.reduceSize = base * perBlock;
    const uint32_t tail = base ? m % base : 0;
    t.rangeM = base ? m / base : 0;
    t.tailM = tail;
    t.tailSplitSize = tail * k;
    t.tailReduceSize = tail * perBlock;
    return t;
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

// Floats of scratch per row of the plain SoftMax (and the non-update SoftMaxFlash).
inline uint32_t PlainRow(uint32_t k, uint32_t perBlock) { return perBlock + k + kUnit; }
// The register-based chips' whole-source need (no update).
inline uint32_t RegBaseWhole(Rows r, uint32_t extraUnits) {
    return r.m * (kRowTile + r.k) + kUnit * extraUnits + RoundUp(r.m, kRowTile);
}

}  // namespace opkit_softmax

// ---- SoftMax ---------------------------------------------------------------------------------

inline uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxMaxTmpSize", srcShape, dataTypeSize);
    const uint32_t pb = kBlock / dataTypeSize, arch = Arch();
    uint32_t need = r.m * (pb + r.k + kUnit);
    if (RegBase(arch) || arch == 3003) need = std::max(RegBaseWhole(r, 4), need);
    return need * kF32;
}

inline uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    using namespace opkit_softmax;
    (void)isReuseSource;
    const Rows r = RowsOf("AscendC::GetSoftMaxMinTmpSize", srcShape, dataTypeSize);
    const uint32_t pb = kBlock / dataTypeSize, arch = Arch();
    if (RegBase(arch) || arch == 3003) return std::max(RegBaseWhole(r, 4), r.m * (pb + r.k)) * kF32;
    return PlainRow(r.k, pb) * kF32;
}

template <class Tiling>
inline void opkit_softmax_tiling(const char* fn, const TensorShape& srcShape, uint32_t dataTypeSize,
                                 uint32_t localWorkSpaceSize, Tiling& out) {
    using namespace opkit_softmax;
    const Rows r = RowsOf(fn, srcShape, dataTypeSize);
    CheckWorkspace(fn, localWorkSpaceSize);
    const uint32_t pb = kBlock / dataTypeSize;
    uint32_t base = SnapRows(localWorkSpaceSize / kF32 / PlainRow(r.k, pb), r.m);
    BasicBlockRows(base, r.m, r.k);
    Store(Plan(r.m, r.k, pb, base), out);
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

namespace opkit_softmax {
inline uint32_t FlashUpdateRow(uint32_t k, uint32_t pb) { return pb * 4 + k * 2; }
inline uint32_t FlashNeed(const char* fn, const TensorShape& s, uint32_t size, bool isUpdate, bool whole) {
    const Rows r = RowsOf(fn, s, size);
    const uint32_t pb = kBlock / size;
    if (RegBase(Arch())) {
        const uint32_t rows = r.m * (pb + r.k + (whole ? kUnit : 0));
        return (isUpdate ? rows : std::max(RegBaseWhole(r, 4), rows)) * kF32;
    }
    const uint32_t row = isUpdate ? FlashUpdateRow(r.k, pb) : PlainRow(r.k, pb);
    return (whole ? r.m * row : row) * kF32;
}
}  // namespace opkit_softmax

inline uint32_t GetSoftMaxFlashMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                          const bool isReuseSource) {
    (void)isReuseSource;
    return opkit_softmax::FlashNeed("AscendC::GetSoftMaxFlashMaxTmpSize", srcShape, dataTypeSize, isUpdate, true);
}
inline uint32_t GetSoftMaxFlashMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize, const bool isUpdate,
                                          const bool isReuseSource) {
    (void)isReuseSource;
    return opkit_softmax::FlashNeed("AscendC::GetSoftMaxFlashMinTmpSize", srcShape, dataTypeSize, isUpdate, false);
}

template <class Tiling>
inline void opkit_softmax_flash_tiling(const TensorShape& srcShape, uint32_t dataTypeSize, uint32_t localWorkSpaceSize,
                                       Tiling& out, bool isUpdate) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::SoftMaxFlashTilingFunc";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize);
    CheckWorkspace(fn, localWorkSpaceSize);
    const uint32_t pb = kBlock / dataTypeSize;
    const uint32_t row = isUpdate ? FlashUpdateRow(r.k, pb) : PlainRow(r.k, pb);
    uint32_t base = SnapRows(localWorkSpaceSize / kF32 / row, r.m);
    BasicBlockRows(base, r.m, r.k);
    Store(Plan(r.m, r.k, pb, base), out);
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

namespace opkit_softmax {
// Floats per row outside the basic-block path: half sources keep a cast copy of the row.
inline uint32_t V2Row(uint32_t size1, uint32_t k, uint32_t pb) {
    return size1 == 2 ? pb * 2 + k + kUnit : pb + kUnit;
}
// Floats per row on the basic-block path (srcK == 1024 needs a double unit).
inline uint32_t V2BasicRow(uint32_t size1, uint32_t k, uint32_t pb) {
    const uint32_t unit = k == kSpecialK ? kUnit * 2 : kUnit;
    return size1 == 2 ? pb + k + unit : pb + unit;
}
inline bool V2Basic(bool isBasicBlock, Rows r) { return isBasicBlock && r.k % kUnit == 0 && r.m % kRowTile == 0; }

// Register-based chips, isUpdate: the small-row (m <= 2) buffer.
inline uint32_t V2RegUpdateSmall(Rows r, uint32_t size1, uint32_t size2, uint32_t pb) {
    if (size1 != 2) return RoundUp(r.m, kUnit) + r.m * pb * 2;
    const uint32_t lead = RoundUp(r.m * 2, kUnit * 2);
    return lead + r.m * (pb * 2 + r.k + (size2 == 2 ? 0 : pb));
}
}  // namespace opkit_softmax

inline uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize1,
                                            const uint32_t dataTypeSize2, const bool isUpdate,
                                            const bool isBasicBlock = false, const bool isFlashOutputBrc = false) {
    using namespace opkit_softmax;
    const char* fn = "AscendC::GetSoftMaxFlashV2MinTmpSize";
    const Rows r = RowsOf(fn, srcShape, dataTypeSize1);
    CheckType(fn, "dataTypeSize2", dataTypeSize2);
    const uint32_t pb = kBlock / dataTypeSize2;
    if (RegBase(Arch())) {
        if (isUpdate) return V2RegUpdateSmall(r, dataTypeSize1, dataTypeSize2, pb) * kF32;
        const uint32_t lead = isBasicBlock ? 4 : kRowTile;
        const uint32_t whole = r.m * (lead + r.k) + kUnit * 4 + RoundUp(r.m, kRowTile);
        return std::max(whole, r.m * (pb + r.k)) * kF32;
    }
    const bool basic = isBasicBlock && r.k % kUnit == 0;
    uint32_t need = basic ? kRowTile * V2BasicRow(dataTypeSize1, r.k, pb) : V2Row(dataTypeSize1, r.k, pb);
    if (isFlashOutputBrc) {
        const uint32_t rows = std::min(kBlock / dataTypeSize1, r.m);
        need = basic ? need / kRowTile * rows : need * rows;
    }
    return need * kF32;
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
        if (!isUpdate) return std::max(RegBaseWhole(r, 4), r.m * PlainRow(r.k, pb)) * kF32;
        if (r.m <= 2) return V2RegUpdateSmall(r, dataTypeSize1, dataTypeSize2, pb) * kF32;
        if (V2Basic(isBasicBlock, r))
            return r.m * (dataTypeSize1 == 2 ? pb + r.k + kUnit : pb + kUnit) * kF32;
        return r.m * V2Row(dataTypeSize1, r.k, pb) * kF32;
    }
    if (V2Basic(isBasicBlock, r)) {
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
    const uint32_t pb = kBlock / dataTypeSize2, floats = localWorkSpaceSize / kF32;
    uint32_t base;
    if (V2Basic(isBasicBlock, r)) {
        base = std::min(floats / V2BasicRow(dataTypeSize1, r.k, pb), r.m);
        BasicBlockRows(base, r.m, r.k);
    } else {
        base = floats / V2Row(dataTypeSize1, r.k, pb);
    }
    const uint32_t tile = isFlashOutputBrc && dataTypeSize1 == 2 ? kBlock / 2 : kRowTile;
    base = SnapRows(base, r.m, tile);
    const tiling::SoftMaxTiling t = Plan(r.m, r.k, pb, base);
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
    BasicBlockRows(base, r.m, r.k);
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

}  // namespace AscendC
