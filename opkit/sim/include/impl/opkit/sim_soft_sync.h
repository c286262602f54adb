// opkit simulator: the software SyncAll (SyncAll(gmWorkspace, ubWorkspace, usedCores)) and its workspace rules.
// Included by kernel_launch.h after the launch state (Launch, block_list, sync_timeout_s).
//
// On the chip every taking-part AIV core reads its 32-byte slot of the GM workspace (slot b at byte 32 * b),
// adds one to the counter there and writes it back, then polls the first usedCores slots until their sum
// reaches usedCores times its own counter. The simulator keeps that GM and UB traffic (the slots hold the
// same values as on the chip) but waits on a barrier, and checks the documented rules instead of spinning:
// - usedCores in [0, AIV cores launched] (0: all of them), the same on every core;
// - only cores below usedCores call it (a core past them writes a slot nobody reads and does not wait);
// - every core below usedCores reaches it (else a hang: reported as a deadlock naming the returned core);
// - the GM workspace is zero before the first call (each slot holds what its core wrote last);
// - gmWorkspace and ubWorkspace hold a 32-byte slot per taking-part core (the documentation asks
//   GetBlockNum() * 32 bytes of each; less than the slots touched is an error, less than documented a warning);
// - ubWorkspace in VECIN/VECCALC/VECOUT.
#pragma once

