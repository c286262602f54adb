// opkit simulator: multi-block launch (each block a thread), SyncAll, workspace, tiling key.
#pragma once
#include "kernel_tpipe.h"

namespace opkit {
namespace sim {

struct Launch {
    std::string name;
    int64_t n = 1;            // numBlocks as launched
    int ktype = 0;            // KernelMetaType value
    int64_t n_aic = 0, n_aiv = 0, T = 0, ratio = 1;
    bool mix = false;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<int> state;   // per thread: 0 running, 1 waiting (SyncAll / CrossCoreWaitFlag), 2 returned
    std::vector<int> ctype;   // per thread: CT_AIC / CT_AIV
    std::vector<int64_t> bidx;
    struct Bar { int64_t size = 0, arrived = 0; uint64_t gen = 0; SrcLoc loc{nullptr, 0}; } bar[2];  // 0: AIV only, 1: all
    std::map<std::tuple<int, int, int64_t, int>, int64_t> pending;  // (mode, flag, receiver thread, sender sub) -> count
    std::map<std::pair<int, int>, int64_t> sets0;                    // mode 0: (core type, flag) -> sets so far
    std::vector<std::array<int64_t, 16>> round0;                     // mode 0: per thread, per flag
    uint8_t* workspace = nullptr;
    std::map<int64_t, std::shared_ptr<void>> mm_server;  // per AIC core: the Matmul API's MIX server (adv_api/matmul/matmul_server.h)
    std::shared_ptr<void> soft_sync;  // the software SyncAll's barrier (impl/opkit/sim_soft_sync.h)
    int64_t tid_aic(int64_t core) const { return core; }
    int64_t tid_aiv(int64_t core, int64_t sub) const { return n_aic + core * ratio + sub; }
    std::string desc(int64_t t) const {
        if (!mix) return std::to_string(bidx[t]);
        return std::string(ctype[t] == CT_AIC ? "AIC " : "AIV ") + std::to_string(bidx[t]);
    }
};

inline double sync_timeout_s() {
    const char* e = std::getenv("OPKIT_SIM_SYNC_TIMEOUT");
    double v = e ? std::atof(e) : 60.0;
    return v > 0 ? v : 60.0;
}

// Threads in state `st` (of group g: 0 AIV only, 1 all, -1 any) as a readable list.
inline std::string block_list(const Launch& L, int st, int g = -1) {
    std::string s;
    int k = 0;
    for (size_t i = 0; i < L.state.size(); ++i)
        if (L.state[i] == st && (g != 0 || L.ctype[i] == CT_AIV)) {
            if (k++ < 16) s += (s.empty() ? "" : ", ") + L.desc(int64_t(i));
        }
    if (k > 16) s += fmt(", ... (%d blocks)", k);
    return s;
}
inline int64_t finished_in(const Launch& L, int g) {
    int64_t f = 0;
    for (size_t i = 0; i < L.state.size(); ++i)
        if (L.state[i] == 2 && (g != 0 || L.ctype[i] == CT_AIV)) ++f;
    return f;
}

inline int64_t my_tid() { return core().tid; }
// True in launches with both cube and vector cores (MIX kernel types).
inline bool launch_is_mix() {
    Launch* L = cur_launch();
    return L && L->n_aic > 0 && L->n_aiv > 0;
}

inline void sync_all_impl(bool aiv_only, const SrcLoc& loc) {
    ++core().sync_epoch;  // GM writes before and after are ordered (cross-core overlap, sim_poison.h)
    barrier_all();
    trace_event(aiv_only ? "{\"ev\":\"sync_all\"}" : "{\"ev\":\"sync_all\",\"all_cores\":true}");
    Launch* L = cur_launch();
    if (!L) return;
    if (aiv_only && core().core_type == CT_AIC) return;  // AIC cores take no part in SyncAll<true> (assumed)
    if (!aiv_only && !L->mix)
        fail_at("SyncAll", loc, "SyncAll<false> waits for the cube cores too, but this launch (kernel type %d) starts none: "
                "a pure vector kernel uses SyncAll<true>; a mix kernel needs a MIX kernel type", L->ktype);
    int g = aiv_only ? 0 : 1;
    std::unique_lock<std::mutex> lk(L->mu);
    Launch::Bar& B = L->bar[g];
    if (B.size <= 1) return;
    int64_t t = my_tid();
    L->state[t] = 1;
    B.loc = loc;
    B.arrived++;
    if (B.arrived == B.size) {
        B.arrived = 0;
        B.gen++;
        for (size_t i = 0; i < L->state.size(); ++i)
            if (L->state[i] == 1 && (g == 1 || L->ctype[i] == CT_AIV)) L->state[i] = 0;
        L->cv.notify_all();
        return;
    }
    int64_t fin = finished_in(*L, g);
    if (fin > 0 && B.arrived + fin == B.size) {
        std::string f = block_list(*L, 2, g);
        lk.unlock();
        fail_at("SyncAll", loc, "deadlock: block(s) %s returned without reaching SyncAll, so the other blocks wait forever", f.c_str());
    }
    uint64_t gen = B.gen;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(sync_timeout_s());
    while (B.gen == gen) {
        if (L->cv.wait_until(lk, deadline) == std::cv_status::timeout && B.gen == gen) {
            std::string run = block_list(*L, 0, g);
            lk.unlock();
            fail_at("SyncAll", loc, "watchdog: after %.0f s block(s) %s still have not reached SyncAll (hang on the NPU)",
                    sync_timeout_s(), run.c_str());
        }
    }
}

}  // namespace sim
}  // namespace opkit
#include "impl/opkit/sim_soft_sync.h"
namespace opkit {
namespace sim {

// ---- cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag) ------------------------------------------
inline void cross_core_check(int mode, int flag, const char* api, const SrcLoc& loc, Launch*& L) {
    L = cur_launch();
    if (!L) fail_at(api, loc, "cross-core flags need a launch (ICPU_RUN_KF)");
    if (!L->mix)
        fail_at(api, loc, "cross-core flags need a MIX kernel type; this launch (kernel type %d) starts no scheduler for them", L->ktype);
    if (flag < 0 || flag > 15) fail_at(api, loc, "flagId %d is outside [0, 15]", flag);
    if (mode < 0 || mode > 2) fail_at(api, loc, "modeId %d is outside [0, 2]", mode);
    if (mode == 1 && core().core_type != CT_AIV) fail_at(api, loc, "mode 1 synchronises the AIVs of one core; called on an AIC");
}
inline void bump(Launch* L, std::tuple<int, int, int64_t, int> key, const char* api, const SrcLoc& loc) {
    int64_t& v = L->pending[key];
    if (++v > 15) fail_at(api, loc, "more than 15 outstanding sets of cross-core flag %d for %s (the hardware counter overflows)",
                          std::get<1>(key), L->desc(std::get<2>(key)).c_str());
}
// A set raises counters of the receiving cores (mode 1: the other AIVs of this core; mode 2: AIC
// -> its AIVs, AIV -> its AIC, which needs a set from every AIV of the core); mode 0 counts sets
// of all cores of one type, and a wait is released once every core of the type has set.
// Waits ignore their template arguments, as on A2/A3.
inline void mark_runnable(Launch* L, int64_t t) {
    if (L->state[t] == 1) L->state[t] = 0;
}
inline void cross_core_set(int mode, int flag, const SrcLoc& loc) {
    const char* api = "CrossCoreSetFlag";
    Launch* L;
    cross_core_check(mode, flag, api, loc, L);
    CoreState& c = core();
    std::lock_guard<std::mutex> lk(L->mu);
    if (mode == 0) {
        L->sets0[{c.core_type, flag}]++;
        for (int64_t t = 0; t < L->T; ++t)
            if (L->ctype[t] == c.core_type) mark_runnable(L, t);
    } else if (mode == 1) {
        for (int64_t s = 0; s < L->ratio; ++s)
            if (s != c.sub_block_idx) {
                bump(L, std::make_tuple(0, flag, L->tid_aiv(c.core_id, s), 0), api, loc);
                mark_runnable(L, L->tid_aiv(c.core_id, s));
            }
    } else if (c.core_type == CT_AIC) {
        if (L->n_aiv == 0) fail_at(api, loc, "mode 2 pairs an AIC with its AIVs; this launch has no AIV");
        for (int64_t s = 0; s < L->ratio; ++s) {
            bump(L, std::make_tuple(0, flag, L->tid_aiv(c.core_id, s), 0), api, loc);
            mark_runnable(L, L->tid_aiv(c.core_id, s));
        }
    } else {
        if (L->n_aic == 0) fail_at(api, loc, "mode 2 pairs an AIC with its AIVs; this launch has no AIC");
        bump(L, std::make_tuple(0, flag, L->tid_aic(c.core_id), int(c.sub_block_idx)), api, loc);
        mark_runnable(L, L->tid_aic(c.core_id));
    }
    if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"cross_set\",\"mode\":%d,\"flag\":%d}", mode, flag));
    L->cv.notify_all();
}
inline void cross_core_wait(int mode, int flag, const SrcLoc& loc) {
    const char* api = "CrossCoreWaitFlag";
    ++core().sync_epoch;  // ordered after the setter's writes (cross-core overlap, sim_poison.h)
    Launch* L;
    cross_core_check(0, flag, api, loc, L);
    (void)mode;
    CoreState& c = core();
    int64_t t = c.tid;
    std::unique_lock<std::mutex> lk(L->mu);
    const int subs = (c.core_type == CT_AIC && L->n_aiv > 0) ? int(L->ratio) : 1;
    auto pending_ready = [&]() -> bool {
        for (int s = 0; s < subs; ++s)
            if (L->pending[std::make_tuple(0, flag, t, s)] <= 0) return false;
        return true;
    };
    auto round_ready = [&]() -> bool {
        int64_t size = c.core_type == CT_AIC ? L->n_aic : L->n_aiv;
        return L->sets0[{c.core_type, flag}] >= (L->round0[t][flag] + 1) * size;
    };
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(sync_timeout_s());
    while (true) {
        if (pending_ready()) {
            for (int s = 0; s < subs; ++s) L->pending[std::make_tuple(0, flag, t, s)]--;
            break;
        }
        if (round_ready()) {
            L->round0[t][flag]++;
            break;
        }
        L->state[t] = 1;
        bool anyone_running = false;
        for (int64_t i = 0; i < L->T; ++i)
            if (L->state[i] == 0) anyone_running = true;
        if (!anyone_running) {
            std::string fin = block_list(*L, 2), wait = block_list(*L, 1);
            lk.unlock();
            fail_at(api, loc, "deadlock: waits for cross-core flag %d that no running core can set any more (returned: %s; waiting: %s)",
                    flag, fin.empty() ? "none" : fin.c_str(), wait.c_str());
        }
        if (L->cv.wait_until(lk, deadline) == std::cv_status::timeout && !pending_ready() && !round_ready()) {
            lk.unlock();
            fail_at(api, loc, "watchdog: after %.0f s cross-core flag %d was never set (hang on the NPU)", sync_timeout_s(), flag);
        }
    }
    L->state[t] = 0;
    if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"cross_wait\",\"flag\":%d}", flag));
}

