// opkit simulator: per-core state: call sites, arenas with written-shadow and per-pipe access records, pipe ordering.
#pragma once
#include "impl/opkit/sim_gm.h"

namespace opkit {
namespace sim {
inline bool launch_is_mix();  // kernel_launch.h

// ---------------------------------------------------------------------------------------------
// Call-site table (per core) for diagnostics that point at an earlier instruction.
struct Site { const char* api; const char* file; int line; };

// Per-arena tracking: bytes, per-byte written shadow, per-32-B last access per pipe.
// The pipe records are kept per pipe and kind (read/write), each an array over the 32-B blocks,
// allocated on the first access of that kind by that pipe (a vector core never uses M or FIX, say):
// a check of a range is then a vectorisable max-scan, and `hi_w/hi_r[pipe]` (the latest
// instruction of that pipe that touched the arena at all) let most checks skip the scan.
// Zero-filled bytes whose pages are only materialised when touched (anonymous mmap on Linux):
// a core's arenas cost nothing for the bytes its kernel never uses.
struct ZeroBuf {
    uint8_t* p = nullptr;
    uint64_t n = 0;
    bool mapped = false;
    ZeroBuf() = default;
    ZeroBuf(const ZeroBuf&) = delete;
    ZeroBuf& operator=(const ZeroBuf&) = delete;
    ~ZeroBuf() { release(); }
    void assign(uint64_t bytes) {
        release();
        n = bytes;
#if defined(__linux__)
        void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) { p = static_cast<uint8_t*>(m); mapped = true; return; }
#endif
        p = static_cast<uint8_t*>(std::calloc(bytes, 1));
        if (!p) { std::fprintf(stderr, "opkit-sim: error: out of host memory for on-chip buffers\n"); std::_Exit(G().exit_code); }
    }
    void release() {
        if (!p) return;
#if defined(__linux__)
        if (mapped) munmap(p, n);
        else
#endif
            std::free(p);
        p = nullptr;
        mapped = false;
    }
    uint8_t* data() { return p; }
    const uint8_t* data() const { return p; }
    uint8_t& operator[](uint64_t i) { return p[i]; }
    const uint8_t& operator[](uint64_t i) const { return p[i]; }
};

struct ArenaMem {
    uint8_t* data = nullptr;
    uint64_t size = 0;
    ZeroBuf storage;
    ZeroBuf init;                                   // 1 = written since kernel start
    std::vector<uint32_t> last_w[NPIPE], last_r[NPIPE];  // [pipe][block] -> instruction seq on pipe
    std::vector<uint16_t> site_w[NPIPE], site_r[NPIPE];  // call site of that access
    uint64_t blocks = 0;
    uint32_t hi_w[NPIPE] = {}, hi_r[NPIPE] = {};
    uint64_t used = 0;                              // bump allocator (InitBuffer)
    struct Region { uint64_t off, len; const char* file; int line; };
    std::vector<Region> regions;                    // every buffer InitBuffer gave out (a TQue's one per buffer)
    const Region* region_at(uint64_t at) const {
        for (const Region& r : regions)
            if (at >= r.off && at < r.off + r.len) return &r;
        return nullptr;
    }
    void ensure(uint64_t n) {
        if (data) return;
        size = n;
        storage.assign(n + 64);
        data = storage.data();
        uintptr_t mis = uintptr_t(data) & 63;
        if (mis) data += 64 - mis;
        init.assign(n);
        blocks = (n + 31) / 32;
    }
    // Records of pipe p (empty until p first accesses this arena that way: all zero).
    uint32_t rec(bool write, int p, uint64_t b) const {
        const std::vector<uint32_t>& v = write ? last_w[p] : last_r[p];
        return v.empty() ? 0 : v[b];
    }
    uint16_t rec_site(bool write, int p, uint64_t b) const {
        const std::vector<uint16_t>& v = write ? site_w[p] : site_r[p];
        return v.empty() ? 0 : v[b];
    }
    void record(bool write, int p, uint64_t b0, uint64_t nb, uint32_t seq, uint16_t site);
};

struct TPipeBase;
struct FlagSlot { bool set = false; uint32_t snap[NPIPE] = {}; Site site{}; };

enum CoreType : int32_t { CT_MIX = 0, CT_AIC = 1, CT_AIV = 2 };

// A core's trace events (sim_trace.h): their JSON texts one after the other in one buffer, and where each begins,
// its top bit set once the event was taken back (untrace: the trace file leaves it out). About the text's own bytes
// and 8 more an event, instead of a string object and its allocation each; both grow by a quarter at a time (not
// doubling), so that what a long trace holds beyond its text stays small.
struct TraceEvents {
    static constexpr uint64_t kTaken = 1ull << 63;
    std::vector<char> text;
    std::vector<uint64_t> at;

