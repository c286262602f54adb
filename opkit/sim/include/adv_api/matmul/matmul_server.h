// opkit simulator: the Matmul API's MIX server ("KFC" on Atlas A2): the cube work of the AIV clients runs on their AIC.
//
// In a MIX launch REGIST_MATMUL_OBJ on an AIC registers the AIC's own instances of the objects and enters serve():
// the loop runs the jobs the AIVs of that AIC post (one job per API call: a closure over the client's state for
// that call), on the AIC thread, so the job's cube instructions use the AIC's CoreState (L1/L0A/L0B/L0C/BiasTable,
// pipes, trace). Jobs of one client run in the order posted. A job that leaves a tile in L0C (Iterate) leases the
// server to its client until the job that reads the tile out (GetTensorC); meanwhile the jobs of other clients wait.
// The loop ends when every AIV of the AIC has finished the kernel; then the AIC returns from the kernel.
// Scheduler states: a client waiting for a job and a server waiting for jobs are "waiting" (state 1); a post makes
// the server runnable, a finished job its client.
#pragma once
#include <deque>
#include <functional>
#include <typeinfo>

#include "kernel_launch.h"

namespace opkit {
namespace sim {
namespace mm {

struct Job {
    uint64_t id = 0;
    int64_t client = 0;  // thread id of the posting AIV
    int obj = 0;         // index of the object in REGIST_MATMUL_OBJ
    size_t type = 0;     // typeid hash of the object's class
    int lease = 0;       // 1: takes the lease (leaves a tile in L0C), -1: releases it, 0: neither
    SrcLoc loc{nullptr, 0};
    const char* what = "";
    std::function<void(void*)> fn;
};

struct Server {
    bool up = false, waiting = false;
    std::vector<void*> objs;
    std::vector<size_t> types;
    std::deque<Job> q;
    int64_t lease = -1;
    uint64_t next_id = 1;
    std::map<int64_t, uint64_t> done;  // client thread -> id of its last finished job
};

// The server of AIC `core` (created on first use; the caller holds L->mu).
inline Server& server_of(Launch* L, int64_t core) {
    auto& p = L->mm_server[core];
    if (!p) p = std::make_shared<Server>();
    return *static_cast<Server*>(p.get());
}

// Client side: queue `job` on the server of this AIV's AIC; returns its id.
inline uint64_t post(Job job) {
    Launch* L = cur_launch();
    CoreState& c = core();
    std::lock_guard<std::mutex> lk(L->mu);
    Server& s = server_of(L, c.core_id);
    job.id = s.next_id++;
    job.client = c.tid;
    s.q.push_back(std::move(job));
    if (c.trace_on) trace_event(fmt("{\"ev\":\"mm_post\",\"aic\":%lld,\"job\":%llu}", (long long)c.core_id,
                                    (unsigned long long)s.q.back().id));  // the replay's AIV -> AIC edge
    int64_t aic = L->tid_aic(c.core_id);
    if (s.waiting && L->state[aic] == 1) L->state[aic] = 0;
    L->cv.notify_all();
    return s.q.back().id;
}

// Client side: block until this client's job `id` has run.
inline void wait(uint64_t id, const char* api, const SrcLoc& loc) {
    Launch* L = cur_launch();
    CoreState& c = core();
    std::unique_lock<std::mutex> lk(L->mu);
    Server& s = server_of(L, c.core_id);
    const int64_t t = c.tid, aic = L->tid_aic(c.core_id);
    if (c.trace_on) trace_event(fmt("{\"ev\":\"mm_wait\",\"aic\":%lld,\"job\":%llu}", (long long)c.core_id,
                                    (unsigned long long)id));  // the replay's AIC -> AIV edge
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(sync_timeout_s());
    while (s.done[t] < id) {
        if (L->state[aic] == 2) {
            lk.unlock();
            fail_at(api, loc, "the Matmul job cannot run: AIC %lld returned from the kernel without serving its AIVs (on the AIC, "
                    "REGIST_MATMUL_OBJ must be reached: it runs the Matmul server that does the cube work of the AIV clients)",
                    (long long)c.core_id);
        }
        L->state[t] = 1;
        if (L->cv.wait_until(lk, deadline) == std::cv_status::timeout && s.done[t] < id) {
            lk.unlock();
            fail_at(api, loc, "watchdog: after %.0f s the Matmul job was not served by AIC %lld (hang on the NPU)", sync_timeout_s(),
                    (long long)c.core_id);
        }
    }
    L->state[t] = 0;
}

// The client (thread id of the posting AIV) whose job the calling AIC thread is running; -1 outside a served job
// (an AIC-only launch runs its Matmul inline). IBShare's L1 reuse needs it (matmul_cube_steps.h).
inline int64_t& serving_client() {
    static thread_local int64_t client = -1;
    return client;
}

// Server side (the AIC thread): run the AIVs' jobs until all of them have finished the kernel.
inline void serve(const std::vector<void*>& objs, const std::vector<size_t>& types) {
    Launch* L = cur_launch();
    CoreState& c = core();
    const int64_t me = c.tid;
    std::unique_lock<std::mutex> lk(L->mu);
    Server& s = server_of(L, c.core_id);
    s.up = true;
    s.objs = objs;
    s.types = types;
    auto clients_done = [&] {
        for (int64_t sub = 0; sub < L->ratio; ++sub)
            if (L->state[L->tid_aiv(c.core_id, sub)] != 2) return false;
        return true;
    };
    while (true) {
        if (s.lease >= 0 && L->state[s.lease] == 2) s.lease = -1;  // the holder ended without reading its tile out
        auto it = s.q.begin();
        while (it != s.q.end() && s.lease >= 0 && it->client != s.lease) ++it;
        if (it != s.q.end()) {
            Job j = std::move(*it);
            s.q.erase(it);
            lk.unlock();
            if (j.obj < 0 || size_t(j.obj) >= s.objs.size())
                fail_at(j.what, j.loc, "the AIC registered %zu Matmul object(s) with REGIST_MATMUL_OBJ, but this call is for object %d "
                        "(the AIC and AIV code must register the same objects in the same order)", s.objs.size(), j.obj + 1);
            if (s.types[j.obj] != j.type)
                fail_at(j.what, j.loc, "Matmul object %d of REGIST_MATMUL_OBJ has another type on the AIC than on the AIV (the AIC and "
                        "AIV code must register the same objects in the same order)", j.obj + 1);
            if (c.trace_on) trace_event(fmt("{\"ev\":\"mm_run\",\"job\":%llu,\"lease\":%d}", (unsigned long long)j.id,
                                            j.lease));  // lease: the replay keeps a leased tile's jobs together
            serving_client() = j.client;
            j.fn(s.objs[j.obj]);
            serving_client() = -1;
            if (c.trace_on) trace_event(fmt("{\"ev\":\"mm_done\",\"job\":%llu}", (unsigned long long)j.id));
            lk.lock();
            if (j.lease > 0) s.lease = j.client;
            if (j.lease < 0 && s.lease == j.client) s.lease = -1;
            s.done[j.client] = j.id;
            if (L->state[j.client] == 1) L->state[j.client] = 0;
            L->cv.notify_all();
            continue;
        }
        if (clients_done()) break;
        s.waiting = true;
        L->state[me] = 1;
        L->cv.wait(lk);
        s.waiting = false;
        L->state[me] = 0;
    }
    s.up = false;
}

}  // namespace mm
}  // namespace sim
}  // namespace opkit
