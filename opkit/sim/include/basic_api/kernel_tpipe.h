// opkit simulator: TPipe, TQue, TQueBind, TSCM, TBuf (on-chip buffer management and the queue protocol).
#pragma once
#include "basic_api/kernel_tensor.h"

namespace opkit {
namespace sim {

// Producer and consumer pipes implied by a queue position (EnQue = producer -> consumer edge,
// FreeTensor/AllocTensor = consumer -> producer edge).
inline void queue_pipes(AscendC::TPosition p, int& prod, int& cons) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::VECIN: prod = P_MTE2; cons = P_V; return;
        case TPosition::VECOUT: prod = P_V; cons = P_MTE3; return;
        case TPosition::VECCALC: prod = P_V; cons = P_V; return;
        case TPosition::A1: case TPosition::B1: case TPosition::C1: prod = P_MTE2; cons = P_MTE1; return;
        case TPosition::TSCM: prod = P_MTE3; cons = P_MTE1; return;
        case TPosition::A2: case TPosition::B2: case TPosition::C2: prod = P_MTE1; cons = P_M; return;
        case TPosition::CO1: prod = P_M; cons = P_FIX; return;
        default: prod = P_MTE2; cons = P_V; return;
    }
}

// Hardware event IDs per HardEvent type that TPipe hands out (CANN's QUE_MAX_EVENT): 8 on the
// V200/V220-era cores (DAV 2002, 2201, 3002, 3102, 3510, 5102), 4 on the first Ascend 910 (DAV 1001).
#if __NPU_ARCH__ == 2002 || __NPU_ARCH__ == 2201 || __NPU_ARCH__ == 3002 || __NPU_ARCH__ == 3102 || \
    __NPU_ARCH__ == 3510 || __NPU_ARCH__ == 5102
constexpr int QUE_MAX_EVENT = 8;
#else
constexpr int QUE_MAX_EVENT = 4;
#endif

// The HardEvent (as its index) that orders pipe `from` before pipe `to`; -1 when both are one pipe
// (a queue between two UB positions of the vector unit synchronises with a barrier, no event ID).
inline int hard_event(int from, int to) {
    using AscendC::HardEvent;
    static const struct { int f, t; HardEvent e; } table[] = {
        {P_MTE2, P_MTE1, HardEvent::MTE2_MTE1}, {P_MTE1, P_MTE2, HardEvent::MTE1_MTE2},
        {P_MTE1, P_M, HardEvent::MTE1_M}, {P_M, P_MTE1, HardEvent::M_MTE1}, {P_MTE2, P_V, HardEvent::MTE2_V},
        {P_V, P_MTE2, HardEvent::V_MTE2}, {P_MTE3, P_V, HardEvent::MTE3_V}, {P_V, P_MTE3, HardEvent::V_MTE3},
        {P_M, P_V, HardEvent::M_V}, {P_V, P_M, HardEvent::V_M}, {P_MTE3, P_MTE1, HardEvent::MTE3_MTE1},
        {P_MTE1, P_MTE3, HardEvent::MTE1_MTE3}, {P_MTE1, P_V, HardEvent::MTE1_V}, {P_MTE2, P_M, HardEvent::MTE2_M},
        {P_M, P_MTE2, HardEvent::M_MTE2}, {P_V, P_MTE1, HardEvent::V_MTE1}, {P_M, P_FIX, HardEvent::M_FIX},
        {P_FIX, P_M, HardEvent::FIX_M}, {P_MTE3, P_MTE2, HardEvent::MTE3_MTE2}, {P_MTE2, P_MTE3, HardEvent::MTE2_MTE3},
        {P_S, P_V, HardEvent::S_V}, {P_V, P_S, HardEvent::V_S}, {P_S, P_MTE2, HardEvent::S_MTE2},
        {P_MTE2, P_S, HardEvent::MTE2_S}, {P_S, P_MTE3, HardEvent::S_MTE3}, {P_MTE3, P_S, HardEvent::MTE3_S},
        {P_MTE2, P_FIX, HardEvent::MTE2_FIX}, {P_FIX, P_MTE2, HardEvent::FIX_MTE2}, {P_FIX, P_S, HardEvent::FIX_S},
        {P_M, P_S, HardEvent::M_S}, {P_FIX, P_MTE3, HardEvent::FIX_MTE3}, {P_MTE1, P_FIX, HardEvent::MTE1_FIX},
        {P_FIX, P_MTE1, HardEvent::FIX_MTE1},
    };
    if (from == to) return -1;
    for (const auto& r : table)
        if (r.f == from && r.t == to) return int(r.e);
    return -1;
}
inline const char* hard_event_name(int e) {
    static const char* n[] = {"MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
                              "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
                              "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3",
                              "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1",
                              "FIX_FIX"};
    return (e >= 0 && e < int(sizeof n / sizeof *n)) ? n[e] : "?";
}

