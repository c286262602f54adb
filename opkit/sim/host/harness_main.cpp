// opkit simulator harness: the generic main() of one operator x chip x dtype-column executable.
//
//   harness describe                      print the registered OpDef(s) as one JSON object
//   harness run REQUEST.json [...]        InferShape, InferDataType, tiling, launch, write outputs
//   harness tiling REQUEST.json [...]     InferShape, InferDataType and tiling only (no kernel needed)
//
// Linked with the package's op_host/*.cpp, its kernel and a generated shim that defines
// opkit_launch_kernel(). The request/result contract is documented in README.md next to this file.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ascendc/host_api/tiling/template_argument.h"
#include "json.h"
#include "platform/platform_info.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "symbols.h"
#include "opkit_sim_runtime.h"  // the GM allocation table behind AscendC::GmAlloc/GmFree
#include "tiling/platform/platform_ascendc.h"

// Weak: a harness linked without a kernel (host sources only) still describes its OpDefs, e.g. so
// that the build can read TilingData layouts before it compiles the kernel; `run` then refuses.
extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args) __attribute__((weak));
extern "C" void opkit_harness_anchor() {}

namespace opkit {
namespace host {
namespace {

using json::Value;

// ------------------------------------------------------------------------------------------
// Names of dtypes and formats (the spec's spelling).
struct DtName {
    const char* name;
    ge::DataType dt;
};
const DtName kDtypes[] = {
    {"float16", ge::DT_FLOAT16}, {"bfloat16", ge::DT_BF16}, {"float32", ge::DT_FLOAT}, {"float64", ge::DT_DOUBLE},
    {"int8", ge::DT_INT8},       {"uint8", ge::DT_UINT8},   {"int16", ge::DT_INT16},   {"uint16", ge::DT_UINT16},
    {"int32", ge::DT_INT32},     {"uint32", ge::DT_UINT32}, {"int64", ge::DT_INT64},   {"uint64", ge::DT_UINT64},
    {"bool", ge::DT_BOOL},       {"int4", ge::DT_INT4},     {"hifloat8", ge::DT_HIFLOAT8},
    {"float8_e5m2", ge::DT_FLOAT8_E5M2}, {"float8_e4m3fn", ge::DT_FLOAT8_E4M3FN}, {"float8_e8m0", ge::DT_FLOAT8_E8M0},
    {"complex64", ge::DT_COMPLEX64},
};
struct FmtName {
    const char* name;
    ge::Format f;
};
const FmtName kFormats[] = {
    {"ND", ge::FORMAT_ND},           {"NCHW", ge::FORMAT_NCHW},       {"NHWC", ge::FORMAT_NHWC},
    {"HWCN", ge::FORMAT_HWCN},       {"NC1HWC0", ge::FORMAT_NC1HWC0}, {"FRACTAL_Z", ge::FORMAT_FRACTAL_Z},
    {"FRACTAL_NZ", ge::FORMAT_FRACTAL_NZ}, {"NCDHW", ge::FORMAT_NCDHW}, {"NDHWC", ge::FORMAT_NDHWC},
    {"NC", ge::FORMAT_NC},           {"NCL", ge::FORMAT_NCL},         {"FRACTAL_ZZ", ge::FORMAT_FRACTAL_ZZ},
    {"NDC1HWC0", ge::FORMAT_NDC1HWC0}, {"FRACTAL_Z_3D", ge::FORMAT_FRACTAL_Z_3D},
};

std::string DtypeName(ge::DataType t) {
    for (const auto& d : kDtypes)
        if (d.dt == t) return d.name;
    return "DT_" + std::to_string(static_cast<int>(t));
}
bool ParseDtype(const std::string& s, ge::DataType* out) {
    for (const auto& d : kDtypes)
        if (s == d.name) { *out = d.dt; return true; }
    return false;
}
std::string FormatName(ge::Format f) {
    for (const auto& d : kFormats)
        if (d.f == f) return d.name;
    return "FORMAT_" + std::to_string(static_cast<int>(f));
}
bool ParseFormat(const std::string& s, ge::Format* out) {
    for (const auto& d : kFormats)
        if (s == d.name) { *out = d.f; return true; }
    return false;
}
const char* OptionName(ops::Option o) {
    switch (o) {
        case ops::REQUIRED: return "required";
        case ops::OPTIONAL: return "optional";
        case ops::DYNAMIC: return "dynamic";
        default: return "ignore";
    }
}

// ------------------------------------------------------------------------------------------
// The registered operators.
struct OpInfo {
    ops::OpDef def;
    ImplEntry* impl = nullptr;
};

std::vector<OpInfo>& Ops() {
    static std::vector<OpInfo> v;
    return v;
}

// Builds every OP_ADD'ed OpDef and merges its functions into the IMPL_OP registry.
void LoadOps() {
    for (auto& e : ops::OpDefFactory::Registry()) {
        ops::OpDef d = e.second(e.first.c_str());
        ImplEntry& im = Impls()[d.type_];
        im.infer_shape.Set(d.infer_shape_, "OpDef " + d.type_ + " SetInferShape");
        im.infer_dtype.Set(d.infer_dtype_, "OpDef " + d.type_ + " SetInferDataType");
        im.tiling.Set(d.aicore_.tiling_, "OpDef " + d.type_ + " AICore().SetTiling");
        Ops().push_back(OpInfo{d, nullptr});
    }
    for (auto& o : Ops()) o.impl = &Impls()[o.def.type_];
}

std::string NameOf(const void* fn, const std::string& role) {
    std::string n = FunctionName(fn);
    return n.empty() ? role : n;
}

// ------------------------------------------------------------------------------------------
// Dtype/format columns: column k of every parameter together is one supported combination.
struct Columns {
    size_t n = 0;
    std::vector<std::vector<ge::DataType>> dt;  // [param][column]
    std::vector<std::vector<ge::Format>> fmt;   // [param][column]
};

// Follow("other"[, type]): a parameter without its own DataType/Format takes the other's.
std::vector<ops::OpParamDef> ResolveFollow(const std::string& op, const std::vector<const ops::OpParamDef*>& in) {
    std::vector<ops::OpParamDef> ps;
    for (const auto* p : in) ps.push_back(*p);
    for (size_t round = 0; round < ps.size(); ++round)
        for (auto& p : ps) {
            if (p.follow_.empty()) continue;
            const ops::OpParamDef* src = nullptr;
            for (const auto& q : ps)
                if (src == nullptr && &q != &p && q.name_ == p.follow_) src = &q;  // the first: an input before an output
            if (src == nullptr || src == &p)
                fail("OpDef", "%s: '%s' follows '%s', which is not another input or output", op.c_str(), p.name_.c_str(), p.follow_.c_str());
            const bool all = p.follow_type_ == ops::FollowType::ALL || p.follow_type_ == ops::FollowType::INVALID_TYPE;
            if ((all || p.follow_type_ == ops::FollowType::DTYPE) && p.dtypes_.empty()) {
                p.dtypes_ = src->dtypes_;
                p.dtype_list_ = src->dtype_list_;
            }
            if ((all || p.follow_type_ == ops::FollowType::FORMAT) && p.formats_.empty()) {
                p.formats_ = src->formats_;
                p.format_list_ = src->format_list_;
            }
        }
    return ps;
}

Columns ExpandColumns(const std::string& op, const std::vector<const ops::OpParamDef*>& declared) {
    const std::vector<ops::OpParamDef> resolved = ResolveFollow(op, declared);
    std::vector<const ops::OpParamDef*> ps;
    for (const auto& p : resolved) ps.push_back(&p);
    Columns c;
    size_t base = 0;
    const ops::OpParamDef* first = nullptr;
    for (const auto* p : ps) {
        if (p->dtype_list_) continue;
        if (p->dtypes_.empty()) fail("OpDef", "%s: parameter '%s' declares no DataType", op.c_str(), p->name_.c_str());
        if (base == 0) { base = p->dtypes_.size(); first = p; }
        else if (p->dtypes_.size() != base)
            fail("OpDef", "%s: DataType of '%s' has %zu entries, DataType of '%s' has %zu; the lists are read column by column "
                 "and must have one length", op.c_str(), p->name_.c_str(), p->dtypes_.size(), first->name_.c_str(), base);
    }
    if (base == 0) base = 1;
    // DataTypeList params with several types multiply the columns (every combination).
    std::vector<size_t> mult(ps.size(), 1);
    size_t n = base;
    for (size_t i = 0; i < ps.size(); ++i)
        if (ps[i]->dtype_list_) {
            if (ps[i]->dtypes_.empty()) fail("OpDef", "%s: DataTypeList of '%s' is empty", op.c_str(), ps[i]->name_.c_str());
            mult[i] = ps[i]->dtypes_.size();
            n *= mult[i];
        }
    c.n = n;
    c.dt.assign(ps.size(), std::vector<ge::DataType>(n));
    c.fmt.assign(ps.size(), std::vector<ge::Format>(n, ge::FORMAT_ND));
    for (size_t col = 0; col < n; ++col) {
        size_t rest = col;
        std::vector<size_t> pick(ps.size(), 0);
        for (size_t i = ps.size(); i-- > 0;)
            if (ps[i]->dtype_list_) { pick[i] = rest % mult[i]; rest /= mult[i]; }
        const size_t b = rest;
        for (size_t i = 0; i < ps.size(); ++i) {
            const auto* p = ps[i];
            c.dt[i][col] = p->dtype_list_ ? p->dtypes_[pick[i]] : p->dtypes_[b];
            if (p->formats_.empty()) continue;
            if (p->format_list_) {
                if (p->formats_.size() != 1)
                    fail("OpDef", "%s: FormatList of '%s' has %zu formats; opkit simulates FormatList with one format",
                         op.c_str(), p->name_.c_str(), p->formats_.size());
                c.fmt[i][col] = p->formats_[0];
            } else if (p->dtype_list_) {
                if (p->formats_.size() != 1 && p->formats_.size() != p->dtypes_.size())
                    fail("OpDef", "%s: Format of '%s' has %zu entries for %zu DataTypeList types", op.c_str(),
                         p->name_.c_str(), p->formats_.size(), p->dtypes_.size());
                c.fmt[i][col] = p->formats_.size() == 1 ? p->formats_[0] : p->formats_[pick[i]];
            } else {
                if (p->formats_.size() != p->dtypes_.size())
                    fail("OpDef", "%s: Format of '%s' has %zu entries, its DataType %zu", op.c_str(), p->name_.c_str(),
                         p->formats_.size(), p->dtypes_.size());
                c.fmt[i][col] = p->formats_[b];
            }
        }
    }
    return c;
}

// The parameters in force for one SoC key: the OpDef's, with those an AddConfig(soc, cfg)
// redefines replaced (matched by name).
void ParamsFor(const ops::OpDef& d, const std::string& soc, std::vector<const ops::OpParamDef*>* ins,
               std::vector<const ops::OpParamDef*>* outs) {
    const ops::OpAICoreConfig* cfg = nullptr;
    for (const auto& c : d.aicore_.configs_)
        if (c.first == soc) cfg = &c.second;
    auto pick = [&](const std::vector<ops::OpParamDef>& base, const std::vector<ops::OpParamDef>* over,
                    std::vector<const ops::OpParamDef*>* out) {
        for (const auto& p : base) {
            const ops::OpParamDef* use = &p;
            if (over)
                for (const auto& q : *over)
                    if (q.name_ == p.name_) use = &q;
            out->push_back(use);
        }
    };
    // An OpDef may declare its tensors only per SoC (FlashAttentionScore: AddConfig(soc, cfg) with
    // cfg.Input/Output and none on the OpDef): those are the op's tensors (the first such config's when
    // no SoC is named).
    const std::vector<ops::OpParamDef>* base_in = &d.inputs_;
    const std::vector<ops::OpParamDef>* base_out = &d.outputs_;
    if (d.inputs_.empty() && d.outputs_.empty()) {
        const ops::OpAICoreConfig* src = cfg;
        for (const auto& c : d.aicore_.configs_)
            if (!src && (!c.second.inputs_.empty() || !c.second.outputs_.empty())) src = &c.second;
        if (src) { base_in = &src->inputs_; base_out = &src->outputs_; }
    }
    pick(*base_in, cfg ? &cfg->inputs_ : nullptr, ins);
    pick(*base_out, cfg ? &cfg->outputs_ : nullptr, outs);
}

// ------------------------------------------------------------------------------------------
// describe
std::string AttrDefault(const ops::OpAttrDef& a) {
    if (!a.has_default_) return "null";
    std::ostringstream o;
    if (a.kind_ == "bool") return a.b_ ? "true" : "false";
    if (a.kind_ == "int") return std::to_string(a.i_);
    if (a.kind_ == "float") return json::number(a.f_);
    if (a.kind_ == "string") return json::quote(a.s_);
    auto list = [](const auto& v, auto f) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + f(v[i]);
        return s + "]";
    };
    if (a.kind_ == "list_bool") return list(a.lb_, [](bool x) { return std::string(x ? "true" : "false"); });
    if (a.kind_ == "list_int") return list(a.li_, [](int64_t x) { return std::to_string(x); });
    if (a.kind_ == "list_float") return list(a.lf_, [](float x) { return json::number(x); });
    if (a.kind_ == "list_list_int")
        return list(a.lli_, [&](const std::vector<int64_t>& v) { return list(v, [](int64_t x) { return std::to_string(x); }); });
    return "null";
}

std::string ParamJson(const ops::OpParamDef& p, const Columns& c, size_t idx, const std::string& ind) {
    std::string s = ind + "{\"name\": " + json::quote(p.name_) + ", \"param_type\": \"" + OptionName(p.param_type_) + "\", \"dtypes\": [";
    for (size_t k = 0; k < c.n; ++k) s += (k ? ", " : "") + json::quote(DtypeName(c.dt[idx][k]));
    s += "], \"formats\": [";
    for (size_t k = 0; k < c.n; ++k) s += (k ? ", " : "") + json::quote(FormatName(c.fmt[idx][k]));
    s += "]";
    if (p.dtype_list_) s += ", \"dtype_list\": true";
    if (p.value_depend_ != ops::IGNORE) s += std::string(", \"value_depend\": \"") + OptionName(p.value_depend_) + "\"";
    if (p.auto_contiguous_) s += ", \"auto_contiguous\": true";
    if (p.ignore_contiguous_) s += ", \"ignore_contiguous\": true";
    if (p.scalar_) s += ", \"scalar\": true";
    if (p.shape_depend_on_compute_) s += ", \"output_shape_depend_on_compute\": true";
    if (p.has_init_) s += ", \"init_value\": " + std::to_string(p.init_value_);
    if (!p.follow_.empty()) s += ", \"follow\": " + json::quote(p.follow_);
    return s + "}";
}

void Describe() {
    std::string s = "{\n  \"ops\": [";
    bool first_op = true;
    for (const auto& o : Ops()) {
        const ops::OpDef& d = o.def;
        std::vector<const ops::OpParamDef*> ins, outs;
        ParamsFor(d, "", &ins, &outs);
        std::vector<const ops::OpParamDef*> all(ins);
        all.insert(all.end(), outs.begin(), outs.end());
        Columns c = ExpandColumns(d.type_, all);
        s += first_op ? "\n" : ",\n";
        first_op = false;
        s += "    {\n      \"op_type\": " + json::quote(d.type_) + ",\n      \"inputs\": [";
        for (size_t i = 0; i < ins.size(); ++i) s += (i ? ",\n" : "\n") + ParamJson(*ins[i], c, i, "        ");
        s += std::string(ins.empty() ? "" : "\n      ") + "],\n      \"outputs\": [";
        for (size_t i = 0; i < outs.size(); ++i) s += (i ? ",\n" : "\n") + ParamJson(*outs[i], c, ins.size() + i, "        ");
        s += std::string(outs.empty() ? "" : "\n      ") + "],\n      \"attrs\": [";
        for (size_t i = 0; i < d.attrs_.size(); ++i) {
            const auto& a = d.attrs_[i];
            if (a.kind_.empty()) fail("OpDef", "%s: attribute '%s' has no type (call .Int(), .Float(), ...)", d.type_.c_str(), a.name_.c_str());
            s += std::string(i ? ",\n" : "\n") + "        {\"name\": " + json::quote(a.name_) + ", \"type\": \"" + a.kind_ +
                 "\", \"required\": " + (a.required_ ? "true" : "false") + ", \"default\": " + AttrDefault(a) + "}";
        }
        s += std::string(d.attrs_.empty() ? "" : "\n      ") + "],\n      \"columns\": " + std::to_string(c.n) + ",\n      \"socs\": [";
        for (size_t i = 0; i < d.aicore_.configs_.size(); ++i) s += (i ? ", " : "") + json::quote(d.aicore_.configs_[i].first);
        s += "],\n      \"soc_configs\": {";
        for (size_t i = 0; i < d.aicore_.configs_.size(); ++i) {
            const auto& cfg = d.aicore_.configs_[i].second;
            s += std::string(i ? ", " : "") + json::quote(d.aicore_.configs_[i].first) + ": {";
            for (size_t k = 0; k < cfg.cfg_.size(); ++k)
                s += (k ? ", " : "") + json::quote(cfg.cfg_[k].first) + ": " + json::quote(cfg.cfg_[k].second);
            if (!cfg.inputs_.empty() || !cfg.outputs_.empty()) {
                s += std::string(cfg.cfg_.empty() ? "" : ", ") + "\"params\": [";
                bool f = true;
                for (const auto* v : {&cfg.inputs_, &cfg.outputs_})
                    for (const auto& p : *v) {
                        s += (f ? "" : ", ") + json::quote(p.name_);
                        f = false;
                    }
                s += "]";
            }
            s += "}";
        }
        s += "},\n      \"unsimulated_hooks\": [";
        for (size_t i = 0; i < d.aicore_.hooks_.size(); ++i) s += (i ? ", " : "") + json::quote(d.aicore_.hooks_[i]);
        s += "],\n      \"hccl_groups\": [";
        for (size_t i = 0; i < d.mc2_.groups_.size(); ++i) s += (i ? ", " : "") + json::quote(d.mc2_.groups_[i]);
        const ImplEntry& im = *o.impl;
        auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
        s += "],\n      \"has_tiling\": " + flag(im.tiling.fn != nullptr) + ",\n      \"has_infershape\": " +
             flag(im.infer_shape.fn != nullptr) + ",\n      \"has_inferdatatype\": " +
             flag(im.infer_dtype.fn != nullptr || im.dtype_same_as_first_input) + ",\n      \"has_tiling_parse\": " +
             flag(im.tiling_parse.fn != nullptr);
        s += ",\n      \"tiling_data_dependency\": [";  // inputs (IR index) whose values the tiling reads
        for (size_t i = 0; i < im.data_dependency.size(); ++i) s += (i ? ", " : "") + std::to_string(im.data_dependency[i]);
        s += "]";
        auto it = TilingClassOfOp().find(d.type_);
        s += ",\n      \"tiling_data_class\": " + (it == TilingClassOfOp().end() ? std::string("null") : json::quote(it->second));
        s += "\n    }";
    }
    s += std::string(Ops().empty() ? "" : "\n  ") + "],\n  \"tiling_data_classes\": [";
    bool first = true;
    for (const auto& kv : TilingLayouts()) {
        const TilingLayout& l = kv.second;
        s += std::string(first ? "\n" : ",\n") + "    {\"class\": " + json::quote(l.cls) + ", \"size\": " + std::to_string(l.size) +
             ", \"fields\": [";
        first = false;
        for (size_t i = 0; i < l.fields.size(); ++i) {
            const auto& f = l.fields[i];
            s += std::string(i ? ", " : "") + "{\"name\": " + json::quote(f.name) + ", \"kind\": \"" + f.kind + "\", \"type\": " +
                 json::quote(f.dtype) + ", \"offset\": " + std::to_string(f.offset) + ", \"size\": " + std::to_string(f.size) +
                 (f.kind == "array" ? ", \"count\": " + std::to_string(f.count) : std::string()) + "}";
        }
        s += "]}";
    }
    s += std::string(TilingLayouts().empty() ? "" : "\n  ") + "],\n  \"tiling_data_registrations\": {";
    // REGISTER_TILING_DATA_CLASS(OpType, Cls) and its per-tiling-key form (OpType_<key>, Cls).
    first = true;
    for (const auto& kv : TilingClassOfOp()) {
        s += std::string(first ? "" : ", ") + json::quote(kv.first) + ": " + json::quote(kv.second);
        first = false;
    }
    s += "},\n  \"tiling_key_templates\": [";
    auto params = [](const std::vector<opkit::tpl::Param>& ps, bool with_bits) {
        std::string o = "[";
        for (size_t i = 0; i < ps.size(); ++i) {
            o += std::string(i ? ", " : "") + "{\"name\": " + json::quote(ps[i].name) + ", \"type\": \"" +
                 opkit::tpl::TypeName(ps[i].type) + "\"" +
                 (with_bits ? ", \"bit_width\": " + std::to_string(ps[i].bits) : std::string()) + ", \"values\": [";
            for (size_t k = 0; k < ps[i].vals.size(); ++k) o += (k ? ", " : "") + std::to_string(ps[i].vals[k]);
            o += "]}";
        }
        return o + "]";
    };
    for (size_t i = 0; i < opkit::tpl::Templates().size(); ++i) {
        const auto& t = *opkit::tpl::Templates()[i];
        s += std::string(i ? ",\n" : "\n") + "    {\"op_type\": " + json::quote(t.op) + ", \"params\": " + params(t.params, true) +
             ", \"selections\": [";
        for (size_t k = 0; k < t.sels.size(); ++k) s += (k ? ", " : "") + params(t.sels[k], false);
        s += "]}";
    }
    s += std::string(opkit::tpl::Templates().empty() ? "" : "\n  ") + "]\n}\n";
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
}

// ------------------------------------------------------------------------------------------
// run
const char* kRun = "harness run";

std::string ReadFile(const std::string& path, const std::string& what) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(kRun, "%s: cannot read '%s': %s", what.c_str(), path.c_str(), std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

const Value& Need(const Value& obj, const char* key, const std::string& where) {
    const Value* v = obj.find(key);
    if (v == nullptr) fail(kRun, "%s: missing \"%s\"", where.c_str(), key);
    return *v;
}
int64_t Int(const Value& v, const std::string& where) {
    if (!v.is_integer()) fail(kRun, "%s: expected an integer, got %s", where.c_str(), v.type == Value::Number ? v.text.c_str() : "a non-number");
    return std::strtoll(v.text.c_str(), nullptr, 10);
}
uint64_t ChipInt(const Value& chip, std::initializer_list<const char*> keys, bool required, uint64_t dflt = 0) {
    for (const char* k : keys) {
        const Value* v = chip.find(k);
        if (v && !v->is_null()) return static_cast<uint64_t>(Int(*v, std::string("chip.") + k));
    }
    if (required) fail(kRun, "request chip: missing \"%s\"", *keys.begin());
    return dflt;
}
std::string ChipStr(const Value& chip, const char* key) {
    const Value* v = chip.find(key);
    return v && v->type == Value::String ? v->text : std::string();
}

// fe::PlatFormInfos from the request's chip (field set of opkit/data/socs.yaml).
void BuildPlatform(const Value& chip, fe::PlatFormInfos* p, std::string* soc_key, std::string* chip_name) {
    *chip_name = ChipStr(chip, "name");
    *soc_key = ChipStr(chip, "opdef_key");
    std::string version = ChipStr(chip, "soc_version");
    std::string full = ChipStr(chip, "soc_short");
    if (!version.empty() && version.compare(0, 6, "Ascend") == 0 && full.empty()) full = version;  // "Ascend910B2"
    const uint64_t arch = ChipInt(chip, {"arch", "npu_arch"}, true);
    // Short SoC version (the ini's version.Short_SoC_version), from the OpDef key or the chip name.
    std::string key = soc_key->empty() ? *chip_name : *soc_key;
    std::string shortv;
    if (key.compare(0, 12, "ascend910_93") == 0) shortv = "Ascend910_93";
    else if (key.compare(0, 10, "ascend910b") == 0) shortv = "Ascend910B";
    else if (key.compare(0, 10, "ascend310p") == 0) shortv = "Ascend310P";
    else if (key.compare(0, 10, "ascend310b") == 0) shortv = "Ascend310B";
    else if (key.compare(0, 9, "ascend950") == 0) shortv = "Ascend950";
    else if (version == "ASCEND910B") shortv = "Ascend910B";
    else if (version == "ASCEND910_93") shortv = "Ascend910_93";
    else if (version == "ASCEND310P") shortv = "Ascend310P";
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

gert::Shape ShapeOf(const Value& v, const std::string& where) {
    if (v.type != Value::Array) fail(kRun, "%s: shape must be a list of integers", where.c_str());
    gert::Shape s;
    if (v.items.size() > gert::Shape::kMaxDimNum) fail(kRun, "%s: %zu dimensions, at most 25", where.c_str(), v.items.size());
    for (const auto& d : v.items) {
        int64_t x = Int(d, where);
        if (x < 0) fail(kRun, "%s: negative dimension %lld", where.c_str(), static_cast<long long>(x));
        s.AppendDim(x);
    }
    return s;
}
std::string ShapeStr(const gert::Shape& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) o += (i ? ", " : "") + std::to_string(s.GetDim(i));
    return o + "]";
}

struct Tensor {
    std::string name;
    ge::DataType dt = ge::DT_UNDEFINED;
    ge::Format fmt = ge::FORMAT_ND;
    gert::StorageShape shape;
    std::string file;
    void* gm = nullptr;  // GM allocation (inputs: filled from the file when the request is read)
    uint64_t bytes = 0;
    std::string result_file;  // an input the kernel writes in place: its bytes after the launch go here
    int ref = -1;  // an output in GE's reference form: the IR index of the input whose buffer it is
};

struct IrParam {
    std::string name;
    bool present = true;
    bool dynamic = false;
    ge::DataType dt = ge::DT_UNDEFINED;
    ge::Format fmt = ge::FORMAT_ND;
    std::vector<Tensor> tensors;
};

// GE's reference form: an output named like an input is that input's tensor (the kernel gets its buffer twice).
void ResolveRefs(const std::vector<IrParam>& pin, std::vector<IrParam>* pout) {
    for (auto& p : *pout) {
        Tensor& t = p.tensors[0];
        if (t.ref < 0) continue;
        t.ref = -1;
        for (size_t i = 0; i < pin.size(); ++i)
            if (pin[i].name == t.name) t.ref = static_cast<int>(i);
        if (t.ref < 0) fail(kRun, "output '%s': \"ref\" names no input of that name", t.name.c_str());
        const IrParam& in = pin[static_cast<size_t>(t.ref)];
        if (!in.present || in.dynamic)
            fail(kRun, "output '%s': its input (reference form) is %s", t.name.c_str(), in.present ? "a list" : "absent");
        if (in.dt != p.dt) fail(kRun, "output '%s' is %s, its input (reference form) %s", t.name.c_str(), DtypeName(p.dt).c_str(),
                                DtypeName(in.dt).c_str());
    }
}

uint64_t Bytes(const gert::Shape& s, ge::DataType dt, const std::string& where) {
    int sz = ge::GetSizeByDataType(dt);
    if (sz <= 0) fail(kRun, "%s: dtype %s has no byte size opkit can allocate", where.c_str(), DtypeName(dt).c_str());
    if (sz > ge::kDataTypeSizeBitOffset)  // packed sub-byte elements
        return (static_cast<uint64_t>(s.GetShapeSize()) * static_cast<uint64_t>(sz - ge::kDataTypeSizeBitOffset) + 7) / 8;
    return static_cast<uint64_t>(s.GetShapeSize()) * static_cast<uint64_t>(sz);
}

void* GmAllocNamed(uint64_t bytes, const std::string& name, bool zero = true);

// tiling_only: a tiling-only request may give an input's shape without its data ("file": null, "shape" given),
// and a dynamic (list) output as its number of tensors ("count", default 1).
void ReadParam(const Value& v, const ops::OpParamDef& def, bool is_input, const std::string& where, IrParam* out,
               bool tiling_only = false) {
    out->name = def.name_;
    const Value& nm = Need(v, "name", where);
    if (nm.text != def.name_)
        fail(kRun, "%s: is named '%s'; the OpDef's %s at this position is '%s'", where.c_str(), nm.text.c_str(),
             is_input ? "input" : "output", def.name_.c_str());
    const Value* file = v.find("file");
    const Value* given_shape = v.find("shape");
    const bool no_data = file == nullptr || file->is_null();
    const bool shape_only = tiling_only && is_input && no_data && given_shape != nullptr && !given_shape->is_null();
    const bool absent = is_input && no_data && !shape_only;
    if (absent) {
        if (def.param_type_ != ops::OPTIONAL)
            fail(kRun, "%s: no file given, but '%s' is a %s input", where.c_str(), def.name_.c_str(), OptionName(def.param_type_));
        out->present = false;
        return;
    }
    if (!ParseDtype(Need(v, "dtype", where).text, &out->dt)) fail(kRun, "%s: unknown dtype '%s'", where.c_str(), v.find("dtype")->text.c_str());
    const Value* fmt = v.find("format");
    if (fmt && !fmt->is_null() && !ParseFormat(fmt->text, &out->fmt)) fail(kRun, "%s: unknown format '%s'", where.c_str(), fmt->text.c_str());
    out->dynamic = def.param_type_ == ops::DYNAMIC;
    if (!is_input && out->dynamic) {
        if (!tiling_only) fail(kRun, "%s: dynamic (list) outputs are not supported by the opkit harness yet", where.c_str());
        const Value* cnt = v.find("count");
        const int64_t n = cnt && !cnt->is_null() ? Int(*cnt, where + " count") : 1;
        if (n < 1 || n > 1024) fail(kRun, "%s: count %lld: a dynamic output has 1 to 1024 tensors", where.c_str(), (long long)n);
        for (int64_t k = 0; k < n; ++k) {
            Tensor t;
            t.name = def.name_ + "[" + std::to_string(k) + "]";
            t.dt = out->dt;
            t.fmt = out->fmt;
            out->tensors.push_back(t);
        }
        return;
    }
    if (!is_input) {
        Tensor t;
        t.name = def.name_;
        t.dt = out->dt;
        t.fmt = out->fmt;
        t.file = Need(v, "file", where).text;
        if (const Value* ref = v.find("ref"); ref && !ref->is_null()) {
            if (ref->type != Value::String || ref->text != def.name_)
                fail(kRun, "%s: \"ref\" must name the input of the same name ('%s')", where.c_str(), def.name_.c_str());
            t.ref = 0;  // resolved to the input's index by ResolveRefs
        }
        const Value* sh = v.find("shape");
        if (sh && !sh->is_null()) {
            gert::Shape s = ShapeOf(*sh, where + " shape");
            t.shape.MutableOriginShape() = s;
            t.shape.MutableStorageShape() = s;
            t.bytes = 1;  // marks "shape given"
        }
        out->tensors.push_back(t);
        return;
    }
    const Value& sh = Need(v, "shape", where);
    std::vector<std::string> files;
    std::vector<gert::Shape> shapes;
    if (out->dynamic) {
        if (sh.type != Value::Array || (!shape_only && (file->type != Value::Array || file->items.size() != sh.items.size())))
            fail(kRun, "%s: a dynamic input takes a list of files and a list of shapes of the same length", where.c_str());
        for (size_t k = 0; k < sh.items.size(); ++k) {
            shapes.push_back(ShapeOf(sh.items[k], where + " shape[" + std::to_string(k) + "]"));
            files.push_back(shape_only ? std::string() : file->items[k].text);
        }
    } else {
        if (!shape_only && file->type != Value::String) fail(kRun, "%s: \"file\" must be a path or null", where.c_str());
        shapes.push_back(ShapeOf(sh, where + " shape"));
        files.push_back(shape_only ? std::string() : file->text);
    }
    for (size_t k = 0; k < files.size(); ++k) {
        Tensor t;
        t.name = def.name_ + (out->dynamic ? "[" + std::to_string(k) + "]" : "");
        t.dt = out->dt;
        t.fmt = out->fmt;
        t.shape.MutableOriginShape() = shapes[k];
        t.shape.MutableStorageShape() = shapes[k];
        t.file = files[k];
        t.bytes = Bytes(shapes[k], t.dt, where);
        const Value* rf = v.find("result_file");
        if (rf && rf->type == Value::String && !out->dynamic) t.result_file = rf->text;
        if (shape_only) {  // no GM data: the tiling sees the shape (a value-depend input is refused later)
            out->tensors.push_back(std::move(t));
            continue;
        }
        // The file goes straight into the tensor's GM allocation (no intermediate copies).
        FILE* f = std::fopen(t.file.c_str(), "rb");
        if (!f) fail(kRun, "%s: cannot read '%s': %s", where.c_str(), t.file.c_str(), std::strerror(errno));
        long size = -1;
        if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
        if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) fail(kRun, "%s: cannot read '%s': %s", where.c_str(), t.file.c_str(), std::strerror(errno));
        if (static_cast<uint64_t>(size) != t.bytes)
            fail(kRun, "%s: '%s' has %ld bytes; shape %s of %s needs %llu", where.c_str(), t.file.c_str(), size,
                 ShapeStr(shapes[k]).c_str(), DtypeName(t.dt).c_str(), static_cast<unsigned long long>(t.bytes));
        // Large files are mapped (in trace-only mode, where data moves read nothing, not even prefaulted).
        t.gm = opkit::sim::gm_map_file(t.file.c_str(), t.bytes, ("input " + t.name).c_str(), !opkit::sim::trace_only());
        if (t.gm == nullptr) {
            t.gm = GmAllocNamed(t.bytes, "input " + t.name, /*zero=*/false);
            if (t.bytes && std::fread(t.gm, 1, t.bytes, f) != t.bytes)
                fail(kRun, "%s: reading '%s' failed", where.c_str(), t.file.c_str());
        }
        std::fclose(f);
        out->tensors.push_back(std::move(t));
    }
}

// Attribute values in OpDef order (request value, else the default), then PrivateAttr ones.
// An OpDef that declares no attribute takes them from the operator's graph IR (REG_OP) or its aclnn launch
// (OP_ATTR), neither of which opkit compiles (FlashAttentionScore is such an op): the request's attributes are
// those, in the request's (op.yaml's) order, each typed as the request says.
std::vector<ops::OpAttrDef> IrAttrs(const ops::OpDef& d, const Value* list) {
    std::vector<ops::OpAttrDef> out;
    if (!d.attrs_.empty() || list == nullptr || list->type != Value::Array) return out;
    for (const auto& a : list->items) {
        ops::OpAttrDef def(Need(a, "name", "request attr").text.c_str());
        def.kind_ = Need(a, "type", "request attr '" + def.name_ + "'").text;
        out.push_back(def);
    }
    return out;
}

void BuildAttrs(const ops::OpDef& d, const ImplEntry& im, const Value& req, gert::RuntimeAttrs* attrs) {
    const Value* list = req.find("attrs");
    const std::vector<ops::OpAttrDef> ir = IrAttrs(d, list);
    const std::vector<ops::OpAttrDef>& declared = d.attrs_.empty() ? ir : d.attrs_;
    std::map<std::string, const Value*> given;
    if (list && !list->is_null()) {
        if (list->type != Value::Array) fail(kRun, "request: \"attrs\" must be a list");
        for (const auto& a : list->items) {
            const std::string n = Need(a, "name", "request attr").text;
            bool known = false;
            for (const auto& da : declared) known = known || da.name_ == n;
            if (!known) fail(kRun, "request attr '%s': %s has no such attribute", n.c_str(), d.type_.c_str());
            given[n] = &a;
        }
    }
    for (const auto& a : declared) {
        const std::string where = "attribute '" + a.name_ + "'";
        if (a.kind_.empty()) fail("OpDef", "%s: %s has no type (call .Int(), .Float(), ...)", d.type_.c_str(), where.c_str());
        const Value* v = nullptr;
        auto it = given.find(a.name_);
        if (it != given.end()) {
            const Value* ty = it->second->find("type");
            if (ty && !ty->is_null() && ty->text != a.kind_)
                fail(kRun, "request %s: type '%s', the OpDef declares '%s'", where.c_str(), ty->text.c_str(), a.kind_.c_str());
            v = it->second->find("value");
            if (v && v->is_null()) v = nullptr;
        }
        if (v == nullptr && a.required_)  // an optional attribute without a default value takes its type's zero
            fail(kRun, "request: %s of %s is required and has no value", where.c_str(), d.type_.c_str());
        auto num = [&](const Value& x) {
            if (x.type != Value::Number) fail(kRun, "request %s: expected a number", where.c_str());
            return x;
        };
        auto arr = [&](const Value& x) -> const std::vector<Value>& {
            if (x.type != Value::Array) fail(kRun, "request %s: expected a list", where.c_str());
            return x.items;
        };
        if (a.kind_ == "bool") {
            if (v && v->type != Value::Bool) fail(kRun, "request %s: expected true or false", where.c_str());
            attrs->OpkitAddBool(a.name_, v ? v->b : a.b_);
        } else if (a.kind_ == "int") {
            attrs->OpkitAddInt(a.name_, v ? Int(num(*v), "request " + where) : a.i_);
        } else if (a.kind_ == "float") {
            attrs->OpkitAddFloat(a.name_, v ? static_cast<float>(num(*v).as_double()) : a.f_);
        } else if (a.kind_ == "string") {
            if (v && v->type != Value::String) fail(kRun, "request %s: expected a string", where.c_str());
            attrs->OpkitAddString(a.name_, v ? v->text : a.s_);
        } else if (a.kind_ == "list_int") {
            std::vector<int64_t> x;
            if (v) for (const auto& e : arr(*v)) x.push_back(Int(num(e), "request " + where));
            attrs->OpkitAddListInt(a.name_, v ? x : a.li_);
        } else if (a.kind_ == "list_float") {
            std::vector<float> x;
            if (v) for (const auto& e : arr(*v)) x.push_back(static_cast<float>(num(e).as_double()));
            attrs->OpkitAddListFloat(a.name_, v ? x : a.lf_);
        } else if (a.kind_ == "list_bool") {
            std::vector<bool> x;
            if (v) for (const auto& e : arr(*v)) {
                if (e.type != Value::Bool) fail(kRun, "request %s: expected a list of true/false", where.c_str());
                x.push_back(e.b);
            }
            attrs->OpkitAddListBool(a.name_, v ? x : a.lb_);
        } else if (a.kind_ == "list_list_int") {
            std::vector<std::vector<int64_t>> x;
            if (v) for (const auto& row : arr(*v)) {
                std::vector<int64_t> r;
                for (const auto& e : arr(row)) r.push_back(Int(num(e), "request " + where));
                x.push_back(r);
            }
            attrs->OpkitAddListListInt(a.name_, v ? x : a.lli_);
        }
    }
    for (const auto& p : im.private_attrs) {
        if (p.kind == "int") attrs->OpkitAddInt(p.name, p.i);
        else if (p.kind == "float") attrs->OpkitAddFloat(p.name, p.f);
        else if (p.kind == "bool") attrs->OpkitAddBool(p.name, p.b);
        else if (p.kind == "string") attrs->OpkitAddString(p.name, p.s);
        else if (p.kind == "list_int") attrs->OpkitAddListInt(p.name, p.li);
        else if (p.kind == "list_float") attrs->OpkitAddListFloat(p.name, p.lf);
    }
}

void WriteFile(const std::string& path, const void* data, size_t n, const std::string& what) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) fail(kRun, "%s: cannot write '%s': %s", what.c_str(), path.c_str(), std::strerror(errno));
    if (n && std::fwrite(data, 1, n, f) != n) fail(kRun, "%s: writing '%s' failed", what.c_str(), path.c_str());
    std::fclose(f);
}

