// opkit simulator runtime: configuration, diagnostics, per-core state, GM allocation table,
// on-chip memory arenas with per-byte "written" shadow and per-32-B pipe-ordering records.
//
// Everything here is header-only (C++17 inline variables). Each emulated core is a thread;
// per-core state is thread_local, GM is shared.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "kernel_fp16.h"
#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

// ---------------------------------------------------------------------------------------------
// Configuration (the build passes these from opkit/data/socs.yaml; defaults: ascend910b2).
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __CCE_AICORE__
#if __NPU_ARCH__ == 2002
#define __CCE_AICORE__ 200
#else
#define __CCE_AICORE__ 220
#endif
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#ifndef OPKIT_SIM_SOC
#if __NPU_ARCH__ == 2002
#define OPKIT_SIM_SOC "ascend310p3"
#else
#define OPKIT_SIM_SOC "ascend910b2"
#endif
#endif
#if __NPU_ARCH__ == 2002
#define OPKIT_SIM_ARCH_NAME "NPU arch 2002: ascend310p"
#ifndef OPKIT_SIM_UB_SIZE
#define OPKIT_SIM_UB_SIZE 262144
#endif
#ifndef OPKIT_SIM_UB_CAP
#define OPKIT_SIM_UB_CAP 262144
#endif
#ifndef OPKIT_SIM_L1_SIZE
#define OPKIT_SIM_L1_SIZE 1048576
#endif
#ifndef OPKIT_SIM_L1_CAP
#define OPKIT_SIM_L1_CAP 1048576
#endif
#ifndef OPKIT_SIM_L0C_SIZE
#define OPKIT_SIM_L0C_SIZE 262144
#endif
#ifndef OPKIT_SIM_SYS_WORKSPACE
#define OPKIT_SIM_SYS_WORKSPACE 2097152
#endif
#else
#define OPKIT_SIM_ARCH_NAME "NPU arch 2201: ascend910b, ascend910_93"
#ifndef OPKIT_SIM_UB_SIZE
#define OPKIT_SIM_UB_SIZE 196608
#endif
#ifndef OPKIT_SIM_UB_CAP
#define OPKIT_SIM_UB_CAP 196352
#endif
#ifndef OPKIT_SIM_L1_SIZE
#define OPKIT_SIM_L1_SIZE 524288
#endif
#ifndef OPKIT_SIM_L1_CAP
#define OPKIT_SIM_L1_CAP 524032
#endif
#ifndef OPKIT_SIM_L0C_SIZE
#define OPKIT_SIM_L0C_SIZE 131072
#endif
#ifndef OPKIT_SIM_SYS_WORKSPACE
#define OPKIT_SIM_SYS_WORKSPACE 16777216
#endif
#endif
#ifndef OPKIT_SIM_UB_RESERVED
#define OPKIT_SIM_UB_RESERVED 8192
#endif
#ifndef OPKIT_SIM_L0A_SIZE
#define OPKIT_SIM_L0A_SIZE 65536
#endif
#ifndef OPKIT_SIM_L0B_SIZE
#define OPKIT_SIM_L0B_SIZE 65536
#endif
#ifndef OPKIT_SIM_BT_SIZE
#define OPKIT_SIM_BT_SIZE 1024
#endif
#ifndef OPKIT_SIM_GM_GUARD
#define OPKIT_SIM_GM_GUARD 512
#endif