// The pipes an EnQue<srcUserPos, dstUserPos> / DeQue<srcUserPos, dstUserPos> orders: CANN takes the
// forward HardEvent between the two positions' memories (GetQueEvt): GM -> UB is MTE2_V, UB -> GM is
// V_MTE3, UB -> UB is MTE2_MTE3 (a tensor copied in and copied out again without vector work).
constexpr bool user_que_pos(AscendC::TPosition p) {
    return p == AscendC::TPosition::GM || p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT ||
           p == AscendC::TPosition::VECCALC;
}
constexpr int user_que_prod(AscendC::TPosition src, AscendC::TPosition dst) {
    return src == AscendC::TPosition::GM ? P_MTE2 : dst == AscendC::TPosition::GM ? P_V : P_MTE2;
}
constexpr int user_que_cons(AscendC::TPosition src, AscendC::TPosition dst) {
    return src == AscendC::TPosition::GM ? P_V : dst == AscendC::TPosition::GM ? P_MTE3 : P_MTE3;
}

struct Launch;
inline Launch*& cur_launch() { static thread_local Launch* l = nullptr; return l; }

}  // namespace sim
}  // namespace opkit

namespace AscendC {

struct QueBlock {
    uint32_t off = 0, len = 0;
    int state = 0;  // 0 free, 1 allocated, 2 enqueued
    int enq_ev = -1, free_ev = -1;  // hardware event ID held since EnQue (until DeQue) / FreeTensor (until AllocTensor)
    int enq_prod = -1, enq_cons = -1;  // the pipes the EnQue ordered (the queue's, or those of its user positions)
    uint32_t enq_snap[opkit::sim::NPIPE] = {};
    uint32_t free_snap[opkit::sim::NPIPE] = {};
    opkit::sim::Site alloc_site{};
};

class TPipe;

class TQueBase {
public:
    TQueBase() = default;
    // Copies share nothing with the pipe's bookkeeping (they are detached).
    TQueBase(const TQueBase& o) : blocks_(o.blocks_), fifo_(o.fifo_), next_(o.next_), inited_(o.inited_), id_base_(o.id_base_) {}
    TQueBase& operator=(const TQueBase&) { return *this; }
    virtual ~TQueBase();
    void check_freed(const char* api) const;
    std::vector<QueBlock> blocks_;
    std::vector<int> fifo_;
    int next_ = 0;
    bool inited_ = false;
    int32_t id_base_ = 0;
    TPipe* pipe_ = nullptr;
    virtual TPosition pos() const = 0;
    virtual int32_t depth() const = 0;
};

class TPipe;
template <TPosition pos> class TBufImpl;
}  // namespace AscendC

namespace opkit { namespace sim {
struct TPipeBase {};
}}  // namespace opkit::sim