// OpParamDef::InitValue(v): every element of the output holds v before the launch.
void InitOutput(const Tensor& t, uint64_t v) {
    const int sz = ge::GetSizeByDataType(t.dt);
    if (sz > ge::kDataTypeSizeBitOffset && v != 0)
        fail("OpParamDef::InitValue", "output '%s': InitValue(%llu) on the sub-byte type %s; opkit simulates only 0",
             t.name.c_str(), static_cast<unsigned long long>(v), DtypeName(t.dt).c_str());
    if (sz > ge::kDataTypeSizeBitOffset) return;  // zeros already
    const bool is_float = t.dt == ge::DT_FLOAT || t.dt == ge::DT_FLOAT16 || t.dt == ge::DT_BF16 || t.dt == ge::DT_DOUBLE;
    if (is_float && v != 0)
        fail("OpParamDef::InitValue", "output '%s': InitValue(%llu) on %s; opkit simulates 0 for float outputs",
             t.name.c_str(), static_cast<unsigned long long>(v), DtypeName(t.dt).c_str());
    auto* p = static_cast<uint8_t*>(t.gm);
    for (uint64_t off = 0; off + sz <= t.bytes; off += sz) std::memcpy(p + off, &v, sz);  // little-endian low bytes
}

// GmAlloc with a name: the simulator's GM diagnostics then say which tensor an access missed.
void* GmAllocNamed(uint64_t bytes, const std::string& name, bool zero) {
    return opkit::sim::gm_alloc(bytes, name.c_str(), zero);
}

