// opkit simulator (host side): platform_ascendc::PlatformAscendC, the tiling function's view of
// the chip: core counts, on-chip memory sizes, SoC version, system workspace size.
//
// Values come from the fe::PlatFormInfos the harness built from the run request, i.e. from
// opkit/data/socs.yaml. As in CANN:
//   - GetCoreNumAic/GetCoreNumAiv give the cube/vector core counts on chips with separate cores
//     and the AI Core count for both on coupled chips (310P);
//   - GetCoreMemSize(UB or L1) is 256 B less than the physical size on ASCEND910B chips (910B and
//     910_93), and UB is further reduced by ReserveLocalMemory;
//   - GetSocVersion maps the short SoC version: Ascend910B and Ascend910_93 both give
//     SocVersion::ASCEND910B.
// A query opkit has no value for ends the run with a diagnostic instead of returning 0.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "opkit_host/diag.h"
#include "platform/platform_infos_def.h"
#include "platform/soc_spec.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND310P,
    ASCEND310B,
    ASCEND950,
    ASCEND910_55,
    ASCEND910_95 = ASCEND950,
    AS31XM1,
    ASCEND031,
    ASCEND035,
    ASCEND310,
    ASCEND610,
    ASCEND610Lite,
    ASCEND910_93,
    BS9SX1A,
    BS9SX2A,
    HI3796CV300CS,
    HI3796CV300ES,
    MC61AM21A,
    MC62,
    SD3403,
    KIRINX90,
    KIRIN9030,
    MC32DM11A,
    ASCEND350,
    RESERVED_VERSION = 99999
};

enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* info) : info_(info) {}

    uint32_t GetCoreNum() const { return Info("GetCoreNum")->GetCoreNum(); }
    uint32_t GetCoreNumAic() const { return CoreCount("GetCoreNumAic", false); }
    uint32_t GetCoreNumAiv() const { return CoreCount("GetCoreNumAiv", true); }
    uint32_t GetCoreNumVector() const {
        if (GetSocVersion() != SocVersion::ASCEND310P) return 0;
        return static_cast<uint32_t>(std::stoul(Res("GetCoreNumVector", "SoCInfo", "vector_core_cnt")));
    }

    // Blocks for a MIX launch of sliceNum vector slices: ceil(sliceNum / (AIV per AIC)); 0 when
    // that exceeds the cube cores on a 1:2 chip.
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        const uint32_t blocks = (sliceNum + ratio - 1) / ratio;
        if (ratio == 2 && blocks > aicCoreNum) {
            opkit::host::warn("PlatformAscendC::CalcTschNumBlocks", "%u blocks for %u slices exceed the %u cube cores; returning 0",
                              blocks, sliceNum, aicCoreNum);
            return 0;
        }
        return blocks;
    }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
    }

    uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<uint32_t>(std::stoul(Res("GetLibApiWorkSpaceSize", "opkit", "sys_workspace")));
    }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return Group910B("GetResCubeGroupWorkSpaceSize"); }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return Group910B("GetResGroupBarrierWorkSpaceSize"); }

    void GetCoreMemSize(const CoreMemType& t, uint64_t& size) const {
        const char* fn = "PlatformAscendC::GetCoreMemSize";
        if (t == CoreMemType::RESERVED || static_cast<int>(t) < 0 || static_cast<int>(t) > static_cast<int>(CoreMemType::BT))
            opkit::host::fail(fn, "unknown CoreMemType %d", static_cast<int>(t));
        Info(fn)->GetLocalMemSize(static_cast<fe::LocalMemType>(t), size);
        if (size == 0 && t != CoreMemType::FB && t != CoreMemType::BT)
            opkit::host::fail(fn, "the chip description has no size for %s", MemName(t));
        if ((t == CoreMemType::UB || t == CoreMemType::L1) && GetSocVersion() == SocVersion::ASCEND910B) size -= 256;
        if (t == CoreMemType::UB) size -= reserved_;
    }
    void GetCoreMemBw(const CoreMemType& t, uint64_t& bw) const {
        const char* fn = "PlatformAscendC::GetCoreMemBw";
        if (!Info(fn)->OpkitHasBw(static_cast<fe::LocalMemType>(t)))
            opkit::host::fail(fn, "opkit has no bandwidth value for %s in its chip data", MemName(t));
        Info(fn)->GetLocalMemBw(static_cast<fe::LocalMemType>(t), bw);
    }
    void ReserveLocalMemory(ReservedSize s) {
        switch (s) {
            case ReservedSize::RESERVED_SIZE_8K: reserved_ = 8 * 1024; break;
            case ReservedSize::RESERVED_SIZE_16K: reserved_ = 16 * 1024; break;
            case ReservedSize::RESERVED_SIZE_32K: reserved_ = 32 * 1024; break;
            default: opkit::host::fail("PlatformAscendC::ReserveLocalMemory", "unknown ReservedSize %d", static_cast<int>(s));
        }
    }
    SocVersion GetSocVersion() const {
        const std::string v = Res("PlatformAscendC::GetSocVersion", "version", "Short_SoC_version");
        static const std::map<std::string, SocVersion> m = {
            {"Ascend310P", SocVersion::ASCEND310P}, {"Ascend910", SocVersion::ASCEND910},
            {"Ascend910B", SocVersion::ASCEND910B}, {"Ascend910_93", SocVersion::ASCEND910B},
            {"Ascend310B", SocVersion::ASCEND310B}, {"Ascend950", SocVersion::ASCEND950},
            {"Ascend350", SocVersion::ASCEND350},   {"Ascend310", SocVersion::ASCEND310},
            {"Ascend610", SocVersion::ASCEND610},   {"Ascend610Lite", SocVersion::ASCEND610Lite},
        };
        auto it = m.find(v);
        if (it == m.end()) opkit::host::fail("PlatformAscendC::GetSocVersion", "unknown short SoC version '%s'", v.c_str());
        return it->second;
    }
    NpuArch GetCurNpuArch() const {
        return static_cast<NpuArch>(std::stoul(Res("PlatformAscendC::GetCurNpuArch", "version", "NpuArch")));
    }
    uint32_t GetVecRegLen() const {
        return static_cast<uint32_t>(std::stoul(Res("PlatformAscendC::GetVecRegLen", "AICoreSpec", "vector_reg_width")));
    }

