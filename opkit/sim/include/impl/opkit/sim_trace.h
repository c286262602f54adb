// opkit simulator: the per-core, per-pipe trace record that feeds the performance model.
#pragma once
#include "impl/opkit/sim_shadow.h"

namespace opkit {
namespace sim {

// The GM bytes a read covers, for the performance model's L2 term: `nd` groups `nd_stride` bytes apart, each of
// `count` runs of `blen` bytes `stride` bytes apart, from `gm` (recorded as the event's "gm" field, the address as
// trace_gm_addr gives it).
struct GmRange {
    const void* gm;
    uint64_t blen, stride, count, nd = 1, nd_stride = 0;
};

// A GM address as the trace records it: (the allocation's rank among the live ones in the order they were made,
// from 1) << 40 | the offset in it, so that the traces of one launch are the same from run to run (the host
// addresses and their order are not). A pointer outside every allocation is recorded as it is.
inline uint64_t trace_gm_addr(const void* p) {
    struct Last {
        uintptr_t base = 0;
        uint64_t size = 0, id = 0, gen = 0;
        size_t n = 0;
    };
    thread_local Last last;
    const uintptr_t a = uintptr_t(p);
    Global& g = G();
    std::lock_guard<std::mutex> lk(g.gm_mu);
    if (!(last.n == g.gm.size() && last.gen == g.gm_serial && a >= last.base && a < last.base + last.size)) {
        auto it = g.gm.upper_bound(a);
        if (it == g.gm.begin()) return uint64_t(a);
        --it;
        if (a >= it->first + it->second.size) return uint64_t(a);
        uint64_t rank = 1;  // among the live allocations, in the order they were made
        for (const auto& e : g.gm) rank += e.second.serial < it->second.serial;
        last = Last{it->first, it->second.size, rank, g.gm_serial, g.gm.size()};
    }
    return (last.id << 40) | uint64_t(a - last.base);
}

// How many trace events a launch keeps in memory. Every core keeps its first kCoreTraceEvents; past those the
// cores draw on one launch-wide pool (so that the few busy cores of a kernel, e.g. the cube cores of a mix
// kernel, can keep far more than the rest) of OPKIT_SIM_TRACE_EVENTS events when set (a non-negative integer),
// else of what a quarter of the memory available when the launch starts holds at kTraceEventBytes an event.
// kTraceEventBytes is what one event costs in the larger of the two processes that hold a launch's events, one
// after the other, with a margin: this one (the event's text in its core's TraceEvents: about 80 B an event for
// FlashAttention, 78 B at S = 2048) and the performance model's (the trace's store, the task graph and the timed
// run: 62 B an event, 90 B a task, for its 50.2 M events at S = 8192; docs/perf.md §2, "Scale"). The events past
// both are counted (events_dropped) and the performance model says so. OPKIT_SIM_TRACE_CORE_EVENTS sets the
// per-core part (tests).
constexpr uint64_t kTraceEventBytes = 96;
constexpr size_t kCoreTraceEvents = 100000;
inline uint64_t mem_available_bytes() {
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    std::fclose(f);
    return uint64_t(kb) * 1024;
}
// A non-negative integer from the environment variable `name`, or -1 when it is unset or not one (with a warning).
inline long long env_count(const char* name) {
    const char* e = std::getenv(name);
    if (!e) return -1;
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (end != e && *end == '\0' && v >= 0) return v;
    std::fprintf(stderr, "opkit-sim: warning: %s=%s is not a non-negative integer; ignored\n", name, e);
    return -1;
}
inline int64_t trace_event_pool() {
    const long long v = env_count("OPKIT_SIM_TRACE_EVENTS");
    return v >= 0 ? int64_t(v) : int64_t(mem_available_bytes() / 4 / kTraceEventBytes);
}
// The events every core keeps before it draws on the pool: kCoreTraceEvents, or OPKIT_SIM_TRACE_CORE_EVENTS.
inline size_t trace_core_events() {
    static const size_t n = [] {
        const long long v = env_count("OPKIT_SIM_TRACE_CORE_EVENTS");
        return v >= 0 ? size_t(v) : kCoreTraceEvents;
    }();
    return n;
}
// Whether the calling core may keep one more trace event: its own first trace_core_events(), then its launch's
// pool.
inline bool trace_keep(CoreState& c) {
    if (c.events.size() < trace_core_events()) return true;
    return c.trace_left && c.trace_left->fetch_sub(1, std::memory_order_relaxed) > 0;
}

// Trace record (per core, per pipe, and per instruction class and dtype). `dst` is the arena an on-chip copy fills
// (recorded as the event's "dst" field, e.g. "L0A"): the performance model prices L1 -> L0A and L1 -> L0B apart.
// `rows` > 0 (the "rows" field) is the row count of an advanced API whose steps are partly per row (the softmax
// family: row statistics of 8 floats a row), and `update` >= 0 (the "update" field, 0 or 1) says whether it ran
// its update form: the model prices the per-row steps by rows, not over every element. `unit` (the "unit" field,
// 2 or 3) is the unit flag of an Mmad or Fixpipe: an Mmad with it waits, 512-B block by block of L0C, for the
// Fixpipe that read the block before, and a Fixpipe with 3 reads each block as soon as the Mmad with 3 has
// written it (the replay overlaps them at that grain, docs/perf.md).
inline void trace(int pipe, uint64_t bytes, uint64_t repeats, const char* api = "", const char* dtype = "",
                  const GmRange* gm = nullptr, int dst = -1, uint64_t rows = 0, int update = -1, int unit = 0) {
    CoreState& c = core();
    if (c.trace_quiet) return;
    c.trace[pipe].instrs++;
    c.trace[pipe].bytes += bytes;
    c.trace[pipe].repeats += repeats;
    if (!c.trace_on) {
        if (c.trace_record) c.trace_record->push_back(CoreState::TraceRec{pipe, nullptr, bytes, repeats, -1});
        return;
    }
    int64_t kept = -1;
    if (trace_keep(c)) {
        thread_local std::string e;  // the event's text, then copied into the core's events (sim_shadow.h)
        e.clear();
        e += "{\"ev\":\"op\",\"pipe\":\"";
        e += pipe_name(pipe);
        e += "\",\"api\":\"";
        e += api;
        e += "\",\"dtype\":\"";
        e += dtype;
        e += "\",\"bytes\":";
        append_u64(e, bytes);
        e += ",\"repeats\":";
        append_u64(e, repeats);
        if (gm) {
            e += ",\"gm\":[";
            const uint64_t f[6] = {trace_gm_addr(gm->gm), gm->blen, gm->stride, gm->count, gm->nd, gm->nd_stride};
            for (int i = 0; i < 6; ++i) {
                if (i) e += ',';
                append_u64(e, f[i]);
            }
            e += ']';
        }
        if (dst >= 0 && dst < NARENA) {
            e += ",\"dst\":\"";
            e += arena_name(dst);
            e += '"';
        }
        if (rows) {
            e += ",\"rows\":";
            append_u64(e, rows);
        }
        if (update >= 0) e += update ? ",\"update\":1" : ",\"update\":0";
        if (unit == 2) e += ",\"unit\":2";
        else if (unit == 3) e += ",\"unit\":3";
        e += '}';
        kept = int64_t(c.events.size());
        c.events.push_back(e);
    } else {
        c.events_dropped++;
    }
    CoreState::Trace*& slot = c.class_cache[CoreState::ClassKey{pipe, api, dtype}];
    if (!slot) slot = &c.by_class[std::string(pipe_name(pipe)) + "|" + api + "|" + dtype];
    slot->instrs++;
    slot->bytes += bytes;
    slot->repeats += repeats;
    if (c.trace_record) c.trace_record->push_back(CoreState::TraceRec{pipe, slot, bytes, repeats, kept});
}
// Take back the instructions `recs` listed (CoreState::trace_record): their counts, and their events, which the trace
// file then leaves out (TraceEvents::take_back).
inline void untrace(const std::vector<CoreState::TraceRec>& recs) {
    CoreState& c = core();
    for (const CoreState::TraceRec& r : recs) {
        c.trace[r.pipe].instrs--;
        c.trace[r.pipe].bytes -= r.bytes;
        c.trace[r.pipe].repeats -= r.repeats;
        if (!r.cls) continue;  // counted with the trace off: no class entry, no event
        r.cls->instrs--;
        r.cls->bytes -= r.bytes;
        r.cls->repeats -= r.repeats;
        if (r.event >= 0) c.events.take_back(size_t(r.event));
        else if (c.events_dropped) c.events_dropped--;
    }
}
inline void trace_event(const std::string& e) {
    CoreState& c = core();
    if (!c.trace_on || c.trace_quiet) return;
    if (!trace_keep(c)) { c.events_dropped++; return; }
    c.events.push_back(e);
}
// A JSON string literal of s (quotes, backslashes and control characters escaped), for trace events.
inline void append_json_str(std::string& e, const char* s) {
    e += '"';
    for (const char* q = s ? s : ""; *q; ++q) {
        const unsigned char ch = static_cast<unsigned char>(*q);
        if (ch == '"' || ch == '\\') { e += '\\'; e += char(ch); }
        else if (ch < 0x20) e += fmt("\\u%04x", unsigned(ch));
        else e += char(ch);
    }
    e += '"';
}
// The call site of a traced event: ,"file":"...","line":N (nothing when unknown).
inline std::string trace_loc(const SrcLoc& loc) {
    if (!loc.file) return std::string();
    std::string e = ",\"file\":";
    append_json_str(e, loc.file);
    e += ",\"line\":";
    append_u64(e, uint64_t(loc.line > 0 ? loc.line : 0));
    return e;
}
template <class T> inline const char* dtype_name() {
    if (std::is_same<T, half>::value) return "float16";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16";
    if (std::is_same<T, float>::value) return "float32";
    if (std::is_same<T, double>::value) return "float64";
    if (std::is_same<T, int8_t>::value) return "int8";
    if (std::is_same<T, uint8_t>::value) return "uint8";
    if (std::is_same<T, int16_t>::value) return "int16";
    if (std::is_same<T, uint16_t>::value) return "uint16";
    if (std::is_same<T, int32_t>::value) return "int32";
    if (std::is_same<T, uint32_t>::value) return "uint32";
    if (std::is_same<T, int64_t>::value) return "int64";
    if (std::is_same<T, uint64_t>::value) return "uint64";
    return "other";
}

}  // namespace sim
}  // namespace opkit
