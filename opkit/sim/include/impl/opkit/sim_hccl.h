// opkit simulator: the communicator of a multi-rank run (the AICPU server behind Ascend C's Hccl).
//
// Every rank prepares its collectives in order (task k of a rank is matched with task k of every
// other rank: kind, count, dtype, reduce op, stride and repeat must agree). A Commit releases the
// next slice (repeat) of a task; slice i of task k moves when the last rank committed it, from the
// committers' send buffers into every rank's receive buffer; a Wait returns when the slice it
// waits for has landed. The checks end the run with one diagnostic: a Wait with nothing committed,
// a Commit beyond the repeat count, Finalize with slices never committed, sequences that differ
// across ranks, every rank blocked (a deadlock, named as such), a slice larger than the window.
#pragma once
#include <cmath>

#include "adv_api/hccl/hccl_common.h"
#include "kernel_launch.h"

namespace opkit {
namespace sim {
namespace hccl {

enum Kind : int { K_ALLREDUCE = 0, K_ALLGATHER, K_REDUCESCATTER, K_ALLTOALL };
inline const char* collective_name(int k) {
    static const char* n[] = {"AllReduce", "AllGather", "ReduceScatter", "AlltoAll"};
    return n[k];
}

// Element size of an HCCL data type (0: not one the simulator moves).
inline int dtype_size(int dt) {
    switch (dt) {
        case AscendC::HCCL_DATA_TYPE_INT8: case AscendC::HCCL_DATA_TYPE_UINT8: return 1;
        case AscendC::HCCL_DATA_TYPE_INT16: case AscendC::HCCL_DATA_TYPE_UINT16: case AscendC::HCCL_DATA_TYPE_FP16:
        case AscendC::HCCL_DATA_TYPE_BFP16: return 2;
        case AscendC::HCCL_DATA_TYPE_INT32: case AscendC::HCCL_DATA_TYPE_UINT32: case AscendC::HCCL_DATA_TYPE_FP32: return 4;
        case AscendC::HCCL_DATA_TYPE_INT64: case AscendC::HCCL_DATA_TYPE_UINT64: case AscendC::HCCL_DATA_TYPE_FP64: return 8;
        default: return 0;
    }
}
inline const char* dtype_name(int dt) {
    switch (dt) {
        case AscendC::HCCL_DATA_TYPE_INT8: return "int8";
        case AscendC::HCCL_DATA_TYPE_UINT8: return "uint8";
        case AscendC::HCCL_DATA_TYPE_INT16: return "int16";
        case AscendC::HCCL_DATA_TYPE_UINT16: return "uint16";
        case AscendC::HCCL_DATA_TYPE_FP16: return "fp16";
        case AscendC::HCCL_DATA_TYPE_BFP16: return "bf16";
        case AscendC::HCCL_DATA_TYPE_INT32: return "int32";
        case AscendC::HCCL_DATA_TYPE_UINT32: return "uint32";
        case AscendC::HCCL_DATA_TYPE_FP32: return "fp32";
        case AscendC::HCCL_DATA_TYPE_INT64: return "int64";
        case AscendC::HCCL_DATA_TYPE_UINT64: return "uint64";
        case AscendC::HCCL_DATA_TYPE_FP64: return "fp64";
        default: return "unsupported";
    }
}
// The reduce ops' documented dtypes: int8, int16, int32, int64, fp16, fp32, bf16.
inline bool reducible(int dt) {
    return dt == AscendC::HCCL_DATA_TYPE_INT8 || dt == AscendC::HCCL_DATA_TYPE_INT16 || dt == AscendC::HCCL_DATA_TYPE_INT32 ||
           dt == AscendC::HCCL_DATA_TYPE_INT64 || dt == AscendC::HCCL_DATA_TYPE_FP16 || dt == AscendC::HCCL_DATA_TYPE_FP32 ||
           dt == AscendC::HCCL_DATA_TYPE_BFP16;
}
inline const char* op_name(int op) {
    static const char* n[] = {"sum", "prod", "max", "min"};
    return op >= 0 && op < 4 ? n[op] : "invalid";
}

inline double load(const uint8_t* p, int dt) {
    switch (dt) {
        case AscendC::HCCL_DATA_TYPE_INT8: return double(*reinterpret_cast<const int8_t*>(p));
        case AscendC::HCCL_DATA_TYPE_INT16: { int16_t v; std::memcpy(&v, p, 2); return double(v); }
        case AscendC::HCCL_DATA_TYPE_INT32: { int32_t v; std::memcpy(&v, p, 4); return double(v); }
        case AscendC::HCCL_DATA_TYPE_INT64: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
        case AscendC::HCCL_DATA_TYPE_FP16: { uint16_t v; std::memcpy(&v, p, 2); return double(opkit::fp::half_bits_to_float(v)); }
        case AscendC::HCCL_DATA_TYPE_BFP16: { uint16_t v; std::memcpy(&v, p, 2); return double(opkit::fp::bf16_bits_to_float(v)); }
        default: { float v; std::memcpy(&v, p, 4); return double(v); }
    }
}
template <class I> inline void store_int(uint8_t* p, double x) {
    const double lo = double(std::numeric_limits<I>::min()), hi = double(std::numeric_limits<I>::max());
    I v = I(x < lo ? lo : x > hi ? hi : x);  // integer results wrap on the NPU only past int64; saturate here
    std::memcpy(p, &v, sizeof v);
}
inline void store(uint8_t* p, int dt, double x) {
    switch (dt) {
        case AscendC::HCCL_DATA_TYPE_INT8: store_int<int8_t>(p, x); break;
        case AscendC::HCCL_DATA_TYPE_INT16: store_int<int16_t>(p, x); break;
        case AscendC::HCCL_DATA_TYPE_INT32: store_int<int32_t>(p, x); break;
        case AscendC::HCCL_DATA_TYPE_INT64: store_int<int64_t>(p, x); break;
        case AscendC::HCCL_DATA_TYPE_FP16: { uint16_t v = opkit::fp::float_to_half_bits(float(x)); std::memcpy(p, &v, 2); break; }
        case AscendC::HCCL_DATA_TYPE_BFP16: { uint16_t v = opkit::fp::float_to_bf16_bits(float(x)); std::memcpy(p, &v, 2); break; }
        default: { float v = float(x); std::memcpy(p, &v, 4); }
    }
}
inline double reduce(double a, double b, int op) {
    switch (op) {
        case AscendC::HCCL_REDUCE_SUM: return a + b;
        case AscendC::HCCL_REDUCE_PROD: return a * b;
        case AscendC::HCCL_REDUCE_MAX: return a > b || std::isnan(a) ? a : b;
        default: return a < b || std::isnan(a) ? a : b;
    }
}

// One prepared collective of one rank.
struct Task {
    int kind = 0;
    uint8_t* send = nullptr;
    uint8_t* recv = nullptr;
    uint64_t count = 0;   // AllReduce: count; AllGather: sendCount; ReduceScatter: recvCount; AlltoAll: dataCount
    int dtype = 0;
    int op = 0;           // reduce op (AllReduce, ReduceScatter)
    uint64_t stride = 0;  // strideCount (0: the count)
    int repeat = 1;
    int committed = 0, done = 0;
    SrcLoc loc{nullptr, 0};
    std::string desc(int k) const {
        std::string s = fmt("%s #%d (%llu %s", collective_name(kind), k, (unsigned long long)count, dtype_name(dtype));
        if (kind == K_ALLREDUCE || kind == K_REDUCESCATTER) s += std::string(", ") + op_name(op);
        if (kind != K_ALLREDUCE) s += fmt(", stride %llu", (unsigned long long)stride);
        return s + fmt(", repeat %d)", repeat);
    }
    uint64_t esz() const { return uint64_t(dtype_size(dtype)); }
    uint64_t stride_elems() const { return stride ? stride : count; }
};

struct RankState {
    std::vector<Task> tasks;
    int64_t owner = -1;         // the core (thread id) that writes this rank's HCCL messages
    std::string owner_desc;
    int state = 0;              // 0 running, 1 blocked in Wait/Finalize, 2 finished (Finalize or kernel returned)
    std::string blocked;        // what it waits for
    int wait_k = -1, wait_i = -1;  // the slice it waits for (task, slice), -1: none
    bool finalized = false;
    uint8_t* ctx = nullptr;     // its HCCL context in GM (GetHcclContext<0>())
};

constexpr uint64_t kCtxMagic = 0x4f504b4954484343ull;  // "OPKITHCC"

struct World {
    int R = 1;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<RankState> ranks;
    uint64_t window_bytes = 200ull << 20;
};
inline std::shared_ptr<World>& world_ptr() { static std::shared_ptr<World> w; return w; }

// The window a slice moves through: HCCL_BUFFSIZE MB (HCCL's variable; 200 by default).
inline uint64_t window_bytes_from_env() {
    const char* e = std::getenv("HCCL_BUFFSIZE");
    long v = e ? std::atol(e) : 200;
    return uint64_t(v > 0 ? v : 200) << 20;
}

// Bytes of one slice that pass through a rank's window.
inline uint64_t slice_window_bytes(const Task& t, int R) {
    return t.kind == K_ALLREDUCE ? t.count * t.esz() : t.count * t.esz() * uint64_t(R);
}

// The extents [lo, hi) (bytes from the buffer) a task touches over all its slices.
inline void extents(const Task& t, int R, uint64_t* send_hi, uint64_t* recv_hi) {
    const uint64_t e = t.esz(), rep = uint64_t(t.repeat), blk = t.count * e, st = t.stride_elems() * e;
    const uint64_t last = (rep - 1) * blk;  // slice i starts at i * count elements
    switch (t.kind) {
        case K_ALLREDUCE: *send_hi = *recv_hi = last + blk; break;
        case K_ALLGATHER: *send_hi = last + blk; *recv_hi = uint64_t(R - 1) * st + last + blk; break;
        case K_REDUCESCATTER: *send_hi = uint64_t(R - 1) * st + last + blk; *recv_hi = last + blk; break;
        default: *send_hi = *recv_hi = uint64_t(R - 1) * st + last + blk; break;
    }
}

// Moves slice i of task k on every rank (called with the world's lock held, by the last committer).
inline void execute(World& w, int k, int i) {
    const int R = w.R;
    const Task& t0 = w.ranks[0].tasks[size_t(k)];
    if (trace_only()) return;
    const uint64_t e = t0.esz(), n = t0.count, off = uint64_t(i) * n * e, st = t0.stride_elems() * e;
    auto T = [&](int r) -> const Task& { return w.ranks[size_t(r)].tasks[size_t(k)]; };
    if (t0.kind == K_ALLGATHER || t0.kind == K_ALLTOALL) {
        // Staged through a copy of every source block, so that overlapping send/recv buffers stay exact.
        std::vector<std::vector<uint8_t>> blocks(size_t(R) * size_t(R));
        for (int src = 0; src < R; ++src)
            for (int dst = 0; dst < R; ++dst) {
                const uint8_t* p = T(src).send + off + (t0.kind == K_ALLTOALL ? uint64_t(dst) * st : 0);
                blocks[size_t(src) * size_t(R) + size_t(dst)].assign(p, p + n * e);
            }
        for (int src = 0; src < R; ++src)
            for (int dst = 0; dst < R; ++dst) {
                std::memcpy(T(dst).recv + off + uint64_t(src) * st, blocks[size_t(src) * size_t(R) + size_t(dst)].data(), n * e);
                gm_note_write(T(dst).recv + off + uint64_t(src) * st, n * e);  // written by the collective, not a core
            }
        return;
    }
    // Reductions: the ranks' elements combined in rank order in float64, rounded once to the dtype.
    const int nblk = t0.kind == K_ALLREDUCE ? 1 : R;
    std::vector<double> acc(size_t(n) * size_t(nblk));
    for (int b = 0; b < nblk; ++b)
        for (int r = 0; r < R; ++r) {
            const uint8_t* p = T(r).send + off + uint64_t(b) * (t0.kind == K_ALLREDUCE ? 0 : st);
            for (uint64_t j = 0; j < n; ++j) {
                double v = load(p + j * e, t0.dtype);
                double& a = acc[size_t(b) * size_t(n) + size_t(j)];
                a = r == 0 ? v : reduce(a, v, t0.op);
            }
        }
    for (int r = 0; r < R; ++r) {
        const size_t b = t0.kind == K_ALLREDUCE ? 0 : size_t(r);
        uint8_t* q = T(r).recv + off;
        for (uint64_t j = 0; j < n; ++j) store(q + j * e, t0.dtype, acc[b * size_t(n) + size_t(j)]);
        gm_note_write(q, n * e);  // written by the collective, not a core
    }
}

// Slices of task k that every rank committed and that have not moved yet move now.
inline void progress(World& w, int k) {
    int ready = INT32_MAX;
    for (auto& rs : w.ranks) {
        if (rs.tasks.size() <= size_t(k)) return;
        ready = std::min(ready, rs.tasks[size_t(k)].committed);
    }
    while (w.ranks[0].tasks[size_t(k)].done < ready) {
        const int i = w.ranks[0].tasks[size_t(k)].done;
        execute(w, k, i);
        for (auto& rs : w.ranks) rs.tasks[size_t(k)].done = i + 1;
    }
    w.cv.notify_all();
}

// What keeps rank r from committing slice i of task k, for the deadlock diagnostic.
inline std::string rank_report(const World& w, int k, int i) {
    std::string s;
    for (int r = 0; r < w.R; ++r) {
        const RankState& rs = w.ranks[size_t(r)];
        std::string st = rs.state == 2 ? (rs.finalized ? "finalized" : "returned") : rs.state == 1 ? "waits for " + rs.blocked : "running";
        std::string has;
        if (rs.tasks.size() <= size_t(k)) has = fmt("prepared only %zu collective(s)", rs.tasks.size());
        else has = fmt("committed %d of %d", rs.tasks[size_t(k)].committed, rs.tasks[size_t(k)].repeat);
        s += fmt("%s rank %d: %s, %s", s.empty() ? "" : ";", r, has.c_str(), st.c_str());
        (void)i;
    }
    return s;
}

// Every rank blocked or finished while a slice it waits for has not moved: the run can never go on.
inline void check_deadlock(World& w, std::unique_lock<std::mutex>& lk, const char* api, const SrcLoc& loc, int k, int i) {
    for (auto& rs : w.ranks) {
        if (rs.state == 0) return;
        // A waiter whose slice has moved goes on once it wakes: not blocked.
        if (rs.state == 1 && rs.wait_k >= 0 && size_t(rs.wait_k) < rs.tasks.size() &&
            rs.tasks[size_t(rs.wait_k)].done > rs.wait_i)
            return;
    }
    std::string rep = rank_report(w, k, i);
    const Task& t = w.ranks[size_t(rank_id())].tasks[size_t(k)];
    lk.unlock();
    fail_at(api, loc, "deadlock: slice %d of %s can never move: every rank is blocked or finished and not every rank "
            "committed it (mismatched collective sequences across ranks, or a missing Commit):%s", i, t.desc(k).c_str(), rep.c_str());
}

// Blocks the caller until slice i of task k has moved (deadlock and timeout diagnostics).
inline void wait_slice(World& w, std::unique_lock<std::mutex>& lk, int k, int i, bool owner, const char* api, const SrcLoc& loc) {
    RankState& me = w.ranks[size_t(rank_id())];
    const double limit = sync_timeout_s();
    auto start = std::chrono::steady_clock::now();
    while (me.tasks[size_t(k)].done <= i) {
        if (owner) {
            me.state = 1;
            me.wait_k = k;
            me.wait_i = i;
            me.blocked = fmt("slice %d of %s", i, me.tasks[size_t(k)].desc(k).c_str());
            check_deadlock(w, lk, api, loc, k, i);
        }
        w.cv.wait_for(lk, std::chrono::milliseconds(50));
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit) {
            std::string rep = rank_report(w, k, i);
            lk.unlock();
            fail_at(api, loc, "deadlock: slice %d of %s did not move in %.0f s (OPKIT_SIM_SYNC_TIMEOUT):%s", i,
                    me.tasks[size_t(k)].desc(k).c_str(), limit, rep.c_str());
        }
    }
    if (owner) {
        me.state = 0;
        me.wait_k = me.wait_i = -1;
    }
}

// Rank hooks: a context per rank at the start of a run, the end-of-kernel checks after it.
inline void on_rank_start(Device& d) {
    if (d.rank == 0) {
        auto w = std::make_shared<World>();
        w->R = d.rank_dim;
        w->ranks.resize(size_t(d.rank_dim));
        w->window_bytes = window_bytes_from_env();
        world_ptr() = w;
    }
    World& w = *world_ptr();
    auto* ctx = static_cast<uint8_t*>(gm_alloc(64, "HCCL context"));
    uint64_t words[3] = {kCtxMagic, uint64_t(d.rank), uint64_t(d.rank_dim)};
    std::memcpy(ctx, words, sizeof words);
    w.ranks[size_t(d.rank)].ctx = ctx;
    d.hccl_ctx[0] = ctx;
}
inline void on_rank_end(Device& d) {
    World& w = *world_ptr();
    std::unique_lock<std::mutex> lk(w.mu);
    RankState& rs = w.ranks[size_t(d.rank)];
    rs.state = 2;
    w.cv.notify_all();
    if (!rs.tasks.empty() && !rs.finalized) {
        lk.unlock();
        fail_at("Hccl::Finalize", SrcLoc(rs.tasks.back().loc.file, rs.tasks.back().loc.line),
                "rank %d: the kernel returned with %zu prepared collective(s) and no Finalize (the AICPU server would wait "
                "for more work forever): call Finalize() after the last Wait", d.rank, rs.tasks.size());
    }
}
struct HookInstaller {
    HookInstaller() {
        rank_hooks().start = on_rank_start;
        rank_hooks().end = on_rank_end;
    }
};
inline HookInstaller g_hook_installer;

}  // namespace hccl
}  // namespace sim
}  // namespace opkit
