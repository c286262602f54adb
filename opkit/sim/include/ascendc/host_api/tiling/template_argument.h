// opkit simulator: template tiling keys (the ASCENDC_TPL_* declarations and GET_TPL_TILING_KEY).
//
//   ASCENDC_TPL_ARGS_DECL(AddExample, ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, 0, 1));
//   ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, 0, 1)));
//   context->SetTilingKey(GET_TPL_TILING_KEY(schMode));
//
// Encoding, as CANN's: the values in declaration order, the first in the lowest bits, each in its
// declared width (DTYPE/FORMAT 8 bits, BOOL 1, UINT as declared); a UINT value is encoded as its
// index in the declared list (RANGE/LIST/MIX expanded), the others as the raw value; at most 64
// bits. opkit also checks the combination against the ASCENDC_TPL_ARGS_SEL lists (kernel-type,
// deterministic and tiling-struct selectors aside): a key no selection names has no kernel
// instantiation on the NPU, so it ends the run with a diagnostic, as does an undeclared value.
// `harness describe` lists every declaration under "tiling_key_templates".
//
// Both host and kernel sources include this header; the declarations are plain C++ statics.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "opkit_host/diag.h"

#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_AICORE 8
#define ASCENDC_TPL_VECTORCORE 9
#define ASCENDC_TPL_MIX_AICORE 10
#define ASCENDC_TPL_MIX_VECTOR_CORE 11
#define ASCENDC_TPL_MAX 12

#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8

#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3
constexpr uint32_t ASCENDC_TPL_KERNEL_TYPE = 4;
constexpr uint32_t ASCENDC_TPL_DETERMINISTIC = 5;
constexpr uint32_t ASCENDC_TPL_SHARED_KERNEL_TYPE = 6;

#define ASCENDC_TPL_INPUT_BIAS 100000000
#define ASCENDC_TPL_OUTPUT_BIAS 900000000
#define ASCENDC_TPL_INPUT(x) (ASCENDC_TPL_INPUT_BIAS + (x))
#define ASCENDC_TPL_OUTPUT(x) (ASCENDC_TPL_OUTPUT_BIAS + (x))

#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2

constexpr uint64_t INVALID_TILING_KEY = 0xFFFFFFFFFFFFFFFFULL;