    size_t size() const { return at.size(); }
    void push_back(const char* s, size_t n) {
        grow(text, n);
        grow(at, 1);
        at.push_back(uint64_t(text.size()));
        text.insert(text.end(), s, s + n);
    }
    void push_back(const std::string& e) { push_back(e.data(), e.size()); }
    void take_back(size_t i) { at[i] |= kTaken; }
    bool taken(size_t i) const { return (at[i] & kTaken) != 0; }
    // Event i's text (not NUL-terminated) and its length.
    const char* data(size_t i) const { return text.data() + (at[i] & ~kTaken); }
    size_t length(size_t i) const {
        return size_t((i + 1 < at.size() ? at[i + 1] & ~kTaken : uint64_t(text.size())) - (at[i] & ~kTaken));
    }
    // Give the memory back (the events were written).
    void release() {
        std::vector<char>().swap(text);
        std::vector<uint64_t>().swap(at);
    }
    template <class V> static void grow(V& v, size_t more) {
        if (v.size() + more > v.capacity()) v.reserve(std::max(v.size() + more, v.capacity() + v.capacity() / 4 + 4096));
    }
};

struct CoreState {
    std::string kernel = "kernel";
    int64_t block_idx = 0, block_num = 1, sub_block_idx = 0, task_ratio = 1;
    int64_t tid = 0, core_id = 0;
    int32_t core_type = CT_AIV;
    ArenaMem arena[NARENA];
    uint32_t cnt[NPIPE] = {};            // instructions issued per pipe
    uint32_t seen[NPIPE][NPIPE] = {};    // seen[q][p]: pipe q is ordered after pipe p's first seen[q][p] instrs
    std::vector<Site> sites{Site{"", nullptr, 0}};
    std::unordered_map<uint64_t, uint16_t> site_idx;
    FlagSlot flags[64][8];               // [HardEvent][event id]
    // UB bytes of a buffer overwritten by an out-of-bounds write of another tensor: reading them before
    // they are written again reads corrupted data (see local_oob).
    struct Clobber { int arena; uint64_t off, end; uint32_t seq; std::string by; const char* file; int line; };
    std::vector<Clobber> clobbers;
    // Buffers of a TQue given back with FreeTensor and not yet handed out again by AllocTensor: any access
    // there goes through a LocalTensor that no longer owns the memory (use after free).
    struct Freed { int arena; uint64_t off, end; const char* file; int line; };
    std::vector<Freed> freed;
    uint32_t sync_epoch = 0;  // SyncAll / CrossCoreWaitFlag calls so far: GM writes across them are ordered
    uint64_t launch_serial = 0;  // the launch this core runs (writer tags compare within one, sim_poison.h)
    // MTE3 stores to GM not yet ordered after each other (same-pipe ordering, sim_order.h): rows `count` of `blen`
    // bytes, `pitch` apart from `lo`, by instruction `seq` on MTE3 at call site `site`.
    struct GmStore { uintptr_t lo; uint64_t blen, pitch, count; uint32_t seq; uint16_t site; };
    std::vector<GmStore> mte3_gm;
    uint32_t oob_read_seq = 0;  // the last instruction that read past its tensor, and the bytes it read there
    int oob_read_arena = -1;
    uint64_t oob_read_lo = 0, oob_read_hi = 0;
    TPipeBase* pipe = nullptr;
    // vector mask state
    bool mask_counter = false;
    uint64_t mask_hi = ~0ull, mask_lo = ~0ull;
    // atomic store mode: 0 none, 1 add, 2 max, 3 min; dtype tag
    int atomic_mode = 0;
    int atomic_dtype = 0;
    uint64_t pad_value = 0;
    bool pad_value_set = false;
    // trace counters
    struct Trace { uint64_t instrs = 0, bytes = 0, repeats = 0; } trace[NPIPE];
    std::map<std::string, Trace> by_class;  // "pipe|api|dtype"
    // by_class entries by the (pipe, api, dtype) pointers of the call (names are string literals;
    // two pointers to equal names find the same entry through the string key).
    struct ClassKey {
        int pipe; const char* api; const char* dtype;
        bool operator==(const ClassKey& o) const { return pipe == o.pipe && api == o.api && dtype == o.dtype; }
    };
    struct ClassKeyHash {
        size_t operator()(const ClassKey& k) const {
            return std::hash<const void*>()(k.api) * 31 + std::hash<const void*>()(k.dtype) * 7 + size_t(k.pipe);
        }
    };
    std::unordered_map<ClassKey, Trace*, ClassKeyHash> class_cache;
    TraceEvents events;
    uint64_t events_dropped = 0;
    bool trace_on = false;
    bool trace_quiet = false;  // the instructions now issued cost nothing (an IBShare copy the paired AIV's job made): not traced or counted
    // While trace_record is set, every instruction trace() counts is also listed there (its pipe, its class entry, its
    // bytes and repeats, its index in events or -1 when it was dropped), so that it can be taken back (untrace): an
    // IBShare copy that the paired AIV's job, served first in the model's order, turns out to have made as well.
    struct TraceRec { int pipe; Trace* cls; uint64_t bytes, repeats; int64_t event; };
    std::vector<TraceRec>* trace_record = nullptr;
    std::atomic<int64_t>* trace_left = nullptr;  // the launch's pool of trace events still to keep (sim_trace.h)
    uint64_t ub_reserved_needed = 0;