inline void block_finished() {
    Launch* L = cur_launch();
    if (!L) return;
    std::unique_lock<std::mutex> lk(L->mu);
    int64_t t = my_tid();
    L->state[t] = 2;
    L->cv.notify_all();
    for (int g = 0; g < 2; ++g) {
        Launch::Bar& B = L->bar[g];
        if (g == 0 && L->ctype[t] != CT_AIV) continue;
        int64_t fin = finished_in(*L, g);
        if (B.arrived > 0 && B.arrived + fin == B.size) {
            SrcLoc at = B.loc;
            std::string w = block_list(*L, 1, g);
            std::string me = L->desc(t);
            lk.unlock();
            fail_at("SyncAll", at, "deadlock: block %s returned without reaching SyncAll while block(s) %s wait in SyncAll (below)",
                    me.c_str(), w.c_str());
        }
    }
    soft_sync_block_finished(*L, t, lk);
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
    int64_t tid = 0;
    int core_type = CT_AIV;
    CoreState::Trace trace[NPIPE];
    std::map<std::string, CoreState::Trace> by_class;
    TraceEvents events;
    uint64_t events_dropped = 0;
};

// One emulated device (an NPU of a multi-rank run): its rank in the world, its launch's core
// summaries and trace, its tiling key and HCCL contexts. Ranks run as threads of one process; the
// threads of a rank's cores see it through cur_device() (nullptr: the single-device run of before).
struct Device {
    int rank = 0;
    int rank_dim = 1;
    uint64_t tiling_key = 0;
    bool tiling_key_set = false;
    uint8_t* hccl_ctx[2] = {nullptr, nullptr};
    std::vector<CoreSummary> summaries;
    std::string trace_path;  // OPKIT_SIM_TRACE with ".rank<r>" before its extension (multi-rank runs)
};
inline Device*& cur_device() { static thread_local Device* d = nullptr; return d; }
inline void set_cur_device(Device* d) {
    cur_device() = d;
    cur_rank() = d ? d->rank : -1;
}
// The device of the calling thread and the global state's tiling key of a single-device run.
inline uint64_t& tiling_key_ref() { Device* d = cur_device(); return d ? d->tiling_key : G().tiling_key; }
inline bool& tiling_key_set_ref() { Device* d = cur_device(); return d ? d->tiling_key_set : G().tiling_key_set; }