namespace AscendC {

class TPipe : public opkit::sim::TPipeBase {
public:
    TPipe() { opkit::sim::core().pipe = this; }
    ~TPipe() {
        run_destroy_hooks();
        check_all_freed(opkit::sim::SrcLoc(nullptr, 0), "TPipe::~TPipe");
        for (auto* q : queues_) { q->pipe_ = nullptr; q->inited_ = false; q->blocks_.clear(); q->fifo_.clear(); }
        for (auto& b : bufs_) { *b.first = false; *b.second = nullptr; }
        if (opkit::sim::core().pipe == this) opkit::sim::core().pipe = nullptr;
    }
    void Init() { opkit::sim::core().pipe = this; }
    void Destroy() {
        run_destroy_hooks();
        check_all_freed(opkit::sim::SrcLoc(nullptr, 0), "TPipe::Destroy");
        clear();
    }
    // The buffers of the Matmul objects of one core begin at one shared start (CANN's InitShareBufStart /
    // InitShareBufEnd with the tiling's shareMode 0): each object's buffers overlap the others', as CANN's objects do,
    // because their jobs never run at once (the server ends every job with End()). Between begin and end InitBuffer
    // carves from the shared start; after end the pipe goes on past the largest object. Buffers the kernel takes
    // between two objects end the sharing: the next object starts after them.
    void opkit_share_begin() {
        using namespace opkit::sim;
        bool moved = !share_on_;
        for (int a = 0; a < NARENA; ++a) moved = moved || core().arena[a].used != share_hi_[a];
        for (int a = 0; a < NARENA; ++a) {
            if (moved) share_lo_[a] = share_hi_[a] = core().arena[a].used;
            core().arena[a].used = share_lo_[a];
        }
        share_on_ = true;
    }
    void opkit_share_end() {
        using namespace opkit::sim;
        for (int a = 0; a < NARENA; ++a) {
            share_hi_[a] = std::max(share_hi_[a], core().arena[a].used);
            core().arena[a].used = share_hi_[a];
        }
    }
    // What the pipe's end does beyond its buffers (CANN's TPipe::Destroy waits the event IDs its Init preset, e.g. the
    // Matmul API's M -> MTE1 ping-pong on an AIC): run once per registration, on the pipe's core, at Destroy or ~TPipe.
    void opkit_on_destroy(void (*fn)()) {
        for (auto f : destroy_hooks_)
            if (f == fn) return;
        destroy_hooks_.push_back(fn);
    }
    void Reset(OPKIT_LOC) {
        check_all_freed(loc, "TPipe::Reset");
        clear();
    }

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len, OPKIT_LOC) {
        using namespace opkit::sim;
        const char* api = "TPipe::InitBuffer";
        if (que.inited_) fail_at(api, loc, "this queue was already initialised (call TPipe::Reset first)");
        if (num == 0) fail_at(api, loc, "num must be at least 1");
        int a = arena_of(que.pos());
        if (a < 0) fail_at(api, loc, "queue position %d has no on-chip memory", int(que.pos()));
        uint32_t l = (len + 31u) & ~31u;
        int& cnt = que_count_[int(que.pos())];
        if (que.pos() == TPosition::VECIN || que.pos() == TPosition::VECOUT || que.pos() == TPosition::A1 ||
            que.pos() == TPosition::B1 || que.pos() == TPosition::A2 || que.pos() == TPosition::B2 ||
            que.pos() == TPosition::CO1 || que.pos() == TPosition::CO2) {
            // The documented limit (InitBuffer page: QUE buffers per TPosition, 8 on Atlas A2). What the chip
            // runs out of is hardware event IDs in flight, modelled at EnQue/FreeTensor: a warning here.
            if (cnt + num > QUE_MAX_EVENT && cnt <= QUE_MAX_EVENT)
                warn_at(api, loc, "%d TQue buffers at this position (%d already + %d here); the InitBuffer page allows "
                        "at most %d per TPosition on this chip, because every buffer in flight holds a hardware event "
                        "ID. It works as long as at most %d are in flight at once (opkit checks that at EnQue and "
                        "FreeTensor); merging buffers into one with offsets keeps within the documented limit",
                        cnt + num, cnt, int(num), QUE_MAX_EVENT, QUE_MAX_EVENT);
        }
        uint64_t off = carve(a, uint64_t(l) * num, api, loc, num, l);
        cnt += num;
        que.blocks_.assign(num, QueBlock{});
        for (int i = 0; i < num; ++i) { que.blocks_[i].off = uint32_t(off + uint64_t(i) * l); que.blocks_[i].len = l; }
        que.inited_ = true;
        que.pipe_ = this;
        que.id_base_ = next_id_;
        next_id_ += num;
        queues_.push_back(&que);
        return true;
    }
    template <TPosition P>
    bool InitBuffer(TBufImpl<P>& buf, uint32_t len, OPKIT_LOC);

