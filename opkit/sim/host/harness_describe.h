// opkit simulator harness: `harness describe`: every registered OpDef, TilingData layout and tiling-key
// template as one JSON object on stdout (the format: README.md, "describe").
#pragma once
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ascendc/host_api/tiling/template_argument.h"
#include "harness_opdef.h"
#include "json.h"
#include "register/tilingdata_base.h"

namespace opkit {
namespace host {

// ------------------------------------------------------------------------------------------
// describe
inline std::string AttrDefault(const ops::OpAttrDef& a) {
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

inline std::string ParamJson(const ops::OpParamDef& p, const Columns& c, size_t idx, const std::string& ind) {
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

// The "attrs" list of one OpDef.
inline std::string AttrsJson(const ops::OpDef& d) {
    std::string s;
    for (size_t i = 0; i < d.attrs_.size(); ++i) {
        const auto& a = d.attrs_[i];
        if (a.kind_.empty()) fail("OpDef", "%s: attribute '%s' has no type (call .Int(), .Float(), ...)", d.type_.c_str(), a.name_.c_str());
        s += std::string(i ? ",\n" : "\n") + "        {\"name\": " + json::quote(a.name_) + ", \"type\": \"" + a.kind_ +
             "\", \"required\": " + (a.required_ ? "true" : "false") + ", \"default\": " + AttrDefault(a) + "}";
    }
    return s;
}

// "socs" and "soc_configs" of one OpDef: the AddConfig keys, their flags and the parameters they redefine.
inline std::string SocsJson(const ops::OpDef& d) {
    std::string s;
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
    return s;
}

// What the op registers: its functions, the tiling's data dependencies, its TilingData class.
inline std::string RegisteredJson(const ops::OpDef& d, const ImplEntry& im) {
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    std::string s = "],\n      \"has_tiling\": " + flag(im.tiling.fn != nullptr) + ",\n      \"has_infershape\": " +
                    flag(im.infer_shape.fn != nullptr) + ",\n      \"has_inferdatatype\": " +
                    flag(im.infer_dtype.fn != nullptr || im.dtype_same_as_first_input) + ",\n      \"has_tiling_parse\": " +
                    flag(im.tiling_parse.fn != nullptr);
    s += ",\n      \"tiling_data_dependency\": [";  // inputs (IR index) whose values the tiling reads
    for (size_t i = 0; i < im.data_dependency.size(); ++i) s += (i ? ", " : "") + std::to_string(im.data_dependency[i]);
    s += "]";
    auto it = TilingClassOfOp().find(d.type_);
    s += ",\n      \"tiling_data_class\": " + (it == TilingClassOfOp().end() ? std::string("null") : json::quote(it->second));
    return s;
}

// One entry of "ops".
inline std::string OpJson(const OpInfo& o) {
    const ops::OpDef& d = o.def;
    std::vector<const ops::OpParamDef*> ins, outs;
    ParamsFor(d, "", &ins, &outs);
    std::vector<const ops::OpParamDef*> all(ins);
    all.insert(all.end(), outs.begin(), outs.end());
    Columns c = ExpandColumns(d.type_, all);
    std::string s = "    {\n      \"op_type\": " + json::quote(d.type_) + ",\n      \"inputs\": [";
    for (size_t i = 0; i < ins.size(); ++i) s += (i ? ",\n" : "\n") + ParamJson(*ins[i], c, i, "        ");
    s += std::string(ins.empty() ? "" : "\n      ") + "],\n      \"outputs\": [";
    for (size_t i = 0; i < outs.size(); ++i) s += (i ? ",\n" : "\n") + ParamJson(*outs[i], c, ins.size() + i, "        ");
    s += std::string(outs.empty() ? "" : "\n      ") + "],\n      \"attrs\": [";
    s += AttrsJson(d);
    s += std::string(d.attrs_.empty() ? "" : "\n      ") + "],\n      \"columns\": " + std::to_string(c.n) + ",\n      \"socs\": [";
    s += SocsJson(d);
    s += "},\n      \"unsimulated_hooks\": [";
    for (size_t i = 0; i < d.aicore_.hooks_.size(); ++i) s += (i ? ", " : "") + json::quote(d.aicore_.hooks_[i]);
    s += "],\n      \"hccl_groups\": [";
    for (size_t i = 0; i < d.mc2_.groups_.size(); ++i) s += (i ? ", " : "") + json::quote(d.mc2_.groups_[i]);
    s += RegisteredJson(d, *o.impl);
    return s + "\n    }";
}

// "tiling_data_classes": the serialised layout of every macro-defined TilingData class.
inline std::string LayoutsJson() {
    std::string s;
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
    return s;
}

// "tiling_key_templates": every ASCENDC_TPL_ARGS_DECL with its selections.
inline std::string TemplatesJson() {
    std::string s;
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
    return s;
}

inline void Describe() {
    std::string s = "{\n  \"ops\": [";
    bool first_op = true;
    for (const auto& o : Ops()) {
        s += first_op ? "\n" : ",\n";
        first_op = false;
        s += OpJson(o);
    }
    s += std::string(Ops().empty() ? "" : "\n  ") + "],\n  \"tiling_data_classes\": [";
    s += LayoutsJson();
    s += std::string(TilingLayouts().empty() ? "" : "\n  ") + "],\n  \"tiling_data_registrations\": {";
    // REGISTER_TILING_DATA_CLASS(OpType, Cls) and its per-tiling-key form (OpType_<key>, Cls).
    bool first = true;
    for (const auto& kv : TilingClassOfOp()) {
        s += std::string(first ? "" : ", ") + json::quote(kv.first) + ": " + json::quote(kv.second);
        first = false;
    }
    s += "},\n  \"tiling_key_templates\": [";
    s += TemplatesJson();
    s += std::string(opkit::tpl::Templates().empty() ? "" : "\n  ") + "]\n}\n";
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
}

}  // namespace host
}  // namespace opkit
