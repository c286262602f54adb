// opkit simulator: multi-block launch (each block a thread), SyncAll, workspace, tiling key.
#pragma once
#include "kernel_tpipe.h"

namespace opkit {
namespace sim {

struct Launch {
    std::string name;
    int64_t n = 1;
    std::mutex mu;
    std::condition_variable cv;
    int64_t arrived = 0, finished = 0;
    uint64_t gen = 0;
    std::vector<int> state;  // 0 running, 1 waiting in SyncAll, 2 returned
    SrcLoc sync_loc{nullptr, 0};
    uint8_t* workspace = nullptr;
};

inline double sync_timeout_s() {
    const char* e = std::getenv("OPKIT_SIM_SYNC_TIMEOUT");
    double v = e ? std::atof(e) : 60.0;
    return v > 0 ? v : 60.0;
}

inline std::string block_list(const Launch& L, int st) {
    std::string s;
    int k = 0;
    for (size_t i = 0; i < L.state.size(); ++i)
        if (L.state[i] == st) {
            if (k++ < 16) s += (s.empty() ? "" : ", ") + std::to_string(i);
        }
    if (k > 16) s += fmt(", ... (%d blocks)", k);
    return s;
}

inline void sync_all_impl(const SrcLoc& loc) {
    barrier_all();
    trace_event("{\"ev\":\"sync_all\"}");
    Launch* L = cur_launch();
    if (!L || L->n <= 1) return;
    std::unique_lock<std::mutex> lk(L->mu);
    int64_t b = core().block_idx;
    L->state[b] = 1;
    L->sync_loc = loc;
    L->arrived++;
    if (L->arrived == L->n) {
        L->arrived = 0;
        L->gen++;
        for (auto& s : L->state) if (s == 1) s = 0;
        L->cv.notify_all();
        return;
    }
    if (L->finished > 0 && L->arrived + L->finished == L->n) {
        std::string fin = block_list(*L, 2);
        lk.unlock();
        fail_at("SyncAll", loc, "deadlock: block(s) %s returned without reaching SyncAll, so the other blocks wait forever", fin.c_str());
    }
    uint64_t g = L->gen;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(sync_timeout_s());
    while (L->gen == g) {
        if (L->cv.wait_until(lk, deadline) == std::cv_status::timeout && L->gen == g) {
            std::string run = block_list(*L, 0);
            lk.unlock();
            fail_at("SyncAll", loc, "watchdog: after %.0f s block(s) %s still have not reached SyncAll (hang on the NPU)",
                    sync_timeout_s(), run.c_str());
        }
    }
}

inline void block_finished() {
    Launch* L = cur_launch();
    if (!L) return;
    std::unique_lock<std::mutex> lk(L->mu);
    L->state[core().block_idx] = 2;
    L->finished++;
    if (L->arrived > 0 && L->arrived + L->finished == L->n) {
        SrcLoc at = L->sync_loc;
        std::string w = block_list(*L, 1);
        lk.unlock();
        fail_at("SyncAll", at,
                "deadlock: block %lld returned without reaching SyncAll while block(s) %s wait in SyncAll (below)",
                (long long)core().block_idx, w.c_str());
    }
}

inline void check_core_end() {
    CoreState& c = core();
    for (int e = 0; e < 64; ++e)
        for (int i = 0; i < 8; ++i)
            if (c.flags[e][i].set) {
                const Site& s = c.flags[e][i].site;
                warn_at("SetFlag", SrcLoc(s.file, s.line), "event %d ID %d was set and never waited for before the kernel ended", e, i);
            }
}

struct CoreSummary {
    int64_t block;
    CoreState::Trace trace[NPIPE];
    std::map<std::string, CoreState::Trace> by_class;
    std::vector<std::string> events;
    uint64_t events_dropped = 0;
};

inline std::mutex& summary_mu() { static std::mutex m; return m; }
inline std::vector<CoreSummary>& summaries() { static std::vector<CoreSummary> v; return v; }

inline void write_trace(const std::string& name, int64_t n) {
    const char* path = std::getenv("OPKIT_SIM_TRACE");
    if (!path || !*path) return;
    FILE* f = std::fopen(path, "w");
    if (!f) return;
    auto& v = summaries();
    std::sort(v.begin(), v.end(), [](const CoreSummary& a, const CoreSummary& b) { return a.block < b.block; });
    std::fprintf(f, "{\"kernel\":\"%s\",\"soc\":\"%s\",\"blocks\":%lld,\"cores\":[", name.c_str(), OPKIT_SIM_SOC, (long long)n);
    for (size_t i = 0; i < v.size(); ++i) {
        std::fprintf(f, "%s\n {\"block\":%lld,\"pipes\":{", i ? "," : "", (long long)v[i].block);
        bool first = true;
        for (int p = 0; p < NPIPE; ++p) {
            const auto& t = v[i].trace[p];
            if (!t.instrs) continue;
            std::fprintf(f, "%s\"%s\":{\"instrs\":%llu,\"bytes\":%llu,\"repeats\":%llu}", first ? "" : ",", pipe_name(p),
                         (unsigned long long)t.instrs, (unsigned long long)t.bytes, (unsigned long long)t.repeats);
            first = false;
        }
        std::fprintf(f, "},\"instructions\":[");
        bool firsti = true;
        for (auto& kv : v[i].by_class) {
            size_t a = kv.first.find('|'), b = kv.first.find('|', a + 1);
            std::fprintf(f, "%s{\"pipe\":\"%s\",\"api\":\"%s\",\"dtype\":\"%s\",\"count\":%llu,\"bytes\":%llu,\"repeats\":%llu}",
                         firsti ? "" : ",", kv.first.substr(0, a).c_str(), kv.first.substr(a + 1, b - a - 1).c_str(),
                         kv.first.substr(b + 1).c_str(), (unsigned long long)kv.second.instrs, (unsigned long long)kv.second.bytes,
                         (unsigned long long)kv.second.repeats);
            firsti = false;
        }
        std::fprintf(f, "],\"events_dropped\":%llu,\"events\":[", (unsigned long long)v[i].events_dropped);
        for (size_t k = 0; k < v[i].events.size(); ++k) std::fprintf(f, "%s%s", k ? "," : "", v[i].events[k].c_str());
        std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

// Run `fn` on `n` emulated cores (threads of this process).
inline void run_blocks(const char* name, int64_t n, uint8_t* workspace, const std::function<void()>& fn) {
    if (n <= 0) { std::fprintf(stderr, "opkit-sim: error: kernel '%s' launched with %lld blocks\n", name, (long long)n); std::_Exit(G().exit_code); }
    Launch L;
    L.name = name;
    L.n = n;
    L.state.assign(n, 0);
    L.workspace = workspace;
    summaries().clear();
    bool trace_on = std::getenv("OPKIT_SIM_TRACE") != nullptr;
    std::vector<std::thread> ts;
    ts.reserve(n);
    std::mutex done_mu;
    std::condition_variable done_cv;
    int64_t done = 0;
    for (int64_t b = 0; b < n; ++b) {
        ts.emplace_back([&, b] {
            std::unique_ptr<CoreState> cs(new CoreState());
            cs->kernel = name;
            cs->block_idx = b;
            cs->block_num = n;
            cs->core_type = CT_AIV;
            cs->trace_on = trace_on;
            cur_core_ptr() = cs.get();
            cur_launch() = &L;
            fn();
            check_core_end();
            block_finished();
            {
                std::lock_guard<std::mutex> lk(summary_mu());
                CoreSummary s;
                s.block = b;
                std::memcpy(s.trace, cs->trace, sizeof s.trace);
                s.by_class = std::move(cs->by_class);
                s.events = std::move(cs->events);
                s.events_dropped = cs->events_dropped;
                summaries().push_back(std::move(s));
            }
            cur_launch() = nullptr;
            cur_core_ptr() = nullptr;
            std::lock_guard<std::mutex> lk(done_mu);
            ++done;
            done_cv.notify_all();
        });
    }
    // Watchdog for a kernel that never returns (OPKIT_SIM_KERNEL_TIMEOUT seconds, 0 = none).
    const char* kt = std::getenv("OPKIT_SIM_KERNEL_TIMEOUT");
    double limit = kt ? std::atof(kt) : 0.0;
    if (limit > 0) {
        std::unique_lock<std::mutex> lk(done_mu);
        if (!done_cv.wait_for(lk, std::chrono::duration<double>(limit), [&] { return done == n; })) {
            std::string running;
            {
                std::lock_guard<std::mutex> lk2(L.mu);
                running = block_list(L, 0);
            }
            lk.unlock();
            std::lock_guard<std::mutex> ek(G().err_mu);
            if (!G().failed.exchange(true)) {
                std::fprintf(stderr, "opkit-sim: error: kernel '%s': watchdog: block(s) %s still running after %.0f s (a hang on the NPU)\n",
                             name, running.c_str(), limit);
                std::fflush(stderr);
            }
            std::_Exit(G().exit_code);
        }
    }
    for (auto& t : ts) t.join();
    gm_check_guards((std::string("after kernel '") + name + "'").c_str());
    write_trace(name, n);
}

}  // namespace sim
}  // namespace opkit

namespace AscendC {
template <bool isAIVOnly>
void SyncAll(opkit::sim::SrcLoc loc) { opkit::sim::sync_all_impl(loc); }

inline GM_ADDR GetUserWorkspace(GM_ADDR ws, OPKIT_LOC) {
    using namespace opkit::sim;
    if (ws == nullptr) return nullptr;
    uint64_t off = 0;
    uint64_t size = gm_alloc_size(ws, &off);
    if (size == 0) fail_at("GetUserWorkspace", loc, "workspace %p is not a host GM allocation", (void*)ws);
    if (size - off < uint64_t(OPKIT_SIM_SYS_WORKSPACE))
        fail_at("GetUserWorkspace", loc,
                "workspace of %llu bytes is smaller than the system workspace the NPU reserves in front of the user "
                "workspace (%llu bytes on %s); the host must request userBytes + GetLibApiWorkSpaceSize()",
                (unsigned long long)(size - off), (unsigned long long)OPKIT_SIM_SYS_WORKSPACE, OPKIT_SIM_SOC);
    return ws + OPKIT_SIM_SYS_WORKSPACE;
}
}  // namespace AscendC

inline GM_ADDR GetSysWorkSpacePtr() {
    opkit::sim::Launch* L = opkit::sim::cur_launch();
    return L ? L->workspace : nullptr;
}
inline void SetSysWorkSpacePtr(GM_ADDR ws) {
    opkit::sim::Launch* L = opkit::sim::cur_launch();
    if (L) L->workspace = ws;
}
using AscendC::GetUserWorkspace;

// Tiling-key and tiling-data macros (kernel side).
#define TILING_KEY_IS(k) (::opkit::sim::G().tiling_key == (uint64_t)(k))
#define TILING_KEY_LIST(k1, k2) (TILING_KEY_IS(k1) || TILING_KEY_IS(k2))
#define TILING_KEY_VAR (::opkit::sim::G().tiling_key)
#define REGISTER_TILING_DEFAULT(T) using opkit_tiling_default_t__ = T
#define REGISTER_TILING_FOR_TILINGKEY(expr, T) using opkit_tiling_default_t__ = T
#define REGISTER_NONE_TILING static_assert(true, "")
enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0, KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE, KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX
};
// Legal at namespace and block scope; the launcher emulates AIV cores (see README).
#define KERNEL_TASK_TYPE_DEFAULT(t) static_assert((static_cast<void>(t), true), "kernel type")
#define KERNEL_TASK_TYPE(key, t) static_assert((static_cast<void>(key), static_cast<void>(t), true), "kernel type")
#define GET_TILING_DATA_WITH_STRUCT(T, var, tiling)                                                  \
    T var;                                                                                           \
    ::opkit::sim::gm_check((tiling), sizeof(T), "GET_TILING_DATA", ::opkit::sim::SrcLoc(), "read");  \
    std::memcpy(&var, (const void*)(tiling), sizeof(T))
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(opkit_tiling_default_t__, var, tiling)
#define GET_TILING_DATA_MEMBER(T, member, var, tiling)                                                           \
    decltype(T::member) var;                                                                                     \
    ::opkit::sim::gm_check((tiling) + offsetof(T, member), sizeof(var), "GET_TILING_DATA_MEMBER", ::opkit::sim::SrcLoc(), "read"); \
    std::memcpy(&var, (const uint8_t*)(tiling) + offsetof(T, member), sizeof(var))
#define GET_TILING_DATA_PTR_WITH_STRUCT(T, ptr, tiling) const T* ptr = reinterpret_cast<const T*>(tiling)
#define COPY_TILING_WITH_STRUCT(T, src, dst) T dst##_opkit_copy = *(src); const T* dst = &dst##_opkit_copy