    // UB and L1 are backed past their physical size (pages untouched cost nothing): an InitBuffer may give
    // a buffer past the capacity (a warning), and only an access there is an error (touch checks it first).
    ArenaMem& mem(int a) {
        arena[a].ensure(a == A_UB || a == A_L1 ? 2 * arena_phys(a) : arena_phys(a));
        return arena[a];
    }
    uint16_t site(const char* api, const SrcLoc& loc) {
        uint64_t key = (uint64_t(uintptr_t(api)) * 1000003u) ^ (uint64_t(uintptr_t(loc.file)) << 16) ^ uint64_t(loc.line);
        auto it = site_idx.find(key);
        if (it != site_idx.end()) return it->second;
        if (sites.size() >= 65535) return 0;
        uint16_t id = uint16_t(sites.size());
        sites.push_back(Site{api, loc.file, loc.line});
        site_idx[key] = id;
        return id;
    }
};

inline CoreState& main_thread_core() {
    static CoreState c;
    return c;
}
inline CoreState& core() {
    CoreState* c = cur_core_ptr();
    if (!c) { c = &main_thread_core(); cur_core_ptr() = c; }
    return *c;
}
inline bool on_aic() { return core().core_type == CT_AIC; }
inline uint64_t current_launch_serial() {
    CoreState* c = cur_core_ptr();
    return c ? c->launch_serial : G().launch_serial;
}
inline bool current_writer(int64_t* tid, int* ctype, uint32_t* epoch, bool* atomic) {
    CoreState* c = cur_core_ptr();
    if (!c) return false;  // the host
    *tid = c->tid;
    *ctype = c->core_type;
    *epoch = c->sync_epoch;
    *atomic = c->atomic_mode != 0;
    return true;
}
inline std::string core_desc() {
    CoreState* c = cur_core_ptr();
    if (!c) return "host";
    const char* t = c->core_type == CT_AIC ? "AIC" : (c->core_type == CT_AIV ? "AIV" : "core");
    return fmt("%skernel '%s' %s block %lld/%lld", rank_tag().c_str(), c->kernel.c_str(), t, (long long)c->block_idx,
               (long long)c->block_num);
}

// ---------------------------------------------------------------------------------------------
// Pipe ordering. Each API call is one instruction on one pipe. A local buffer touched by pipe P
// and later by pipe Q (Q != P) needs an ordering edge (flag, queue, barrier) between the two.
inline uint32_t issue(int pipe) { return ++core().cnt[pipe]; }

inline std::string site_str(uint16_t id) {
    const Site& s = core().sites[id];
    if (!s.file) return "";
    return fmt(" (%s at %s:%d)", s.api, s.file, s.line);
}

// Largest value of v[0, n).
inline uint32_t max_u32(const uint32_t* v, uint64_t n) {
    uint32_t m = 0;
    uint64_t i = 0;
#if defined(__SSE4_1__)
    __m128i acc = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) acc = _mm_max_epu32(acc, _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i)));
    alignas(16) uint32_t lanes[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), acc);
    m = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
#endif
    for (; i < n; ++i) m = v[i] > m ? v[i] : m;
    return m;
}

// v[0, n) = x (explicit 16-byte stores: the compiler does not vectorise these fills at -O2).
inline void fill_u32(uint32_t* v, uint64_t n, uint32_t x) {
    uint64_t i = 0;
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi32(int32_t(x));
    for (; i + 4 <= n; i += 4) _mm_storeu_si128(reinterpret_cast<__m128i*>(v + i), q);
#endif
    for (; i < n; ++i) v[i] = x;
}
inline void fill_u16(uint16_t* v, uint64_t n, uint16_t x) {
    uint64_t i = 0;
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi16(int16_t(x));
    for (; i + 8 <= n; i += 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(v + i), q);
#endif
    for (; i < n; ++i) v[i] = x;
}

