// opkit simulator: Ascend C's device-side HCCL (Hccl<HCCL_SERVER_TYPE_AICPU>) over the emulated ranks of
// a multi-rank run (impl/opkit/sim_hccl.h: matching across ranks, data movement, checks). One core per
// rank writes the HCCL messages (Prepare, Commit, Finalize): the first core that prepares; every core
// may Init, GetRankId, GetRankDim, Query and Wait.
#pragma once
#include "adv_api/hccl/hccl_common.h"
#include "impl/opkit/sim_hccl.h"

#include "adv_api/hccl/hccl_tiling_struct.h"

namespace AscendC {
static constexpr HcclServerConfig DEFAULT_CFG = {CoreType::DEFAULT, 0};

template <HcclServerType serverType = HcclServerType::HCCL_SERVER_TYPE_AICPU, const auto& config = DEFAULT_CFG>
class Hccl {
    static_assert(serverType == HCCL_SERVER_TYPE_AICPU, "Hccl: only HCCL_SERVER_TYPE_AICPU is supported");
    using World = opkit::sim::hccl::World;
    using Task = opkit::sim::hccl::Task;

public:
    void Init(GM_ADDR context, __gm__ void* initTiling = nullptr, OPKIT_LOC) {
        InitImpl(context, "Hccl::Init", loc);
        if (initTiling != nullptr) CheckInitTiling(initTiling, "Hccl::Init", loc);
    }
    void InitV2(GM_ADDR context, const void* initTiling, OPKIT_LOC) {
        InitImpl(context, "Hccl::InitV2", loc);
        CheckInitTiling(initTiling, "Hccl::InitV2", loc);
    }
    // The task the next Prepare call must be (opType, reduce op): its Mc2CcTiling from Mc2CcTilingConfig::GetTiling.
    int32_t SetCcTiling(__gm__ void* ccOpTilingData, OPKIT_LOC) {
        using namespace opkit::sim;
        Need("Hccl::SetCcTiling", loc);
        if (ccOpTilingData == nullptr) fail_at("Hccl::SetCcTiling", loc, "the Mc2CcTiling address is null");
        opkit::sim::hccl::CcTilingBytes b{};
        std::memcpy(&b, ccOpTilingData, sizeof b);
        if (b.magic != opkit::sim::hccl::kCcMagic)
            fail_at("Hccl::SetCcTiling", loc, "%p does not hold an Mc2CcTiling filled by Mc2CcTilingConfig::GetTiling on the "
                    "host", ccOpTilingData);
        cc_ = b;
        has_cc_ = true;
        return 0;
    }
    uint32_t GetRankId(OPKIT_LOC) { Need("Hccl::GetRankId", loc); return uint32_t(rank_); }
    uint32_t GetRankDim(OPKIT_LOC) { Need("Hccl::GetRankDim", loc); return uint32_t(w_->R); }

    template <bool commit = false>
    HcclHandle AllReduce(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         uint8_t repeat = 1, OPKIT_LOC) {
        return Prepare<commit>(opkit::sim::hccl::K_ALLREDUCE, sendBuf, recvBuf, count, dataType, op, 0, repeat, "Hccl::AllReduce", loc);
    }
    template <bool commit = false>
    HcclHandle AllGather(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t sendCount, HcclDataType dataType, uint64_t strideCount,
                         uint8_t repeat = 1, OPKIT_LOC) {
        return Prepare<commit>(opkit::sim::hccl::K_ALLGATHER, sendBuf, recvBuf, sendCount, dataType, 0, strideCount, repeat,
                               "Hccl::AllGather", loc);
    }
    template <bool commit = false>
    HcclHandle ReduceScatter(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                             uint64_t strideCount, uint8_t repeat = 1, OPKIT_LOC) {
        return Prepare<commit>(opkit::sim::hccl::K_REDUCESCATTER, sendBuf, recvBuf, recvCount, dataType, op, strideCount, repeat,
                               "Hccl::ReduceScatter", loc);
    }
    template <bool commit = false>
    HcclHandle AlltoAll(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t dataCount, HcclDataType dataType, uint64_t strideCount = 0,
                        uint8_t repeat = 1, OPKIT_LOC) {
        return Prepare<commit>(opkit::sim::hccl::K_ALLTOALL, sendBuf, recvBuf, dataCount, dataType, 0, strideCount, repeat,
                               "Hccl::AlltoAll", loc);
    }

