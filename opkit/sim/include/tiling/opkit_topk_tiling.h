// opkit simulator (host side): the host tiling functions of Ascend C's TopK (namespace AscendC;
// included by tiling/tiling_api.h and adv_api/sort/topk_tiling.h), with CANN's signatures:
//
//   GetTopKMaxMinTmpSize(platform, inner, outter, isReuseSource, isInitIndex, mode, isLargest, dataTypeSize, max, min)
//   GetTopKMaxMinTmpSize(inner, outter, k, isReuseSource, isInitIndex, mode, isLargest, dataType, config, max, min)
//   TopKTilingFunc(platform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, optiling::TopkTiling&)
//   TopKTilingFunc(platform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, AscendC::tiling::TopkTiling&)
//
// The source is `outter` rows of `inner` elements (inner a multiple of 32; 32 in TOPK_NSMALL mode).
// The scratch sizes (bytes) and the TopkTiling fields follow the NPU architecture of the run's chip:
// the Sort32/MrgSort chips (A2/A3, NPU arch 2201, and the others not named here), the proposal chips
// (arch 2002: RpSort16/MrgSort4 over 8-element proposals) and the register-based ones (3510/5102/3003).
// As in CANN, arguments outside the documented ranges are reported (here: a warning naming the rule)
// and the values are computed anyway; a data type size of 0 makes TopKTilingFunc return false.
// The second GetTopKMaxMinTmpSize (the radix-select algorithm) exists only on arch 3510/5102; on
// every other chip it returns false, as CANN's does.
#pragma once
#include <cstdint>