inline void ArenaMem::record(bool write, int p, uint64_t b0, uint64_t nb, uint32_t seq, uint16_t site) {
    std::vector<uint32_t>& v = write ? last_w[p] : last_r[p];
    std::vector<uint16_t>& sv = write ? site_w[p] : site_r[p];
    if (v.empty()) {
        v.assign(blocks, 0);
        sv.assign(blocks, 0);
    }
    fill_u32(v.data() + b0, nb, seq);
    fill_u16(sv.data() + b0, nb, site);
    uint32_t& hi = write ? hi_w[p] : hi_r[p];
    hi = std::max(hi, seq);
}

// GetCoreMemSize keeps the top bytes of UB and L1 back on 910B for the AIC-AIV message channel (KFC) of the
// Matmul API in mix kernels; fe::PlatformInfo's GetLocalMemSize, which some tilings read, does not. A launch
// with no cube cores beside the vector cores leaves that channel unused: an access there (ending at `end`)
// corrupts nothing and is a warning. In a mix launch, or past the physical memory, it is an error.
inline bool in_idle_kfc_reserve(int a, uint64_t end) {
    return (a == A_UB || a == A_L1) && end <= arena_phys(a) && !launch_is_mix();
}

// Record and check an access of [off, off+bytes) in arena `a` by `pipe` (instruction `seq`).
// Semantics per 32-B block: the access conflicts with the last write (and, for a write, the last
// read) of every other pipe that `pipe` has not seen yet; the first conflicting block is reported.
inline void clobber_access(int a, uint64_t off, uint64_t bytes, bool write, uint32_t seq, const char* api,
                           const SrcLoc& loc);
// Use after free (CPU-debug's illegal access / msSanitizer memcheck): [off, off + bytes) of arena `a` reaches a
// TQue buffer freed with FreeTensor that no AllocTensor has handed out again.
inline void freed_access(int a, uint64_t off, uint64_t bytes, bool write, const char* api, const SrcLoc& loc) {
    for (const CoreState::Freed& f : core().freed) {
        if (f.arena != a || off + bytes <= f.off || off >= f.end) continue;
        fail_at(api, loc,
                "use after free: %s %s bytes [%llu, %llu) of a queue buffer that FreeTensor at %s:%d gave back (a "
                "LocalTensor still pointing there no longer owns it: the next AllocTensor hands it out again); "
                "finish with the tensor before FreeTensor, or AllocTensor a new one",
                write ? "writes" : "reads", arena_name(a), (unsigned long long)std::max(off, f.off),
                (unsigned long long)std::min(off + bytes, f.end), f.file ? f.file : "?", f.line);
    }
}
// FreeTensor gives [off, end) back; AllocTensor (or a new InitBuffer over it) hands it out again.
inline void freed_add(int a, uint64_t off, uint64_t end, const SrcLoc& loc) {
    if (!check_on(kCheckUaf)) return;
    core().freed.push_back(CoreState::Freed{a, off, end, loc.file, loc.line});
}
inline void freed_clear(int a, uint64_t off, uint64_t end) {
    auto& v = core().freed;
    v.erase(std::remove_if(v.begin(), v.end(), [&](const CoreState::Freed& f) {
                return f.arena == a && off < f.end && f.off < end;
            }), v.end());
}