    template <HardEvent e> TEventID FetchEventID() { return FetchEventID(e); }
    TEventID FetchEventID(HardEvent e) {
        for (int i = 0; i < opkit::sim::QUE_MAX_EVENT; ++i)
            if (!(ev_alloc_[int(e)] & (1u << i))) return TEventID(i);
        return 0;
    }
    template <HardEvent e> TEventID AllocEventID(OPKIT_LOC) {
        return TEventID(alloc_event(int(e), opkit::sim::Site{"TPipe::AllocEventID", loc.file, loc.line}, "TPipe::AllocEventID", loc));
    }
    template <HardEvent e> void ReleaseEventID(TEventID id, OPKIT_LOC) {
        if (id < 0 || id >= opkit::sim::QUE_MAX_EVENT || !(ev_alloc_[int(e)] & (1u << id)))
            opkit::sim::fail_at("TPipe::ReleaseEventID", loc, "event ID %d was not allocated with AllocEventID", int(id));
        ev_alloc_[int(e)] &= ~(1u << id);
    }
    // opkit: the hardware event IDs of one HardEvent (a pipe pair) that TQue EnQue/FreeTensor and
    // AllocEventID take, as CANN's TPipe does (QUE_MAX_EVENT of each: 8 on DAV 2201, 4 on DAV 1001).
    int alloc_event(int e, const opkit::sim::Site& holder, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        for (int i = 0; i < QUE_MAX_EVENT; ++i)
            if (!(ev_alloc_[e] & (1u << i))) { ev_alloc_[e] |= (1u << i); ev_site_[e][i] = holder; return i; }
        std::string held;
        for (int i = 0; i < QUE_MAX_EVENT; ++i)
            held += fmt("\n  event %d: %s at %s:%d", i, ev_site_[e][i].api ? ev_site_[e][i].api : "?",
                        ev_site_[e][i].file ? ev_site_[e][i].file : "?", ev_site_[e][i].line);
        fail_at(api, loc,
                "no free hardware event ID for %s: all %d are held (a TQue holds one from EnQue until DeQue and one "
                "from FreeTensor until that buffer's next AllocTensor). This is why the InitBuffer page limits QUE "
                "buffers per TPosition (at most 8 on Atlas A2 training / 800I A2); merge buffers into one and use "
                "offsets, or free fewer at once. Held:%s",
                hard_event_name(e), QUE_MAX_EVENT, held.c_str());
    }
    void release_event(int e, int id) { if (id >= 0) ev_alloc_[e] &= ~(1u << id); }

    // opkit: bump-allocate `bytes` in arena `a` (`num` buffers of `len`). Past the capacity GetCoreMemSize
    // reports: a warning (the documented limit; the NPU does not check it at InitBuffer, and a buffer whose
    // far end is never touched corrupts nothing); an access past the capacity is an error (touch), except in
    // the KFC reserve of an idle AIC-AIV channel (in_idle_kfc_reserve), a warning.
    uint64_t carve(int a, uint64_t bytes, const char* api, const opkit::sim::SrcLoc& loc, int num, uint32_t len) {
        using namespace opkit::sim;
        ArenaMem& m = core().mem(a);
        uint64_t off = m.used;
        uint64_t cap = arena_cap(a);
        if (off + bytes > cap) {
            const bool phys = off + bytes > m.size;  // past what the simulator backs (twice the chip's memory)
            (phys ? fail_at : warn_at)(
                api, loc,
                "%s capacity exceeded: %d x %u bytes (lengths are rounded up to 32 B) requested at offset %llu end at %llu, "
                "but the chip (%s) offers %llu bytes (GetCoreMemSize); %llu bytes over%s",
                arena_name(a), num, len, (unsigned long long)off, (unsigned long long)(off + bytes), OPKIT_SIM_SOC,
                (unsigned long long)cap, (unsigned long long)(off + bytes - cap),
                phys ? "" : (off + bytes <= arena_phys(a) && arena_phys(a) > cap
                                 ? " (within the physical memory: the bytes past the capacity are the Matmul API's AIC-AIV "
                                   "channel, a warning to touch in a launch without cube cores, an error in a mix launch "
                                   "or past the physical memory)"
                                 : " (the bytes past the capacity must never be touched: an access there is an error)"));
        }
        m.used = off + bytes;
        for (int i = 0; i < num; ++i) m.regions.push_back({off + uint64_t(i) * len, len, loc.file, loc.line});
        if (!core().freed.empty()) freed_clear(a, off, off + bytes);
        if (++nbuf_ > 64) fail_at(api, loc, "more than 64 buffers initialised in one TPipe");
        return off;
    }
    void check_all_freed(const opkit::sim::SrcLoc& loc, const char* api);
    void clear() {
        using namespace opkit::sim;
        for (int a = 0; a < NARENA; ++a) { core().arena[a].used = 0; core().arena[a].regions.clear(); }
        core().clobbers.clear();
        core().freed.clear();
        for (auto* q : queues_) { q->inited_ = false; q->blocks_.clear(); q->fifo_.clear(); q->next_ = 0; q->pipe_ = nullptr; }
        queues_.clear();
        for (auto& b : bufs_) { *b.first = false; *b.second = nullptr; }
        bufs_.clear();
        std::memset(que_count_, 0, sizeof que_count_);
        share_on_ = false;
        std::memset(ev_alloc_, 0, sizeof ev_alloc_);
        nbuf_ = 0;
    }
    std::vector<TQueBase*> queues_;
    std::vector<std::pair<bool*, TPipe**>> bufs_;  // live TBufs: their inited_ flag and pipe_ back pointer
    std::vector<void (*)()> destroy_hooks_;
    bool share_on_ = false;  // opkit_share_begin: the shared start of the Matmul objects' buffers, per arena
    uint64_t share_lo_[opkit::sim::NARENA] = {}, share_hi_[opkit::sim::NARENA] = {};
    void run_destroy_hooks() {
        std::vector<void (*)()> hooks;
        hooks.swap(destroy_hooks_);
        for (auto f : hooks) f();
    }
    void forget_buf(bool* flag) {
        for (size_t i = 0; i < bufs_.size(); ++i)
            if (bufs_[i].first == flag) { bufs_.erase(bufs_.begin() + i); return; }
    }
    int que_count_[32] = {};
    uint32_t ev_alloc_[64] = {};
    opkit::sim::Site ev_site_[64][16] = {};
    int nbuf_ = 0;
    int32_t next_id_ = 0;
};