// GM block of a dynamic (list) input as ListTensorDesc reads it: [byte offset of the pointer
// table][per tensor: (dim count | index << 32), dims...][pointers].
void* ListDescriptor(const IrParam& p, const std::string& where) {
    const size_t n = p.tensors.size();
    const size_t dims = n ? p.tensors[0].shape.GetStorageShape().GetDimNum() : 0;
    for (const auto& t : p.tensors)
        if (t.shape.GetStorageShape().GetDimNum() != dims)
            fail(kRun, "%s: the tensors of a dynamic input must have one rank (ListTensorDesc)", where.c_str());
    std::vector<uint64_t> w;
    w.push_back(0);
    for (size_t k = 0; k < n; ++k) {
        w.push_back(static_cast<uint64_t>(dims) | (static_cast<uint64_t>(k) << 32));
        for (size_t d = 0; d < dims; ++d) w.push_back(static_cast<uint64_t>(p.tensors[k].shape.GetStorageShape().GetDim(d)));
    }
    w[0] = w.size() * sizeof(uint64_t);
    for (const auto& t : p.tensors) w.push_back(reinterpret_cast<uint64_t>(t.gm));
    void* gm = GmAllocNamed(w.size() * sizeof(uint64_t), "input " + p.name + " (ListTensorDesc)");
    std::memcpy(gm, w.data(), w.size() * sizeof(uint64_t));
    return gm;
}

