// opkit simulator: diagnostics (errors end the run with one message; warnings once per call site).
#pragma once
#include "impl/opkit/sim_config.h"

namespace opkit {
namespace sim {

// ---------------------------------------------------------------------------------------------
// Diagnostics.
struct Global {
    std::mutex err_mu;
    std::atomic<bool> failed{false};
    std::mutex gm_mu;
    struct GmEntry {
        uint64_t size; uint64_t raw_size; void* raw; std::string name; void* map_base = nullptr; uint64_t map_len = 0;
        int device = -1;  // the rank whose device owns it (-1: the host of a single-device run)
        uint64_t serial = 0;  // the order of the allocations (gm_serial when it was made), for the trace's GM ids
        uint16_t* wr = nullptr;     // poisoned output: writer tag per 32-byte block, 0 unwritten (sim_poison.h)
        uint16_t* wr_el = nullptr;  // writer tag per element, for the blocks written in part
        uint8_t pat[8] = {};    // its element pattern
        uint8_t esz = 1;        // and element size
    };
    std::map<uintptr_t, GmEntry> gm;  // user pointer -> entry
    uint64_t gm_serial = 0;           // counts allocations (GmEntry::serial)
    std::mutex atomic_mu;
    std::mutex warn_mu;
    std::unordered_map<std::string, int> warned;
    uint64_t tiling_key = 0;
    bool tiling_key_set = false;
    int exit_code = 3;
    int kernel_type = -1;  // KernelMetaType chosen by the runner; -1: from SetKernelMode
    int kernel_mode = -1;  // SetKernelMode: 0 MIX, 1 AIC, 2 AIV; -1 not called
    uint64_t launch_serial = 0;  // counts launches (writer tags of one launch are compared, sim_poison.h)
    bool trace_only = false;  // trace-only mode: bookkeeping and checks without arithmetic or data bytes
};
inline bool on_aic();
inline Global& G() { static Global g; return g; }
// The runner picks the kernel type of the next launches (KernelMetaType value, -1 to unset).
inline void set_kernel_type(int t) { G().kernel_type = t; }
// Trace-only mode (set by the runner before a launch): the kernel's control flow, queue, event
// and flag bookkeeping, address/size/pipe checks and the trace are as in a full run, but vector
// arithmetic and the bytes of data moves are skipped, and the written-state ("never-written
// bytes") checks are off, since no values exist to check. Outputs of such a run are not results.
inline void set_trace_only(bool on) { G().trace_only = on; }
inline bool trace_only() { return G().trace_only; }

// OPKIT_SIM_CHECKS_OFF: a comma-separated list of checks to leave out (order: same-pipe ordering, overlap:
// cross-core GM write overlap, uaf: use after free), for measuring what each costs (benchmarks/sim_speed.py
// --checks); unwritten outputs have their own switch (OPKIT_SIM_POISON=off).
enum : unsigned { kCheckOrder = 1, kCheckOverlap = 2, kCheckUaf = 4 };
inline unsigned checks_off() {
    static const unsigned v = [] {
        const char* e = std::getenv("OPKIT_SIM_CHECKS_OFF");
        unsigned m = 0;
        if (!e) return m;
        const std::string s = std::string(",") + e + ",";
        if (s.find(",order,") != std::string::npos) m |= kCheckOrder;
        if (s.find(",overlap,") != std::string::npos) m |= kCheckOverlap;
        if (s.find(",uaf,") != std::string::npos) m |= kCheckUaf;
        return m;
    }();
    return v;
}
inline bool check_on(unsigned c) { return (checks_off() & c) == 0; }

// The rank of the device the calling thread runs on (-1: single-device run); set with the device
// (kernel_launch.h), read by the GM table to record which device owns an allocation.
inline int& cur_rank() { static thread_local int r = -1; return r; }
// "rank r: " in the diagnostics of a multi-rank run, "" otherwise.
inline std::string rank_tag() { return cur_rank() >= 0 ? "rank " + std::to_string(cur_rank()) + ": " : std::string(); }

struct CoreState;
inline CoreState*& cur_core_ptr() { static thread_local CoreState* c = nullptr; return c; }
inline std::string core_desc();

inline std::string vfmt(const char* fmt, va_list ap) {
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return buf;
}
inline std::string fmt(const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string s = vfmt(f, ap);
    va_end(ap);
    return s;
}

// Ends the run with one diagnostic: kernel, block, API, message, call site.
[[noreturn]] inline void fail_at(const char* api, const SrcLoc& loc, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string msg = vfmt(f, ap);
    va_end(ap);
    {
        std::lock_guard<std::mutex> lk(G().err_mu);
        if (!G().failed.exchange(true)) {
            std::fprintf(stderr, "opkit-sim: error: %s: %s: %s\n", core_desc().c_str(), api, msg.c_str());
            if (loc.file) std::fprintf(stderr, "  at %s:%d\n", loc.file, loc.line);
            std::fflush(stderr);
            std::fflush(stdout);
        }
    }
    std::_Exit(G().exit_code);
}

inline void warn_at(const char* api, const SrcLoc& loc, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string msg = vfmt(f, ap);
    va_end(ap);
    std::string key = std::string(api) + "@" + (loc.file ? loc.file : "") + ":" + std::to_string(loc.line) + "#" +
                      std::to_string(reinterpret_cast<uintptr_t>(f));
    std::lock_guard<std::mutex> lk(G().warn_mu);
    if (G().warned[key]++) return;  // once per call site and kind of warning
    std::fprintf(stderr, "opkit-sim: warning: %s: %s: %s\n", core_desc().c_str(), api, msg.c_str());
    if (loc.file) std::fprintf(stderr, "  at %s:%d\n", loc.file, loc.line);
    std::fflush(stderr);
}

}  // namespace sim
}  // namespace opkit
