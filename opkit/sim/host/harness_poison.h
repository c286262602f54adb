// opkit simulator harness: poisoned outputs. Before the launch every output the kernel owns (not an
// in-place input, not InitValue) is filled with a poison pattern (a quiet NaN for floats, a byte pattern
// otherwise) and its bytes are tracked; after the launch the bytes nothing wrote are an error naming the
// output and the ranges. Elements of an output's `untouched` mask (the operator leaves them as they were
// by contract) are not poisoned: they keep their initial value (zero) and are not checked.
// The request's "poison": false turns this off; {"byte": N, "float": "nan" | "bytes"} sets the pattern.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness_launch.h"
#include "json.h"
#include "kernel_launch.h"

namespace opkit {
namespace host {

struct PoisonOptions {
    bool on = true;
    uint8_t byte = opkit::sim::kPoisonByte;
    bool float_bytes = false;  // floats get the byte pattern too (not a NaN)
};

inline PoisonOptions ReadPoisonOptions(const Request& r) {
    PoisonOptions o;
    const Value* v = r.json.find("poison");
    if (v == nullptr || v->is_null()) return o;
    if (v->type == Value::Bool) {
        o.on = v->b;
        return o;
    }
    const char* form = "\"poison\" must be true, false or {\"byte\": 0..255, \"float\": \"nan\" | \"bytes\"}";
    if (v->type != Value::Object) fail(kRun, "%s: %s", r.path.c_str(), form);
    for (const auto& m : v->members) {
        if (m.first == "byte") {
            if (!m.second.is_integer() || m.second.as_double() < 0 || m.second.as_double() > 255)
                fail(kRun, "%s: \"poison\".\"byte\" must be an integer 0..255 (got %s)", r.path.c_str(), m.second.text.c_str());
            o.byte = static_cast<uint8_t>(m.second.as_double());
        } else if (m.first == "float") {
            if (m.second.type != Value::String || (m.second.text != "nan" && m.second.text != "bytes"))
                fail(kRun, "%s: \"poison\".\"float\" must be \"nan\" or \"bytes\" (got %s)", r.path.c_str(), m.second.text.c_str());
            o.float_bytes = m.second.text == "bytes";
        } else {
            fail(kRun, "%s: \"poison\" has no field '%s'; %s", r.path.c_str(), m.first.c_str(), form);
        }
    }
    return o;
}

// The output's `untouched` mask file (one byte per element, non-zero: left as it was), or empty.
inline std::vector<uint8_t> ReadUntouched(const Request& r, size_t i, const Tensor& t, int esz) {
    const Value* outs = r.json.find("outputs");
    if (outs == nullptr || outs->type != Value::Array || i >= outs->items.size()) return {};
    const Value* u = outs->items[i].find("untouched");
    if (u == nullptr || u->is_null()) return {};
    const std::string where = "output '" + t.name + "' untouched mask";
    if (u->type != Value::String) fail(kRun, "%s: %s: must be a file path", r.path.c_str(), where.c_str());
    const std::string text = ReadFile(u->text, where);
    const uint64_t n = esz > 0 ? t.bytes / static_cast<uint64_t>(esz) : 0;
    if (text.size() != n)
        fail(kRun, "%s: %s '%s' holds %zu bytes; the output has %llu elements (one byte per element)", r.path.c_str(),
             where.c_str(), u->text.c_str(), text.size(), static_cast<unsigned long long>(n));
    return std::vector<uint8_t>(text.begin(), text.end());
}

// Poisons output i (called after its allocation; not for in-place outputs nor InitValue ones).
inline void PoisonOutput(const Request& r, size_t i, const Tensor& t, const PoisonOptions& o) {
    const int sz = ge::GetSizeByDataType(t.dt);
    if (sz <= 0 || sz > 8) {  // sub-byte types: the byte pattern over the bytes, no untouched mask
        uint8_t pat[8];
        opkit::sim::poison_pattern(1, false, o.byte, true, pat);
        opkit::sim::gm_poison(t.gm, 1, pat);
        return;
    }
    const bool is_float = t.dt == ge::DT_FLOAT || t.dt == ge::DT_FLOAT16 || t.dt == ge::DT_DOUBLE;
    uint8_t pat[8];
    if (t.dt == ge::DT_BF16) opkit::sim::poison_pattern_bf16(o.byte, o.float_bytes, pat);
    else opkit::sim::poison_pattern(sz, is_float, o.byte, o.float_bytes, pat);
    const std::vector<uint8_t> keep = ReadUntouched(r, i, t, sz);
    opkit::sim::gm_poison(t.gm, sz, pat, keep.empty() ? nullptr : keep.data());
}

inline void PoisonOutputs(const Request& r) {
    const PoisonOptions o = ReadPoisonOptions(r);
    if (!o.on || r.trace_only) return;
    for (size_t i = 0; i < r.pout.size(); ++i) {
        const Tensor& t = r.pout[i].tensors[0];
        if (t.ref >= 0 || r.outs[i]->has_init_ || t.bytes == 0) continue;  // in place / InitValue: the kernel's start values
        const Value* outs = r.json.find("outputs");
        const Value* own = outs && outs->type == Value::Array && i < outs->items.size() ? outs->items[i].find("poison") : nullptr;
        if (own && own->type == Value::Bool && !own->b) continue;  // an output this call does not produce
        PoisonOutput(r, i, t, o);
    }
}

// After the launch: the first output with bytes nothing wrote ends the run with their ranges.
inline void CheckUnwrittenOutputs(const Request& r) {
    for (const auto& p : r.pout) {
        const Tensor& t = p.tensors[0];
        uint64_t total = 0;
        const auto ranges = opkit::sim::gm_unwritten_ranges(t.gm, &total);
        if (ranges.empty()) continue;
        const int sz = ge::GetSizeByDataType(t.dt);
        std::string list;
        uint64_t listed = 0;
        for (const auto& rg : ranges) {
            listed += rg.second - rg.first;
            list += (list.empty() ? "" : ", ") + std::string("bytes [") + std::to_string(rg.first) + ", " + std::to_string(rg.second) + ")";
            if (sz > 0 && sz <= 8)
                list += " (elements [" + std::to_string(rg.first / sz) + ", " + std::to_string((rg.second + sz - 1) / sz) + "))";
        }
        if (listed < total) list += ", ...";
        const std::string rank = opkit::sim::rank_dim() > 1 ? " on rank " + std::to_string(opkit::sim::rank_id()) : "";
        fail("unwritten output", "kernel of %s%s: %llu of the %llu bytes of output '%s' were never written: %s. The simulator "
             "fills outputs with a poison pattern before the launch (on the NPU they hold whatever the memory held). "
             "Check the tiling key's branches, the blocks' ranges and early returns; if the operator leaves these "
             "elements as they were by contract, name an `untouched` hook for the output in op.yaml",
             r.op_type.c_str(), rank.c_str(), static_cast<unsigned long long>(total), static_cast<unsigned long long>(t.bytes),
             t.name.c_str(), list.c_str());
    }
}

}  // namespace host
}  // namespace opkit