void WriteTilingResult(const std::string& path, const gert::TilingContext& tctx, const gert::TilingData& tiling_data,
                       const std::vector<IrParam>& pout, int column, const std::string& chip_name);

// One request: everything up to the tiling, then (tiling_only: `harness tiling`) the tiling's result, or the launch.
void RunOne(const std::string& path, bool tiling_only = false) {
    opkit::host::oplog::reset();  // a failure shows what the op logged during this request only
    const std::string text = ReadFile(path, "request");
    Value req;
    try {
        req = json::parse(text);
    } catch (const std::exception& e) {
        fail(kRun, "%s: not valid JSON: %s", path.c_str(), e.what());
    }
    if (req.type != Value::Object) fail(kRun, "%s: the request must be a JSON object", path.c_str());
    const std::string op_type = Need(req, "op_type", path).text;
    OpInfo* op = nullptr;
    for (auto& o : Ops())
        if (o.def.type_ == op_type) op = &o;
    if (op == nullptr) {
        std::string have;
        for (auto& o : Ops()) have += (have.empty() ? "" : ", ") + o.def.type_;
        fail(kRun, "%s: no OpDef registered for op type '%s' (OP_ADD registered: %s)", path.c_str(), op_type.c_str(),
             have.empty() ? "none" : have.c_str());
    }
    const ops::OpDef& d = op->def;
    ImplEntry& im = *op->impl;
    for (const auto* c : {&im.infer_shape.conflict, &im.infer_dtype.conflict, &im.tiling.conflict, &im.tiling_parse.conflict})
        if (!c->empty()) fail("registration", "%s: %s", op_type.c_str(), c->c_str());

    // The chip.
    fe::PlatFormInfos platform;
    std::string soc_key, chip_name;
    BuildPlatform(Need(req, "chip", path), &platform, &soc_key, &chip_name);
    if (!d.aicore_.configs_.empty()) {
        bool ok = false;
        std::string socs;
        for (const auto& c : d.aicore_.configs_) {
            ok = ok || c.first == soc_key;
            socs += (socs.empty() ? "" : ", ") + c.first;
        }
        if (!ok)
            fail("OpDef", "%s has no AICore().AddConfig(\"%s\") for chip %s (its SoCs: %s)", op_type.c_str(), soc_key.c_str(),
                 chip_name.c_str(), socs.c_str());
    }

    {
        // The kernel was compiled for one chip (soc_defines): the request must describe a chip with
        // the same architecture, UB capacity and system workspace.
        platform_ascendc::PlatformAscendC pa(&platform);
        uint64_t ub = 0;
        pa.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
        const unsigned arch = static_cast<unsigned>(pa.GetCurNpuArch());
        if (arch != static_cast<unsigned>(__NPU_ARCH__) || ub != static_cast<uint64_t>(OPKIT_SIM_UB_CAP) ||
            pa.GetLibApiWorkSpaceSize() != static_cast<uint32_t>(OPKIT_SIM_SYS_WORKSPACE))
            fail(kRun, "%s: chip %s (NPU arch %u, UB %llu, system workspace %u) does not match the chip this harness was "
                 "built for: %s (NPU arch %d, UB %llu, system workspace %llu)", path.c_str(), chip_name.c_str(), arch,
                 static_cast<unsigned long long>(ub), pa.GetLibApiWorkSpaceSize(), OPKIT_SIM_SOC, __NPU_ARCH__,
                 static_cast<unsigned long long>(OPKIT_SIM_UB_CAP), static_cast<unsigned long long>(OPKIT_SIM_SYS_WORKSPACE));
    }
    platform_ascendc::PlatformAscendCManager::OpkitSet(&platform);
    fe::PlatformInfoManager::Instance().current_ = &platform;
    // Inputs and outputs, checked against the OpDef and its columns.
    std::vector<const ops::OpParamDef*> ins, outs;
    ParamsFor(d, soc_key, &ins, &outs);
    const Value& rin = Need(req, "inputs", path);
    const Value& rout = Need(req, "outputs", path);
    if (rin.type != Value::Array || rin.items.size() != ins.size())
        fail(kRun, "%s: %zu inputs given, %s has %zu (%s)", path.c_str(), rin.items.size(), op_type.c_str(), ins.size(),
             "absent optional inputs are listed with \"file\": null");
    if (rout.type != Value::Array || rout.items.size() != outs.size())
        fail(kRun, "%s: %zu outputs given, %s has %zu", path.c_str(), rout.items.size(), op_type.c_str(), outs.size());
    std::vector<IrParam> pin(ins.size()), pout(outs.size());
    // Trace-only mode: bookkeeping, checks and the trace without arithmetic or data bytes.
    bool trace_only = false;
    if (const Value* to = req.find("trace_only")) {
        if (to->type == Value::Bool) trace_only = to->b;
        else if (!to->is_null()) fail(kRun, "%s: \"trace_only\" must be true, false or null", path.c_str());
    }
    opkit::sim::set_trace_only(trace_only);
    for (size_t i = 0; i < ins.size(); ++i)
        ReadParam(rin.items[i], *ins[i], true, "input '" + ins[i]->name_ + "'", &pin[i], tiling_only);
    for (size_t i = 0; i < outs.size(); ++i)
        ReadParam(rout.items[i], *outs[i], false, "output '" + outs[i]->name_ + "'", &pout[i], tiling_only);
    ResolveRefs(pin, &pout);
    std::vector<Tensor*> out_inst;  // every output tensor (a dynamic output has several in a tiling-only request)
    for (auto& p : pout)
        for (auto& t : p.tensors) out_inst.push_back(&t);
    std::vector<const ops::OpParamDef*> all(ins);
    all.insert(all.end(), outs.begin(), outs.end());
    Columns cols = ExpandColumns(op_type, all);
    int column = -1;
    for (size_t k = 0; k < cols.n && column < 0; ++k) {
        bool ok = true;
        for (size_t i = 0; i < all.size() && ok; ++i) {
            const IrParam& p = i < ins.size() ? pin[i] : pout[i - ins.size()];
            if (!p.present) continue;
            ok = cols.dt[i][k] == p.dt && cols.fmt[i][k] == p.fmt;
        }
        if (ok) column = static_cast<int>(k);
    }
    if (column < 0) {
        std::string got;
        for (size_t i = 0; i < all.size(); ++i) {
            const IrParam& p = i < ins.size() ? pin[i] : pout[i - ins.size()];
            if (p.present) got += (got.empty() ? "" : ", ") + p.name + "=" + DtypeName(p.dt) + "/" + FormatName(p.fmt);
        }
        fail("OpDef", "%s: the request's dtypes/formats (%s) match none of the %zu DataType/Format columns", op_type.c_str(),
             got.c_str(), cols.n);
    }

    // The node as the contexts see it.
    gert::ComputeNodeInfo node;
    node.type_ = op_type;
    node.name_ = op_type;
    std::vector<const Tensor*> in_inst;
    for (const auto& p : pin) {
        node.ir_inputs_.emplace_back(static_cast<uint32_t>(in_inst.size()), static_cast<uint32_t>(p.present ? p.tensors.size() : 0));
        node.ir_input_names_.push_back(p.name);
        for (const auto& t : p.tensors) {
            gert::CompileTimeTensorDesc td;
            td.SetDataType(t.dt);
            td.SetOriginFormat(t.fmt);
            td.SetStorageFormat(t.fmt);
            node.inputs_.push_back(td);
            in_inst.push_back(&t);
        }
    }
    for (const auto& p : pout) {
        node.ir_outputs_.emplace_back(static_cast<uint32_t>(node.outputs_.size()), static_cast<uint32_t>(p.tensors.size()));
        node.ir_output_names_.push_back(p.name);
        for (size_t k = 0; k < p.tensors.size(); ++k) {
            gert::CompileTimeTensorDesc td;
            td.SetDataType(p.dt);
            td.SetOriginFormat(p.fmt);
            td.SetStorageFormat(p.fmt);
            node.outputs_.push_back(td);
        }
    }
    BuildAttrs(d, im, req, &node.attrs_);

    // Input tensors: host data only for ValueDepend inputs (and TilingInputsDataDependency).
    std::vector<std::unique_ptr<gert::Tensor>> gtensors;
    std::vector<gert::StorageShape> in_shapes;
    in_shapes.reserve(in_inst.size());
    {
        size_t inst = 0;
        for (size_t ir = 0; ir < pin.size(); ++ir) {
            bool depend = ins[ir]->value_depend_ != ops::IGNORE;
            for (int32_t k : im.data_dependency) depend = depend || static_cast<size_t>(k) == ir;
            for (auto& t : pin[ir].tensors) {
                in_shapes.push_back(t.shape);
                gtensors.emplace_back(new gert::Tensor(t.shape, gert::StorageFormat(t.fmt, t.fmt), t.dt));
                if (depend && t.gm == nullptr && t.bytes)
                    fail(kRun, "%s: input '%s' has no data, but the tiling of %s reads its values (%s)", path.c_str(),
                         t.name.c_str(), op_type.c_str(), ins[ir]->value_depend_ != ops::IGNORE ? "ValueDepend" :
                         "TilingInputsDataDependency");
                if (depend) gtensors.back()->OpkitSetData(t.gm, t.bytes);
                ++inst;
            }
        }
    }

    // InferShape.
    std::vector<gert::Shape> out_shapes(out_inst.size());
    if (im.infer_shape.fn != nullptr) {
        gert::InferShapeContext ctx(&node);
        for (size_t i = 0; i < in_shapes.size(); ++i) {
            ctx.in_shapes_.push_back(&in_shapes[i].GetStorageShape());
            ctx.in_tensors_.push_back(gtensors[i].get());
        }
        for (auto& s : out_shapes) ctx.out_shapes_.push_back(&s);
        const uint32_t rc = im.infer_shape.fn(&ctx);
        if (rc != ge::GRAPH_SUCCESS)
            fail(NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + op_type).c_str(),
                 "InferShape of %s returned %u (ge::GRAPH_FAILED is %u)", op_type.c_str(), rc, ge::GRAPH_FAILED);
        for (size_t i = 0; i < out_inst.size(); ++i) {
            Tensor& t = *out_inst[i];
            if (t.bytes && t.shape.GetStorageShape() != out_shapes[i])
                fail(NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + op_type).c_str(),
                     "output '%s': InferShape gives %s, the request says %s", t.name.c_str(), ShapeStr(out_shapes[i]).c_str(),
                     ShapeStr(t.shape.GetStorageShape()).c_str());
            if (out_shapes[i].GetShapeSize() < 0)
                fail(NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + op_type).c_str(),
                     "output '%s': InferShape left an unknown dimension: %s", t.name.c_str(), ShapeStr(out_shapes[i]).c_str());
        }
    } else {
        for (size_t i = 0; i < out_inst.size(); ++i) {
            Tensor& t = *out_inst[i];
            if (!t.bytes)
                fail("registration", "%s registers no InferShape (OpDef SetInferShape or IMPL_OP(...).InferShape) and the "
                     "request gives no shape for output '%s'", op_type.c_str(), t.name.c_str());
            out_shapes[i] = t.shape.GetStorageShape();
        }
    }
    for (size_t i = 0; i < out_inst.size(); ++i) {  // a reference-form output is its input's tensor, shape included
        Tensor& t = *out_inst[i];
        if (t.ref < 0) continue;
        const gert::Shape& in_shape = pin[static_cast<size_t>(t.ref)].tensors[0].shape.GetStorageShape();
        if (im.infer_shape.fn != nullptr && out_shapes[i].GetDimNum() != 0 && out_shapes[i] != in_shape)
            fail(NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + op_type).c_str(),
                 "output '%s' is input '%s' (GE's reference form), of shape %s, but InferShape gives %s", t.name.c_str(),
                 t.name.c_str(), ShapeStr(in_shape).c_str(), ShapeStr(out_shapes[i]).c_str());
        out_shapes[i] = in_shape;
    }
    for (size_t i = 0; i < out_inst.size(); ++i) {
        Tensor& t = *out_inst[i];
        t.shape.MutableOriginShape() = out_shapes[i];
        t.shape.MutableStorageShape() = out_shapes[i];
        t.bytes = Bytes(out_shapes[i], t.dt, "output '" + t.name + "'");
    }

    // InferDataType.
    if (im.infer_dtype.fn != nullptr) {
        gert::InferDataTypeContext ctx(&node);
        ctx.out_dtypes_.assign(out_inst.size(), ge::DT_UNDEFINED);
        const uint32_t rc = im.infer_dtype.fn(&ctx);
        const std::string fn = NameOf(reinterpret_cast<const void*>(im.infer_dtype.fn), "InferDataType of " + op_type);
        if (rc != ge::GRAPH_SUCCESS) fail(fn.c_str(), "InferDataType of %s returned %u", op_type.c_str(), rc);
        for (size_t i = 0; i < out_inst.size(); ++i)
            if (ctx.out_dtypes_[i] != out_inst[i]->dt)
                fail(fn.c_str(), "output '%s': InferDataType gives %s, the request says %s", out_inst[i]->name.c_str(),
                     DtypeName(ctx.out_dtypes_[i]).c_str(), DtypeName(out_inst[i]->dt).c_str());
    } else if (im.dtype_same_as_first_input && !pin.empty() && pin[0].present) {
        for (size_t i = 0; i < pout.size(); ++i)
            if (pout[i].dt != pin[0].dt)
                fail("InferOutDataTypeSameWithFirstInput", "output '%s' is %s, the first input %s", pout[i].name.c_str(),
                     DtypeName(pout[i].dt).c_str(), DtypeName(pin[0].dt).c_str());
    }

    // TilingParse (compile info), then tiling.
    if (im.tiling.fn == nullptr)
        fail("registration", "%s registers no tiling function (OpDef AICore().SetTiling or IMPL_OP_OPTILING(...).Tiling)",
             op_type.c_str());
    std::unique_ptr<void, void (*)(void*)> compile_info(nullptr, [](void*) {});
    if (im.create_compile_info) {
        compile_info = std::unique_ptr<void, void (*)(void*)>(im.create_compile_info(), im.delete_compile_info);
        if (im.tiling_parse.fn) {
            gert::TilingParseContext pctx(&node);
            pctx.compile_info_ = compile_info.get();
            pctx.platform_ = &platform;
            const uint32_t rc = im.tiling_parse.fn(&pctx);
            if (rc != ge::GRAPH_SUCCESS)
                fail(NameOf(reinterpret_cast<const void*>(im.tiling_parse.fn), "TilingParse of " + op_type).c_str(),
                     "TilingParse of %s returned %u", op_type.c_str(), rc);
        }
    }
    const size_t capacity = im.max_tiling_data_size ? im.max_tiling_data_size : 2048;
    gert::TilingData tiling_data(capacity);
    std::vector<gert::StorageShape> out_storage(out_inst.size());
    gert::TilingContext tctx(&node);
    for (size_t i = 0; i < in_shapes.size(); ++i) {
        tctx.in_shapes_.push_back(&in_shapes[i]);
        tctx.in_tensors_.push_back(gtensors[i].get());
    }
    for (size_t i = 0; i < out_inst.size(); ++i) {
        out_storage[i] = out_inst[i]->shape;
        tctx.out_shapes_.push_back(&out_storage[i]);
    }
    tctx.platform_ = &platform;
    tctx.tiling_data_ = &tiling_data;
    tctx.compile_info_ = compile_info.get();
    const uint32_t trc = im.tiling.fn(&tctx);
    const std::string tfn = NameOf(reinterpret_cast<const void*>(im.tiling.fn), "tiling function of " + op_type);
    if (trc != ge::GRAPH_SUCCESS)
        fail(tfn.c_str(), "tiling of %s on %s returned %s%s%s", op_type.c_str(), chip_name.c_str(),
             trc == ge::GRAPH_FAILED ? "ge::GRAPH_FAILED" : std::to_string(trc).c_str(),
             tctx.opkit_note_.empty() ? "" : "; ", tctx.opkit_note_.c_str());
    if (!tctx.block_dim_set_) fail(tfn.c_str(), "tiling of %s succeeded without calling SetBlockDim", op_type.c_str());
    if (tctx.block_dim_ == 0) fail(tfn.c_str(), "tiling of %s set a block dim of 0", op_type.c_str());
    if (tctx.block_dim_ > 65535)
        fail(tfn.c_str(), "tiling of %s set a block dim of %u; a launch takes at most 65535 blocks", op_type.c_str(), tctx.block_dim_);
    if (tiling_data.GetDataSize() > capacity)
        fail(tfn.c_str(), "tiling data size %zu exceeds the buffer capacity %zu", tiling_data.GetDataSize(), capacity);
    uint64_t ws_bytes = 0;
    for (size_t i = 0; i < tctx.workspace_.GetSize(); ++i) ws_bytes += tctx.workspace_.GetData()[i];
    if (tiling_only) {
        WriteTilingResult(path, tctx, tiling_data, pout, column, chip_name);
        for (auto& p : pin)
            for (auto& t : p.tensors)
                if (t.gm) opkit::sim::gm_free(t.gm);
        platform_ascendc::PlatformAscendCManager::OpkitSet(nullptr);
        fe::PlatformInfoManager::Instance().current_ = nullptr;
        return;
    }

    // GM: inputs (a ListTensorDesc block per dynamic input), outputs, workspace, tiling.
    std::vector<void*> args;
    std::vector<void*> to_free;
    for (size_t ir = 0; ir < pin.size(); ++ir) {
        IrParam& p = pin[ir];
        if (!p.present) {
            args.push_back(nullptr);
            continue;
        }
        for (auto& t : p.tensors) to_free.push_back(t.gm);
        if (p.dynamic) {
            void* desc = ListDescriptor(p, "input '" + p.name + "'");
            to_free.push_back(desc);
            args.push_back(desc);
        } else {
            args.push_back(p.tensors[0].gm);
        }
    }
    for (size_t i = 0; i < pout.size(); ++i) {
        Tensor& t = pout[i].tensors[0];
        if (t.ref >= 0) {  // the input's buffer (freed with the inputs)
            t.gm = pin[static_cast<size_t>(t.ref)].tensors[0].gm;
            args.push_back(t.gm);
            continue;
        }
        t.gm = GmAllocNamed(t.bytes, "output " + t.name);
        if (outs[i]->has_init_) InitOutput(t, outs[i]->init_value_);
        to_free.push_back(t.gm);
        args.push_back(t.gm);
    }
    void* ws = ws_bytes ? GmAllocNamed(ws_bytes, "workspace") : nullptr;
    if (ws) to_free.push_back(ws);
    args.push_back(ws);
    const size_t tiling_bytes = tiling_data.GetDataSize();
    void* tiling_gm = tiling_bytes ? GmAllocNamed(tiling_bytes, "tiling data") : nullptr;
    if (tiling_gm) {
        std::memcpy(tiling_gm, tiling_data.GetData(), tiling_bytes);
        to_free.push_back(tiling_gm);
    }
    args.push_back(tiling_gm);

    // The cores the launch starts: the request's kernel type (KernelMetaType name), else the
    // simulator's default (vector cores, or SetKernelMode).
    {
        static const char* kTypes[] = {"AIV_ONLY", "AIC_ONLY", "MIX_AIV_1_0", "MIX_AIC_1_0", "MIX_AIC_1_1", "MIX_AIC_1_2"};
        const Value* kt = req.find("kernel_type");
        // A name, or {"default": name, "<tiling key>": name, ...} as KERNEL_TASK_TYPE(key, type) gives.
        if (kt && kt->type == Value::Object) {
            const Value* pick = kt->find(std::to_string(tctx.tiling_key_));
            if (pick == nullptr) pick = kt->find("default");
            kt = pick;
        }
        int type = -1;
        if (kt && !kt->is_null()) {
            std::string name = kt->text;
            if (name.compare(0, 12, "KERNEL_TYPE_") == 0) name = name.substr(12);
            for (int i = 0; i < 6; ++i)
                if (kt->type == Value::String && name == kTypes[i]) type = i;
            if (type < 0)
                fail(kRun, "%s: kernel_type '%s' is not one of AIV_ONLY, AIC_ONLY, MIX_AIV_1_0, MIX_AIC_1_0, MIX_AIC_1_1, "
                     "MIX_AIC_1_2", path.c_str(), kt->text.c_str());
        }
        opkit::sim::set_kernel_type(type);
    }

    // Launch (the trace file, if any, is written by the simulator at the end of the launch).
    const Value* trace = req.find("trace");
    if (trace && trace->type == Value::String && !trace->text.empty()) setenv("OPKIT_SIM_TRACE", trace->text.c_str(), 1);
    const int lrc = opkit_launch_kernel(tctx.block_dim_, tctx.tiling_key_, args.data(), static_cast<int>(args.size()));
    if (lrc != 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(lrc);
    }

    // Outputs and the result (an in-place input's bytes too).
    if (!trace_only)
        for (auto& p : pin)
            for (auto& t : p.tensors)
                if (!t.result_file.empty()) WriteFile(t.result_file, t.gm, t.bytes, "in-place input '" + t.name + "'");
    std::string shapes;
    for (auto& p : pout) {
        Tensor& t = p.tensors[0];
        if (!trace_only) WriteFile(t.file, t.gm, t.bytes, "output '" + t.name + "'");  // a trace-only run has no results
        shapes += (shapes.empty() ? "" : ", ") + json::quote(t.name) + ": " + ShapeStr(t.shape.GetStorageShape());
    }
    static const char* hexd = "0123456789abcdef";
    std::string hex;
    const auto* tb = static_cast<const uint8_t*>(tiling_data.GetData());
    for (size_t i = 0; i < tiling_bytes; ++i) {
        hex += hexd[tb[i] >> 4];
        hex += hexd[tb[i] & 15];
    }
    std::string res = "{\"output_shapes\": {" + shapes + "}, \"block_dim\": " + std::to_string(tctx.block_dim_) +
                      ", \"tiling_key\": " + std::to_string(tctx.tiling_key_) + ", \"workspace_bytes\": " + std::to_string(ws_bytes) +
                      ", \"tiling_bytes\": " + std::to_string(tiling_bytes) + ", \"tiling_data_hex\": \"" + hex + "\"" +
                      ", \"column\": " + std::to_string(column) + ", \"schedule_mode\": " + std::to_string(tctx.schedule_mode_) +
                      ", \"chip\": " + json::quote(chip_name) + ", \"trace_only\": " + (trace_only ? "true" : "false") + "}\n";
    WriteFile(path + ".result.json", res.data(), res.size(), "result");
    for (void* p : to_free) opkit::sim::gm_free(p);
    opkit::sim::set_trace_only(false);
    platform_ascendc::PlatformAscendCManager::OpkitSet(nullptr);
    fe::PlatformInfoManager::Instance().current_ = nullptr;
}