inline void same_pipe_write(int a, uint64_t b0, uint64_t b1, int pipe, uint32_t seq, const char* api, const SrcLoc& loc);
inline void touch(int a, uint64_t off, uint64_t bytes, int pipe, bool write, uint32_t seq, uint16_t site,
                  const char* api, const SrcLoc& loc) {
    if (bytes == 0) return;
    CoreState& c = core();
    if (off + bytes > arena_cap(a)) {
        if (!in_idle_kfc_reserve(a, off + bytes))
            fail_at(api, loc,
                    "%s %s bytes [%llu, %llu), past the %llu bytes the chip (%s) offers (GetCoreMemSize): an "
                    "InitBuffer gave a buffer beyond the capacity (see its warning) and this access reaches that part",
                    write ? "writes" : "reads", arena_name(a), (unsigned long long)off,
                    (unsigned long long)(off + bytes), (unsigned long long)arena_cap(a), OPKIT_SIM_SOC);
        warn_at(api, loc,
                "%s %s bytes [%llu, %llu), inside the %llu bytes below the physical %llu that GetCoreMemSize keeps "
                "back on %s for the Matmul API's AIC-AIV channel (KFC): unused in a launch without cube cores, so "
                "nothing is corrupted here, but the same kernel in a mix launch would clobber it (size buffers with "
                "GetCoreMemSize, not fe::PlatformInfo::GetLocalMemSize)",
                write ? "writes" : "reads", arena_name(a), (unsigned long long)off, (unsigned long long)(off + bytes),
                (unsigned long long)(arena_phys(a) - arena_cap(a)), (unsigned long long)arena_phys(a), OPKIT_SIM_SOC);
    }
    if (!c.clobbers.empty()) clobber_access(a, off, bytes, write, seq, api, loc);
    if (!c.freed.empty()) freed_access(a, off, bytes, write, api, loc);
    ArenaMem& m = c.mem(a);
    const uint64_t b0 = off / 32, b1 = (off + bytes + 31) / 32, nb = b1 - b0;
    const uint32_t* seen = c.seen[pipe];
    bool conflict = false;
    for (int p = 0; p < NPIPE && !conflict; ++p) {
        if (p == pipe) continue;
        // hi_* > 0 implies the records of that pipe exist.
        if (m.hi_w[p] > seen[p] && max_u32(m.last_w[p].data() + b0, nb) > seen[p]) conflict = true;
        else if (write && m.hi_r[p] > seen[p] && max_u32(m.last_r[p].data() + b0, nb) > seen[p]) conflict = true;
    }
    if (conflict) {
        for (uint64_t b = b0; b < b1; ++b) {
            for (int p = 0; p < NPIPE; ++p) {
                if (p == pipe) continue;
                bool bad_w = m.rec(true, p, b) > seen[p];
                bool bad_r = write && m.rec(false, p, b) > seen[p];
                if (bad_w || bad_r) {
                    uint16_t sid = m.rec_site(bad_w, p, b);
                    fail_at(api, loc,
                            "missing pipe synchronisation: %s bytes [%llu, %llu) were %s on pipe %s%s and are now %s on pipe %s "
                            "with no ordering edge in between (SetFlag/WaitFlag<HardEvent::%s_%s>, EnQue/DeQue or PipeBarrier<PIPE_ALL>); "
                            "on the NPU this is a race",
                            arena_name(a), (unsigned long long)(b * 32), (unsigned long long)(b * 32 + 32),
                            bad_w ? "written" : "read", pipe_name(p), site_str(sid).c_str(), write ? "written" : "read",
                            pipe_name(pipe), pipe_name(p), pipe_name(pipe));
                }
            }
        }
    }
    // Same-pipe ordering (the DataCopy and PipeBarrier pages; checked after the cross-pipe races above, the more
    // basic defect): two MTE2 (or MTE3) transfers whose destinations overlap need PipeBarrier<PIPE_MTE2> (MTE3)
    // between them, since the transfers of one pipe may overlap in time.
    if (write && (pipe == P_MTE2 || pipe == P_MTE3) && m.hi_w[pipe] > seen[pipe] && check_on(kCheckOrder) &&
        max_u32(m.last_w[pipe].data() + b0, nb) > seen[pipe])
        same_pipe_write(a, b0, b1, pipe, seq, api, loc);
    m.record(write, pipe, b0, nb, seq, site);
}

inline void same_pipe_write(int a, uint64_t b0, uint64_t b1, int pipe, uint32_t seq, const char* api, const SrcLoc& loc) {
    CoreState& c = core();
    ArenaMem& m = c.mem(a);
    const uint32_t done = c.seen[pipe][pipe];
    for (uint64_t b = b0; b < b1; ++b) {
        const uint32_t w = m.rec(true, pipe, b);
        if (w <= done || w == seq) continue;
        const uint16_t sid = m.rec_site(true, pipe, b);
        uint64_t e = b + 1;
        while (e < b1 && m.rec(true, pipe, e) == w) ++e;
        fail_at(api, loc,
                "same-pipe ordering: writes %s bytes [%llu, %llu) that an earlier transfer on pipe %s%s wrote, with no "
                "PipeBarrier<PIPE_%s> in between: transfers of one pipe start in order but may run at once, so the earlier "
                "one can land last (the DataCopy pages: overlapping destinations need PipeBarrier<PIPE_%s> between them)",
                arena_name(a), (unsigned long long)(b * 32), (unsigned long long)(e * 32), pipe_name(pipe),
                site_str(sid).c_str(), pipe_name(pipe), pipe_name(pipe));
    }
}

