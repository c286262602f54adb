// opkit simulator: the scratch-size and row-split arithmetic of the SoftMax family, shared by the host
// tiling functions (tiling/opkit_softmax_tiling.h) and the kernel side (the APIs' tmp-buffer checks,
// SoftMaxFlashV2TilingFunc, the tiling an API recomputes under SoftmaxConfig::isCheckTiling).
//
// Sizes are counted in floats of scratch (the APIs compute in float); `arch` is the NPU
// architecture number (__NPU_ARCH__: 2201 for Atlas A2/A3, 2002 for Atlas inference; the
// register-based 3510/5102 use whole-source formulas).
#pragma once
#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"

namespace AscendC {
namespace opkit_softmax {

constexpr uint32_t kBlock = 32;          // bytes of one UB block
constexpr uint32_t kF32 = 4;             // the scratch is counted in floats
constexpr uint32_t kRowTile = 8;         // rows of a basic tile (one block of floats)
constexpr uint32_t kUnit = 64;           // floats of one basic-block unit (one repeat)
constexpr uint32_t kBasicMin = 256;      // bytes: smallest basic-block row
constexpr uint32_t kBasicMax = 2048;     // elements: basic blocks need srcK below this
constexpr uint32_t kSpecialK = 1024;     // the basic-block row length with a double unit

constexpr bool RegBase(uint32_t arch) { return arch == 3510 || arch == 5102; }
constexpr uint32_t RoundUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
constexpr uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }
constexpr uint32_t Max(uint32_t a, uint32_t b) { return a > b ? a : b; }

// Rows per block when the rows split: a multiple of the basic tile once above it.
constexpr uint32_t SnapRows(uint32_t base, uint32_t m, uint32_t tile = kRowTile) {
    base = Min(base, m);
    if (base < m && base > tile) base -= base % tile;
    return base;
}

// Basic blocks (m a multiple of 8, k of 64): a divisor of m in steps of 8, kept under 255
// repeats of the basic unit.
constexpr uint32_t BasicBlockRows(uint32_t base, uint32_t m, uint32_t k) {
    if (!(base > kRowTile && m % kRowTile == 0 && k % kUnit == 0)) return base;
    base -= base % kRowTile;
    while (m % base != 0) base -= kRowTile;
    while (base * k >= kUnit * kBasicMin) base /= 2;
    return base;
}

constexpr tiling::SoftMaxTiling Plan(uint32_t m, uint32_t k, uint32_t perBlock, uint32_t base) {
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

// ---- floats of scratch per row ----------------------------------------------------------------

// The plain SoftMax / SimpleSoftMax (and the non-update SoftmaxFlash).
constexpr uint32_t PlainRow(uint32_t k, uint32_t perBlock) { return perBlock + k + kUnit; }
// SoftmaxFlash with isUpdate.
constexpr uint32_t FlashUpdateRow(uint32_t k, uint32_t perBlock) { return perBlock * 4 + k * 2; }
// SoftmaxFlashV2 outside the basic-block path: half sources keep a cast copy of the row.
constexpr uint32_t V2Row(uint32_t size1, uint32_t k, uint32_t perBlock) {
    return size1 == 2 ? perBlock * 2 + k + kUnit : perBlock + kUnit;
}
// SoftmaxFlashV2 on the basic-block path (srcK == 1024 needs a double unit).
constexpr uint32_t V2BasicRow(uint32_t size1, uint32_t k, uint32_t perBlock) {
    return size1 == 2 ? perBlock + k + (k == kSpecialK ? kUnit * 2 : kUnit) : perBlock + (k == kSpecialK ? kUnit * 2 : kUnit);
}
constexpr bool V2Basic(bool isBasicBlock, uint32_t m, uint32_t k) {
    return isBasicBlock && k % kUnit == 0 && m % kRowTile == 0;
}
// The register-based chips' whole-source need (no update).
constexpr uint32_t RegBaseWhole(uint32_t m, uint32_t k, uint32_t extraUnits) {
    return m * (kRowTile + k) + kUnit * extraUnits + RoundUp(m, kRowTile);
}
// Register-based chips, SoftmaxFlashV2 with isUpdate: the small-row (m <= 2) buffer.
constexpr uint32_t V2RegUpdateSmall(uint32_t m, uint32_t k, uint32_t size1, uint32_t size2, uint32_t pb) {
    return size1 != 2 ? RoundUp(m, kUnit) + m * pb * 2
                      : RoundUp(m * 2, kUnit * 2) + m * (pb * 2 + k + (size2 == 2 ? 0 : pb));
}

// ---- documented minimum scratch, in bytes (GetSoftMaxMinTmpSize & co) ---------------------------

constexpr uint32_t SoftMaxMinBytes(uint32_t m, uint32_t k, uint32_t size, uint32_t arch) {
    return (RegBase(arch) || arch == 3003) ? Max(RegBaseWhole(m, k, 4), m * (kBlock / size + k)) * kF32
                                           : PlainRow(k, kBlock / size) * kF32;
}
constexpr uint32_t SoftMaxMaxBytes(uint32_t m, uint32_t k, uint32_t size, uint32_t arch) {
    return (RegBase(arch) || arch == 3003) ? Max(RegBaseWhole(m, k, 4), m * PlainRow(k, kBlock / size)) * kF32
                                           : m * PlainRow(k, kBlock / size) * kF32;
}
constexpr uint32_t FlashBytes(uint32_t m, uint32_t k, uint32_t size, bool isUpdate, bool whole, uint32_t arch) {
    return RegBase(arch)
               ? (isUpdate ? m * (kBlock / size + k + (whole ? kUnit : 0))
                           : Max(RegBaseWhole(m, k, 4), m * (kBlock / size + k + (whole ? kUnit : 0)))) * kF32
               : (whole ? m : 1) * (isUpdate ? FlashUpdateRow(k, kBlock / size) : PlainRow(k, kBlock / size)) * kF32;
}
constexpr uint32_t V2MinBytes(uint32_t m, uint32_t k, uint32_t size1, uint32_t size2, bool isUpdate, bool isBasicBlock,
                              bool isFlashOutputBrc, uint32_t arch) {
    const uint32_t pb = kBlock / size2;
    if (RegBase(arch)) {
        if (isUpdate) return V2RegUpdateSmall(m, k, size1, size2, pb) * kF32;
        const uint32_t whole = m * ((isBasicBlock ? 4 : kRowTile) + k) + kUnit * 4 + RoundUp(m, kRowTile);
        return Max(whole, m * (pb + k)) * kF32;
    }
    const bool basic = isBasicBlock && k % kUnit == 0;
    uint32_t need = basic ? kRowTile * V2BasicRow(size1, k, pb) : V2Row(size1, k, pb);
    if (isFlashOutputBrc) {
        const uint32_t rows = Min(kBlock / size1, m);
        need = basic ? need / kRowTile * rows : need * rows;
    }
    return need * kF32;
}

// ---- row splits (the tiling functions), localWorkSpaceSize in bytes ------------------------------

constexpr tiling::SoftMaxTiling SoftMaxPlan(uint32_t m, uint32_t k, uint32_t size, uint32_t wsBytes) {
    return Plan(m, k, kBlock / size,
                BasicBlockRows(SnapRows(wsBytes / kF32 / PlainRow(k, kBlock / size), m), m, k));
}
constexpr tiling::SoftMaxTiling FlashPlan(uint32_t m, uint32_t k, uint32_t size, uint32_t wsBytes, bool isUpdate) {
    const uint32_t pb = kBlock / size;
    return Plan(m, k, pb,
                BasicBlockRows(SnapRows(wsBytes / kF32 / (isUpdate ? FlashUpdateRow(k, pb) : PlainRow(k, pb)), m), m, k));
}
constexpr tiling::SoftMaxTiling V2Plan(uint32_t m, uint32_t k, uint32_t size1, uint32_t size2, uint32_t wsBytes,
                                       bool isBasicBlock, bool isFlashOutputBrc) {
    const uint32_t pb = kBlock / size2, floats = wsBytes / kF32;
    const uint32_t base = V2Basic(isBasicBlock, m, k) ? BasicBlockRows(Min(floats / V2BasicRow(size1, k, pb), m), m, k)
                                                      : floats / V2Row(size1, k, pb);
    return Plan(m, k, pb, SnapRows(base, m, isFlashOutputBrc && size1 == 2 ? kBlock / 2 : kRowTile));
}

// Bytes of scratch an API uses with a tiling: one block of splitM rows (rows that split into
// blocks never need more than the block), and never less than the documented minimum.
constexpr uint32_t BlockBytes(const tiling::SoftMaxTiling& t, uint32_t rowFloats, uint32_t minBytes) {
    return Max(Min(t.splitM ? t.splitM : t.srcM, t.srcM) * rowFloats * kF32, minBytes);
}

}  // namespace opkit_softmax
}  // namespace AscendC
