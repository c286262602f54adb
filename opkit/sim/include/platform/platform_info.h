// opkit simulator (host side): platform information (fe::PlatFormInfos and friends).
#pragma once
#include <string>

#include "platform/platform_info_def.h"
#include "platform/platform_infos_def.h"
#include "platform/soc_spec.h"

namespace fe {
// CANN's process-wide platform manager; opkit has one platform per run, set by the harness.
class PlatformInfoManager {
public:
    static PlatformInfoManager& Instance() { static PlatformInfoManager m; return m; }
    static PlatformInfoManager& GeInstance() { return Instance(); }
    uint32_t InitializePlatformInfo() { return 0; }
    uint32_t GetPlatformInfoWithOutSocVersion(PlatFormInfos& p, OptionalInfos& o) {
        if (current_ == nullptr) return 1;
        p = *current_;
        o.SetCoreNum(current_->GetCoreNum());
        return 0;
    }
    // The plain-struct form (platform_info_def.h), filled from the run's chip.
    uint32_t GetPlatformInfoWithOutSocVersion(PlatformInfo& p, OptionalInfo& o) {
        if (current_ == nullptr) return 1;
        Fill(*current_, p, o);
        return 0;
    }
    uint32_t GetPlatformInfo(const std::string&, PlatformInfo& p, OptionalInfo& o) {
        return GetPlatformInfoWithOutSocVersion(p, o);
    }
    uint32_t GetPlatformInfos(const std::string&, PlatFormInfos& p, OptionalInfos& o) {
        return GetPlatformInfoWithOutSocVersion(p, o);
    }
    uint32_t GetPlatformInstanceByDevice(uint32_t, PlatFormInfos& p) {
        if (current_ == nullptr) return 1;
        p = *current_;
        return 0;
    }
    // opkit
    PlatFormInfos* current_ = nullptr;

private:
    static uint64_t Num(const PlatFormInfos& f, const char* label, const char* key) {
        std::string v;
        if (!f.GetPlatformRes(label, key, v) || v.empty()) return 0;
        return std::stoull(v);
    }
    static void Fill(const PlatFormInfos& f, PlatformInfo& p, OptionalInfo& o) {
        p = PlatformInfo();
        o = OptionalInfo();
        f.GetPlatformRes("version", "Short_SoC_version", p.str_info.short_soc_version);
        f.GetPlatformRes("version", "SoC_version", o.soc_version);
        p.soc_info.ai_core_cnt = static_cast<uint32_t>(Num(f, "SoCInfo", "ai_core_cnt"));
        p.soc_info.vector_core_cnt = static_cast<uint32_t>(Num(f, "SoCInfo", "vector_core_cnt"));
        p.soc_info.l2_size = Num(f, "SoCInfo", "l2_size");
        p.soc_info.memory_size = Num(f, "SoCInfo", "hbm_size");
        p.ai_core_spec.ub_size = Num(f, "AICoreSpec", "ub_size");
        p.ai_core_spec.l1_size = Num(f, "AICoreSpec", "l1_size");
        p.ai_core_spec.l0_a_size = Num(f, "AICoreSpec", "l0_a_size");
        p.ai_core_spec.l0_b_size = Num(f, "AICoreSpec", "l0_b_size");
        p.ai_core_spec.l0_c_size = Num(f, "AICoreSpec", "l0_c_size");
        p.ai_core_spec.ubblock_size = 32;
        std::string cores;
        f.GetPlatformRes("SoCInfo", "core_type_list", cores);
        p.ai_core_spec.cube_vector_split = cores.find("VectorCore") != std::string::npos ? 1 : 0;
        p.vector_core_spec.ub_size = p.ai_core_spec.ub_size;
        p.vector_core_spec.ubblock_size = 32;
        o.core_type = "AiCore";
        o.ai_core_num = p.soc_info.ai_core_cnt;
    }
};
}  // namespace fe