namespace opkit {
namespace sim {

// The software barrier of one launch (one per launch: every call site shares it, as the GM slots do).
struct SoftSync {
    int64_t size = 0, arrived = 0;  // taking-part cores, cores waiting now
    uint64_t gen = 0;
    int64_t first_tid = -1;  // the core whose call set `size`
    SrcLoc first_loc{nullptr, 0}, loc{nullptr, 0};
    std::vector<int64_t> calls;  // per thread: soft SyncAll calls that returned
};
// The launch's software barrier (created by the first call; L.mu held).
inline SoftSync& soft_sync_of(Launch& L) {
    if (!L.soft_sync) {
        auto p = std::make_shared<SoftSync>();
        p->calls.assign(size_t(L.T), 0);
        L.soft_sync = p;
    }
    return *static_cast<SoftSync*>(L.soft_sync.get());
}

// Taking-part cores (AIV threads whose AIV index is below size) that returned already.
inline int64_t soft_finished(const Launch& L, int64_t size) {
    int64_t f = 0;
    for (size_t i = 0; i < L.state.size(); ++i)
        if (L.state[i] == 2 && L.ctype[i] == CT_AIV && L.bidx[i] < size) ++f;
    return f;
}
inline std::string soft_list(const Launch& L, int64_t size, int st) {
    std::string s;
    int k = 0;
    for (size_t i = 0; i < L.state.size(); ++i)
        if (L.ctype[i] == CT_AIV && L.bidx[i] < size && L.state[i] == st && k++ < 16) s += (s.empty() ? "" : ", ") + L.desc(int64_t(i));
    if (k > 16) s += fmt(", ... (%d blocks)", k);
    return s;
}

// gm: the workspace's first int32 (gm_elems of them, 0: not given); ub: the UB workspace's address in the
// core's UB (ub_off), its size in int32 and its position's arena.
inline void soft_sync_all(int32_t* gm, uint64_t gm_elems, uint64_t ub_off, uint64_t ub_elems, bool ub_in_ub,
                          int32_t usedCores, const SrcLoc& loc) {
    const char* api = "SyncAll";
    CoreState& c = core();
    Launch* L = cur_launch();
    if (c.core_type == CT_AIC) return;  // the software form runs on the vector cores only (AIC cores return at once)
    barrier_all();                      // PipeBarrier<PIPE_ALL> first, as CANN's implementation does
    ++c.sync_epoch;
    if (!L) return;
    const int64_t aivs = L->n_aiv;
    if (usedCores < 0 || usedCores > aivs)
        fail_at(api, loc, "usedCores %d is outside [0, %lld]: this launch starts %lld AIV cores (GetBlockNum() * GetTaskRatio()); "
                "a count past them waits for cores that do not exist (a hang on the NPU); 0 synchronises all of them",
                usedCores, (long long)aivs, (long long)aivs);
    const int64_t n = usedCores ? usedCores : aivs;
    const int64_t me = c.block_idx;
    if (me >= n)
        fail_at(api, loc, "block %lld calls SyncAll(gmWorkspace, ubWorkspace, usedCores = %lld), which synchronises blocks "
                "0 to %lld only: on the NPU this block's flag lands in slot %lld, past the %lld slots the others poll, and "
                "it returns before they arrive; only blocks below usedCores may call it (guard the call with "
                "GetBlockIdx() < usedCores), or pass the number of cores that call it",
                (long long)me, (long long)n, (long long)n - 1, (long long)me, (long long)n);
    if (!ub_in_ub) fail_at(api, loc, "ubWorkspace must be a VECIN, VECCALC or VECOUT tensor (UB)");
    const uint64_t need = uint64_t(n) * 32, doc = uint64_t(L->n) * 32;
    if (gm_elems && gm_elems * 4 < need)
        fail_at(api, loc, "gmWorkspace holds %llu bytes, but %lld taking-part cores use a 32-byte slot each (%llu bytes); the "
                "documentation asks GetBlockNum() * 32 bytes, zero-initialised", (unsigned long long)(gm_elems * 4),
                (long long)n, (unsigned long long)need);
    if (ub_elems * 4 < need)
        fail_at(api, loc, "ubWorkspace holds %llu bytes, but the poll reads %lld slots of 32 bytes (%llu bytes) into it; the "
                "documentation asks GetBlockNum() * 32 bytes", (unsigned long long)(ub_elems * 4), (long long)n,
                (unsigned long long)need);
    if (gm_elems && gm_elems * 4 < doc)
        warn_at(api, loc, "gmWorkspace holds %llu bytes, less than the GetBlockNum() * 32 = %llu bytes the documentation asks",
                (unsigned long long)(gm_elems * 4), (unsigned long long)doc);
    if (ub_elems * 4 < doc)
        warn_at(api, loc, "ubWorkspace holds %llu bytes, less than the GetBlockNum() * 32 = %llu bytes the documentation asks",
                (unsigned long long)(ub_elems * 4), (unsigned long long)doc);
    gm_check(gm, need, api, loc, "read");
    std::unique_lock<std::mutex> lk(L->mu);
    SoftSync& S = soft_sync_of(*L);
    if (S.first_tid < 0) {
        S.size = n;
        S.first_tid = c.tid;
        S.first_loc = loc;
    } else if (S.size != n) {
        const std::string other = L->desc(S.first_tid);
        lk.unlock();
        fail_at(api, loc, "usedCores %lld here, but block %s called SyncAll(gmWorkspace, ubWorkspace) for %lld cores at %s:%d: "
                "every taking-part core must pass the same count (the others would wait for a different sum)",
                (long long)n, other.c_str(), (long long)S.size, S.first_loc.file ? S.first_loc.file : "?", S.first_loc.line);
    }
    const int64_t k = S.calls[size_t(c.tid)];
    int32_t* slot = gm + me * 8;
    if (*slot != int32_t(k)) {
        lk.unlock();
        if (k == 0)
            fail_at(api, loc, "the GM workspace slot of block %lld (bytes [%lld, %lld)) holds %d before its first SyncAll, not "
                    "0: the workspace must be zero-initialised (on the host, or by every core over the whole workspace "
                    "before any SyncAll); on the NPU the core's count starts at %d + 1 and the poll returns early or never",
                    (long long)me, (long long)me * 32, (long long)me * 32 + 4, *slot, *slot);
        fail_at(api, loc, "the GM workspace slot of block %lld (bytes [%lld, %lld)) holds %d, but this core wrote %lld there at "
                "its previous SyncAll: something overwrote the workspace between the calls (on the NPU the poll then "
                "returns early or never)", (long long)me, (long long)me * 32, (long long)me * 32 + 4, *slot, (long long)k);
    }
    *slot = int32_t(k + 1);  // the core's flag, as the chip's MTE3 copy leaves it
    L->state[size_t(c.tid)] = 1;
    S.loc = loc;
    const auto copy_slots = [&] {  // the poll's last GM -> UB copy: every slot, into the UB workspace
        std::memcpy(c.mem(A_UB).data + ub_off, gm, need);
        set_init(A_UB, ub_off, need);
        trace_event("{\"ev\":\"sync_all\",\"software\":true}");
    };
    if (++S.arrived == S.size) {
        S.arrived = 0;
        S.gen++;
        for (size_t i = 0; i < L->state.size(); ++i)
            if (L->state[i] == 1 && L->ctype[i] == CT_AIV && L->bidx[i] < S.size) L->state[i] = 0;
        S.calls[size_t(c.tid)]++;
        L->cv.notify_all();
        lk.unlock();
        copy_slots();
        return;
    }
    const int64_t fin = soft_finished(*L, S.size);
    if (fin > 0 && S.arrived + fin == S.size) {
        const std::string f = soft_list(*L, S.size, 2);
        lk.unlock();
        fail_at(api, loc, "deadlock: block(s) %s of the %lld cores this software SyncAll synchronises returned without "
                "calling it, so the others poll the GM workspace forever", f.c_str(), (long long)S.size);
    }
    const uint64_t gen = S.gen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(sync_timeout_s());
    while (S.gen == gen) {
        if (L->cv.wait_until(lk, deadline) == std::cv_status::timeout && S.gen == gen) {
            const std::string run = soft_list(*L, S.size, 0);
            lk.unlock();
            fail_at(api, loc, "watchdog: after %.0f s block(s) %s still have not reached the software SyncAll (hang on the NPU)",
                    sync_timeout_s(), run.c_str());
        }
    }
    S.calls[size_t(c.tid)]++;
    lk.unlock();
    copy_slots();
}

// A core returned: if it takes part in the software SyncAll others wait in, that is the hang (named at their call).
inline void soft_sync_block_finished(Launch& L, int64_t t, std::unique_lock<std::mutex>& lk) {
    if (!L.soft_sync) return;
    SoftSync& S = soft_sync_of(L);
    if (S.first_tid < 0 || L.ctype[size_t(t)] != CT_AIV || L.bidx[size_t(t)] >= S.size) return;
    if (S.arrived > 0 && S.arrived + soft_finished(L, S.size) == S.size) {
        const SrcLoc at = S.loc;
        const std::string w = soft_list(L, S.size, 1), me = L.desc(t);
        lk.unlock();
        fail_at("SyncAll", at, "deadlock: block %s returned without calling the software SyncAll that block(s) %s wait in "
                "(below) for %lld cores: the others poll the GM workspace forever", me.c_str(), w.c_str(), (long long)S.size);
    }
}

}  // namespace sim
}  // namespace opkit