namespace opkit {
namespace sim {

// ---------------------------------------------------------------------------------------------
// Source location of an API call (filled by default arguments at the call site).
struct SrcLoc {
    const char* file;
    int line;
    SrcLoc(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};
#define OPKIT_LOC ::opkit::sim::SrcLoc loc = ::opkit::sim::SrcLoc()

// ---------------------------------------------------------------------------------------------
// Pipes (instruction queues of one core) and memory arenas.
enum Pipe : int { P_S = 0, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX, NPIPE };
inline const char* pipe_name(int p) {
    static const char* n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    return (p >= 0 && p < NPIPE) ? n[p] : "?";
}
enum Arena : int { A_UB = 0, A_L1, A_L0A, A_L0B, A_L0C, A_BT, NARENA };
inline const char* arena_name(int a) {
    static const char* n[] = {"UB", "L1", "L0A", "L0B", "L0C", "BiasTable"};
    return n[a];
}
inline uint32_t arena_align(int a) {
    static const uint32_t n[] = {32, 32, 512, 512, 64, 64};
    return n[a];
}
inline uint64_t arena_phys(int a) {
    static const uint64_t n[] = {OPKIT_SIM_UB_SIZE, OPKIT_SIM_L1_SIZE, OPKIT_SIM_L0A_SIZE,
                                 OPKIT_SIM_L0B_SIZE, OPKIT_SIM_L0C_SIZE, OPKIT_SIM_BT_SIZE};
    return n[a];
}
// What the kernel may allocate (GetCoreMemSize on the chip).
inline uint64_t arena_cap(int a) {
    if (a == A_UB) return OPKIT_SIM_UB_CAP;
    if (a == A_L1) return OPKIT_SIM_L1_CAP;
    return arena_phys(a);
}

// ---------------------------------------------------------------------------------------------
// Diagnostics.
struct Global {
    std::mutex err_mu;
    std::atomic<bool> failed{false};
    std::mutex gm_mu;
    struct GmEntry { uint64_t size; uint64_t raw_size; void* raw; std::string name; void* map_base = nullptr; uint64_t map_len = 0; };
    std::map<uintptr_t, GmEntry> gm;  // user pointer -> entry
    std::mutex atomic_mu;
    std::mutex warn_mu;
    std::unordered_map<std::string, int> warned;
    uint64_t tiling_key = 0;
    bool tiling_key_set = false;
    int exit_code = 3;
    int kernel_type = -1;  // KernelMetaType chosen by the runner; -1: from SetKernelMode
    int kernel_mode = -1;  // SetKernelMode: 0 MIX, 1 AIC, 2 AIV; -1 not called
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
    std::string key = std::string(api) + "@" + (loc.file ? loc.file : "") + ":" + std::to_string(loc.line);
    std::lock_guard<std::mutex> lk(G().warn_mu);
    if (G().warned[key]++) return;  // once per call site
    std::fprintf(stderr, "opkit-sim: warning: %s: %s: %s\n", core_desc().c_str(), api, msg.c_str());
    if (loc.file) std::fprintf(stderr, "  at %s:%d\n", loc.file, loc.line);
    std::fflush(stderr);
}

// ---------------------------------------------------------------------------------------------
// GM allocation table (host allocations; every GM move is checked against it).
// The user area is zeroed unless `zero` is false (the caller then fills every byte itself).
// Large blocks come straight from mmap (already zero: no memset), 2-MiB aligned and offered
// transparent huge pages, so that reading the inputs in and writing the outputs take far fewer
// page faults. `raw_size` is the checked extent (user area and guard zones, rounded to 4 KiB).
inline void* gm_alloc(uint64_t size, const char* name = "", bool zero = true) {
    const uint64_t guard = OPKIT_SIM_GM_GUARD;
    uint64_t raw_size = (size + 2 * guard + 4095) & ~uint64_t(4095);
    void* raw = nullptr;
    void* map_base = nullptr;
    uint64_t map_len = 0;
#if defined(__linux__)
    const uint64_t huge = uint64_t(2) << 20;
    if (raw_size >= 4 * huge) {
        map_len = raw_size + huge;
        void* m = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            map_base = m;
            raw = reinterpret_cast<void*>((uintptr_t(m) + huge - 1) & ~uintptr_t(huge - 1));
#if defined(MADV_HUGEPAGE)
            madvise(raw, (raw_size + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
#endif
            zero = false;  // fresh anonymous pages are zero
        }
    }
#endif
    if (!raw) raw = std::aligned_alloc(4096, raw_size);
    if (!raw) { std::fprintf(stderr, "opkit-sim: error: GmAlloc(%llu): out of host memory\n", (unsigned long long)size); std::_Exit(G().exit_code); }
    uint8_t* user = static_cast<uint8_t*>(raw) + guard;
    std::memset(raw, 0xA5, guard);  // guard pattern before and after the user area
    std::memset(user + size, 0xA5, raw_size - guard - size);
    if (zero) std::memset(user, 0, size);
    std::lock_guard<std::mutex> lk(G().gm_mu);
    G().gm[uintptr_t(user)] = Global::GmEntry{size, raw_size, raw, name ? name : "", map_base, map_len};
    return user;
}
// A GM allocation holding the `size` bytes of file `path`, mapped copy-on-write (Linux, large
// files): the input's pages are the page cache's, with no zero-fill and no copy; a kernel that
// writes into its input gets private copies of those pages. Guard zones as gm_alloc's. Returns
// nullptr when the file cannot be mapped (the caller then reads it into gm_alloc memory).
inline void* gm_map_file(const char* path, uint64_t size, const char* name = "", bool populate = true) {
#if defined(__linux__)
    const uint64_t guard = OPKIT_SIM_GM_GUARD, page = 4096;
    if (size < (uint64_t(1) << 20) || guard > page) return nullptr;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return nullptr;
    const uint64_t body = (size + page - 1) & ~(page - 1);
    const uint64_t map_len = page + body + 2 * page;
    void* m = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { close(fd); return nullptr; }
    uint8_t* user = static_cast<uint8_t*>(m) + page;
    // Populated read-only (a writable private mapping would be copied page by page), then made
    // writable; without `populate` pages are mapped when first touched.
    void* f = mmap(user, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | (populate ? MAP_POPULATE : 0), fd, 0);
    close(fd);
    if (f == MAP_FAILED || mprotect(user, body, PROT_READ | PROT_WRITE) != 0) { munmap(m, map_len); return nullptr; }
    uint8_t* raw = user - guard;
    const uint64_t raw_size = (size + 2 * guard + page - 1) & ~(page - 1);  // within the mapping: < page + body + 2 pages
    std::memset(raw, 0xA5, guard);
    std::memset(user + size, 0xA5, raw_size - guard - size);
    std::lock_guard<std::mutex> lk(G().gm_mu);
    G().gm[uintptr_t(user)] = Global::GmEntry{size, raw_size, raw, name ? name : "", m, map_len};
    return user;
#else
    (void)path; (void)size; (void)name;
    return nullptr;
#endif
}
// Guard zones: OPKIT_SIM_GM_GUARD bytes of 0xA5 before and after every GmAlloc block catch
// writes through raw pointers that no API saw. Returns a description of the first damage.
inline std::string gm_guard_damage(uintptr_t user, const Global::GmEntry& e) {
    if (!e.raw) return "";
    const uint8_t* raw = static_cast<const uint8_t*>(e.raw);
    const uint8_t* u = reinterpret_cast<const uint8_t*>(user);
    for (uint64_t i = 0; i < OPKIT_SIM_GM_GUARD; ++i) {
        if (raw[i] != 0xA5) return fmt("byte %lld before", (long long)(OPKIT_SIM_GM_GUARD - i));
    }
    const uint8_t* tail = u + e.size;
    const uint8_t* end = raw + e.raw_size;
    for (const uint8_t* q = tail; q < end; ++q)
        if (*q != 0xA5) return fmt("byte %lld after the end", (long long)(q - tail));
    return "";
}
inline void gm_check_guards(const char* when) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    for (auto& kv : G().gm) {
        std::string d = gm_guard_damage(kv.first, kv.second);
        if (!d.empty()) {
            std::fprintf(stderr,
                         "opkit-sim: error: %s: the guard zone of GM allocation %p (%llu bytes%s%s) was overwritten at %s it: "
                         "an out-of-bounds write through a raw GM pointer\n",
                         when, (void*)kv.first, (unsigned long long)kv.second.size, kv.second.name.empty() ? "" : ", ",
                         kv.second.name.c_str(), d.c_str());
            std::fflush(stderr);
            std::_Exit(G().exit_code);
        }
    }
}
inline void gm_free(void* p) {
    if (!p) return;
    std::lock_guard<std::mutex> lk(G().gm_mu);
    auto it = G().gm.find(uintptr_t(p));
    if (it == G().gm.end()) {
        std::fprintf(stderr, "opkit-sim: error: GmFree(%p): not a pointer returned by GmAlloc\n", p);
        std::_Exit(G().exit_code);
    }
    std::string d = gm_guard_damage(it->first, it->second);
    if (!d.empty()) {
        std::fprintf(stderr, "opkit-sim: error: GmFree: the guard zone of GM allocation %p (%llu bytes) was overwritten at %s it: "
                             "an out-of-bounds write through a raw GM pointer\n", p, (unsigned long long)it->second.size, d.c_str());
        std::_Exit(G().exit_code);
    }
#if defined(__linux__)
    if (it->second.map_base) munmap(it->second.map_base, it->second.map_len);
    else
#endif
        std::free(it->second.raw);
    G().gm.erase(it);
}
// Register memory the caller owns (e.g. a runner's buffers) as a GM allocation.
inline void gm_register(void* p, uint64_t size, const char* name = "") {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    G().gm[uintptr_t(p)] = Global::GmEntry{size, 0, nullptr, name ? name : ""};
}
inline void gm_unregister(void* p) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    G().gm.erase(uintptr_t(p));
}
// Returns the allocation containing [p, p+bytes) or fails with a precise diagnostic.
inline void gm_check(const void* p, uint64_t bytes, const char* api, const SrcLoc& loc, const char* what = "access") {
    if (bytes == 0) return;
    uintptr_t a = uintptr_t(p);
    std::string near;
    {
        std::lock_guard<std::mutex> lk(G().gm_mu);
        auto& m = G().gm;
        auto it = m.upper_bound(a);
        if (it != m.begin()) {
            auto prev = std::prev(it);
            uintptr_t base = prev->first;
            uint64_t size = prev->second.size;
            if (a >= base && a + bytes <= base + size) return;
            if (a < base + size + OPKIT_SIM_GM_GUARD * 64)
                near = fmt("; nearest allocation%s%s%s is %llu bytes at %p, the access starts at byte offset %lld and ends at %lld",
                           prev->second.name.empty() ? "" : " '", prev->second.name.c_str(), prev->second.name.empty() ? "" : "'",
                           (unsigned long long)size, (void*)base, (long long)(a - base), (long long)(a - base + bytes));
        }
        if (near.empty() && it != m.end() && it->first - a < OPKIT_SIM_GM_GUARD * 64)
            near = fmt("; the access ends %lld bytes before the allocation at %p (%llu bytes)",
                       (long long)(it->first - (a + bytes)), (void*)it->first, (unsigned long long)it->second.size);
    }
    fail_at(api, loc, "GM %s of %llu bytes at %p is outside every host allocation%s", what,
            (unsigned long long)bytes, p, near.c_str());
}
inline uint64_t gm_alloc_size(const void* p, uint64_t* offset = nullptr) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    auto& m = G().gm;
    auto it = m.upper_bound(uintptr_t(p));
    if (it == m.begin()) return 0;
    --it;
    if (uintptr_t(p) >= it->first + it->second.size) return 0;
    if (offset) *offset = uintptr_t(p) - it->first;
    return it->second.size;
}

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
    std::vector<std::string> events;
    uint64_t events_dropped = 0;
    bool trace_on = false;
    uint64_t ub_reserved_needed = 0;

