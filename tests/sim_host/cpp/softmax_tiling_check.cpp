// Prints, as key=value lines, what the SoftMax family's host tiling functions compute on a chip of
// the NPU architecture argv[1] (2201 or 3510), for tests/sim_host/test_softmax_tiling.py.
// argv[2] (optional) names a call CANN rejects, which must end the run with a diagnostic.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tiling/tiling_api.h"

using AscendC::tiling::SoftMaxTiling;

static void Put(const std::string& key, long long v) { std::printf("%s=%lld\n", key.c_str(), v); }

static void PutTiling(const std::string& p, const SoftMaxTiling& t) {
    const uint32_t* f = &t.srcM;
    const char* names[] = {"srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK",
                           "splitSize", "reduceM", "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize",
                           "tailReduceSize"};
    for (int i = 0; i < 16; ++i) Put(p + "." + names[i], f[i]);
}

// The optiling class serialises to the same bytes as the kernel struct the other overload fills.
template <class F>
static void Both(const std::string& p, F fill) {
    SoftMaxTiling k;
    std::memset(static_cast<void*>(&k), 0xCD, sizeof k);  // every field must be written
    optiling::SoftMaxTiling o;
    fill(k, o);
    SoftMaxTiling bytes;
    o.SaveToBuffer(&bytes, sizeof bytes);
    PutTiling(p, k);
    Put(p + ".same_bytes", std::memcmp(&bytes, &k, sizeof k) == 0);
}

int main(int argc, char** argv) {
    const std::string arch = argc > 1 ? argv[1] : "2201";
    const std::string bad = argc > 2 ? argv[2] : "";
    fe::PlatFormInfos p;
    p.OpkitSet("version", "Short_SoC_version", arch == "3510" ? "Ascend950" : "Ascend910B");
    p.OpkitSet("version", "NpuArch", arch);
    p.OpkitSetMem(fe::LocalMemType::UB, 196608);
    platform_ascendc::PlatformAscendCManager::OpkitSet(&p);
    using namespace AscendC;

    const ge::Shape s128x64({128, 64}), s100x32({100, 32}), s4x64({4, 64}), s64x128({64, 128}), s16x64({16, 64});
    SoftMaxTiling k;
    optiling::SoftMaxTiling o;
    if (bad == "type_size") SoftMaxTilingFunc(s128x64, 3, 4096, k);
    if (bad == "empty_shape") GetSoftMaxMaxTmpSize(ge::Shape({0, 64}), 2, false);
    if (bad == "no_workspace") SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 0, k, true);
    if (bad == "type_size2") GetSoftMaxFlashV2MinTmpSize(s64x128, 2, 8, true);
    if (bad == "unaligned") {
        SoftMaxTilingFunc(ge::Shape({4, 7}), 2, 4096, k);  // a warning: CANN logs it and goes on
        Put("unaligned.srcK", k.srcK);
        return 0;
    }

    Put("sm.max", GetSoftMaxMaxTmpSize(s128x64, 2, false));
    Put("sm.min", GetSoftMaxMinTmpSize(s128x64, 2, false));
    Both("sm.basic", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxTilingFunc(s128x64, 2, 16384, a);
        SoftMaxTilingFunc(s128x64, 2, 16384, b);
    });
    Both("sm.tail", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxTilingFunc(s100x32, 4, 4096, a);
        SoftMaxTilingFunc(s100x32, 4, 4096, b);
    });
    Both("sm.whole", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxTilingFunc(s4x64, 2, 65536, a);
        SoftMaxTilingFunc(s4x64, 2, 65536, b);
    });

    Put("v2.max", GetSoftMaxFlashV2MaxTmpSize(s64x128, 2, 4, true));
    Put("v2.min", GetSoftMaxFlashV2MinTmpSize(s64x128, 2, 4, true));
    Put("v2.max_basic", GetSoftMaxFlashV2MaxTmpSize(s64x128, 2, 4, true, true));
    Put("v2.min_basic", GetSoftMaxFlashV2MinTmpSize(s64x128, 2, 4, true, true));
    Put("v2.min_brc", GetSoftMaxFlashV2MinTmpSize(s64x128, 2, 4, false, false, true));
    Both("v2.update", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 32768, a, true);
        SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 32768, b, true);
    });
    Both("v2.basic", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 32768, a, true, true);
        SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 32768, b, true, true);
    });

    SoftMaxFlashV2TilingFunc(s64x128, 2, 4, 32768, o, true);
    Put("basic_block.k128_half", IsBasicBlockInSoftMax(o, 2));
    SoftMaxTilingFunc(s4x64, 2, 65536, k);
    Put("basic_block.k64_half", IsBasicBlockInSoftMax(k, 2));
    Put("basic_block.k64_float", IsBasicBlockInSoftMax(k, 4));
    Put("basic_block.zero_size", IsBasicBlockInSoftMax(k, 0));
    SoftMaxTilingFunc(s100x32, 4, 4096, k);
    Put("basic_block.with_tail", IsBasicBlockInSoftMax(k, 4));

    Put("grad.max_float", GetSoftMaxGradMaxTmpSize(s16x64, 4, false, false));
    Put("grad.max_half", GetSoftMaxGradMaxTmpSize(s16x64, 2, false, false));
    Put("grad.min_float_front", GetSoftMaxGradMinTmpSize(s16x64, 4, true, false));
    Put("grad.min_float", GetSoftMaxGradMinTmpSize(s16x64, 4, false, false));
    Both("grad", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxGradTilingFunc(s16x64, 4, 1024, a, true);
        SoftMaxGradTilingFunc(s16x64, 4, 1024, b, true);
    });

    Put("flash.max_update", GetSoftMaxFlashMaxTmpSize(s16x64, 4, true, false));
    Put("flash.min_update", GetSoftMaxFlashMinTmpSize(s16x64, 4, true, false));
    Put("flash.max", GetSoftMaxFlashMaxTmpSize(s16x64, 4, false, false));
    Both("flash", [&](SoftMaxTiling& a, optiling::SoftMaxTiling& b) {
        SoftMaxFlashTilingFunc(s16x64, 4, 2560, a, true);
        SoftMaxFlashTilingFunc(s16x64, 4, 2560, b, true);
    });
    return 0;
}