#include "adv_api/sort/topk_utils_constants.h"
#include "kernel_tiling/kernel_tiling.h"
#include "opkit_host/diag.h"
#include "tiling/opkit_adv_api_tiling.h"  // AscendC::TensorDataType
#include "tiling/opkit_library_tiling_data.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
namespace opkit_topk {

constexpr int32_t kSortPair = 8;       // bytes of one Sort32 (score, index) pair
constexpr int32_t kSmallMask = 64;     // bytes of the GatherMask patterns of TOPK_NSMALL (10 words, 32-B aligned)
constexpr int32_t kProposal = 8;       // elements of one region proposal (arch 2002)
constexpr uint32_t kIdxPattern32 = 0xAAAAAAAAu;  // "10" x 16: every odd 32-bit lane of 32 pairs
constexpr uint16_t kHalfPattern16 = 0x1111u;     // "0001" x 4: every fourth 16-bit lane

enum class Family { SortMrg, Proposal, RegBase };

inline Family FamilyOf(uint32_t arch) {
    if (arch == 2002) return Family::Proposal;
    if (arch == 3510 || arch == 5102 || arch == 3003) return Family::RegBase;
    return Family::SortMrg;
}
inline uint32_t ArchOf(const platform_ascendc::PlatformAscendC& p) { return static_cast<uint32_t>(p.GetCurNpuArch()); }
inline int32_t AlignTo(int32_t v, int32_t a) { return (v + a - 1) / a * a; }

// Lane-select patterns of the GatherMask that extracts the k results: `count` copies of a `width`-bit
// group whose lowest set bit is `bit` (e.g. "01" x k picks the scores of k pairs, "10" x k their indices).
inline uint32_t Repeat(int32_t count, uint32_t group, uint32_t width) {
    uint32_t m = 0;
    for (int32_t i = 0; i < count; ++i) m |= group << (uint32_t(i) * width);
    return m;
}
inline uint32_t Ones(int32_t count) { return count >= 32 ? 0xFFFFFFFFu : ((1u << uint32_t(count)) - 1u); }

// CANN's argument checks (each is a log line there and the computation goes on).
inline void CheckArgs(const char* fn, const platform_ascendc::PlatformAscendC& p, int32_t inner, int32_t outter,
                      bool isInitIndex, TopKMode mode, uint32_t dataTypeSize) {
    if (inner <= 0) opkit::host::warn(fn, "the inner axis length is %d; it must be greater than 0", inner);
    else if (inner % 32 != 0)
        opkit::host::warn(fn, "the inner axis length %d is not a multiple of 32 (TopK requires n padded up to a multiple "
                          "of 32)", inner);
    if (mode == TopKMode::TOPK_NSMALL && inner != 32)
        opkit::host::warn(fn, "in TOPK_NSMALL mode the inner axis length must be 32, not %d", inner);
    if (ArchOf(p) == 2002 && !isInitIndex && inner > 2048)
        opkit::host::warn(fn, "on this chip (NPU arch 2002) with isInitIndex false the inner axis length must be at most "
                          "2048, not %d", inner);
    if (outter <= 0) opkit::host::warn(fn, "the outter axis length is %d; it must be greater than 0", outter);
    uint64_t ub = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    const int64_t bytes = int64_t(inner) * outter * dataTypeSize;
    if (bytes > int64_t(ub))
        opkit::host::warn(fn, "the source is %lld bytes (inner %d x outter %d x %u B), more than the UB's %llu bytes",
                          static_cast<long long>(bytes), inner, outter, dataTypeSize, static_cast<unsigned long long>(ub));
    if (dataTypeSize != 2 && dataTypeSize != 4)
        opkit::host::warn(fn, "the data type size is %u; TopK supports 2 (half) and 4 (float)", dataTypeSize);
}

inline void ScratchBytes(uint32_t arch, int32_t inner, int32_t outter, bool isInitIndex, TopKMode mode, bool isLargest,
                         uint32_t dataTypeSize, uint32_t& maxValue, uint32_t& minValue) {
    const int64_t all = int64_t(inner) * outter;
    int64_t need = 0;
    switch (FamilyOf(arch)) {
        case Family::Proposal:  // proposals, their MrgSort4 double, and (normal mode) the generated indices
            need = mode == TopKMode::TOPK_NORMAL ? int64_t(inner) * kProposal * dataTypeSize * 2 + int64_t(inner) * 4
                                                 : all * kProposal * dataTypeSize * 2;
            break;
        case Family::RegBase:  // the sorted pairs twice (normal) or once per row (small), plus generated indices
            need = mode == TopKMode::TOPK_NORMAL ? int64_t(inner) * 16 + (isInitIndex ? 0 : int64_t(inner) * 4)
                                                 : all * kSortPair + (isInitIndex ? 0 : all * 4);
            break;
        case Family::SortMrg:
            if (mode == TopKMode::TOPK_NORMAL) {  // two buffers of inner pairs (Sort32 and MrgSort ping-pong)
                need = int64_t(inner) * 16 + (isInitIndex ? 0 : int64_t(inner) * 4);
            } else {  // the pairs of every row, the GatherMask patterns, the negated copy (smallest), indices
                need = all * kSortPair + kSmallMask + (isLargest ? 0 : all * 4) + (isInitIndex ? 0 : all * 4);
            }
            break;
    }
    maxValue = minValue = static_cast<uint32_t>(need);
}

inline void FillSortMrg(tiling::TopkTiling& t, int32_t inner, int32_t outter, int32_t k, uint32_t size, bool isInitIndex,
                        TopKMode mode, bool isLargest) {
    const bool half = size == 2;
    const int32_t perF = size ? int32_t(4 / size) : 0;  // elements of T per 4 bytes
    t.allDataSize = inner * outter;
    t.kAlignFourBytes = AlignTo(k, 8);
    if (mode == TopKMode::TOPK_NORMAL) {
        t.kAlignTwoBytes = AlignTo(k, 16);
        t.sortRepeat = uint32_t(inner / 32);
        t.mrgSortRepeat = inner / 4;
        t.copyUbToUbBlockCount = uint32_t(inner * 2 * 4 / 32);
        t.maskVreducev2FourBytes = 2 * k;
        t.maskVreducev2TwoBytes = 4 * k;
        // offsets in elements of T: one pair is 2 floats or 4 halves
        const int32_t pair = half ? 4 : 2;
        t.innerDataSize = inner * pair;
        t.mrgSortSrc1offset = pair;
        t.mrgSortSrc2offset = 2 * pair;
        t.mrgSortSrc3offset = 3 * pair;
        t.mrgSortTwoQueueSrc1Offset = pair;
        t.mrgFourQueueTailPara1 = inner * 2;
        t.mrgFourQueueTailPara2 = perF;
        t.maskOffset = outter * (half ? t.kAlignTwoBytes : t.kAlignFourBytes);
        t.tmpLocalSize = inner * (half ? 8 : 4);  // 16 bytes per element, in elements of T
        if (!isInitIndex) {
            t.srcIndexOffset = t.tmpLocalSize;
            t.tmpLocalSize += inner * perF;  // the generated int32 indices
        }
        return;
    }
    t.innerDataSize = inner * outter * int32_t(size ? kSortPair / size : 0);
    t.maskOffset = outter * k;
    t.topkMrgSrc1MaskSizeOffset = t.innerDataSize + (isLargest ? 0 : inner * outter);
    t.tmpLocalSize = t.topkMrgSrc1MaskSizeOffset + int32_t(size ? kSmallMask / size : 0);
    if (!isInitIndex) {
        t.topkNSmallSrcIndexOffset = t.tmpLocalSize;
        t.tmpLocalSize += inner * outter * perF;
    }
    // GatherMask patterns over the sorted pairs of one row (k <= 32): indices are the odd 32-bit lanes
    if (k <= 16) {
        t.vreduceIdxMask0 = Repeat(k, 2u, 2);
    } else if (k <= 32) {
        t.vreduceIdxMask0 = kIdxPattern32;
        t.vreduceIdxMask1 = Repeat(k - 16, 2u, 2);
    }
    if (!half) {  // float scores: the even 32-bit lanes
        if (k <= 16) {
            t.vreduceValMask0 = Repeat(k, 1u, 2);
        } else if (k <= 32) {
            t.vreduceValMask0 = Repeat(16, 1u, 2);
            t.vreduceValMask1 = Repeat(k - 16, 1u, 2);
        }
        return;
    }
    // half scores: the first 16-bit lane of every four, in eight 16-bit words of four pairs each
    uint16_t* w[8] = {&t.vreducehalfValMask0, &t.vreducehalfValMask1, &t.vreducehalfValMask2, &t.vreducehalfValMask3,
                      &t.vreducehalfValMask4, &t.vreducehalfValMask5, &t.vreducehalfValMask6, &t.vreducehalfValMask7};
    for (int32_t i = 0; i < 8; ++i) {
        const int32_t left = k - 4 * i;
        *w[i] = i == 0 && left >= 4 ? kHalfPattern16 : left > 0 ? uint16_t(Repeat(left < 4 ? left : 4, 1u, 4)) : 0;
    }
}

inline void FillProposal(tiling::TopkTiling& t, int32_t inner, int32_t outter, int32_t k, uint32_t size, TopKMode mode) {
    if (mode == TopKMode::TOPK_NORMAL) {
        const int32_t proposals = inner * kProposal, merged = proposals * 2;
        t.tmpLocalSize = merged + inner * 4 / int32_t(size);
        t.srcIndexOffset = merged;
        t.innerDataSize = proposals;
        t.sortRepeat = uint32_t(inner / 16);
        t.copyUbToUbBlockCount = uint32_t(proposals * int32_t(size) / 32);
        t.mrgSortSrc1offset = kProposal;
        t.mrgSortSrc2offset = 2 * kProposal;
        t.mrgSortSrc3offset = 3 * kProposal;
        t.mrgSortRepeat = inner / 4;
        t.kAlignFourBytes = AlignTo(k, 8);
        t.kAlignTwoBytes = AlignTo(k, 16);
        t.maskOffset = outter * (size == 2 ? t.kAlignTwoBytes : t.kAlignFourBytes);
        return;
    }
    const int32_t all = inner * outter, proposals = all * kProposal;
    t.tmpLocalSize = proposals * 2;
    t.topkNSmallSrcIndexOffset = proposals + all;
    t.innerDataSize = proposals;
    t.maskOffset = outter * k;
    t.allDataSize = all;
    t.sortRepeat = uint32_t(all / 16);
    t.copyUbToUbBlockCount = uint32_t(proposals * int32_t(size) / 32);
    t.mrgSortTwoQueueSrc1Offset = 16 * kProposal;
    t.mrgSortSrc1offset = inner * kProposal;
    t.vreduceIdxMask0 = Ones(k);
    if (size == 4) {
        t.srcIndexOffset = t.topkNSmallSrcIndexOffset;
        t.vreduceValMask0 = Ones(k);
    } else {  // half scores are cast to float first, into a separate area
        t.srcIndexOffset = t.topkNSmallSrcIndexOffset + all;
        if (k <= 16) {
            t.vreduceValMask0 = Ones(k);
        } else if (k <= 32) {
            t.vreduceValMask0 = 0xFFFFu;
            t.vreduceValMask1 = Ones(k - 16);
        }
    }
}

inline void FillRegBase(tiling::TopkTiling& t, int32_t inner, int32_t outter, int32_t k, uint32_t size, bool isInitIndex,
                        TopKMode mode) {
    const int32_t pair = int32_t(kSortPair / size);
    t.allDataSize = inner * outter;
    if (mode == TopKMode::TOPK_NORMAL) {
        t.kAlignFourBytes = AlignTo(k, 8);
        t.kAlignTwoBytes = AlignTo(k, 16);
        t.sortRepeat = uint32_t(inner / 32);
        t.innerDataSize = inner * pair;
        t.maskOffset = outter * (size == 2 ? t.kAlignTwoBytes : t.kAlignFourBytes);
        t.maskVreducev2FourBytes = 2 * k;
        t.maskVreducev2TwoBytes = 4 * k;
        t.tmpLocalSize = inner * 16 / int32_t(size);
        if (!isInitIndex) {
            t.srcIndexOffset = t.tmpLocalSize;
            t.tmpLocalSize = inner * 20 / int32_t(size);
        }
        return;
    }
    t.innerDataSize = inner * outter * pair;
    t.maskOffset = outter * k;
    t.tmpLocalSize = t.innerDataSize + (isInitIndex ? 0 : inner * outter * 4 / int32_t(size));
}

inline bool Fill(uint32_t arch, int32_t inner, int32_t outter, int32_t k, uint32_t size, bool isInitIndex, TopKMode mode,
                 bool isLargest, tiling::TopkTiling& t) {
    if (size == 0) return false;
    t = tiling::TopkTiling{};
    switch (FamilyOf(arch)) {
        case Family::Proposal: FillProposal(t, inner, outter, k, size, mode); break;
        case Family::RegBase: FillRegBase(t, inner, outter, k, size, isInitIndex, mode); break;
        case Family::SortMrg: FillSortMrg(t, inner, outter, k, size, isInitIndex, mode, isLargest); break;
    }
    return true;
}

inline void Store(const tiling::TopkTiling& t, tiling::TopkTiling& out) { out = t; }
inline void Store(const tiling::TopkTiling& t, optiling::TopkTiling& out) {
#define OPKIT_TOPK_SET(f) out.set_##f(t.f);
    OPKIT_TOPK_SET(tmpLocalSize) OPKIT_TOPK_SET(allDataSize) OPKIT_TOPK_SET(innerDataSize) OPKIT_TOPK_SET(sortRepeat)
    OPKIT_TOPK_SET(mrgSortRepeat) OPKIT_TOPK_SET(kAlignFourBytes) OPKIT_TOPK_SET(kAlignTwoBytes) OPKIT_TOPK_SET(maskOffset)
    OPKIT_TOPK_SET(maskVreducev2FourBytes) OPKIT_TOPK_SET(maskVreducev2TwoBytes) OPKIT_TOPK_SET(mrgSortSrc1offset)
    OPKIT_TOPK_SET(mrgSortSrc2offset) OPKIT_TOPK_SET(mrgSortSrc3offset) OPKIT_TOPK_SET(mrgSortTwoQueueSrc1Offset)
    OPKIT_TOPK_SET(mrgFourQueueTailPara1) OPKIT_TOPK_SET(mrgFourQueueTailPara2) OPKIT_TOPK_SET(srcIndexOffset)
    OPKIT_TOPK_SET(copyUbToUbBlockCount) OPKIT_TOPK_SET(topkMrgSrc1MaskSizeOffset) OPKIT_TOPK_SET(topkNSmallSrcIndexOffset)
    OPKIT_TOPK_SET(vreduceValMask0) OPKIT_TOPK_SET(vreduceValMask1) OPKIT_TOPK_SET(vreduceIdxMask0)
    OPKIT_TOPK_SET(vreduceIdxMask1) OPKIT_TOPK_SET(vreducehalfValMask0) OPKIT_TOPK_SET(vreducehalfValMask1)
    OPKIT_TOPK_SET(vreducehalfValMask2) OPKIT_TOPK_SET(vreducehalfValMask3) OPKIT_TOPK_SET(vreducehalfValMask4)
    OPKIT_TOPK_SET(vreducehalfValMask5) OPKIT_TOPK_SET(vreducehalfValMask6) OPKIT_TOPK_SET(vreducehalfValMask7)
#undef OPKIT_TOPK_SET
}

template <class Tiling>
inline bool TilingFunc(const platform_ascendc::PlatformAscendC& p, int32_t inner, int32_t outter, int32_t k,
                       uint32_t dataTypeSize, bool isInitIndex, TopKMode mode, bool isLargest, Tiling& out) {
    const char* fn = "AscendC::TopKTilingFunc";
    CheckArgs(fn, p, inner, outter, isInitIndex, mode, dataTypeSize);
    if (k < 1 || k > inner) opkit::host::warn(fn, "k is %d; its range is [1, %d] (the inner axis length)", k, inner);
    tiling::TopkTiling t;
    if (!Fill(ArchOf(p), inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, t)) return false;
    Store(t, out);
    return true;
}

}  // namespace opkit_topk

inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                                 const int32_t outter, const bool isReuseSource, const bool isInitIndex, enum TopKMode mode,
                                 const bool isLargest, const uint32_t dataTypeSize, uint32_t& maxValue,
                                 uint32_t& minValue) {
    (void)isReuseSource;
    opkit_topk::CheckArgs("AscendC::GetTopKMaxMinTmpSize", ascendcPlatform, inner, outter, isInitIndex, mode, dataTypeSize);
    opkit_topk::ScratchBytes(opkit_topk::ArchOf(ascendcPlatform), inner, outter, isInitIndex, mode, isLargest,
                             dataTypeSize, maxValue, minValue);
    return true;
}

// The radix-select form: CANN provides it on NPU arch 3510/5102 only, and none of the chips opkit
// models has that architecture.
inline bool GetTopKMaxMinTmpSize(const int32_t inner, const int32_t outter, const int32_t k, const bool isReuseSource,
                                 const bool isInitIndex, enum TopKMode mode, const bool isLargest, TensorDataType dataType,
                                 const TopKConfig& config, uint32_t& maxValue, uint32_t& minValue) {
    (void)inner; (void)outter; (void)k; (void)isReuseSource; (void)isInitIndex; (void)mode; (void)isLargest;
    (void)dataType; (void)config; (void)maxValue; (void)minValue;
    const uint32_t arch = static_cast<uint32_t>(platform_ascendc::PlatformAscendCManager::GetInstance()->GetCurNpuArch());
    if (arch == 3510 || arch == 5102)
        opkit::host::fail("AscendC::GetTopKMaxMinTmpSize", "the radix-select TopK of NPU arch %u is not modelled", arch);
    opkit::host::warn("AscendC::GetTopKMaxMinTmpSize", "unsupported NpuArch of the TopK radix-select API (arch %u; it "
                      "exists on 3510 and 5102 only): returns false", arch);
    return false;
}

inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, optiling::TopkTiling& topKTiling) {
    return opkit_topk::TilingFunc(ascendcPlatform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, topKTiling);
}
inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, tiling::TopkTiling& topKTiling) {
    return opkit_topk::TilingFunc(ascendcPlatform, inner, outter, k, dataTypeSize, isInitIndex, mode, isLargest, topKTiling);
}

}  // namespace AscendC