// `harness tiling`: what the tiling decided, written to REQUEST.json.result.json (the kernel is not launched).
void WriteTilingResult(const std::string& path, const gert::TilingContext& tctx, const gert::TilingData& tiling_data,
                       const std::vector<IrParam>& pout, int column, const std::string& chip_name) {
    std::string shapes, ws;
    for (const auto& p : pout) {
        std::string list;
        for (const auto& t : p.tensors) list += (list.empty() ? "" : ", ") + ShapeStr(t.shape.GetStorageShape());
        shapes += (shapes.empty() ? "" : ", ") + json::quote(p.name) + ": " + (p.dynamic ? "[" + list + "]" : list);
    }
    uint64_t ws_bytes = 0;
    for (size_t i = 0; i < tctx.workspace_.GetSize(); ++i) {
        ws += (i ? ", " : "") + std::to_string(tctx.workspace_.GetData()[i]);
        ws_bytes += tctx.workspace_.GetData()[i];
    }
    static const char* hexd = "0123456789abcdef";
    std::string hex;
    const auto* tb = static_cast<const uint8_t*>(tiling_data.GetData());
    for (size_t i = 0; i < tiling_data.GetDataSize(); ++i) {
        hex += hexd[tb[i] >> 4];
        hex += hexd[tb[i] & 15];
    }
    const std::string res = "{\"tiling_only\": true, \"output_shapes\": {" + shapes + "}, \"block_dim\": " +
                            std::to_string(tctx.block_dim_) + ", \"tiling_key\": " + std::to_string(tctx.tiling_key_) +
                            ", \"workspace_sizes\": [" + ws + "], \"workspace_bytes\": " + std::to_string(ws_bytes) +
                            ", \"schedule_mode\": " + std::to_string(tctx.schedule_mode_) + ", \"tiling_bytes\": " +
                            std::to_string(tiling_data.GetDataSize()) + ", \"tiling_data_hex\": \"" + hex + "\"" +
                            ", \"column\": " + std::to_string(column) + ", \"chip\": " + json::quote(chip_name) + "}\n";
    WriteFile(path + ".result.json", res.data(), res.size(), "result");
}