private:
    fe::PlatFormInfos* Info(const char* fn) const {
        if (info_ == nullptr) opkit::host::fail(fn, "PlatformAscendC was constructed from a null fe::PlatFormInfos*");
        return info_;
    }
    std::string Res(const char* fn, const char* label, const char* key) const {
        std::string v;
        if (!Info(fn)->GetPlatformResWithLock(label, key, v) || v.empty())
            opkit::host::fail(fn, "the chip description has no value for %s.%s", label, key);
        return v;
    }
    uint32_t CoreCount(const char* fn, bool aiv) const {
        std::string split;
        Info(fn)->GetPlatformResWithLock("SoCInfo", "core_type_list", split);
        const char* key = split != "CubeCore,VectorCore" ? "ai_core_cnt" : (aiv ? "vector_core_cnt" : "cube_core_cnt");
        return static_cast<uint32_t>(std::stoul(Res(fn, "SoCInfo", key)));
    }
    uint32_t Group910B(const char* fn) const {
        if (GetSocVersion() != SocVersion::ASCEND910B)
            opkit::host::fail(fn, "only defined on ASCEND910B chips (CANN returns -1 elsewhere)");
        return 1024 * 1024;
    }
    static const char* MemName(CoreMemType t) {
        static const char* n[] = {"L0_A", "L0_B", "L0_C", "L1", "L2", "UB", "HBM", "FB", "BT"};
        int i = static_cast<int>(t);
        return i >= 0 && i < 9 ? n[i] : "?";
    }
    fe::PlatFormInfos* info_;
    uint32_t reserved_ = 0;
};

// For programs outside the op framework (kernel-launch style): the harness points it at the
// platform of the current run.
class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() { return Current(); }
    static PlatformAscendC* GetInstance(const char*) { return Current(); }
    // opkit
    static void OpkitSet(fe::PlatFormInfos* info) { Slot().reset(info ? new PlatformAscendC(info) : nullptr); }

private:
    static std::unique_ptr<PlatformAscendC>& Slot() { static std::unique_ptr<PlatformAscendC> p; return p; }
    static PlatformAscendC* Current() {
        if (!Slot()) opkit::host::fail("PlatformAscendCManager::GetInstance", "no platform is set (the harness sets it for each run)");
        return Slot().get();
    }
};
}  // namespace platform_ascendc
