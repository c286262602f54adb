// opkit simulator harness: the registered OpDefs as the harness reads them: dtype and format names,
// the OP_ADD registry merged with IMPL_OP, the dtype/format columns, the parameters in force for a SoC.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "opkit_host/diag.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "symbols.h"

namespace opkit {
namespace host {

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

inline std::string DtypeName(ge::DataType t) {
    for (const auto& d : kDtypes)
        if (d.dt == t) return d.name;
    return "DT_" + std::to_string(static_cast<int>(t));
}
inline bool ParseDtype(const std::string& s, ge::DataType* out) {
    for (const auto& d : kDtypes)
        if (s == d.name) { *out = d.dt; return true; }
    return false;
}
inline std::string FormatName(ge::Format f) {
    for (const auto& d : kFormats)
        if (d.f == f) return d.name;
    return "FORMAT_" + std::to_string(static_cast<int>(f));
}
inline bool ParseFormat(const std::string& s, ge::Format* out) {
    for (const auto& d : kFormats)
        if (s == d.name) { *out = d.f; return true; }
    return false;
}
inline const char* OptionName(ops::Option o) {
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

inline std::vector<OpInfo>& Ops() {
    static std::vector<OpInfo> v;
    return v;
}

// Builds every OP_ADD'ed OpDef and merges its functions into the IMPL_OP registry.
inline void LoadOps() {
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

inline std::string NameOf(const void* fn, const std::string& role) {
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
inline std::vector<ops::OpParamDef> ResolveFollow(const std::string& op, const std::vector<const ops::OpParamDef*>& in) {
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

inline Columns ExpandColumns(const std::string& op, const std::vector<const ops::OpParamDef*>& declared) {
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
inline void ParamsFor(const ops::OpDef& d, const std::string& soc, std::vector<const ops::OpParamDef*>* ins,
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

}  // namespace host
}  // namespace opkit
