// opkit simulator harness: the launch: GM for the inputs (a ListTensorDesc block per dynamic input), outputs
// (InitValue applied), workspace and tiling data; the kernel type the launch starts; the call into the shim.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness_tiling.h"
#include "list_tensor_block.h"
#include "opkit_sim_runtime.h"

// Weak: a harness linked without a kernel (host sources only) still describes its OpDefs, e.g. so
// that the build can read TilingData layouts before it compiles the kernel; `run` then refuses.
extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args) __attribute__((weak));

namespace opkit {
namespace host {

// OpParamDef::InitValue(v): every element of the output holds v before the launch.
inline void InitOutput(const Tensor& t, uint64_t v) {
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

// GM block of a dynamic (list) input or output as ListTensorDesc reads it (list_tensor_block.h: CANN's layout).
inline void* ListDescriptor(const IrParam& p, const std::string& where) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<uint64_t> ptrs;
    for (const auto& t : p.tensors) {
        const auto& s = t.shape.GetStorageShape();
        shapes.emplace_back();
        for (size_t d = 0; d < s.GetDimNum(); ++d) shapes.back().push_back(static_cast<int64_t>(s.GetDim(d)));
        ptrs.push_back(reinterpret_cast<uint64_t>(t.gm));
    }
    std::string error;
    const std::vector<uint64_t> w = opkit::list_tensor::Block(shapes, ptrs, &error);
    if (!error.empty()) fail(kRun, "%s: %s", where.c_str(), error.c_str());
    void* gm = GmAllocNamed(w.size() * sizeof(uint64_t), where + " (ListTensorDesc)");
    std::memcpy(gm, w.data(), w.size() * sizeof(uint64_t));
    return gm;
}

// The kernel's arguments in GM and every allocation the request owns (freed after the result).
struct KernelArgs {
    std::vector<void*> args;  // inputs (nullptr when absent), outputs, workspace, tiling
    std::vector<void*> to_free;
    size_t tiling_bytes = 0;
};

inline void InputArgs(Request* r, KernelArgs* ka) {
    for (size_t ir = 0; ir < r->pin.size(); ++ir) {
        IrParam& p = r->pin[ir];
        if (!p.present) {
            ka->args.push_back(nullptr);
            continue;
        }
        for (auto& t : p.tensors) ka->to_free.push_back(t.gm);
        if (p.dynamic) {
            void* desc = ListDescriptor(p, "input '" + p.name + "'");
            ka->to_free.push_back(desc);
            ka->args.push_back(desc);
        } else {
            ka->args.push_back(p.tensors[0].gm);
        }
    }
}

inline void OutputArgs(Request* r, KernelArgs* ka) {
    for (size_t i = 0; i < r->pout.size(); ++i) {
        if (r->pout[i].dynamic) {  // a list output: its tensors, and a ListTensorDesc block naming them
            for (auto& t : r->pout[i].tensors) {
                t.gm = GmAllocNamed(t.bytes, "output " + t.name);
                if (r->outs[i]->has_init_) InitOutput(t, r->outs[i]->init_value_);
                ka->to_free.push_back(t.gm);
            }
            void* desc = ListDescriptor(r->pout[i], "output '" + r->pout[i].name + "'");
            ka->to_free.push_back(desc);
            ka->args.push_back(desc);
            continue;
        }
        Tensor& t = r->pout[i].tensors[0];
        if (t.ref >= 0) {  // the input's buffer (freed with the inputs)
            t.gm = r->pin[static_cast<size_t>(t.ref)].tensors[0].gm;
            ka->args.push_back(t.gm);
            continue;
        }
        t.gm = GmAllocNamed(t.bytes, "output " + t.name);
        if (r->outs[i]->has_init_) InitOutput(t, r->outs[i]->init_value_);
        ka->to_free.push_back(t.gm);
        ka->args.push_back(t.gm);
    }
}

// GM: inputs, outputs, workspace, tiling data, in the kernel's argument order.
inline void AllocateArgs(Request* r, const Tiling& t, KernelArgs* ka) {
    InputArgs(r, ka);
    OutputArgs(r, ka);
    void* ws = t.ws_bytes ? GmAllocNamed(t.ws_bytes, "workspace") : nullptr;
    if (ws) ka->to_free.push_back(ws);
    ka->args.push_back(ws);
    ka->tiling_bytes = t.data->GetDataSize();
    void* tiling_gm = ka->tiling_bytes ? GmAllocNamed(ka->tiling_bytes, "tiling data") : nullptr;
    if (tiling_gm) {
        std::memcpy(tiling_gm, t.data->GetData(), ka->tiling_bytes);
        ka->to_free.push_back(tiling_gm);
    }
    ka->args.push_back(tiling_gm);
}

// The cores the launch starts: the request's kernel type (KernelMetaType name), else the
// simulator's default (vector cores, or SetKernelMode).
inline void SetKernelType(const Request& r, uint64_t tiling_key) {
    static const char* kTypes[] = {"AIV_ONLY", "AIC_ONLY", "MIX_AIV_1_0", "MIX_AIC_1_0", "MIX_AIC_1_1", "MIX_AIC_1_2"};
    const Value* kt = r.json.find("kernel_type");
    // A name, or {"default": name, "<tiling key>": name, ...} as KERNEL_TASK_TYPE(key, type) gives.
    if (kt && kt->type == Value::Object) {
        const Value* pick = kt->find(std::to_string(tiling_key));
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
                 "MIX_AIC_1_2", r.path.c_str(), kt->text.c_str());
    }
    opkit::sim::set_kernel_type(type);
}

// The launch (the trace file, if any, is written by the simulator at the end of the launch); a non-zero
// return of the shim ends the process with that code.
inline void Launch(const Request& r, const Tiling& t, KernelArgs* ka) {
    SetKernelType(r, t.ctx->tiling_key_);
    const Value* trace = r.json.find("trace");
    if (trace && trace->type == Value::String && !trace->text.empty()) setenv("OPKIT_SIM_TRACE", trace->text.c_str(), 1);
    const int lrc = opkit_launch_kernel(t.ctx->block_dim_, t.ctx->tiling_key_, ka->args.data(), static_cast<int>(ka->args.size()));
    if (lrc != 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(lrc);
    }
}

}  // namespace host
}  // namespace opkit
