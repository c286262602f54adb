// Prints, as key=value lines, what TopK's host tiling functions compute on a chip of the NPU
// architecture argv[1] (2201, 2002 or 3510), for tests/sim_host/test_topk_tiling.py. argv[2]
// (optional) names a call outside the documented ranges (a warning; the values are still computed).
#include <cstdio>
#include <cstring>
#include <string>

#include "tiling/tiling_api.h"

using AscendC::TopKMode;
using AscendC::tiling::TopkTiling;

static void Put(const std::string& key, long long v) { std::printf("%s=%lld\n", key.c_str(), v); }

#define OPKIT_TOPK_FIELDS(X)                                                                                          \
    X(tmpLocalSize) X(allDataSize) X(innerDataSize) X(sortRepeat) X(mrgSortRepeat) X(kAlignFourBytes) X(kAlignTwoBytes) \
    X(maskOffset) X(maskVreducev2FourBytes) X(maskVreducev2TwoBytes) X(mrgSortSrc1offset) X(mrgSortSrc2offset)       \
    X(mrgSortSrc3offset) X(mrgSortTwoQueueSrc1Offset) X(mrgFourQueueTailPara1) X(mrgFourQueueTailPara2)               \
    X(srcIndexOffset) X(copyUbToUbBlockCount) X(topkMrgSrc1MaskSizeOffset) X(topkNSmallSrcIndexOffset)                \
    X(vreduceValMask0) X(vreduceValMask1) X(vreduceIdxMask0) X(vreduceIdxMask1) X(vreducehalfValMask0)                \
    X(vreducehalfValMask1) X(vreducehalfValMask2) X(vreducehalfValMask3) X(vreducehalfValMask4)                       \
    X(vreducehalfValMask5) X(vreducehalfValMask6) X(vreducehalfValMask7)

// Both overloads: the optiling class serialises to the bytes of the kernel struct the other one fills.
static void Case(const platform_ascendc::PlatformAscendC& p, const std::string& name, int inner, int outter, int k,
                 unsigned size, bool init, TopKMode mode, bool largest) {
    TopkTiling t;
    std::memset(static_cast<void*>(&t), 0xCD, sizeof t);  // every field must be written
    const bool ok = AscendC::TopKTilingFunc(p, inner, outter, k, size, init, mode, largest, t);
    optiling::TopkTiling o;
    AscendC::TopKTilingFunc(p, inner, outter, k, size, init, mode, largest, o);
    TopkTiling bytes;
    o.SaveToBuffer(&bytes, sizeof bytes);
    Put(name + ".ok", ok);
    Put(name + ".same_bytes", std::memcmp(&bytes, &t, sizeof t) == 0);
#define X(f) Put(name + "." #f, static_cast<long long>(t.f));
    OPKIT_TOPK_FIELDS(X)
#undef X
    uint32_t mx = 0, mn = 0;
    Put(name + ".tmp_ok", AscendC::GetTopKMaxMinTmpSize(p, inner, outter, false, init, mode, largest, size, mx, mn));
    Put(name + ".max", mx);
    Put(name + ".min", mn);
}

int main(int argc, char** argv) {
    const std::string arch = argc > 1 ? argv[1] : "2201";
    const std::string odd = argc > 2 ? argv[2] : "";
    fe::PlatFormInfos info;
    info.OpkitSet("version", "Short_SoC_version", arch == "3510" ? "Ascend950" : arch == "2002" ? "Ascend310P" : "Ascend910B");
    info.OpkitSet("version", "NpuArch", arch);
    info.OpkitSetMem(fe::LocalMemType::UB, 196608);
    platform_ascendc::PlatformAscendCManager::OpkitSet(&info);
    const platform_ascendc::PlatformAscendC& p = *platform_ascendc::PlatformAscendCManager::GetInstance();
    if (odd == "inner") {
        Case(p, "odd", 40, 2, 4, 4, true, TopKMode::TOPK_NORMAL, true);
        return 0;
    }
    if (odd == "k") {
        Case(p, "odd", 64, 2, 65, 4, true, TopKMode::TOPK_NORMAL, true);
        return 0;
    }
    if (odd == "size0") {
        TopkTiling t;
        Put("size0.ok", AscendC::TopKTilingFunc(p, 64, 2, 4, 0, true, TopKMode::TOPK_NORMAL, true, t));
        return 0;
    }
    if (odd == "radix") {
        uint32_t mx = 7, mn = 7;
        Put("radix.ok", AscendC::GetTopKMaxMinTmpSize(64, 2, 4, false, true, TopKMode::TOPK_NORMAL, true, ge::DT_FLOAT,
                                                      AscendC::TopKConfig{}, mx, mn));
        return 0;
    }
    Case(p, "nf", 256, 3, 10, 4, true, TopKMode::TOPK_NORMAL, true);    // normal, float, given indices
    Case(p, "nh", 256, 3, 10, 2, false, TopKMode::TOPK_NORMAL, true);   // normal, half, generated indices
    Case(p, "sf", 32, 5, 20, 4, false, TopKMode::TOPK_NSMALL, false);   // small, float, smallest, generated indices
    Case(p, "sh", 32, 4, 6, 2, true, TopKMode::TOPK_NSMALL, true);      // small, half, largest, given indices
    return 0;
}
