// opkit simulator: the GM allocation table (host allocations, guard zones; every GM move is checked against it).
#pragma once
#include "impl/opkit/sim_diag.h"
#include "impl/opkit/sim_poison.h"

namespace opkit {
namespace sim {

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
    G().gm[uintptr_t(user)] = Global::GmEntry{size, raw_size, raw, name ? name : "", map_base, map_len, cur_rank()};
    G().gm[uintptr_t(user)].serial = ++G().gm_serial;
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
    G().gm[uintptr_t(user)] = Global::GmEntry{size, raw_size, raw, name ? name : "", m, map_len, cur_rank()};
    G().gm[uintptr_t(user)].serial = ++G().gm_serial;
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
    gm_unpoison_locked(it->second);
    G().gm.erase(it);
}
// Register memory the caller owns (e.g. a runner's buffers) as a GM allocation.
inline void gm_register(void* p, uint64_t size, const char* name = "") {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    G().gm[uintptr_t(p)] = Global::GmEntry{size, 0, nullptr, name ? name : "", nullptr, 0, cur_rank()};
    G().gm[uintptr_t(p)].serial = ++G().gm_serial;
}
inline void gm_unregister(void* p) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    auto it = G().gm.find(uintptr_t(p));
    if (it == G().gm.end()) return;
    gm_unpoison_locked(it->second);
    G().gm.erase(it);
}
// Returns the allocation containing [p, p+bytes) or fails with a precise diagnostic.
inline void gm_check(const void* p, uint64_t bytes, const char* api, const SrcLoc& loc, const char* what = "access") {
    if (bytes == 0) return;
    uintptr_t a = uintptr_t(p);
    std::string near, shadow;
    {
        std::lock_guard<std::mutex> lk(G().gm_mu);
        auto& m = G().gm;
        auto it = m.upper_bound(a);
        if (it != m.begin()) {
            auto prev = std::prev(it);
            uintptr_t base = prev->first;
            uint64_t size = prev->second.size;
            if (a >= base && a + bytes <= base + size) {
                if (!prev->second.wr) return;
                shadow = gm_shadow_access(prev->second, base, a, bytes, what, api, loc);
                if (shadow.empty()) return;
            }
            if (a < base + size + OPKIT_SIM_GM_GUARD * 64)
                near = fmt("; nearest allocation%s%s%s is %llu bytes at %p, the access starts at byte offset %lld and ends at %lld",
                           prev->second.name.empty() ? "" : " '", prev->second.name.c_str(), prev->second.name.empty() ? "" : "'",
                           (unsigned long long)size, (void*)base, (long long)(a - base), (long long)(a - base + bytes));
        }
        if (near.empty() && it != m.end() && it->first - a < OPKIT_SIM_GM_GUARD * 64)
            near = fmt("; the access ends %lld bytes before the allocation at %p (%llu bytes)",
                       (long long)(it->first - (a + bytes)), (void*)it->first, (unsigned long long)it->second.size);
    }
    if (!shadow.empty()) fail_at(api, loc, "%s", shadow.c_str());
    fail_at(api, loc, "GM %s of %llu bytes at %p is outside every host allocation%s", what,
            (unsigned long long)bytes, p, near.c_str());
}
// The rank whose device owns the allocation holding p (-1: a single-device run's, or none).
inline int gm_owner(const void* p) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    auto& m = G().gm;
    auto it = m.upper_bound(uintptr_t(p));
    if (it == m.begin()) return -1;
    --it;
    return uintptr_t(p) < it->first + it->second.size ? it->second.device : -1;
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

}  // namespace sim
}  // namespace opkit