namespace opkit {
namespace tpl {

constexpr uint32_t kTilingStruct = 100;  // ASCENDC_TPL_TILING_STRUCT_SEL: not part of the key

inline const char* TypeName(uint32_t t) {
    switch (t) {
        case ASCENDC_TPL_DTYPE: return "dtype";
        case ASCENDC_TPL_FORMAT: return "format";
        case ASCENDC_TPL_UINT: return "uint";
        case ASCENDC_TPL_BOOL: return "bool";
        case ASCENDC_TPL_KERNEL_TYPE: return "kernel_type";
        case ASCENDC_TPL_DETERMINISTIC: return "deterministic";
        case ASCENDC_TPL_SHARED_KERNEL_TYPE: return "shared_kernel_type";
        default: return "tiling_struct";
    }
}

struct Param {
    std::string name;
    uint32_t type = 0;
    uint32_t bits = 0;
    std::vector<uint64_t> vals;  // UINT: expanded from RANGE/LIST/MIX
};

// {mode, ...}: LIST v...; RANGE n, lo1, hi1, ..., lon, hin; MIX n, ranges..., v...
inline std::vector<uint64_t> ExpandUint(const char* name, const std::vector<uint64_t>& raw) {
    if (raw.empty()) opkit::host::fail("ASCENDC_TPL_UINT", "'%s' has no values", name);
    const uint64_t mode = raw[0];
    if (mode == ASCENDC_TPL_UI_LIST) return std::vector<uint64_t>(raw.begin() + 1, raw.end());
    if (mode != ASCENDC_TPL_UI_RANGE && mode != ASCENDC_TPL_UI_MIX)
        opkit::host::fail("ASCENDC_TPL_UINT", "'%s': the first value must be ASCENDC_TPL_UI_LIST, _RANGE or _MIX, not %llu", name,
                          static_cast<unsigned long long>(mode));
    if (raw.size() < 2) opkit::host::fail("ASCENDC_TPL_UINT", "'%s': a range count is missing", name);
    const uint64_t n = raw[1];
    if (raw.size() < 2 + 2 * n) opkit::host::fail("ASCENDC_TPL_UINT", "'%s': %llu ranges declared, fewer given", name,
                                                  static_cast<unsigned long long>(n));
    std::vector<uint64_t> out;
    for (uint64_t i = 0; i < n; ++i)
        for (uint64_t v = raw[2 + 2 * i]; v <= raw[3 + 2 * i]; ++v) out.push_back(v);
    if (mode == ASCENDC_TPL_UI_MIX) out.insert(out.end(), raw.begin() + 2 + 2 * n, raw.end());
    else if (raw.size() != 2 + 2 * n) opkit::host::fail("ASCENDC_TPL_UINT", "'%s': values after the ranges of a RANGE", name);
    return out;
}

inline Param Make(const char* name, uint32_t type, uint32_t bits, std::initializer_list<uint64_t> v) {
    Param p;
    p.name = name;
    p.type = type;
    p.bits = bits;
    p.vals.assign(v.begin(), v.end());
    if (type == ASCENDC_TPL_UINT) p.vals = ExpandUint(name, p.vals);
    return p;
}

struct Declaration;
inline std::vector<const Declaration*>& Templates() {
    static std::vector<const Declaration*> v;
    return v;
}

struct Declaration {
    std::string op;
    std::vector<Param> params;
    std::vector<std::vector<Param>> sels;
    bool has_sel = false;
    Declaration(const char* o, std::initializer_list<Param> ps) : op(o), params(ps) {
        uint32_t bits = 0;
        for (const auto& p : params) {
            if (p.type == ASCENDC_TPL_UINT && p.bits < 64 && p.vals.size() > (uint64_t(1) << p.bits))
                opkit::host::fail("ASCENDC_TPL_UINT_DECL", "%s: '%s' declares %zu values, more than %u bits can index", o,
                                  p.name.c_str(), p.vals.size(), p.bits);
            bits += p.bits;
        }
        if (bits > 64) opkit::host::fail("ASCENDC_TPL_ARGS_DECL", "%s: the parameters take %u bits, more than 64", o, bits);
        for (const auto* d : Templates())
            if (d->op == op) return;  // the same header seen by another translation unit
        Templates().push_back(this);
    }
};

struct Selection {
    Selection(Declaration& d, std::initializer_list<std::vector<Param>> s) {
        d.sels.assign(s.begin(), s.end());
        d.has_sel = true;
    }
};

inline std::string Values(const Declaration& d, const std::vector<uint64_t>& a) {
    std::string s;
    for (size_t i = 0; i < a.size(); ++i)
        s += (i ? ", " : "") + (i < d.params.size() ? d.params[i].name : std::string("?")) + "=" + std::to_string(a[i]);
    return s;
}

inline uint64_t Encode(const Declaration& d, std::initializer_list<uint64_t> args) {
    const std::vector<uint64_t> a(args.begin(), args.end());
    if (a.size() != d.params.size())
        opkit::host::fail("GET_TPL_TILING_KEY", "%s declares %zu template parameters, %zu values given (%s)", d.op.c_str(),
                          d.params.size(), a.size(), Values(d, a).c_str());
    uint64_t key = 0;
    uint32_t shift = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const Param& p = d.params[i];
        uint64_t v = a[i];
        if (p.type == ASCENDC_TPL_UINT) {
            size_t k = 0;
            while (k < p.vals.size() && p.vals[k] != v) ++k;
            if (k == p.vals.size())
                opkit::host::fail("GET_TPL_TILING_KEY", "%s: %s = %llu is not among the values ASCENDC_TPL_UINT_DECL declares",
                                  d.op.c_str(), p.name.c_str(), static_cast<unsigned long long>(v));
            v = k;
        } else if (!p.vals.empty() && [&] {
                       for (uint64_t x : p.vals)
                           if (x == v) return false;
                       return true;
                   }()) {
            opkit::host::fail("GET_TPL_TILING_KEY", "%s: %s = %llu is not among the values its %s declaration lists",
                              d.op.c_str(), p.name.c_str(), static_cast<unsigned long long>(v), TypeName(p.type));
        } else if (p.bits < 64 && v >> p.bits) {
            opkit::host::fail("GET_TPL_TILING_KEY", "%s: %s = %llu does not fit its %u bits", d.op.c_str(), p.name.c_str(),
                              static_cast<unsigned long long>(v), p.bits);
        }
        key |= v << shift;
        shift += p.bits;
    }
    if (d.has_sel) {
        bool any = false;
        for (const auto& sel : d.sels) {
            bool ok = true;
            for (const auto& s : sel) {
                if (s.type == ASCENDC_TPL_KERNEL_TYPE || s.type == ASCENDC_TPL_DETERMINISTIC || s.type == kTilingStruct) continue;
                for (size_t i = 0; i < d.params.size() && ok; ++i) {
                    if (d.params[i].name != s.name) continue;
                    bool in = false;
                    for (uint64_t x : s.vals) in = in || x == a[i];
                    ok = in;
                }
            }
            any = any || ok;
        }
        if (!any)
            opkit::host::fail("GET_TPL_TILING_KEY", "%s: the combination (%s) is in no ASCENDC_TPL_ARGS_SEL, so no kernel is built for it",
                              d.op.c_str(), Values(d, a).c_str());
    }
    return key;
}

}  // namespace tpl
}  // namespace opkit

#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_DECL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_UINT, (bw), {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) \
    ::opkit::tpl::Make(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_ARGS_DECL(x, ...) static ::opkit::tpl::Declaration g_opkit_tpl_decl(#x, {__VA_ARGS__})

#define ASCENDC_TPL_DTYPE_SEL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_DTYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_DTYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_SEL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_FORMAT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_SEL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_UINT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_SEL(x, ...) ::opkit::tpl::Make(#x, ASCENDC_TPL_BOOL, 0, {__VA_ARGS__})
#define ASCENDC_TPL_TILING_STRUCT_SEL(x, ...) ::opkit::tpl::Make(#x, ::opkit::tpl::kTilingStruct, 0, {})
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) ::opkit::tpl::Make("kernel_type", ASCENDC_TPL_KERNEL_TYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) ::opkit::tpl::Make("deterministic", ASCENDC_TPL_DETERMINISTIC, 0, {__VA_ARGS__})
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(x, ...) \
    ::opkit::tpl::Make(#x, ASCENDC_TPL_SHARED_KERNEL_TYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_ARGS_SEL(...) std::vector<::opkit::tpl::Param>{__VA_ARGS__}
#define ASCENDC_TPL_SEL(...) static ::opkit::tpl::Selection g_opkit_tpl_sel(g_opkit_tpl_decl, {__VA_ARGS__})

#define GET_TPL_TILING_KEY(...) ::opkit::tpl::Encode(g_opkit_tpl_decl, {__VA_ARGS__})
#define ASCENDC_TPL_SEL_PARAM(context, ...)              \
    do {                                                 \
        uint64_t opkit_tpl_key_ = GET_TPL_TILING_KEY(__VA_ARGS__); \
        (context)->SetTilingKey(opkit_tpl_key_);         \
    } while (0)