inline void TQueBase::check_freed(const char* api) const {
    for (auto& b : blocks_)
        if (b.state != 0) {
            if (opkit::sim::G().failed) return;
            opkit::sim::fail_at(api, opkit::sim::SrcLoc(b.alloc_site.file, b.alloc_site.line),
                                "a tensor allocated from a TQue (AllocTensor at the line below) was never freed with FreeTensor "
                                "(it is still %s)", b.state == 2 ? "enqueued" : "allocated");
        }
}
inline TQueBase::~TQueBase() {
    if (!pipe_) return;
    check_freed("TQue (end of life)");
    auto& v = pipe_->queues_;
    v.erase(std::remove(v.begin(), v.end(), this), v.end());
}
inline void TPipe::check_all_freed(const opkit::sim::SrcLoc& loc, const char* api) {
    (void)loc;
    for (auto* q : queues_) q->check_freed(api);
}

// A queue between two positions: memory of `src_` (of `dst_` when src_ is GM); EnQue orders the
// producer pipe of src_ before the consumer pipe of dst_. TQue<pos> binds a position to itself.
template <TPosition src_, TPosition dst_, int32_t depth_ = 1, auto mask = 0>
class TQueImpl : public TQueBase {
    static constexpr TPosition pos_ = src_ == TPosition::GM ? dst_ : src_;
    static void pipes(int& prod, int& cons) {
        int p1, c1, p2, c2;
        opkit::sim::queue_pipes(src_, p1, c1);
        opkit::sim::queue_pipes(dst_, p2, c2);
        prod = src_ == TPosition::GM ? opkit::sim::P_MTE2 : p1;
        cons = c2;
    }

public:
    TPosition pos() const override { return pos_; }
    int32_t depth() const override { return depth_; }

