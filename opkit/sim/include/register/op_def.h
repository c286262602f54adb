// opkit simulator (host side): the OpDef registration DSL (namespace ops).
//
//   class AddCustom : public OpDef {
//   public:
//       explicit AddCustom(const char* name) : OpDef(name) {
//           this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
//           this->Output("z")...;
//           this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
//           this->SetInferShape(f).SetInferDataType(g);
//           this->AICore().SetTiling(t).AddConfig("ascend910b");
//       }
//   };
//   OP_ADD(AddCustom);
//
// Everything is recorded (the harness prints it with `describe`); the functions go to the same
// registry as IMPL_OP. Interfaces opkit does not simulate (AICPU(), HostCPU(), ...) fail to
// compile with a message.
#pragma once
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/types.h"
#include "register/op_impl_registry.h"

namespace ge {
class Operator;  // graph-level operator: never constructed by opkit
}

namespace optiling {
using OP_CHECK_FUNC = ge::graphStatus (*)(const ge::Operator& op, ge::AscendString& result);
using PARAM_GENERALIZE_FUNC = ge::graphStatus (*)(const ge::Operator& op, const ge::AscendString& generalize_config,
                                                  ge::AscendString& generalized_op_params);
}  // namespace optiling

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class CommentSection : uint32_t { CATEGORY = 0, BRIEF, CONSTRAINTS, RESTRICTIONS, SEE, THIRDPARTYFWKCOMPAT, SECTION_MAX };
enum class HcclServerType : uint32_t { AICPU = 0, AICORE = 1, CCU = 2, MAX };
enum class ScalarType : uint32_t { UINT8 = 0, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, FLOAT32, FLOAT16, INVALID_DTYPE = static_cast<uint32_t>(-1) };

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name ? name : "") {}

    OpParamDef& ParamType(Option t) {
        if (t != REQUIRED && t != OPTIONAL && t != DYNAMIC)
            opkit::host::fail("OpParamDef::ParamType", "'%s': only REQUIRED, OPTIONAL and DYNAMIC are simulated", name_.c_str());
        param_type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> t) { dtypes_ = std::move(t); dtype_list_ = false; return *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> t) { dtypes_ = std::move(t); dtype_list_ = true; return *this; }
    OpParamDef& Format(std::vector<ge::Format> f) { formats_ = std::move(f); format_list_ = false; return *this; }
    OpParamDef& FormatList(std::vector<ge::Format> f) { formats_ = std::move(f); format_list_ = true; return *this; }
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType> t) { bin_dtypes_ = std::move(t); return *this; }
    OpParamDef& FormatForBinQuery(std::vector<ge::Format> f) { bin_formats_ = std::move(f); return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> f) { unknown_formats_ = std::move(f); return *this; }
    OpParamDef& ValueDepend(Option v) { return ValueDepend(v, DependScope::ALL); }
    OpParamDef& ValueDepend(Option v, DependScope s) {
        value_depend_ = v;
        depend_scope_ = s;
        return *this;
    }
    OpParamDef& IgnoreContiguous() { ignore_contiguous_ = true; return *this; }
    OpParamDef& AutoContiguous() { auto_contiguous_ = true; return *this; }
    OpParamDef& Scalar() { scalar_ = true; return *this; }
    OpParamDef& ScalarList() { scalar_list_ = true; return *this; }
    OpParamDef& To(ge::DataType t) { to_type_ = t; return *this; }
    OpParamDef& To(const char* name) { to_name_ = name ? name : ""; return *this; }
    OpParamDef& Version(uint32_t v) { version_ = v; return *this; }
    // Output memory set before the launch (CANN's atomic clean). opkit simulates the integer form
    // with the value written into every element; the ScalarVar forms do not compile here.
    OpParamDef& InitValue(uint64_t v) { init_value_ = v; has_init_ = true; return *this; }
    OpParamDef& OutputShapeDependOnCompute() { shape_depend_on_compute_ = true; return *this; }
    OpParamDef& Follow(const char* n) { return Follow(n, FollowType::ALL); }
    OpParamDef& Follow(const char* n, FollowType t) { follow_ = n ? n : ""; follow_type_ = t; return *this; }
    OpParamDef& Comment(const char* c) { comment_ = c ? c : ""; return *this; }

    // opkit: read by the harness.
    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_, bin_dtypes_;
    std::vector<ge::Format> formats_, unknown_formats_, bin_formats_;
    bool dtype_list_ = false, format_list_ = false;
    Option value_depend_ = IGNORE;
    DependScope depend_scope_ = DependScope::ALL;
    bool ignore_contiguous_ = false, auto_contiguous_ = false, scalar_ = false, scalar_list_ = false;
    ge::DataType to_type_ = ge::DT_UNDEFINED;
    std::string to_name_, follow_, comment_;
    FollowType follow_type_ = FollowType::INVALID_TYPE;
    uint32_t version_ = 0;
    uint64_t init_value_ = 0;
    bool has_init_ = false;
    bool shape_depend_on_compute_ = false;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name ? name : "") {}
    OpAttrDef& AttrType(Option t) {
        if (t != REQUIRED && t != OPTIONAL)
            opkit::host::fail("OpAttrDef::AttrType", "attribute '%s': only REQUIRED and OPTIONAL exist", name_.c_str());
        required_ = (t == REQUIRED);
        return *this;
    }
    OpAttrDef& Bool() { return Kind("bool", false); }
    OpAttrDef& Bool(bool v) { b_ = v; return Kind("bool", true); }
    OpAttrDef& Float() { return Kind("float", false); }
    OpAttrDef& Float(float v) { f_ = v; return Kind("float", true); }
    OpAttrDef& Int() { return Kind("int", false); }
    OpAttrDef& Int(int64_t v) { i_ = v; return Kind("int", true); }
    OpAttrDef& String() { return Kind("string", false); }
    OpAttrDef& String(const char* v) { s_ = v ? v : ""; return Kind("string", true); }
    OpAttrDef& ListBool() { return Kind("list_bool", false); }
    OpAttrDef& ListBool(std::vector<bool> v) { lb_ = std::move(v); return Kind("list_bool", true); }
    OpAttrDef& ListFloat() { return Kind("list_float", false); }
    OpAttrDef& ListFloat(std::vector<float> v) { lf_ = std::move(v); return Kind("list_float", true); }
    OpAttrDef& ListInt() { return Kind("list_int", false); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { li_ = std::move(v); return Kind("list_int", true); }
    OpAttrDef& ListListInt() { return Kind("list_list_int", false); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> v) { lli_ = std::move(v); return Kind("list_list_int", true); }
    OpAttrDef& Version(uint32_t v) { version_ = v; return *this; }
    OpAttrDef& Comment(const char* c) { comment_ = c ? c : ""; return *this; }
    ge::AscendString& GetName() const { name_as_ = name_.c_str(); return name_as_; }
    bool IsRequired() { return required_; }

    // opkit
    std::string name_;
    bool required_ = true;
    std::string kind_;  // "" until a type setter ran
    bool has_default_ = false;
    bool b_ = false;
    float f_ = 0;
    int64_t i_ = 0;
    std::string s_;
    std::vector<bool> lb_;
    std::vector<float> lf_;
    std::vector<int64_t> li_;
    std::vector<std::vector<int64_t>> lli_;
    uint32_t version_ = 0;
    std::string comment_;

private:
    OpAttrDef& Kind(const char* k, bool has_default) {
        kind_ = k;
        has_default_ = has_default;
        return *this;
    }
    mutable ge::AscendString name_as_;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char* soc) : soc_(soc ? soc : "") {}
    OpParamDef& Input(const char* name) { return Param(inputs_, name); }
    OpParamDef& Output(const char* name) { return Param(outputs_, name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool f) { return Flag("dynamicCompileStatic.flag", f); }
    OpAICoreConfig& DynamicFormatFlag(bool f) { return Flag("dynamicFormat.flag", f); }
    OpAICoreConfig& DynamicRankSupportFlag(bool f) { return Flag("dynamicRankSupport.flag", f); }
    OpAICoreConfig& DynamicShapeSupportFlag(bool f) { return Flag("dynamicShapeSupport.flag", f); }
    OpAICoreConfig& NeedCheckSupportFlag(bool f) { return Flag("needCheckSupport.flag", f); }
    OpAICoreConfig& PrecisionReduceFlag(bool f) { return Flag("precision_reduce.flag", f); }
    OpAICoreConfig& ExtendCfgInfo(const char* key, const char* value) {
        cfg_.emplace_back(key ? key : "", value ? value : "");
        return *this;
    }

    // opkit
    std::string soc_;
    std::vector<OpParamDef> inputs_, outputs_;
    std::vector<std::pair<std::string, std::string>> cfg_;

private:
    OpAICoreConfig& Flag(const char* key, bool f) { return ExtendCfgInfo(key, f ? "true" : "false"); }
    static OpParamDef& Param(std::vector<OpParamDef>& v, const char* name) {
        for (auto& p : v)
            if (p.name_ == name) return p;
        v.emplace_back(name);
        return v.back();
    }
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc f) { tiling_ = f; return *this; }
    // Graph-compilation hooks: recorded (describe lists them under "unsimulated_hooks"), never
    // called; the simulator runs no graph compiler that would consult them.
    OpAICoreDef& SetCheckSupport(optiling::OP_CHECK_FUNC f) { return Hook("SetCheckSupport", f != nullptr); }
    OpAICoreDef& SetOpSelectFormat(optiling::OP_CHECK_FUNC f) { return Hook("SetOpSelectFormat", f != nullptr); }
    OpAICoreDef& SetOpSupportInfo(optiling::OP_CHECK_FUNC f) { return Hook("SetOpSupportInfo", f != nullptr); }
    OpAICoreDef& SetOpSpecInfo(optiling::OP_CHECK_FUNC f) { return Hook("SetOpSpecInfo", f != nullptr); }
    OpAICoreDef& SetParamGeneralize(optiling::PARAM_GENERALIZE_FUNC f) { return Hook("SetParamGeneralize", f != nullptr); }
    OpAICoreDef& LaunchWithZeroEleOutputTensors(bool f) { zero_ele_launch_ = f; return *this; }
    gert::OpImplRegisterV2::TilingKernelFunc& GetTiling() { return tiling_; }
    OpAICoreDef& AddConfig(const char* soc) {
        OpAICoreConfig c(soc);
        return AddConfig(soc, c);
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& cfg) {
        std::string s = soc ? soc : "";
        for (auto& c : configs_)
            if (c.first == s) {
                c.second = cfg;
                return *this;
            }
        configs_.emplace_back(s, cfg);
        return *this;
    }

    // opkit
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    bool zero_ele_launch_ = false;
    std::vector<std::string> hooks_;

