// opkit simulator (host side): gert::OpImplRegisterV2 and the IMPL_OP* macros that register an
// op type's InferShape, InferDataType, tiling and TilingParse functions:
//
//   IMPL_OP_OPTILING(AddExample).Tiling(TilingFunc).TilingParse<CompileInfo>(ParseFunc);
//   IMPL_OP_INFERSHAPE(AddExample).InferShape(f).InferDataType(g);
//   IMPL_OP(FlashAttentionScore).Tiling(f).TilingInputsDataDependency({7, 8}).TilingParse<T>(p);
//
// They land in the same registry as OpDef's SetInferShape/SetInferDataType/AICore().SetTiling;
// two different functions for one role of one op type end the run with a diagnostic.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/ascend_string.h"
#include "graph/types.h"
#include "opkit_host/registry.h"

namespace gert {
class OpImplRegisterV2 {
public:
    using InferShapeKernelFunc = uint32_t (*)(InferShapeContext*);
    using InferShapeRangeKernelFunc = uint32_t (*)(InferShapeRangeContext*);
    using InferDataTypeKernelFunc = uint32_t (*)(InferDataTypeContext*);
    using TilingKernelFunc = uint32_t (*)(TilingContext*);
    using TilingParseFunc = uint32_t (*)(TilingParseContext*);

    explicit OpImplRegisterV2(const ge::char_t* op_type) : type_(op_type ? op_type : "") { Entry(); }

    OpImplRegisterV2& InferShape(InferShapeKernelFunc f) { Entry().infer_shape.Set(f, Who("InferShape")); return *this; }
    OpImplRegisterV2& InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) { Entry().infer_dtype.Set(f, Who("InferDataType")); return *this; }
    OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() { Entry().dtype_same_as_first_input = true; return *this; }
    OpImplRegisterV2& Tiling(TilingKernelFunc f, size_t max_tiling_data_size = 2048) {
        Entry().tiling.Set(f, Who("Tiling"));
        Entry().max_tiling_data_size = max_tiling_data_size;
        return *this;
    }
    template <typename T>
    OpImplRegisterV2& TilingParse(TilingParseFunc f) {
        Entry().tiling_parse.Set(f, Who("TilingParse"));
        Entry().create_compile_info = []() -> void* { return new T(); };
        Entry().delete_compile_info = [](void* p) { delete static_cast<T*>(p); };
        return *this;
    }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> idx) {
        Entry().data_dependency.assign(idx.begin(), idx.end());
        return *this;
    }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> idx) { return InputsDataDependency(idx); }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> idx, std::initializer_list<int32_t>) {
        return InputsDataDependency(idx);
    }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name) { return PrivateAttr(name, static_cast<int64_t>(0)); }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, int64_t v) { Priv(name, "int").i = v; return *this; }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, const std::vector<int64_t>& v) { Priv(name, "list_int").li = v; return *this; }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, const ge::char_t* v) { Priv(name, "string").s = v ? v : ""; return *this; }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, ge::float32_t v) { Priv(name, "float").f = v; return *this; }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, bool v) { Priv(name, "bool").b = v; return *this; }
    OpImplRegisterV2& PrivateAttr(const ge::char_t* name, const std::vector<ge::float32_t>& v) { Priv(name, "list_float").lf = v; return *this; }

private:
    opkit::host::ImplEntry& Entry() { return opkit::host::Impls()[type_]; }
    std::string Who(const char* what) const { return "IMPL_OP(" + type_ + ")." + what; }
    opkit::host::ImplEntry::PrivateAttr& Priv(const char* name, const char* kind) {
        auto& v = Entry().private_attrs;
        for (auto& a : v)
            if (a.name == name) return a;
        v.emplace_back();
        v.back().name = name ? name : "";
        v.back().kind = kind;
        return v.back();
    }
    std::string type_;
};
}  // namespace gert

#define OPKIT_IMPL_CAT2(a, b) a##b
#define OPKIT_IMPL_CAT(a, b) OPKIT_IMPL_CAT2(a, b)
#define IMPL_OP(op_type)                                                                                   \
    static ::gert::OpImplRegisterV2 __attribute__((unused)) OPKIT_IMPL_CAT(g_opkit_impl_##op_type##_, __COUNTER__) = \
        ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_DEFAULT() static_assert(false, "opkit: IMPL_OP_DEFAULT() is not supported; register an op type with IMPL_OP(OpType)")