    template <class T>
    LocalTensor<T> AllocTensor(OPKIT_LOC) {
        using namespace opkit::sim;
        const char* api = "TQue::AllocTensor";
        if (!inited_) fail_at(api, loc, "queue not initialised with TPipe::InitBuffer");
        int n = int(blocks_.size());
        for (int k = 0; k < n; ++k) {
            int i = (next_ + k) % n;
            if (blocks_[i].state == 0) {
                next_ = (i + 1) % n;
                QueBlock& b = blocks_[i];
                b.state = 1;
                b.alloc_site = Site{api, loc.file, loc.line};
                int prod, cons;
                pipes(prod, cons);
                if (b.free_ev >= 0) { pipe_->release_event(hard_event(cons, prod), b.free_ev); b.free_ev = -1; }
                merge(prod, b.free_snap);
                merge(P_S, b.free_snap);
                if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"alloc\",\"buf\":%d}", id_base_ + i));
                LocalTensor<T> t = make<T>(i);
                if (t.arena() >= 0) freed_clear(t.arena(), b.off, uint64_t(b.off) + b.len);
                return t;
            }
        }
        fail_at(api, loc, "all %d buffers of this queue are in use (InitBuffer(que, %d, len) gives %d; FreeTensor missing?)", n, n, n);
    }
    template <class T>
    void AllocTensor(LocalTensor<T>& t, OPKIT_LOC) { t = AllocTensor<T>(loc); }

    template <class T>
    bool EnQue(const LocalTensor<T>& t, OPKIT_LOC) {
        int prod, cons;
        pipes(prod, cons);
        return enque(t.address_.bufId, t.address_.logicPos, prod, cons, "TQue::EnQue", loc);
    }
    // EnQue with user positions (CANN's TQueBind::EnQue<srcUserPos, dstUserPos, T>): the tensor is ordered
    // from the producer of srcUserPos to the consumer of dstUserPos instead of the queue's own pipes; the
    // DeQue must name the same two positions.
    template <TPosition srcUserPos, TPosition dstUserPos, class T>
    bool EnQue(const LocalTensor<T>& t, OPKIT_LOC) {
        static_check_user_pos<srcUserPos, dstUserPos>();
        return enque(t.address_.bufId, t.address_.logicPos, opkit::sim::user_que_prod(srcUserPos, dstUserPos),
                     opkit::sim::user_que_cons(srcUserPos, dstUserPos), "TQue::EnQue", loc);
    }
    template <class T>
    LocalTensor<T> DeQue(OPKIT_LOC) {
        int prod, cons;
        pipes(prod, cons);
        return make<T>(deque(prod, cons, false, "TQue::DeQue", loc));
    }
    template <class T>
    void DeQue(LocalTensor<T>& t, OPKIT_LOC) { t = DeQue<T>(loc); }
    template <TPosition srcUserPos, TPosition dstUserPos, class T>
    LocalTensor<T> DeQue(OPKIT_LOC) {
        static_check_user_pos<srcUserPos, dstUserPos>();
        return make<T>(deque(opkit::sim::user_que_prod(srcUserPos, dstUserPos),
                             opkit::sim::user_que_cons(srcUserPos, dstUserPos), true, "TQue::DeQue", loc));
    }

    template <class T>
    void FreeTensor(LocalTensor<T>& t, OPKIT_LOC) {
        using namespace opkit::sim;
        const char* api = "TQue::FreeTensor";
        int i = index_of(t, api, loc);
        QueBlock& b = blocks_[i];
        if (b.state == 0) fail_at(api, loc, "double free: this tensor was already freed");
        if (b.state == 2) fail_at(api, loc, "tensor is still enqueued; DeQue it before FreeTensor");
        int prod, cons;
        pipes(prod, cons);
        if (hard_event(cons, prod) >= 0)
            b.free_ev = pipe_->alloc_event(hard_event(cons, prod), Site{api, loc.file, loc.line}, api, loc);
        std::memset(b.free_snap, 0, sizeof b.free_snap);
        snapshot(cons, b.free_snap);
        snapshot(P_S, b.free_snap);
        b.state = 0;
        if (t.arena() >= 0) freed_add(t.arena(), b.off, uint64_t(b.off) + b.len, loc);
        if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"free\",\"buf\":%d}", id_base_ + i));
    }
    bool HasIdleBuffer() const {
        for (auto& b : blocks_) if (b.state == 0) return true;
        return false;
    }
    int32_t GetTensorCountInQue() const { return int32_t(fifo_.size()); }
    bool HasTensorInQue() const { return !fifo_.empty(); }
    bool VacantInQue() const { return depth_ <= 0 || int(fifo_.size()) < depth_; }
    void FreeAllEvent() {}

