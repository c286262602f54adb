// opkit simulator (host side): platform information (fe::PlatFormInfos and friends).
#pragma once
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
    uint32_t GetPlatformInstanceByDevice(uint32_t, PlatFormInfos& p) {
        if (current_ == nullptr) return 1;
        p = *current_;
        return 0;
    }
    // opkit
    PlatFormInfos* current_ = nullptr;
};
}  // namespace fe