inline std::mutex& summary_mu() { static std::mutex m; return m; }
inline std::vector<CoreSummary>& summaries() {
    static std::vector<CoreSummary> v;
    Device* d = cur_device();
    return d ? d->summaries : v;
}
// The trace file of the calling device's launch: OPKIT_SIM_TRACE, per rank in multi-rank runs.
inline std::string trace_path() {
    Device* d = cur_device();
    if (d && d->rank_dim > 1) return d->trace_path;
    const char* p = std::getenv("OPKIT_SIM_TRACE");
    return p ? p : "";
}

inline void write_trace(const std::string& name, int64_t n) {
    const std::string path = trace_path();
    if (path.empty()) return;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return;
    auto& v = summaries();
    std::sort(v.begin(), v.end(), [](const CoreSummary& a, const CoreSummary& b) { return a.tid < b.tid; });
    const Device* dev = cur_device();
    std::fprintf(f, "{\"kernel\":\"%s\",\"soc\":\"%s\",\"blocks\":%lld,\"trace_only\":%s,\"rank\":%d,\"rank_dim\":%d,\"cores\":[",
                 name.c_str(), OPKIT_SIM_SOC, (long long)n, trace_only() ? "true" : "false", dev ? dev->rank : 0,
                 dev ? dev->rank_dim : 1);
    for (size_t i = 0; i < v.size(); ++i) {
        std::fprintf(f, "%s\n {\"block\":%lld,\"core_type\":\"%s\",\"pipes\":{", i ? "," : "", (long long)v[i].block,
                     v[i].core_type == CT_AIC ? "AIC" : "AIV");
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
        bool firste = true;  // an event taken back (sim_trace.h, untrace) is left out
        const TraceEvents& ev = v[i].events;
        for (size_t k = 0; k < ev.size(); ++k) {
            if (ev.taken(k)) continue;
            if (!firste) std::fputc(',', f);
            std::fwrite(ev.data(k), 1, ev.length(k), f);
            firste = false;
        }
        v[i].events.release();  // written: its memory goes back before the next core's is written
        std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

// Kernel types as KernelMetaType orders them (declared in the global namespace below).
enum : int { KT_AIV_ONLY = 0, KT_AIC_ONLY, KT_MIX_AIV_1_0, KT_MIX_AIC_1_0, KT_MIX_AIC_1_1, KT_MIX_AIC_1_2 };

// Run `fn` on the cores `numBlocks` starts for kernel type `ktype` (threads of this process):
// AIV_ONLY/MIX_AIV_1_0: n AIV; AIC_ONLY/MIX_AIC_1_0: n AIC; MIX_AIC_1_1: n AIC + n AIV;
// MIX_AIC_1_2: n AIC + 2n AIV.
inline void run_blocks(const char* name, int64_t n, uint8_t* workspace, const std::function<void()>& fn, int ktype = KT_AIV_ONLY) {
    if (n <= 0) { std::fprintf(stderr, "opkit-sim: error: kernel '%s' launched with %lld blocks\n", name, (long long)n); std::_Exit(G().exit_code); }
    Launch L;
    L.name = name;
    L.n = n;
    L.ktype = ktype;
    L.workspace = workspace;
    L.mix = ktype >= KT_MIX_AIV_1_0 && ktype <= KT_MIX_AIC_1_2;
    L.n_aic = (ktype == KT_AIC_ONLY || ktype == KT_MIX_AIC_1_0 || ktype == KT_MIX_AIC_1_1 || ktype == KT_MIX_AIC_1_2) ? n : 0;
    L.ratio = ktype == KT_MIX_AIC_1_2 ? 2 : 1;
    L.n_aiv = (ktype == KT_AIC_ONLY || ktype == KT_MIX_AIC_1_0) ? 0 : n * L.ratio;
    L.T = L.n_aic + L.n_aiv;
    L.state.assign(L.T, 0);
    L.ctype.assign(L.T, CT_AIV);
    L.bidx.assign(L.T, 0);
    L.round0.assign(L.T, std::array<int64_t, 16>{});
    for (int64_t t = 0; t < L.T; ++t) {
        if (t < L.n_aic) { L.ctype[t] = CT_AIC; L.bidx[t] = t; }
        else L.bidx[t] = t - L.n_aic;
    }
    L.bar[0].size = L.n_aiv;
    L.bar[1].size = L.T;
    summaries().clear();
    uint64_t serial;  // GM writer tags (sim_poison.h) compare within one launch
    {
        std::lock_guard<std::mutex> lk(G().gm_mu);
        serial = ++G().launch_serial;
    }
    bool trace_on = !trace_path().empty();  // OPKIT_SIM_TRACE, or the rank's own trace file in multi-rank runs
    std::atomic<int64_t> trace_left{trace_on ? trace_event_pool() : 0};  // the launch's pool (sim_trace.h)
    std::vector<std::thread> ts;
    ts.reserve(L.T);
    std::mutex done_mu;
    std::condition_variable done_cv;
    int64_t done = 0;
    const int64_t T = L.T;
    Device* const dev = cur_device();
    for (int64_t t = 0; t < T; ++t) {
        ts.emplace_back([&, t] {
            set_cur_device(dev);
            std::unique_ptr<CoreState> cs(new CoreState());
            cs->kernel = name;
            cs->tid = t;
            cs->core_type = L.ctype[t];
            cs->block_idx = L.bidx[t];
            cs->block_num = n;
            if (cs->core_type == CT_AIV) {
                cs->core_id = L.n_aic ? L.bidx[t] / L.ratio : L.bidx[t];
                cs->sub_block_idx = L.n_aic ? L.bidx[t] % L.ratio : 0;
                cs->task_ratio = L.n_aic ? L.ratio : 1;
            } else {
                cs->core_id = t;
            }
            cs->trace_on = trace_on;
            cs->trace_left = &trace_left;
            cs->launch_serial = serial;
            cur_core_ptr() = cs.get();
            cur_launch() = &L;
            fn();
            check_core_end();
            block_finished();
            {
                std::lock_guard<std::mutex> lk(summary_mu());
                CoreSummary s;
                s.block = cs->block_idx;
                s.tid = t;
                s.core_type = cs->core_type;
                std::memcpy(s.trace, cs->trace, sizeof s.trace);
                s.by_class = std::move(cs->by_class);
                s.events = std::move(cs->events);
                s.events_dropped = cs->events_dropped;
                summaries().push_back(std::move(s));
            }
            cur_launch() = nullptr;
            cur_core_ptr() = nullptr;
            set_cur_device(nullptr);
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
        if (!done_cv.wait_for(lk, std::chrono::duration<double>(limit), [&] { return done == T; })) {
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

// Hooks of a multi-rank run (the communicator of adv_api/hccl/hccl.h registers them): called on
// each rank's thread before its body and after it returned (the end-of-run checks).
struct RankHooks {
    std::function<void(Device&)> start, end;
};
inline RankHooks& rank_hooks() { static RankHooks h; return h; }

// A run of world size R: R devices (rank 0..R-1) as threads of this process, each running
// `body(rank)` (its host work and its launches) with its own launch state, core summaries,
// trace file and HCCL context. Returns when every rank returned.
inline void run_ranks(int R, const std::function<void(int)>& body) {
    if (R < 1 || R > 64) {
        std::fprintf(stderr, "opkit-sim: error: world size %d: a multi-rank run takes 1 to 64 ranks\n", R);
        std::_Exit(G().exit_code);
    }
    std::vector<std::unique_ptr<Device>> devs;
    const char* tp = std::getenv("OPKIT_SIM_TRACE");
    for (int r = 0; r < R; ++r) {
        devs.emplace_back(new Device());
        Device& d = *devs.back();
        d.rank = r;
        d.rank_dim = R;
        d.tiling_key = G().tiling_key;
        d.tiling_key_set = G().tiling_key_set;
        if (tp && *tp) {
            std::string p = tp;
            size_t dot = p.rfind('.'), slash = p.rfind('/');
            if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = p.size();
            d.trace_path = p.substr(0, dot) + ".rank" + std::to_string(r) + p.substr(dot);
        }
    }
    if (rank_hooks().start)
        for (auto& d : devs) rank_hooks().start(*d);
    std::vector<std::thread> ts;
    for (int r = 0; r < R; ++r)
        ts.emplace_back([&, r] {
            set_cur_device(devs[size_t(r)].get());
            body(r);
            if (rank_hooks().end) rank_hooks().end(*devs[size_t(r)]);
            set_cur_device(nullptr);
        });
    for (auto& t : ts) t.join();
}
// The calling thread's rank and world size (0 and 1 outside a multi-rank run).
inline int rank_id() { Device* d = cur_device(); return d ? d->rank : 0; }
inline int rank_dim() { Device* d = cur_device(); return d ? d->rank_dim : 1; }

}  // namespace sim
}  // namespace opkit

namespace AscendC {
template <bool isAIVOnly>
void SyncAll(opkit::sim::SrcLoc loc) { opkit::sim::sync_all_impl(isAIVOnly, loc); }

// The software form: pure vector kernels, usedCores of the AIV cores (0: all); rules in impl/opkit/sim_soft_sync.h.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0,
                    OPKIT_LOC) {
    opkit::sim::soft_sync_all(gmWorkspace.GetPhyAddr(), gmWorkspace.GetSize(), ubWorkspace.GetPhyAddr(), ubWorkspace.GetSize(),
                              ubWorkspace.arena() == opkit::sim::A_UB, usedCores, loc);
}

template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId, OPKIT_LOC) {
    static_assert(pipe != PIPE_ALL && pipe != PIPE_S, "CrossCoreSetFlag: pipe must be V, M, MTE1, MTE2, MTE3 or FIX");
    opkit::sim::cross_core_set(modeId, flagId, loc);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId, OPKIT_LOC) { opkit::sim::cross_core_wait(modeId, flagId, loc); }

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

// HCCL contexts of the two communication domains (set by CPU-debug harnesses by name); in a
// multi-rank run each device holds its own (the rank's communicator, adv_api/hccl/hccl.h).
inline uint8_t* g_hcclContextReserved[2] = {nullptr, nullptr};

namespace AscendC {
template <uint32_t index>
inline GM_ADDR GetHcclContext() {
    static_assert(index < 2, "GetHcclContext: index 0 or 1");
    opkit::sim::Device* d = opkit::sim::cur_device();
    return d ? d->hccl_ctx[index] : g_hcclContextReserved[index];
}
template <uint32_t index>
inline void SetHcclContext(GM_ADDR ctx) {
    static_assert(index < 2, "SetHcclContext: index 0 or 1");
    opkit::sim::Device* d = opkit::sim::cur_device();
    (d ? d->hccl_ctx[index] : g_hcclContextReserved[index]) = ctx;
}
// Task-to-task overlap hints: no effect in a single-stream simulation.
template <bool FORCE = false>
inline void WaitPreTaskEnd() {}
template <pipe_t AIV_PIPE = PIPE_MTE3, pipe_t AIC_PIPE = PIPE_MTE3, bool FORCE = false>
inline void SetNextTaskStart() {}
// AscendCUtils (mask helpers, SetOverflow): basic_api/kernel_common.h.
// DropOutBitModeInit: adv_api/filter/dropout.h.
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
#define TILING_KEY_IS(k) (::opkit::sim::tiling_key_ref() == (uint64_t)(k))
#define TILING_KEY_LIST(k1, k2) (TILING_KEY_IS(k1) || TILING_KEY_IS(k2))
#define TILING_KEY_VAR (::opkit::sim::tiling_key_ref())
#define REGISTER_TILING_DEFAULT(T) using opkit_tiling_default_t__ = T
#define REGISTER_TILING_FOR_TILINGKEY(expr, T) using opkit_tiling_default_t__ = T
#define REGISTER_NONE_TILING static_assert(true, "")
enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0, KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE, KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX
};
static_assert(int(KERNEL_TYPE_MIX_AIC_1_2) == int(opkit::sim::KT_MIX_AIC_1_2) && int(KERNEL_TYPE_AIC_ONLY) == int(opkit::sim::KT_AIC_ONLY),
              "KernelMetaType values must match the launcher's kernel types");
// Legal at namespace and block scope; the kernel type of a launch comes from the runner (see README).
#define KERNEL_TASK_TYPE_DEFAULT(t) static_assert((static_cast<void>(t), true), "kernel type")
#define KERNEL_TASK_TYPE(key, t) static_assert((static_cast<void>(key), static_cast<void>(t), true), "kernel type")
#define GET_TILING_DATA_WITH_STRUCT(T, var, tiling)                                                  \
    T var;                                                                                           \
    ::opkit::sim::gm_check((tiling), sizeof(T), "GET_TILING_DATA", ::opkit::sim::SrcLoc(), "read");  \
    std::memcpy(&var, (const void*)(tiling), sizeof(T))
// GET_TILING_DATA reads the op's TilingData type: the class its host registers with
// REGISTER_TILING_DATA_CLASS (the build's generated tiling header redefines OPKIT_TILING_DATA_TYPE,
// as CANN's build generates the kernel-side struct), else the kernel's REGISTER_TILING_DEFAULT type.
#ifndef OPKIT_TILING_DATA_TYPE
#define OPKIT_TILING_DATA_TYPE opkit_tiling_default_t__
#endif
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(OPKIT_TILING_DATA_TYPE, var, tiling)
#define GET_TILING_DATA_MEMBER(T, member, var, tiling)                                                           \
    decltype(T::member) var;                                                                                     \
    ::opkit::sim::gm_check((tiling) + offsetof(T, member), sizeof(var), "GET_TILING_DATA_MEMBER", ::opkit::sim::SrcLoc(), "read"); \
    std::memcpy(&var, (const uint8_t*)(tiling) + offsetof(T, member), sizeof(var))
#define GET_TILING_DATA_PTR_WITH_STRUCT(T, ptr, tiling) const T* ptr = reinterpret_cast<const T*>(tiling)
#define COPY_TILING_WITH_STRUCT(T, src, dst) T dst##_opkit_copy = *(src); const T* dst = &dst##_opkit_copy
