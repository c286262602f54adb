// opkit simulator (host side): the process-wide registries that the registration macros fill
// at static-initialisation time and the harness reads (InferShape/InferDataType/tiling
// functions per op type, TilingData classes and their layouts).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/ge_error_codes.h"
#include "opkit_host/diag.h"

namespace gert {
class InferShapeContext;
class InferShapeRangeContext;
class InferDataTypeContext;
class TilingContext;
class TilingParseContext;
}  // namespace gert

namespace opkit {
namespace host {

using InferShapeFn = uint32_t (*)(gert::InferShapeContext*);
using InferShapeRangeFn = uint32_t (*)(gert::InferShapeRangeContext*);
using InferDataTypeFn = uint32_t (*)(gert::InferDataTypeContext*);
using TilingFn = uint32_t (*)(gert::TilingContext*);
using TilingParseFn = uint32_t (*)(gert::TilingParseContext*);

// One registered function and who registered it (for messages).
template <class F>
struct Registered {
    F fn = nullptr;
    std::string by;
    std::string conflict;  // set when a second, different function was registered
    void Set(F f, const std::string& who) {
        if (f == nullptr) return;
        if (fn != nullptr && fn != f) {
            conflict = by + " and " + who + " register different functions";
            return;
        }
        fn = f;
        by = who;
    }
};

struct ImplEntry {
    Registered<InferShapeFn> infer_shape;
    Registered<InferDataTypeFn> infer_dtype;
    Registered<TilingFn> tiling;
    Registered<TilingParseFn> tiling_parse;
    void* (*create_compile_info)() = nullptr;
    void (*delete_compile_info)(void*) = nullptr;
    size_t max_tiling_data_size = 0;  // 0: not given (default capacity)
    bool dtype_same_as_first_input = false;
    std::vector<int32_t> data_dependency;  // input indices whose values tiling reads
    // PrivateAttr(...): attributes appended after the OpDef's, in registration order.
    struct PrivateAttr {
        std::string name, kind;  // kind: int, float, bool, string, list_int, list_float
        int64_t i = 0;
        float f = 0;
        bool b = false;
        std::string s;
        std::vector<int64_t> li;
        std::vector<float> lf;
    };
    std::vector<PrivateAttr> private_attrs;
};

inline std::map<std::string, ImplEntry>& Impls() {
    static std::map<std::string, ImplEntry> m;
    return m;
}

// TilingData classes (BEGIN_TILING_DATA_DEF): layouts by class name, default class per op type
// (REGISTER_TILING_DATA_CLASS(OpType, Cls)), per tiling key (OpType_<key>).
struct TilingField {
    std::string kind;   // "scalar", "array", "struct"
    std::string dtype;  // C++ type, or the struct class name
    std::string name;
    size_t offset = 0;
    size_t elem_size = 0;
    size_t count = 1;
    size_t size = 0;
    bool operator==(const TilingField& o) const {
        return kind == o.kind && dtype == o.dtype && name == o.name && offset == o.offset && size == o.size && count == o.count;
    }
};
struct TilingLayout {
    std::string cls;
    size_t size = 0;
    std::vector<TilingField> fields;
};
inline std::map<std::string, TilingLayout>& TilingLayouts() {
    static std::map<std::string, TilingLayout> m;
    return m;
}
inline void RecordTilingLayout(const TilingLayout& l) {
    auto it = TilingLayouts().find(l.cls);
    if (it == TilingLayouts().end()) {
        TilingLayouts()[l.cls] = l;
        return;
    }
    bool same = it->second.size == l.size && it->second.fields.size() == l.fields.size();
    for (size_t i = 0; same && i < l.fields.size(); ++i) same = it->second.fields[i] == l.fields[i];
    if (!same)
        fail("BEGIN_TILING_DATA_DEF", "TilingData class '%s' is defined twice with different fields; class names are global", l.cls.c_str());
}
inline std::map<std::string, std::string>& TilingClassOfOp() {
    static std::map<std::string, std::string> m;
    return m;
}

}  // namespace host
}  // namespace opkit
