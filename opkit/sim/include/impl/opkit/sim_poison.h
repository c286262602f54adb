// opkit simulator: poisoned outputs (msSanitizer initcheck / CPU-debug uninitialised access on GM).
// An output allocation can be poisoned before the launch: its bytes are set to a pattern (a quiet NaN for
// floating-point elements, a byte pattern otherwise) and a per-byte written-shadow is kept. Every GM write
// the simulator performs (DataCopy, DataCopyPad, Fixpipe, SetValue, InitGlobalMemory, HCCL) marks its
// bytes; a GM read of bytes that nothing wrote, and that still hold the pattern, is an uninitialised read;
// after the launch the bytes nobody wrote are reported with their ranges (gm_unwritten_ranges).
// A byte counts as unwritten only while the shadow says so AND it still holds the pattern, so writes
// through raw pointers (GlobalTensor::operator(), __gm__ stores) that no API saw count as writes too.
#pragma once
#include "impl/opkit/sim_diag.h"

namespace opkit {
namespace sim {

// The default byte pattern of poisoned integer outputs (and the payload of the floating-point NaNs).
constexpr uint8_t kPoisonByte = 0xA5;

// The element pattern of a poisoned output: `esz` bytes, little-endian. Floats (`is_float`) get a quiet NaN
// carrying `byte` in its low mantissa bits unless `float_bytes`; everything else repeats `byte`.
inline void poison_pattern(int esz, bool is_float, uint8_t byte, bool float_bytes, uint8_t out[8]) {
    uint64_t v = 0x0101010101010101ull * byte;
    if (is_float && !float_bytes) {
        if (esz == 2) v = 0x7E00u | byte;                                   // fp16 quiet NaN (bf16: see below)
        else if (esz == 4) v = 0x7FC00000u | (uint32_t(byte) << 8) | byte;  // fp32 quiet NaN
        else if (esz == 8) v = 0x7FF8000000000000ull | (0x0101010101ull * byte);
    }
    std::memcpy(out, &v, 8);
}
// bf16's quiet NaN (exponent 0xFF, top mantissa bit set): 0x7FC0 and the pattern's low 6 bits.
inline void poison_pattern_bf16(uint8_t byte, bool float_bytes, uint8_t out[8]) {
    uint64_t v = float_bytes ? 0x0101010101010101ull * byte : (0x7FC0u | (byte & 0x3Fu));
    std::memcpy(out, &v, 8);
}

inline Global::GmEntry* gm_entry_locked(const void* p) {
    auto& m = G().gm;
    auto it = m.find(uintptr_t(p));
    return it == m.end() ? nullptr : &it->second;
}

// Poisons the GM allocation at `p` (returned by gm_alloc): every element of `esz` bytes holds `pat`,
// except the elements `keep` marks (one byte per element, non-zero: left as they are and not checked).
inline void gm_poison(void* p, int esz, const uint8_t pat[8], const uint8_t* keep = nullptr) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    Global::GmEntry* e = gm_entry_locked(p);
    if (!e || e->size == 0 || esz <= 0 || esz > 8) return;
    if (!e->wr) {
        e->wr = static_cast<uint8_t*>(std::calloc(e->size, 1));
        if (!e->wr) { std::fprintf(stderr, "opkit-sim: error: out of host memory for the written-shadow of '%s'\n", e->name.c_str()); std::_Exit(G().exit_code); }
    }
    e->esz = uint8_t(esz);
    std::memcpy(e->pat, pat, 8);
    if (trace_only()) return;  // no data bytes: nothing to poison, nothing checked
    uint8_t* u = static_cast<uint8_t*>(p);
    const uint64_t n = e->size / uint64_t(esz);
    for (uint64_t i = 0; i < n; ++i) {
        if (keep && keep[i]) { std::memset(e->wr + i * esz, 1, esz); continue; }
        std::memcpy(u + i * esz, pat, size_t(esz));
    }
    for (uint64_t off = n * esz; off < e->size; ++off) u[off] = pat[off % esz];
}

inline void gm_unpoison_locked(Global::GmEntry& e) {
    std::free(e.wr);
    e.wr = nullptr;
}

// The first unwritten byte of [off, off + bytes) of a poisoned entry (the shadow says unwritten and the
// byte still holds the pattern), or `bytes` when there is none.
inline uint64_t gm_first_unwritten(const Global::GmEntry& e, uintptr_t base, uint64_t off, uint64_t bytes) {
    const uint8_t* w = e.wr + off;
    const uint8_t* u = reinterpret_cast<const uint8_t*>(base) + off;
    const void* z = std::memchr(w, 0, bytes);
    if (!z) return bytes;
    for (uint64_t i = uint64_t(static_cast<const uint8_t*>(z) - w); i < bytes; ++i)
        if (!w[i] && u[i] == e.pat[(off + i) % e.esz]) return i;
    return bytes;
}

// Called by gm_check for an access inside entry `e` (at user address `base`), under gm_mu: a write marks
// its bytes; a read of unwritten bytes returns the diagnostic (the caller fails with it, outside the lock).
inline std::string gm_shadow_access(Global::GmEntry& e, uintptr_t base, uintptr_t a, uint64_t bytes, const char* what) {
    if (trace_only()) return "";
    const uint64_t off = a - base;
    if (what[0] == 'w') {
        std::memset(e.wr + off, 1, bytes);
        return "";
    }
    if (what[0] != 'r') return "";
    const uint64_t k = gm_first_unwritten(e, base, off, bytes);
    if (k == bytes) return "";
    uint64_t end = off + k;
    while (end < off + bytes && !e.wr[end] && reinterpret_cast<const uint8_t*>(base)[end] == e.pat[end % e.esz]) ++end;
    return fmt("uninitialised read: GM read of %llu bytes at byte offset %llu of '%s' reaches bytes [%llu, %llu) that nothing "
               "has written (the simulator fills outputs with a poison pattern before the launch; on the NPU they hold "
               "whatever the memory held): write them before reading them, or declare the output InitValue in the OpDef",
               (unsigned long long)bytes, (unsigned long long)off, e.name.c_str(), (unsigned long long)(off + k),
               (unsigned long long)end);
}

// Marks [p, p + bytes) written (an HCCL transfer, a host-side write); no effect outside poisoned entries.
inline void gm_note_write(const void* p, uint64_t bytes) {
    if (bytes == 0) return;
    std::lock_guard<std::mutex> lk(G().gm_mu);
    auto& m = G().gm;
    auto it = m.upper_bound(uintptr_t(p));
    if (it == m.begin()) return;
    --it;
    Global::GmEntry& e = it->second;
    const uintptr_t a = uintptr_t(p);
    if (!e.wr || a >= it->first + e.size) return;
    std::memset(e.wr + (a - it->first), 1, std::min<uint64_t>(bytes, it->first + e.size - a));
}

// After the launch: the byte ranges of the poisoned allocation at `p` that nothing wrote, as [begin, end)
// pairs (at most `max_ranges`; `total` receives the count of such bytes). Empty if `p` is not poisoned.
inline std::vector<std::pair<uint64_t, uint64_t>> gm_unwritten_ranges(const void* p, uint64_t* total, size_t max_ranges = 8) {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    *total = 0;
    std::lock_guard<std::mutex> lk(G().gm_mu);
    Global::GmEntry* e = gm_entry_locked(p);
    if (!e || !e->wr || trace_only()) return out;
    const uint8_t* u = static_cast<const uint8_t*>(p);
    uint64_t i = 0;
    while (i < e->size) {
        const void* z = std::memchr(e->wr + i, 0, e->size - i);
        if (!z) break;
        i = uint64_t(static_cast<const uint8_t*>(z) - e->wr);
        if (u[i] != e->pat[i % e->esz]) { ++i; continue; }
        uint64_t j = i;
        while (j < e->size && !e->wr[j] && u[j] == e->pat[j % e->esz]) ++j;
        *total += j - i;
        if (out.size() < max_ranges) out.emplace_back(i, j);
        i = j;
    }
    return out;
}

}  // namespace sim
}  // namespace opkit
