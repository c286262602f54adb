// opkit simulator harness: the chip and the operator node as the op's host functions see them: fe::PlatFormInfos
// from the request's chip (checked against the chip the harness was built for), the ComputeNodeInfo of the
// request's tensors and attributes, and the input tensors of the InferShape and tiling contexts.
#pragma once
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "harness_request.h"
#include "platform/platform_info.h"
#include "tiling/platform/platform_ascendc.h"

namespace opkit {
namespace host {

inline uint64_t ChipInt(const Value& chip, std::initializer_list<const char*> keys, bool required, uint64_t dflt = 0) {
    for (const char* k : keys) {
        const Value* v = chip.find(k);
        if (v && !v->is_null()) return static_cast<uint64_t>(Int(*v, std::string("chip.") + k));
    }
    if (required) fail(kRun, "request chip: missing \"%s\"", *keys.begin());
    return dflt;
}
inline std::string ChipStr(const Value& chip, const char* key) {
    const Value* v = chip.find(key);
    return v && v->type == Value::String ? v->text : std::string();
}

// The short SoC version (the ini's version.Short_SoC_version), from the OpDef key or chip name, else soc_version.
inline std::string ShortSocVersion(const std::string& key, const std::string& version) {
    if (key.compare(0, 12, "ascend910_93") == 0) return "Ascend910_93";
    if (key.compare(0, 10, "ascend910b") == 0) return "Ascend910B";
    if (key.compare(0, 10, "ascend310p") == 0) return "Ascend310P";
    if (key.compare(0, 10, "ascend310b") == 0) return "Ascend310B";
    if (key.compare(0, 9, "ascend950") == 0) return "Ascend950";
    if (version == "ASCEND910B") return "Ascend910B";
    if (version == "ASCEND910_93") return "Ascend910_93";
    if (version == "ASCEND310P") return "Ascend310P";
    return std::string();
}

// The memories of the chip (required ones fail when missing) into the platform's CoreMemTypes and ini keys.
inline void SetMemories(const Value& chip, fe::PlatFormInfos* p) {
    struct M { fe::LocalMemType t; const char* k1; const char* k2; bool req; const char* ini; };
    const M mems[] = {
        {fe::LocalMemType::UB, "ub_size", nullptr, true, "ub_size"},
        {fe::LocalMemType::L1, "l1_size", nullptr, true, "l1_size"},
        {fe::LocalMemType::L0_A, "l0a_size", nullptr, true, "l0_a_size"},
        {fe::LocalMemType::L0_B, "l0b_size", nullptr, true, "l0_b_size"},
        {fe::LocalMemType::L0_C, "l0c_size", nullptr, true, "l0_c_size"},
        {fe::LocalMemType::L2, "l2_size", nullptr, false, "l2_size"},
        {fe::LocalMemType::HBM, "hbm_size", nullptr, false, "hbm_size"},
        {fe::LocalMemType::BT, "bt_size", nullptr, false, "bt_size"},
        {fe::LocalMemType::FB, "fb_size", "fb0_size", false, "fb0_size"},
    };
    for (const auto& m : mems) {
        uint64_t v = m.k2 ? ChipInt(chip, {m.k1, m.k2}, m.req) : ChipInt(chip, {m.k1}, m.req);
        const Value* present = chip.find(m.k1);
        if (!present && m.k2) present = chip.find(m.k2);
        if (!present || present->is_null()) continue;
        p->OpkitSetMem(m.t, v);
        p->OpkitSet(m.t == fe::LocalMemType::L2 || m.t == fe::LocalMemType::HBM ? "SoCInfo" : "AICoreSpec", m.ini, std::to_string(v));
    }
}

// fe::PlatFormInfos from the request's chip (field set of opkit/data/socs.yaml).
inline void BuildPlatform(const Value& chip, fe::PlatFormInfos* p, std::string* soc_key, std::string* chip_name) {
    *chip_name = ChipStr(chip, "name");
    *soc_key = ChipStr(chip, "opdef_key");
    std::string version = ChipStr(chip, "soc_version");
    std::string full = ChipStr(chip, "soc_short");
    if (!version.empty() && version.compare(0, 6, "Ascend") == 0 && full.empty()) full = version;  // "Ascend910B2"
    const uint64_t arch = ChipInt(chip, {"arch", "npu_arch"}, true);
    std::string key = soc_key->empty() ? *chip_name : *soc_key;
    const std::string shortv = ShortSocVersion(key, version);
    if (shortv.empty()) fail(kRun, "request chip: cannot tell the SoC of '%s' (give opdef_key, e.g. \"ascend910b\")", key.c_str());
    if (soc_key->empty()) {
        std::string k = shortv;
        for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        *soc_key = k;
    }
    const uint64_t aic = ChipInt(chip, {"aic_cores", "core_num_aic"}, true);
    const uint64_t aiv = ChipInt(chip, {"aiv_cores", "core_num_aiv"}, true);
    const Value* split_v = chip.find("split_cores");
    const bool split = split_v && split_v->type == Value::Bool ? split_v->b : arch != 2002;
    p->OpkitSet("version", "Short_SoC_version", shortv);
    p->OpkitSet("version", "SoC_version", full.empty() ? shortv : full);
    p->OpkitSet("version", "NpuArch", std::to_string(arch));
    p->OpkitSet("SoCInfo", "ai_core_cnt", std::to_string(aic));
    p->OpkitSet("SoCInfo", "cube_core_cnt", std::to_string(aic));
    p->OpkitSet("SoCInfo", "vector_core_cnt", std::to_string(split ? aiv : ChipInt(chip, {"vector_cores", "core_num_vector"}, false, 0)));
    p->OpkitSet("SoCInfo", "core_type_list", split ? "CubeCore,VectorCore" : "AiCore");
    p->SetCoreNum(static_cast<uint32_t>(split ? aiv : aic));
    SetMemories(chip, p);
    p->OpkitSet("opkit", "sys_workspace", std::to_string(ChipInt(chip, {"sys_workspace"}, true)));
    // The data file's reported UB must be what PlatformAscendC computes from it.
    if (const Value* rep = chip.find("ub_reported")) {
        uint64_t ub = 0;
        platform_ascendc::PlatformAscendC(p).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
        if (!rep->is_null() && static_cast<uint64_t>(Int(*rep, "chip.ub_reported")) != ub)
            fail(kRun, "request chip '%s': ub_reported is %s but GetCoreMemSize(UB) gives %llu", chip_name->c_str(),
                 rep->text.c_str(), static_cast<unsigned long long>(ub));
    }
}

// The request's chip, as the platform every context of the request sees.
struct Platform {
    fe::PlatFormInfos infos;
    std::string soc_key;    // the OpDef's AddConfig key of the chip (ascend910b, ...)
    std::string chip_name;  // the chip's name in opkit/data/socs.yaml
};

// The OpDef must name the chip's SoC (when it names any), and the harness was compiled for one chip (soc_defines):
// the request must describe a chip with the same architecture, UB capacity and system workspace.
inline void CheckChip(const Request& r, Platform* pl) {
    const ops::OpDef& d = r.op->def;
    if (!d.aicore_.configs_.empty()) {
        bool ok = false;
        std::string socs;
        for (const auto& c : d.aicore_.configs_) {
            ok = ok || c.first == pl->soc_key;
            socs += (socs.empty() ? "" : ", ") + c.first;
        }
        if (!ok)
            fail("OpDef", "%s has no AICore().AddConfig(\"%s\") for chip %s (its SoCs: %s)", r.op_type.c_str(),
                 pl->soc_key.c_str(), pl->chip_name.c_str(), socs.c_str());
    }
    platform_ascendc::PlatformAscendC pa(&pl->infos);
    uint64_t ub = 0;
    pa.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    const unsigned arch = static_cast<unsigned>(pa.GetCurNpuArch());
    if (arch != static_cast<unsigned>(__NPU_ARCH__) || ub != static_cast<uint64_t>(OPKIT_SIM_UB_CAP) ||
        pa.GetLibApiWorkSpaceSize() != static_cast<uint32_t>(OPKIT_SIM_SYS_WORKSPACE))
        fail(kRun, "%s: chip %s (NPU arch %u, UB %llu, system workspace %u) does not match the chip this harness was "
             "built for: %s (NPU arch %d, UB %llu, system workspace %llu)", r.path.c_str(), pl->chip_name.c_str(), arch,
             static_cast<unsigned long long>(ub), pa.GetLibApiWorkSpaceSize(), OPKIT_SIM_SOC, __NPU_ARCH__,
             static_cast<unsigned long long>(OPKIT_SIM_UB_CAP), static_cast<unsigned long long>(OPKIT_SIM_SYS_WORKSPACE));
}

// The chip of the request, checked, made the platform of PlatformAscendCManager and fe::PlatformInfoManager.
inline void SetUpPlatform(const Request& r, Platform* pl) {
    BuildPlatform(Need(r.json, "chip", r.path), &pl->infos, &pl->soc_key, &pl->chip_name);
    CheckChip(r, pl);
    platform_ascendc::PlatformAscendCManager::OpkitSet(&pl->infos);
    fe::PlatformInfoManager::Instance().current_ = &pl->infos;
}

inline void ResetPlatform() {
    platform_ascendc::PlatformAscendCManager::OpkitSet(nullptr);
    fe::PlatformInfoManager::Instance().current_ = nullptr;
}

// The node as the contexts see it, and the input tensors and shapes of the InferShape and tiling contexts.
struct IrContext {
    gert::ComputeNodeInfo node;
    std::vector<std::unique_ptr<gert::Tensor>> gtensors;  // host data only for the inputs whose values the tiling reads
    std::vector<gert::StorageShape> in_shapes;
};

// The node: its IR inputs and outputs with their instances' dtypes and formats, and its attributes.
inline void BuildNode(const Request& r, gert::ComputeNodeInfo* node) {
    node->type_ = r.op_type;
    node->name_ = r.op_type;
    size_t n_in = 0;
    for (const auto& p : r.pin) {
        node->ir_inputs_.emplace_back(static_cast<uint32_t>(n_in), static_cast<uint32_t>(p.present ? p.tensors.size() : 0));
        node->ir_input_names_.push_back(p.name);
        for (const auto& t : p.tensors) {
            gert::CompileTimeTensorDesc td;
            td.SetDataType(t.dt);
            td.SetOriginFormat(t.fmt);
            td.SetStorageFormat(t.fmt);
            node->inputs_.push_back(td);
            ++n_in;
        }
    }
    for (const auto& p : r.pout) {
        node->ir_outputs_.emplace_back(static_cast<uint32_t>(node->outputs_.size()), static_cast<uint32_t>(p.tensors.size()));
        node->ir_output_names_.push_back(p.name);
        for (size_t k = 0; k < p.tensors.size(); ++k) {
            gert::CompileTimeTensorDesc td;
            td.SetDataType(p.dt);
            td.SetOriginFormat(p.fmt);
            td.SetStorageFormat(p.fmt);
            node->outputs_.push_back(td);
        }
    }
    BuildAttrs(r.op->def, *r.op->impl, r.json, &node->attrs_);
}

// Input tensors: host data only for ValueDepend inputs (and TilingInputsDataDependency), as on the NPU.
inline void InputTensors(const Request& r, IrContext* ir) {
    const ImplEntry& im = *r.op->impl;
    size_t n = 0;
    for (const auto& p : r.pin) n += p.tensors.size();
    ir->in_shapes.reserve(n);
    for (size_t i = 0; i < r.pin.size(); ++i) {
        bool depend = r.ins[i]->value_depend_ != ops::IGNORE;
        for (int32_t k : im.data_dependency) depend = depend || static_cast<size_t>(k) == i;
        for (const auto& t : r.pin[i].tensors) {
            ir->in_shapes.push_back(t.shape);
            ir->gtensors.emplace_back(new gert::Tensor(t.shape, gert::StorageFormat(t.fmt, t.fmt), t.dt));
            if (depend && t.gm == nullptr && t.bytes)
                fail(kRun, "%s: input '%s' has no data, but the tiling of %s reads its values (%s)", r.path.c_str(),
                     t.name.c_str(), r.op_type.c_str(), r.ins[i]->value_depend_ != ops::IGNORE ? "ValueDepend" :
                     "TilingInputsDataDependency");
            if (depend) ir->gtensors.back()->OpkitSetData(t.gm, t.bytes);
        }
    }
}

inline void BuildIrContext(const Request& r, IrContext* ir) {
    BuildNode(r, &ir->node);
    InputTensors(r, ir);
}

}  // namespace host
}  // namespace opkit