private:
    OpAICoreDef& Hook(const char* name, bool set) {
        if (set) hooks_.push_back(name);
        return *this;
    }

public:
    std::vector<std::pair<std::string, OpAICoreConfig>> configs_;
};

class OpMC2Def {
public:
    OpMC2Def& HcclGroup(const char* v) { groups_.push_back(v ? v : ""); return *this; }
    OpMC2Def& HcclGroup(std::vector<const char*> v) {
        for (const char* s : v) groups_.push_back(s ? s : "");
        return *this;
    }
    void HcclServerType(enum HcclServerType t, const char* soc = nullptr) { server_types_[soc ? soc : ""] = t; }

    // opkit
    std::vector<std::string> groups_;
    std::map<std::string, enum HcclServerType> server_types_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type ? type : "") {}
    virtual ~OpDef() = default;

    // An input and an output may share a name (in-place operators such as ApplyRotaryPosEmb).
    OpParamDef& Input(const char* name) { return Param(inputs_, name); }
    OpParamDef& Output(const char* name) { return Param(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_)
            if (a.name_ == name) return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& Comment(CommentSection, const char*) { return *this; }
    OpDef& SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc f) { infer_shape_ = f; return *this; }
    OpDef& SetInferShapeRange(gert::OpImplRegisterV2::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc f) { infer_dtype_ = f; return *this; }
    gert::OpImplRegisterV2::InferShapeKernelFunc& GetInferShape() { return infer_shape_; }
    gert::OpImplRegisterV2::InferDataTypeKernelFunc& GetInferDataType() { return infer_dtype_; }
    OpAICoreDef& AICore() { return aicore_; }
    OpMC2Def& MC2() { return mc2_; }
    OpDef& FormatMatchMode(FormatCheckOption o) { format_mode_ = o; return *this; }
    OpDef& EnableFallBack() { fallback_ = true; return *this; }
    ge::AscendString& GetOpType() { type_as_ = type_.c_str(); return type_as_; }

    template <class T = void>
    OpAICoreDef& AICPU() {
        static_assert(sizeof(T) == 0, "opkit: OpDef::AICPU() is not simulated (opkit runs AI Core operators only)");
        return aicore_;
    }
    template <class T = void>
    OpAICoreDef& HostCPU() {
        static_assert(sizeof(T) == 0, "opkit: OpDef::HostCPU() is not simulated (opkit runs AI Core operators only)");
        return aicore_;
    }

    // opkit
    std::string type_;
    std::vector<OpParamDef> inputs_, outputs_;
    std::vector<OpAttrDef> attrs_;
    gert::OpImplRegisterV2::InferShapeKernelFunc infer_shape_ = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
    OpMC2Def mc2_;
    FormatCheckOption format_mode_ = FormatCheckOption::DEFAULT;
    bool fallback_ = false;

private:
    static OpParamDef& Param(std::vector<OpParamDef>& v, const char* name) {
        for (auto& p : v)
            if (p.name_ == name) return p;
        v.emplace_back(name);
        return v.back();
    }
    ge::AscendString type_as_;
};

// OP_ADD's registry: op type -> factory of the OpDef.
class OpDefFactory {
public:
    using Creator = std::function<OpDef(const char*)>;
    static std::vector<std::pair<std::string, Creator>>& Registry() {
        static std::vector<std::pair<std::string, Creator>> r;
        return r;
    }
    static int OpDefRegister(const char* name, Creator c) {
        for (auto& e : Registry())
            if (e.first == name) opkit::host::fail("OP_ADD", "op type '%s' is registered twice", name);
        Registry().emplace_back(name, std::move(c));
        return 0;
    }
};
}  // namespace ops