// Same-pipe ordering of PIPE_M (the Ascend C Mmad page, its synchronisation notes): an Mmad accumulating onto L0C
// bytes [off, off + bytes) of arena `a` that an earlier Mmad of this core wrote needs PipeBarrier<PIPE_M> (or any
// edge ordering the pipe after that Mmad) in between when the accumulating Mmad's (m / 16) * (n / 16), in the
// page's integer arithmetic, is below 10; larger ones the hardware orders itself.
inline void same_pipe_accumulate(int a, uint64_t off, uint64_t bytes, int mm, int nn, const char* api, const SrcLoc& loc) {
    const int units = (mm / 16) * (nn / 16);
    if (units >= 10 || bytes == 0 || !check_on(kCheckOrder)) return;
    CoreState& c = core();
    ArenaMem& m = c.mem(a);
    const uint32_t done = c.seen[P_M][P_M];
    const uint64_t b0 = off / 32, b1 = std::min<uint64_t>((off + bytes + 31) / 32, m.blocks);
    if (b0 >= b1 || m.hi_w[P_M] <= done || max_u32(m.last_w[P_M].data() + b0, b1 - b0) <= done) return;
    for (uint64_t b = b0; b < b1; ++b) {
        const uint32_t w = m.rec(true, P_M, b);
        if (w <= done) continue;
        uint64_t e = b + 1;
        while (e < b1 && m.rec(true, P_M, e) == w) ++e;
        fail_at(api, loc,
                "same-pipe ordering: accumulates onto %s bytes [%llu, %llu) that an earlier Mmad%s wrote, with no "
                "PipeBarrier<PIPE_M> in between: with m %d and n %d, (m / 16) * (n / 16) = %d is below 10, and then "
                "the hardware does not finish one Mmad's write of L0C before the next one reads it (the Ascend C Mmad "
                "page, asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/Mmad计算/Mmad.md: after an Mmad, "
                "if ((m / 16) * (n / 16) < 10) PipeBarrier<PIPE_M>();)",
                arena_name(a), (unsigned long long)(b * 32), (unsigned long long)(e * 32), site_str(m.rec_site(true, P_M, b)).c_str(),
                mm, nn, units);
    }
}

// A read of clobbered bytes (an error: the chip would read what the stray write left there); a write
// that covers them makes them good again. The instruction that made a clobber neither trips nor heals it.
inline void clobber_access(int a, uint64_t off, uint64_t bytes, bool write, uint32_t seq, const char* api,
                           const SrcLoc& loc) {
    CoreState& c = core();
    const uint64_t end = off + bytes;
    for (size_t i = 0; i < c.clobbers.size();) {
        CoreState::Clobber& k = c.clobbers[i];
        if (k.arena != a || k.seq == seq || end <= k.off || off >= k.end) { ++i; continue; }
        if (!write && seq == c.oob_read_seq && a == c.oob_read_arena && std::max(off, k.off) >= c.oob_read_lo &&
            std::min(end, k.end) <= c.oob_read_hi) {
            ++i;  // an out-of-bounds read of its own (warned) reads what the stray write left: not the victim's read
            continue;
        }
        if (!write) {
            const ArenaMem::Region* r = c.mem(a).region_at(k.off);
            fail_at(api, loc,
                    "reads %s bytes [%llu, %llu) of the buffer initialised at %s:%d, which the out-of-bounds write of %s "
                    "overwrote (it wrote past the end of its own tensor): on the NPU this reads corrupted data. Keep "
                    "every operand within its LocalTensor (the destination must hold all the elements the instruction "
                    "writes)",
                    arena_name(a), (unsigned long long)std::max(off, k.off), (unsigned long long)std::min(end, k.end),
                    r && r->file ? r->file : "?", r ? r->line : 0, k.by.c_str());
        }
        if (off <= k.off && end >= k.end) { c.clobbers.erase(c.clobbers.begin() + long(i)); continue; }
        if (off <= k.off) k.off = end;
        else if (end >= k.end) k.end = off;
        else {  // the write lands inside: two pieces remain
            CoreState::Clobber tail = k;
            tail.off = end;
            k.end = off;
            c.clobbers.push_back(tail);
        }
        ++i;
    }
}