    // Releases the next slice of the handle's collective; it moves once every rank committed it.
    void Commit(HcclHandle handleId, OPKIT_LOC) {
        using namespace opkit::sim;
        Need("Hccl::Commit", loc);
        std::unique_lock<std::mutex> lk(w_->mu);
        Owner("Hccl::Commit", loc, lk);
        Task& t = TaskOf(handleId, "Hccl::Commit", loc, lk);
        if (t.committed >= t.repeat) {
            std::string d = t.desc(handleId);
            lk.unlock();
            fail_at("Hccl::Commit", loc, "Commit beyond the repeat count: handle %d, %s, was already committed %d time(s); "
                    "commit each slice once (repeat = the number of Commit calls)", int(handleId), d.c_str(), t.committed);
        }
        ++t.committed;
        TraceSlice("hccl_commit", handleId, t.committed - 1, loc);
        opkit::sim::hccl::progress(*w_, handleId);
    }
    // Blocks until the next slice of the handle this core waits for has landed (one Wait per repeat, in order).
    int32_t Wait(HcclHandle handleId, OPKIT_LOC) {
        using namespace opkit::sim;
        Need("Hccl::Wait", loc);
        std::unique_lock<std::mutex> lk(w_->mu);
        Task& t = TaskOf(handleId, "Hccl::Wait", loc, lk);
        int& n = waited_[handleId];
        const bool owner = w_->ranks[size_t(rank_)].owner == core().tid;
        if (n >= t.repeat) {
            std::string d = t.desc(handleId);
            lk.unlock();
            fail_at("Hccl::Wait", loc, "Wait beyond the repeat count: handle %d, %s, was already waited for %d time(s)",
                    int(handleId), d.c_str(), n);
        }
        if (owner && n >= t.committed) {
            std::string d = t.desc(handleId);
            lk.unlock();
            fail_at("Hccl::Wait", loc, "Wait on handle %d, %s, with no slice committed and not waited for (committed %d, "
                    "waited %d): Commit the slice before waiting for it", int(handleId), d.c_str(), t.committed, n);
        }
        TraceSlice("hccl_wait", handleId, n, loc);
        opkit::sim::hccl::wait_slice(*w_, lk, handleId, n, owner, "Hccl::Wait", loc);
        ++n;
        return 0;
    }
    // The number of the handle's slices that have landed.
    int32_t Query(HcclHandle handleId, OPKIT_LOC) {
        Need("Hccl::Query", loc);
        std::unique_lock<std::mutex> lk(w_->mu);
        return TaskOf(handleId, "Hccl::Query", loc, lk).done;
    }
    // No more collectives from this rank: every prepared slice must have been committed; waits until they landed.
    template <bool sync = true>
    void Finalize(OPKIT_LOC) {
        using namespace opkit::sim;
        Need("Hccl::Finalize", loc);
        std::unique_lock<std::mutex> lk(w_->mu);
        opkit::sim::hccl::RankState& me = w_->ranks[size_t(rank_)];
        if (me.finalized) { lk.unlock(); fail_at("Hccl::Finalize", loc, "Finalize called twice on this rank"); }
        if (me.owner >= 0) Owner("Hccl::Finalize", loc, lk);
        for (size_t k = 0; k < me.tasks.size(); ++k)
            if (me.tasks[k].committed < me.tasks[k].repeat) {
                std::string d = me.tasks[k].desc(int(k));
                const int c = me.tasks[k].committed;
                lk.unlock();
                fail_at("Hccl::Finalize", loc, "Finalize with work outstanding: handle %zu, %s, was committed %d of its %d "
                        "slice(s) (a missing Commit): commit every slice before Finalize", k, d.c_str(), c, me.tasks[k].repeat);
            }
        if (opkit::sim::core().trace_on)
            opkit::sim::trace_event(std::string("{\"ev\":\"hccl_finalize\",\"sync\":") + (sync ? "true" : "false") +
                                    opkit::sim::trace_loc(loc) + "}");
        if (sync)
            for (size_t k = 0; k < me.tasks.size(); ++k)
                if (me.tasks[k].done < me.tasks[k].repeat)
                    opkit::sim::hccl::wait_slice(*w_, lk, int(k), me.tasks[k].repeat - 1, true, "Hccl::Finalize", loc);
        me.finalized = true;
        me.state = 2;
        w_->cv.notify_all();
    }

private:
    void InitImpl(GM_ADDR context, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        uint64_t words[3] = {0, 0, 0};
        if (context != nullptr && gm_alloc_size(context) >= sizeof words) std::memcpy(words, context, sizeof words);
        if (context == nullptr || words[0] != opkit::sim::hccl::kCtxMagic || !opkit::sim::hccl::world_ptr())
            fail_at(api, loc, "context %p is not an HCCL context: pass GetHcclContext<0>() of a multi-rank run (a case with "
                    "world_size, an OpDef with MC2().HcclGroup)", (void*)context);
        w_ = opkit::sim::hccl::world_ptr().get();
        rank_ = int(words[1]);
    }
    void CheckInitTiling(const void* p, const char* api, const opkit::sim::SrcLoc& loc) const {
        uint32_t magic = 0;
        if (p != nullptr) std::memcpy(&magic, p, sizeof magic);
        if (magic != opkit::sim::hccl::kInitMagic)
            opkit::sim::fail_at(api, loc, "%p does not hold an Mc2InitTiling filled by Mc2CcTilingConfig::GetTiling on the host", p);
    }
    // A prepare call against the task SetCcTiling named.
    void CheckCc(int kind, int op, const char* api, const opkit::sim::SrcLoc& loc) const {
        if (!has_cc_) return;
        static const HcclCMDType kTypes[] = {HcclCMDType::HCCL_CMD_ALLREDUCE, HcclCMDType::HCCL_CMD_ALLGATHER,
                                             HcclCMDType::HCCL_CMD_REDUCE_SCATTER, HcclCMDType::HCCL_CMD_ALLTOALL};
        if (static_cast<uint32_t>(kTypes[kind]) != cc_.opType)
            opkit::sim::fail_at(api, loc, "the Mc2CcTiling set by SetCcTiling is for HcclCMDType %u, not %s (%u): set the "
                                "task's own Mc2CcTiling before preparing it", cc_.opType, opkit::sim::hccl::collective_name(kind),
                                static_cast<uint32_t>(kTypes[kind]));
        const bool reduces = kind == opkit::sim::hccl::K_ALLREDUCE || kind == opkit::sim::hccl::K_REDUCESCATTER;
        if (reduces && cc_.reduceType != HCCL_REDUCE_RESERVED && int(cc_.reduceType) != op)
            opkit::sim::fail_at(api, loc, "reduce op %s, but the Mc2CcTiling set by SetCcTiling has %s",
                                opkit::sim::hccl::op_name(op), opkit::sim::hccl::op_name(int(cc_.reduceType)));
    }
    // Trace events of the performance model (docs/perf.md, communication): what a slice is, when it is
    // committed and who waits for it; recorded in trace-only runs too. A prepare names its first slice's send
    // and receive buffers as trace_gm_addr gives them (the allocation, then the offset in it): the serial
    // baseline merges the collectives of one kind over one output buffer.
    void TracePrepare(const Task& t, int k, const opkit::sim::SrcLoc& loc) const {
        using namespace opkit::sim;
        if (!core().trace_on) return;
        const bool reduces = t.kind == hccl::K_ALLREDUCE || t.kind == hccl::K_REDUCESCATTER;
        trace_event(fmt("{\"ev\":\"hccl_prepare\",\"handle\":%d,\"kind\":\"%s\",\"op\":\"%s\",\"dtype\":\"%s\","
                        "\"count\":%llu,\"stride\":%llu,\"bytes\":%llu,\"repeat\":%d,\"ranks\":%d,"
                        "\"send\":%llu,\"recv\":%llu",
                        k, hccl::collective_name(t.kind), reduces ? hccl::op_name(t.op) : "", hccl::dtype_name(t.dtype),
                        (unsigned long long)t.count, (unsigned long long)t.stride_elems(),
                        (unsigned long long)(t.count * t.esz()), t.repeat, w_->R,
                        (unsigned long long)trace_gm_addr(t.send), (unsigned long long)trace_gm_addr(t.recv)) +
                    trace_loc(loc) + "}");
    }
    void TraceSlice(const char* ev, HcclHandle h, int slice, const opkit::sim::SrcLoc& loc) const {
        using namespace opkit::sim;
        if (!core().trace_on) return;
        trace_event(fmt("{\"ev\":\"%s\",\"handle\":%d,\"slice\":%d", ev, int(h), slice) + trace_loc(loc) + "}");
    }
    void Need(const char* api, const opkit::sim::SrcLoc& loc) const {
        if (w_ == nullptr) opkit::sim::fail_at(api, loc, "the Hccl object was not initialised: call Init(GetHcclContext<0>()) first");
    }
    // One core per rank writes the messages: the first one that prepares.
    void Owner(const char* api, const opkit::sim::SrcLoc& loc, std::unique_lock<std::mutex>& lk) {
        using namespace opkit::sim;
        opkit::sim::hccl::RankState& me = w_->ranks[size_t(rank_)];
        if (me.owner < 0) { me.owner = core().tid; me.owner_desc = core_desc(); return; }
        if (me.owner != core().tid) {
            std::string o = me.owner_desc;
            lk.unlock();
            fail_at(api, loc, "only one core per rank writes HCCL messages (hcclMsgArea), and on this rank that is %s: guard "
                    "Prepare, Commit and Finalize with the block index", o.c_str());
        }
    }
    Task& TaskOf(HcclHandle h, const char* api, const opkit::sim::SrcLoc& loc, std::unique_lock<std::mutex>& lk) {
        auto& tasks = w_->ranks[size_t(rank_)].tasks;
        if (h < 0 || size_t(h) >= tasks.size()) {
            const size_t n = tasks.size();
            lk.unlock();
            opkit::sim::fail_at(api, loc, "handle %d is not one a Prepare call returned on this rank (%zu prepared)", int(h), n);
        }
        return tasks[size_t(h)];
    }
    template <bool commit>
    HcclHandle Prepare(int kind, GM_ADDR send, GM_ADDR recv, uint64_t count, HcclDataType dt, int op, uint64_t stride, uint8_t repeat,
                       const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        using namespace opkit::sim::hccl;
        Need(api, loc);
        CheckCc(kind, op, api, loc);
        Task t;
        t.kind = kind; t.send = send; t.recv = recv; t.count = count; t.dtype = int(dt); t.op = op; t.stride = stride;
        t.repeat = repeat; t.loc = loc;
        if (dtype_size(t.dtype) == 0) fail_at(api, loc, "data type %d is not an HCCL data type the simulator moves", t.dtype);
        if ((kind == K_ALLREDUCE || kind == K_REDUCESCATTER) && (op < 0 || op > 3))
            fail_at(api, loc, "reduce op %d is not HCCL_REDUCE_SUM, _PROD, _MAX or _MIN", op);
        if ((kind == K_ALLREDUCE || kind == K_REDUCESCATTER) && !reducible(t.dtype))
            fail_at(api, loc, "%s in %s: the reduce ops take int8, int16, int32, int64, fp16, fp32 and bf16", op_name(op), dtype_name(t.dtype));
        if (repeat < 1) fail_at(api, loc, "repeat 0: a collective moves at least one slice");
        if (count == 0) fail_at(api, loc, "count 0: nothing to move");
        const uint64_t win = slice_window_bytes(t, w_->R);
        if (win > w_->window_bytes)
            fail_at(api, loc, "window overflow: one slice of %s moves %llu bytes through the HCCL window of %llu bytes "
                    "(HCCL_BUFFSIZE): cut it into more, smaller slices (a larger repeat)", t.desc(0).c_str(),
                    (unsigned long long)win, (unsigned long long)w_->window_bytes);
        std::unique_lock<std::mutex> lk(w_->mu);
        Owner(api, loc, lk);
        auto& mine = w_->ranks[size_t(rank_)].tasks;
        const int k = int(mine.size());
        if (k >= 127) { lk.unlock(); fail_at(api, loc, "more than 127 collectives prepared on one rank (HcclHandle is int8_t)"); }
        lk.unlock();
        uint64_t shi = 0, rhi = 0;
        extents(t, w_->R, &shi, &rhi);
        gm_check(send, shi, api, loc, "read (sendBuf)");
        gm_check(recv, rhi, api, loc, "write (recvBuf)");
        for (auto* p : {send, recv}) {
            const int own = gm_owner(p);
            if (own >= 0 && own != rank_)
                fail_at(api, loc, "%s %p is GM of rank %d's device; a rank hands HCCL its own buffers (the peers' data "
                        "arrives through the collective)", p == send ? "sendBuf" : "recvBuf", (void*)p, own);
        }
        lk.lock();
        // Compared with the peers' collective #k in the same critical section that appends this rank's: checked
        // before the buffer checks above (outside it), two ranks preparing at once could each miss the other's.
        for (int r = 0; r < w_->R; ++r) {
            const auto& other = w_->ranks[size_t(r)].tasks;
            if (r == rank_ || other.size() <= size_t(k)) continue;
            const Task& o = other[size_t(k)];
            if (o.kind != t.kind || o.count != t.count || o.dtype != t.dtype || o.repeat != t.repeat || o.stride != t.stride ||
                ((kind == K_ALLREDUCE || kind == K_REDUCESCATTER) && o.op != t.op)) {
                std::string a = t.desc(k), b = o.desc(k);
                lk.unlock();
                fail_at(api, loc, "mismatched collective sequences across ranks: collective #%d is %s on rank %d but %s on "
                        "rank %d (every rank prepares the same collectives in the same order)", k, a.c_str(), rank_, b.c_str(), r);
            }
            break;
        }
        mine.push_back(t);
        TracePrepare(t, k, loc);
        if (commit) {
            ++mine.back().committed;
            TraceSlice("hccl_commit", HcclHandle(k), 0, loc);
            progress(*w_, k);
        }
        return HcclHandle(k);
    }

    World* w_ = nullptr;
    int rank_ = 0;
    std::map<int, int> waited_;  // per handle: the slices this core waited for
    opkit::sim::hccl::CcTilingBytes cc_{};
    bool has_cc_ = false;
};
}  // namespace AscendC