int Usage() {
    std::fprintf(stderr,
                 "usage: harness describe\n"
                 "       harness run REQUEST.json [REQUEST2.json ...]\n"
                 "       harness tiling REQUEST.json [REQUEST2.json ...]\n"
                 "(the request and result formats: opkit/sim/host/README.md)\n");
    return 2;
}

}  // namespace
}  // namespace host
}  // namespace opkit

int main(int argc, char** argv) {
    using namespace opkit::host;
    if (argc < 2) return Usage();
    const std::string cmd = argv[1];
    LoadOps();
    if (cmd == "describe" && argc == 2) {
        Describe();
        return 0;
    }
    if (cmd == "run" && argc >= 3) {
        if (opkit_launch_kernel == nullptr)
            fail("harness run", "this harness was linked without a kernel (no opkit_launch_kernel); it can only describe");
        const char* env = std::getenv("OPKIT_SIM_TRACE");
        const std::string saved = env ? env : "";
        for (int i = 2; i < argc; ++i) {
            if (env) setenv("OPKIT_SIM_TRACE", saved.c_str(), 1);
            else unsetenv("OPKIT_SIM_TRACE");
            RunOne(argv[i]);
        }
        return 0;
    }
    if (cmd == "tiling" && argc >= 3) {  // host only: works in a harness linked without a kernel
        for (int i = 2; i < argc; ++i) RunOne(argv[i], /*tiling_only=*/true);
        return 0;
    }
    return Usage();
}