// An access of bytes [b0, b1) of arena `a` by an operand whose tensor covers [t0, t0 + tlen): the part
// past the tensor, as the NPU would do it. Past the memory the chip offers: an error. Into UB no buffer
// owns: a warning (nothing is corrupted). A write into another buffer: a warning now and an error when
// that buffer's data is read before being written again (clobber_access); a read of another buffer:
// a warning (the values come from there).
inline void local_oob(const char* api, const SrcLoc& loc, const char* role, int a, uint64_t t0, uint64_t tlen,
                      uint64_t b0, uint64_t b1, bool write, uint32_t seq) {
    CoreState& c = core();
    const uint64_t cap = arena_cap(a);
    if (b1 > cap && !in_idle_kfc_reserve(a, b1))
        fail_at(api, loc,
                "%s local tensor out of bounds: %s %s bytes [%llu, %llu), past the %llu bytes the chip (%s) offers "
                "(GetCoreMemSize); the tensor holds %llu bytes from byte %llu",
                role, write ? "writes" : "reads", arena_name(a), (unsigned long long)b0, (unsigned long long)b1,
                (unsigned long long)cap, OPKIT_SIM_SOC, (unsigned long long)tlen, (unsigned long long)t0);
    ArenaMem& m = c.mem(a);
    if (!write) {
        if (c.oob_read_seq != seq || c.oob_read_arena != a) { c.oob_read_lo = b0; c.oob_read_hi = b1; }
        else { c.oob_read_lo = std::min(c.oob_read_lo, b0); c.oob_read_hi = std::max(c.oob_read_hi, b1); }
        c.oob_read_seq = seq;
        c.oob_read_arena = a;
    }
    const ArenaMem::Region* own = m.region_at(t0);
    const ArenaMem::Region* hit = nullptr;
    for (const ArenaMem::Region& r : m.regions)
        if (&r != own && b0 < r.off + r.len && r.off < b1) { hit = &r; break; }
    // One format string per kind, so each kind is reported once per call site (warn_at).
    static const char* const free_w = "%s local tensor out of bounds: writes %s bytes [%llu, %llu) past the end of its "
        "tensor (%llu bytes from byte %llu), in UB no buffer owns: nothing is corrupted on the NPU, but Ascend C requires "
        "operands within their LocalTensor";
    static const char* const free_r = "%s local tensor out of bounds: reads %s bytes [%llu, %llu) past the end of its "
        "tensor (%llu bytes from byte %llu), in UB no buffer owns: nothing is corrupted on the NPU, but Ascend C requires "
        "operands within their LocalTensor";
    static const char* const into_w = "%s local tensor out of bounds: writes %s bytes [%llu, %llu) past the end of its "
        "tensor (%llu bytes from byte %llu), into the buffer initialised at %s:%d; an error follows if that buffer's data "
        "is read before it is written again";
    static const char* const into_r = "%s local tensor out of bounds: reads %s bytes [%llu, %llu) past the end of its "
        "tensor (%llu bytes from byte %llu), from the buffer initialised at %s:%d";
    if (!hit) {
        warn_at(api, loc, write ? free_w : free_r, role, arena_name(a), (unsigned long long)b0, (unsigned long long)b1,
                (unsigned long long)tlen, (unsigned long long)t0);
        return;
    }
    warn_at(api, loc, write ? into_w : into_r, role, arena_name(a), (unsigned long long)b0, (unsigned long long)b1,
            (unsigned long long)tlen, (unsigned long long)t0, hit->file ? hit->file : "?", hit->line);
    if (!write) return;
    for (const ArenaMem::Region& r : m.regions) {
        if (&r == own || !(b0 < r.off + r.len && r.off < b1)) continue;
        uint64_t lo = std::max(b0, r.off), hi = std::min(b1, r.off + r.len);
        bool merged = false;
        for (auto& k : c.clobbers)
            if (k.arena == a && k.seq == seq && lo <= k.end && k.off <= hi) {
                k.off = std::min(k.off, lo);
                k.end = std::max(k.end, hi);
                merged = true;
                break;
            }
        if (!merged) c.clobbers.push_back({a, lo, hi, seq, std::string(api) + (loc.file ? fmt(" at %s:%d", loc.file, loc.line) : ""),
                                           loc.file, loc.line});
    }
}

// Snapshot of what `pipe` has done (with what it has seen) for a flag or queue edge.
inline void snapshot(int pipe, uint32_t out[NPIPE]) {
    CoreState& c = core();
    for (int p = 0; p < NPIPE; ++p) out[p] = std::max(out[p], c.seen[pipe][p]);
    out[pipe] = std::max(out[pipe], c.cnt[pipe]);
}
inline void merge(int pipe, const uint32_t snap[NPIPE]) {
    CoreState& c = core();
    for (int p = 0; p < NPIPE; ++p) c.seen[pipe][p] = std::max(c.seen[pipe][p], snap[p]);
}
inline void barrier_all() {
    CoreState& c = core();
    for (int q = 0; q < NPIPE; ++q)
        for (int p = 0; p < NPIPE; ++p) c.seen[q][p] = c.cnt[p];
}
// PipeBarrier<pipe> (pipe_t value): the pipe's later instructions start after its earlier ones finished.
inline void barrier_pipe(int pipe_t_value) {
    const int p = pipe_t_value <= 5 ? pipe_t_value : (pipe_t_value == 10 ? int(P_FIX) : -1);
    if (p < 0) return;
    CoreState& c = core();
    c.seen[p][p] = c.cnt[p];
}