private:
    template <TPosition s, TPosition d>
    static constexpr void static_check_user_pos() {
        static_assert(depth_ != 0, "can not EnQue/DeQue with user positions while the queue's depth is zero");
        static_assert(opkit::sim::user_que_pos(s) && opkit::sim::user_que_pos(d),
                      "EnQue/DeQue with user positions support only GM and UB (VECIN/VECOUT/VECCALC) positions");
        static_assert(!(s == TPosition::GM && d == TPosition::GM), "EnQue/DeQue user positions cannot both be GM");
    }
    bool enque(int32_t bufId, uint8_t logicPos, int prod, int cons, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        int i = index_of(bufId, logicPos, api, loc);
        QueBlock& b = blocks_[i];
        if (b.state == 2) fail_at(api, loc, "tensor is already enqueued");
        if (b.state == 0) fail_at(api, loc, "tensor was freed; AllocTensor it first");
        if (depth_ > 0 && int(fifo_.size()) >= depth_)
            fail_at(api, loc, "EnQue beyond the queue depth %d (%d tensors already enqueued without DeQue)", int(depth_), int(fifo_.size()));
        if (hard_event(prod, cons) >= 0)
            b.enq_ev = pipe_->alloc_event(hard_event(prod, cons), Site{api, loc.file, loc.line}, api, loc);
        b.enq_prod = prod;
        b.enq_cons = cons;
        std::memset(b.enq_snap, 0, sizeof b.enq_snap);
        snapshot(prod, b.enq_snap);
        snapshot(P_S, b.enq_snap);
        b.state = 2;
        fifo_.push_back(i);
        if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"enque\",\"buf\":%d,\"from\":\"%s\",\"to\":\"%s\"}", id_base_ + i, pipe_name(prod), pipe_name(cons)));
        return true;
    }
    // The DeQue waits on the event its EnQue set: it must order the same pipes (CANN's CPU debug mode checks
    // "EnQue and DeQue Event should be same" for user positions; a plain DeQue waits on the queue's event).
    int deque(int prod, int cons, bool user, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        if (fifo_.empty()) fail_at(api, loc, "DeQue on an empty queue (no tensor was enqueued)");
        int i = fifo_.front();
        QueBlock& b = blocks_[i];
        if (b.enq_prod != prod || b.enq_cons != cons)
            fail_at(api, loc,
                    "this DeQue%s waits for event %s, but the tensor was enqueued with %s (%s -> %s); EnQue and DeQue "
                    "must name the same user positions (or neither)",
                    user ? " with user positions" : "", hard_event_name(hard_event(prod, cons)),
                    hard_event_name(hard_event(b.enq_prod, b.enq_cons)), pipe_name(b.enq_prod), pipe_name(b.enq_cons));
        fifo_.erase(fifo_.begin());
        if (b.enq_ev >= 0) { pipe_->release_event(hard_event(prod, cons), b.enq_ev); b.enq_ev = -1; }
        merge(cons, b.enq_snap);
        merge(P_S, b.enq_snap);
        b.state = 1;
        if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"deque\",\"buf\":%d}", id_base_ + i));
        return i;
    }
    template <class T>
    LocalTensor<T> make(int i) {
        LocalTensor<T> t;
        QueBlock& b = blocks_[i];
        t.address_.dataLen = b.len;
        t.address_.bufferAddr = b.off;
        t.address_.bufEnd = b.off + b.len;
        t.address_.logicPos = uint8_t(pos_);
        t.address_.absAddr = opkit::sim::core().mem(arena_of(pos_)).data + b.off;
        t.address_.bufId = id_base_ + i;
        return t;
    }
    template <class T>
    int index_of(const LocalTensor<T>& t, const char* api, const opkit::sim::SrcLoc& loc) {
        return index_of(t.address_.bufId, t.address_.logicPos, api, loc);
    }
    int index_of(int32_t bufId, uint8_t logicPos, const char* api, const opkit::sim::SrcLoc& loc) {
        int i = bufId - id_base_;
        if (!inited_ || i < 0 || i >= int(blocks_.size()) || logicPos != uint8_t(pos_))
            opkit::sim::fail_at(api, loc, "tensor does not belong to this queue");
        return i;
    }
};

template <TPosition pos, int32_t depth_ = 1, auto mask = 0>
class TQue : public TQueImpl<pos, pos, depth_, mask> {};
template <TPosition src, TPosition dst, int32_t depth_ = 1, auto mask = 0>
class TQueBind : public TQueImpl<src, dst, depth_, mask> {};
template <TPosition pos, int32_t depth_ = 1, auto mask = 0>
using TSCM = TQueBind<pos, TPosition::TSCM, depth_, mask>;