    ArenaMem& mem(int a) {
        arena[a].ensure(arena_phys(a));
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
inline std::string core_desc() {
    CoreState* c = cur_core_ptr();
    if (!c) return "host";
    const char* t = c->core_type == CT_AIC ? "AIC" : (c->core_type == CT_AIV ? "AIV" : "core");
    return fmt("kernel '%s' %s block %lld/%lld", c->kernel.c_str(), t, (long long)c->block_idx, (long long)c->block_num);
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

// Record and check an access of [off, off+bytes) in arena `a` by `pipe` (instruction `seq`).
// Semantics per 32-B block: the access conflicts with the last write (and, for a write, the last
// read) of every other pipe that `pipe` has not seen yet; the first conflicting block is reported.
inline void touch(int a, uint64_t off, uint64_t bytes, int pipe, bool write, uint32_t seq, uint16_t site,
                  const char* api, const SrcLoc& loc) {
    if (bytes == 0) return;
    CoreState& c = core();
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
    m.record(write, pipe, b0, nb, seq, site);
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

// Trace record (per core, per pipe, and per instruction class and dtype).
inline void trace(int pipe, uint64_t bytes, uint64_t repeats, const char* api = "", const char* dtype = "") {
    CoreState& c = core();
    c.trace[pipe].instrs++;
    c.trace[pipe].bytes += bytes;
    c.trace[pipe].repeats += repeats;
    if (!c.trace_on) return;
    if (c.events.size() < 100000) {
        std::string e;
        e.reserve(96);
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
        e += '}';
        c.events.push_back(std::move(e));
    } else {
        c.events_dropped++;
    }
    CoreState::Trace*& slot = c.class_cache[CoreState::ClassKey{pipe, api, dtype}];
    if (!slot) slot = &c.by_class[std::string(pipe_name(pipe)) + "|" + api + "|" + dtype];
    slot->instrs++;
    slot->bytes += bytes;
    slot->repeats += repeats;
}
constexpr size_t kMaxTraceEvents = 100000;
inline void trace_event(const std::string& e) {
    CoreState& c = core();
    if (!c.trace_on) return;
    if (c.events.size() >= kMaxTraceEvents) { c.events_dropped++; return; }
    c.events.push_back(e);
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
