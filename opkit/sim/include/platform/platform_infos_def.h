// opkit simulator (host side): fe::PlatFormInfos, the chip description behind
// context->GetPlatformInfo(). CANN fills it from the SoC's platform ini file; opkit fills it from
// the run request (opkit/data/socs.yaml). Values are kept as strings under ini-style labels and
// keys (SoCInfo/ai_core_cnt, AICoreSpec/ub_size, version/Short_SoC_version, ...), so code that
// reads them directly with GetPlatformResWithLock sees what it would see on the NPU.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace fe {
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

class OptionalInfos {
public:
    void SetSocVersion(const std::string& v) { soc_version_ = v; }
    std::string GetSocVersion() const { return soc_version_; }
    void SetCoreNum(uint32_t n) { core_num_ = n; }
    uint32_t GetCoreNum() const { return core_num_; }

private:
    std::string soc_version_;
    uint32_t core_num_ = 0;
};

class PlatFormInfos {
public:
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        auto l = res_.find(label);
        if (l == res_.end()) return false;
        auto k = l->second.find(key);
        if (k == l->second.end()) return false;
        val = k->second;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    bool GetPlatformRes(const std::string& label, std::map<std::string, std::string>& out) const {
        auto l = res_.find(label);
        if (l == res_.end()) return false;
        out = l->second;
        return true;
    }
    bool GetPlatformResWithLock(const std::string& label, std::map<std::string, std::string>& out) const {
        return GetPlatformRes(label, out);
    }
    void SetPlatformRes(const std::string& label, std::map<std::string, std::string>& res) { res_[label] = res; }
    void SetPlatformResWithLock(const std::string& label, std::map<std::string, std::string>& res) { res_[label] = res; }

    uint32_t GetCoreNum() const { return core_num_; }
    void SetCoreNum(uint32_t n) { core_num_ = n; }
    // "AiCore" selects the AI Core (cube) count, "VectorCore" the vector core count.
    void SetCoreNumByCoreType(const std::string& core_type) {
        std::string v;
        const char* key = core_type == "VectorCore" ? "vector_core_cnt" : (core_type == "CubeCore" ? "cube_core_cnt" : "ai_core_cnt");
        if (GetPlatformRes("SoCInfo", key, v)) core_num_ = static_cast<uint32_t>(std::stoul(v));
    }
    uint32_t GetCoreNumByType(const std::string& core_type) const {
        std::string v;
        const char* key = core_type == "VectorCore" ? "vector_core_cnt" : (core_type == "CubeCore" ? "cube_core_cnt" : "ai_core_cnt");
        return GetPlatformRes("SoCInfo", key, v) ? static_cast<uint32_t>(std::stoul(v)) : 0;
    }
    void GetLocalMemSize(const LocalMemType& t, uint64_t& size) const {
        auto it = mem_.find(static_cast<int>(t));
        size = it == mem_.end() ? 0 : it->second;
    }
    void GetLocalMemBw(const LocalMemType& t, uint64_t& bw) const {
        auto it = bw_.find(static_cast<int>(t));
        bw = it == bw_.end() ? 0 : it->second;
    }

    // opkit: filled by the harness.
    void OpkitSet(const std::string& label, const std::string& key, const std::string& val) { res_[label][key] = val; }
    void OpkitSetMem(LocalMemType t, uint64_t bytes) { mem_[static_cast<int>(t)] = bytes; }
    void OpkitSetBw(LocalMemType t, uint64_t bw) { bw_[static_cast<int>(t)] = bw; }
    bool OpkitHasBw(LocalMemType t) const { return bw_.count(static_cast<int>(t)) != 0; }

private:
    std::map<std::string, std::map<std::string, std::string>> res_;
    std::map<int, uint64_t> mem_;
    std::map<int, uint64_t> bw_;
    uint32_t core_num_ = 0;
};
}  // namespace fe