// Same-pipe ordering of MTE3 stores to GM: row [a, a + bytes) of instruction `seq` (one row of `count`, `pitch`
// apart from `lo`) against the earlier MTE3 stores of this core not yet ordered before it (PipeBarrier<PIPE_MTE3>,
// PIPE_ALL, or a flag / queue edge that reaches MTE3 from after them). Overlapping destinations are an error.
inline void mte3_gm_store(uintptr_t lo, uint64_t blen, uint64_t pitch, uint64_t count, uint32_t seq, uint16_t site,
                          const char* api, const SrcLoc& loc) {
    if (!check_on(kCheckOrder)) return;
    CoreState& c = core();
    auto& v = c.mte3_gm;
    const uint32_t done = c.seen[P_MTE3][P_MTE3];
    if (!v.empty())
        v.erase(std::remove_if(v.begin(), v.end(), [&](const CoreState::GmStore& e) { return e.seq <= done; }), v.end());
    for (uint64_t r = 0; r < count; ++r) {
        const uintptr_t a = lo + r * pitch, b = a + blen;
        for (const CoreState::GmStore& e : v) {
            if (e.count == 0 || b <= e.lo || a >= e.lo + (e.count - 1) * e.pitch + e.blen) continue;
            uint64_t k = a <= e.lo ? 0 : (e.pitch ? (a - e.lo) / e.pitch : 0);  // first row of e that may reach [a, b)
            if (k < e.count && e.lo + k * e.pitch + e.blen <= a) ++k;
            if (k >= e.count || e.lo + k * e.pitch >= b) continue;
            const uintptr_t o0 = std::max<uintptr_t>(a, e.lo + k * e.pitch), o1 = std::min<uintptr_t>(b, e.lo + k * e.pitch + e.blen);
            std::string what = fmt("GM bytes at %p", reinterpret_cast<void*>(o0));
            {
                std::lock_guard<std::mutex> lk(G().gm_mu);
                auto it = G().gm.upper_bound(o0);
                if (it != G().gm.begin() && o0 < std::prev(it)->first + std::prev(it)->second.size) {
                    --it;
                    const std::string& nm = it->second.name;
                    what = fmt("GM bytes [%llu, %llu) of %s%s%s", (unsigned long long)(o0 - it->first),
                               (unsigned long long)(o1 - it->first), nm.empty() ? "the allocation" : "'",
                               nm.empty() ? "" : nm.c_str(), nm.empty() ? "" : "'");
                }
            }
            fail_at(api, loc,
                    "same-pipe ordering: writes %s that an earlier store on pipe MTE3%s wrote, with no "
                    "PipeBarrier<PIPE_MTE3> in between: transfers of one pipe start in order but may run at once, so the "
                    "earlier one can land last (the DataCopy pages: overlapping destinations need PipeBarrier<PIPE_MTE3> "
                    "between them)", what.c_str(), site_str(e.site).c_str());
        }
    }
    if (v.size() >= 1024) v.erase(v.begin(), v.begin() + 512);  // a kernel that never orders its stores: keep the latest
    v.push_back(CoreState::GmStore{lo, blen, pitch, count, seq, site});
}

// ---------------------------------------------------------------------------------------------
// Written-shadow helpers.
// In trace-only mode every byte counts as written (the written-state checks are off).
inline bool all_init(int a, uint64_t off, uint64_t bytes) {
    if (trace_only()) return true;
    const uint8_t* s = core().mem(a).init.data() + off;
    return bytes == 0 || std::memchr(s, 0, bytes) == nullptr;
}
inline void set_init(int a, uint64_t off, uint64_t bytes, bool v = true) {
    if (trace_only()) return;
    std::memset(core().mem(a).init.data() + off, v ? 1 : 0, bytes);
}
inline uint64_t first_uninit(int a, uint64_t off, uint64_t bytes) {
    if (trace_only()) return bytes;
    const uint8_t* s = core().mem(a).init.data() + off;
    const void* z = std::memchr(s, 0, bytes);
    return z ? uint64_t(static_cast<const uint8_t*>(z) - s) : bytes;
}

// Appends the decimal digits of v.
inline void append_u64(std::string& s, uint64_t v) {
    char buf[24];
    int n = 0;
    do { buf[n++] = char('0' + v % 10); v /= 10; } while (v);
    while (n) s += buf[--n];
}

}  // namespace sim
}  // namespace opkit