template <TPosition pos = TPosition::LCM>
class TBufImpl {
public:
    template <class T>
    LocalTensor<T> Get(OPKIT_LOC) { check("TBuf::Get", loc); return make<T>(0, len_); }
    template <class T>
    LocalTensor<T> Get(uint32_t n, OPKIT_LOC) {
        check("TBuf::Get", loc);
        if (uint64_t(n) * sizeof(T) > len_)
            opkit::sim::fail_at("TBuf::Get", loc, "%u elements (%llu bytes) exceed the buffer's %u bytes", n,
                                (unsigned long long)(uint64_t(n) * sizeof(T)), len_);
        return make<T>(0, uint32_t(n * sizeof(T)));
    }
    template <class T>
    LocalTensor<T> GetWithOffset(uint32_t n, uint32_t byteOff, OPKIT_LOC) {
        check("TBuf::GetWithOffset", loc);
        if (byteOff % 32)
            opkit::sim::fail_at("TBuf::GetWithOffset", loc, "byte offset %u is not 32-byte aligned", byteOff);
        if (uint64_t(n) * sizeof(T) + byteOff > len_)
            opkit::sim::fail_at("TBuf::GetWithOffset", loc, "%u elements at byte offset %u (%llu bytes) exceed the buffer's %u bytes",
                                n, byteOff, (unsigned long long)(uint64_t(n) * sizeof(T) + byteOff), len_);
        return make<T>(byteOff, uint32_t(n * sizeof(T)));
    }
    // The queue interface TBuf inherits in CANN (asc-devkit impl/basic_api/kernel_tbuf_impl.h): AllocTensor and
    // DeQue are Get, FreeTensor and EnQue do nothing (a TBuf has no queue and no events).
    template <class T>
    LocalTensor<T> AllocTensor(OPKIT_LOC) { return Get<T>(loc); }
    template <class T>
    LocalTensor<T> DeQue(OPKIT_LOC) { return Get<T>(loc); }
    template <class T>
    void FreeTensor(LocalTensor<T>&) {}
    template <class T>
    void EnQue(const LocalTensor<T>&) {}
    bool inited_ = false;
    uint32_t off_ = 0, len_ = 0;
    int32_t id_ = -1;
    TPipe* pipe_ = nullptr;
    TBufImpl() = default;
    // A copy sees the same buffer but is not tracked by the pipe (Reset does not reach it).
    TBufImpl(const TBufImpl& o) : inited_(o.inited_), off_(o.off_), len_(o.len_), id_(o.id_), pipe_(nullptr) {}
    TBufImpl& operator=(const TBufImpl& o) {
        if (this != &o) { inited_ = o.inited_; off_ = o.off_; len_ = o.len_; id_ = o.id_; }
        return *this;
    }
    ~TBufImpl() {
        if (pipe_) pipe_->forget_buf(&inited_);
    }

private:
    void check(const char* api, const opkit::sim::SrcLoc& loc) {
        if (!inited_) opkit::sim::fail_at(api, loc, "TBuf not initialised with TPipe::InitBuffer");
    }
    template <class T>
    LocalTensor<T> make(uint32_t byteOff, uint32_t bytes) {
        LocalTensor<T> t;
        t.address_.dataLen = bytes;
        t.address_.bufferAddr = off_ + byteOff;
        t.address_.bufEnd = off_ + len_;
        t.address_.logicPos = uint8_t(pos);
        t.address_.absAddr = opkit::sim::core().mem(arena_of(pos)).data + off_ + byteOff;
        t.address_.bufId = id_;
        return t;
    }
};
template <TPosition pos = TPosition::LCM>
using TBuf = TBufImpl<pos>;

template <TPosition P>
bool TPipe::InitBuffer(TBufImpl<P>& buf, uint32_t len, opkit::sim::SrcLoc loc) {
    using namespace opkit::sim;
    const char* api = "TPipe::InitBuffer";
    if (buf.inited_) fail_at(api, loc, "this TBuf was already initialised (call TPipe::Reset first)");
    int a = arena_of(P);
    if (a < 0) fail_at(api, loc, "TBuf position has no on-chip memory");
    uint32_t l = (len + 31u) & ~31u;
    uint64_t off = carve(a, l, api, loc, 1, l);
    buf.off_ = uint32_t(off);
    buf.len_ = l;
    buf.inited_ = true;
    buf.id_ = next_id_++;
    buf.pipe_ = this;
    bufs_.push_back({&buf.inited_, &buf.pipe_});
    return true;
}

}  // namespace AscendC
