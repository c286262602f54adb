// opkit simulator harness: what a request leaves behind: the output files (and in-place inputs), and
// REQUEST.json.result.json of `run` or of `tiling` (README.md, "the result").
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness_launch.h"
#include "json.h"

namespace opkit {
namespace host {

inline void WriteFile(const std::string& path, const void* data, size_t n, const std::string& what) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) fail(kRun, "%s: cannot write '%s': %s", what.c_str(), path.c_str(), std::strerror(errno));
    if (n && std::fwrite(data, 1, n, f) != n) fail(kRun, "%s: writing '%s' failed", what.c_str(), path.c_str());
    std::fclose(f);
}

// The tiling data's bytes as lowercase hex.
inline std::string TilingHex(const gert::TilingData& data) {
    static const char* hexd = "0123456789abcdef";
    std::string hex;
    const auto* tb = static_cast<const uint8_t*>(data.GetData());
    for (size_t i = 0; i < data.GetDataSize(); ++i) {
        hex += hexd[tb[i] >> 4];
        hex += hexd[tb[i] & 15];
    }
    return hex;
}

// Each output's bytes to its file, an in-place input's bytes too (not in trace-only mode: its outputs are no results).
inline void WriteOutputs(const Request& r) {
    if (r.trace_only) return;
    for (auto& p : r.pin)
        for (auto& t : p.tensors)
            if (!t.result_file.empty()) WriteFile(t.result_file, t.gm, t.bytes, "in-place input '" + t.name + "'");
    for (auto& p : r.pout)
        for (const Tensor& t : p.tensors) WriteFile(t.file, t.gm, t.bytes, "output '" + t.name + "'");
}

// `harness run`: REQUEST.json.result.json.
inline void WriteRunResult(const Request& r, const Platform& pl, const Tiling& t, const KernelArgs& ka) {
    std::string shapes;
    for (auto& p : r.pout) {
        std::string list;  // a dynamic output: the list of its tensors' shapes
        for (const auto& o : p.tensors) list += (list.empty() ? "" : ", ") + ShapeStr(o.shape.GetStorageShape());
        shapes += (shapes.empty() ? "" : ", ") + json::quote(p.name) + ": " + (p.dynamic ? "[" + list + "]" : list);
    }
    const gert::TilingContext& tctx = *t.ctx;
    std::string res = "{\"output_shapes\": {" + shapes + "}, \"block_dim\": " + std::to_string(tctx.block_dim_) +
                      ", \"tiling_key\": " + std::to_string(tctx.tiling_key_) + ", \"workspace_bytes\": " + std::to_string(t.ws_bytes) +
                      ", \"tiling_bytes\": " + std::to_string(ka.tiling_bytes) + ", \"tiling_data_hex\": \"" + TilingHex(*t.data) + "\"" +
                      ", \"column\": " + std::to_string(r.column) + ", \"schedule_mode\": " + std::to_string(tctx.schedule_mode_) +
                      ", \"chip\": " + json::quote(pl.chip_name) + ", \"trace_only\": " + (r.trace_only ? "true" : "false") + "}\n";
    WriteFile(r.path + ".result.json", res.data(), res.size(), "result");
}

// `harness tiling`: what the tiling decided, written to REQUEST.json.result.json (the kernel is not launched).
inline void WriteTilingResult(const Request& r, const Platform& pl, const Tiling& t) {
    const gert::TilingContext& tctx = *t.ctx;
    std::string shapes, ws;
    for (const auto& p : r.pout) {
        std::string list;
        for (const auto& o : p.tensors) list += (list.empty() ? "" : ", ") + ShapeStr(o.shape.GetStorageShape());
        shapes += (shapes.empty() ? "" : ", ") + json::quote(p.name) + ": " + (p.dynamic ? "[" + list + "]" : list);
    }
    uint64_t ws_bytes = 0;
    for (size_t i = 0; i < tctx.workspace_.GetSize(); ++i) {
        ws += (i ? ", " : "") + std::to_string(tctx.workspace_.GetData()[i]);
        ws_bytes += tctx.workspace_.GetData()[i];
    }
    const std::string res = "{\"tiling_only\": true, \"output_shapes\": {" + shapes + "}, \"block_dim\": " +
                            std::to_string(tctx.block_dim_) + ", \"tiling_key\": " + std::to_string(tctx.tiling_key_) +
                            ", \"workspace_sizes\": [" + ws + "], \"workspace_bytes\": " + std::to_string(ws_bytes) +
                            ", \"schedule_mode\": " + std::to_string(tctx.schedule_mode_) + ", \"tiling_bytes\": " +
                            std::to_string(t.data->GetDataSize()) + ", \"tiling_data_hex\": \"" + TilingHex(*t.data) + "\"" +
                            ", \"column\": " + std::to_string(r.column) + ", \"chip\": " + json::quote(pl.chip_name) + "}\n";
    WriteFile(r.path + ".result.json", res.data(), res.size(), "result");
}

// The input tensors' GM of a tiling-only request (nothing else was allocated).
inline void FreeInputs(const Request& r) {
    for (auto& p : r.pin)
        for (auto& t : p.tensors)
            if (t.gm) opkit::sim::gm_free(t.gm);
}

inline void FreeArgs(const KernelArgs& ka) {
    for (void* p : ka.to_free) opkit::sim::gm_free(p);
}

}  // namespace host
}  // namespace opkit
