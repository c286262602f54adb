// opkit simulator: poisoned outputs (msSanitizer initcheck / CPU-debug uninitialised access on GM).
// An output allocation can be poisoned before the launch: its bytes are set to a pattern (a quiet NaN for
// floating-point elements, a byte pattern otherwise) and a written-shadow is kept (a tag per 32-byte block, per element where a block is written in part). Every GM write
// the simulator performs (DataCopy, DataCopyPad, Fixpipe, SetValue, InitGlobalMemory, HCCL) marks its
// bytes with its writer's tag; a GM read of bytes that nothing wrote, and that still hold the pattern, is an
// uninitialised read; two cores writing the same bytes in one SyncAll phase without atomics are reported;
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

// Writer tags: every written byte of a poisoned output holds the tag of its last writer (a core, a call site,
// the core's SyncAll phase, whether the store was atomic), so that two cores writing the same bytes in one
// phase without atomics are reported (CPU-debug's cross-core overlap check; msSanitizer racecheck on GM).
constexpr uint16_t kTagOther = 0xFFFF;    // written, writer unknown (host, HCCL, or the tag table full)
constexpr uint16_t kTagPartial = 0xFFFE;  // a shadow block written in part: its element tags decide (below)
struct Writer { uint64_t launch; int64_t tid; int ctype; uint32_t epoch; bool atomic; const char* api; const char* file; int line;
                std::string core; };
inline std::vector<Writer>& writers() { static std::vector<Writer> w{Writer{}}; return w; }  // [0]: unwritten
inline std::map<std::tuple<uint64_t, int64_t, uint32_t, bool, const char*, const char*, int>, uint16_t>& writer_idx() {
    static std::map<std::tuple<uint64_t, int64_t, uint32_t, bool, const char*, const char*, int>, uint16_t> m;
    return m;
}
// The running core's identity (sim_shadow.h): thread id, core type, SyncAll phase, atomic mode, description.
inline bool current_writer(int64_t* tid, int* ctype, uint32_t* epoch, bool* atomic);
inline uint64_t current_launch_serial();  // the running core's launch (concurrent launches of the ranks differ)
// The tag of a write by the running core at `api`/`loc` (under gm_mu).
inline uint16_t writer_tag_locked(const char* api, const SrcLoc& loc) {
    int64_t tid = 0;
    int ctype = 0;
    uint32_t epoch = 0;
    bool atomic = false;
    if (!current_writer(&tid, &ctype, &epoch, &atomic)) return kTagOther;
    if (!atomic && !check_on(kCheckOverlap)) return kTagOther;  // no writer identities: no overlap to find
    const uint64_t launch = current_launch_serial();
    auto key = std::make_tuple(launch, tid, epoch, atomic, api, loc.file, loc.line);
    auto& idx = writer_idx();
    auto it = idx.find(key);
    if (it != idx.end()) return it->second;
    auto& w = writers();
    if (w.size() >= kTagPartial) return kTagOther;
    const uint16_t tag = uint16_t(w.size());
    w.push_back(Writer{launch, tid, ctype, epoch, atomic, api, loc.file, loc.line, core_desc()});
    idx[key] = tag;
    return tag;
}
// Two tags whose writes race: one launch, one SyncAll phase, two cores of one type, no atomic store.
inline bool writers_race(uint16_t a, uint16_t b) {
    if (a == b || a == 0 || b == 0 || a == kTagOther || b == kTagOther) return false;
    const Writer& x = writers()[a];
    const Writer& y = writers()[b];
    return x.launch == y.launch && x.tid != y.tid && x.ctype == y.ctype && x.epoch == y.epoch && !x.atomic && !y.atomic;
}

inline Global::GmEntry* gm_entry_locked(const void* p) {
    auto& m = G().gm;
    auto it = m.find(uintptr_t(p));
    return it == m.end() ? nullptr : &it->second;
}

// The written-shadow holds one tag per 32-byte block (what DataCopy and friends write: whole blocks), and a tag
// per element only for the blocks written in part (kTagPartial: the element tags in `wr_el` hold the truth).
constexpr uint64_t kShadowBlock = 32;
inline uint64_t shadow_elems(const Global::GmEntry& e) { return (e.size + e.esz - 1) / e.esz; }
// The tag of the element holding byte `at`.
inline uint16_t byte_tag(const Global::GmEntry& e, uint64_t at) {
    const uint16_t t = e.wr[at / kShadowBlock];
    return t == kTagPartial ? e.wr_el[at / e.esz] : t;
}
// Block b's element tags start from its block tag (the first part-write of the block).
inline void shadow_split(Global::GmEntry& e, uint64_t b) {
    if (e.wr[b] == kTagPartial) return;
    if (!e.wr_el) {
        e.wr_el = static_cast<uint16_t*>(std::calloc(shadow_elems(e), sizeof(uint16_t)));  // lazily touched pages
        if (!e.wr_el) { std::fprintf(stderr, "opkit-sim: error: out of host memory for the written-shadow of '%s'\n", e.name.c_str()); std::_Exit(G().exit_code); }
    }
    const uint64_t epb = kShadowBlock / e.esz, k0 = b * epb, k1 = std::min(k0 + epb, shadow_elems(e));
    std::fill(e.wr_el + k0, e.wr_el + k1, e.wr[b]);
    e.wr[b] = kTagPartial;
}
// Elements [k0, k1) were last written by `tag`.
inline void shadow_set(Global::GmEntry& e, uint64_t k0, uint64_t k1, uint16_t tag) {
    if (k0 >= k1) return;
    const uint64_t epb = kShadowBlock / e.esz, n = shadow_elems(e);
    uint64_t b0 = k0 / epb, b1 = (k1 + epb - 1) / epb;
    if (k0 % epb) {  // a head block written in part
        shadow_split(e, b0);
        std::fill(e.wr_el + k0, e.wr_el + std::min(k1, (b0 + 1) * epb), tag);
        ++b0;
    }
    if (b1 > b0 && k1 < std::min(b1 * epb, n)) {  // a tail block written in part
        shadow_split(e, b1 - 1);
        std::fill(e.wr_el + std::max(k0, (b1 - 1) * epb), e.wr_el + k1, tag);
        --b1;
    }
    if (b1 > b0) std::fill(e.wr + b0, e.wr + b1, tag);
}

// Poisons the GM allocation at `p` (returned by gm_alloc): every element of `esz` bytes holds `pat`,
// except the elements `keep` marks (one byte per element, non-zero: left as they are and not checked).
inline void gm_poison(void* p, int esz, const uint8_t pat[8], const uint8_t* keep = nullptr) {
    std::lock_guard<std::mutex> lk(G().gm_mu);
    Global::GmEntry* e = gm_entry_locked(p);
    if (!e || e->size == 0 || esz <= 0 || esz > 8) return;
    e->esz = uint8_t(esz);
    if (!e->wr) {
        e->wr = static_cast<uint16_t*>(std::calloc((e->size + kShadowBlock - 1) / kShadowBlock, sizeof(uint16_t)));
        if (!e->wr) { std::fprintf(stderr, "opkit-sim: error: out of host memory for the written-shadow of '%s'\n", e->name.c_str()); std::_Exit(G().exit_code); }
    }
    std::memcpy(e->pat, pat, 8);
    if (trace_only()) return;  // no data bytes: nothing to poison, nothing checked
    uint8_t* u = static_cast<uint8_t*>(p);
    const uint64_t n = e->size / uint64_t(esz);
    // the pattern, then the filled prefix copied onto what follows (doubling: a few large copies)
    for (uint64_t off = 0; off < std::min<uint64_t>(e->size, 8 * uint64_t(esz)); ++off) u[off] = pat[off % esz];
    for (uint64_t have = 8 * uint64_t(esz); have < e->size; have *= 2)
        std::memcpy(u + have, u, size_t(std::min(have, e->size - have)));
    if (keep)
        for (uint64_t i = 0; i < n;) {
            if (!keep[i]) { ++i; continue; }
            uint64_t j = i;
            while (j < n && keep[j]) ++j;
            std::memset(u + i * esz, 0, size_t((j - i) * esz));  // left as it was: its initial value
            shadow_set(*e, i, j, kTagOther);
            i = j;
        }
}

inline void gm_unpoison_locked(Global::GmEntry& e) {
    std::free(e.wr);
    std::free(e.wr_el);
    e.wr = nullptr;
    e.wr_el = nullptr;
}

// Byte `at` of a poisoned entry is unwritten: the shadow says so and it still holds the pattern.
inline bool byte_unwritten(const Global::GmEntry& e, const uint8_t* u, uint64_t at) {
    return u[at] == e.pat[at % e.esz] && !byte_tag(e, at);
}
// The first unwritten byte of [off, off + bytes) of a poisoned entry, or `bytes` when there is none.
inline uint64_t gm_first_unwritten(const Global::GmEntry& e, uintptr_t base, uint64_t off, uint64_t bytes) {
    const uint8_t* u = reinterpret_cast<const uint8_t*>(base);
    for (uint64_t at = off; at < off + bytes;) {
        const uint16_t t = e.wr[at / kShadowBlock];
        if (t && t != kTagPartial) {  // a written block
            at = (at / kShadowBlock + 1) * kShadowBlock;
            continue;
        }
        if (byte_unwritten(e, u, at)) return at - off;
        ++at;
    }
    return bytes;
}

// Called by gm_check for an access inside entry `e` (at user address `base`), under gm_mu: a write marks
// its bytes with the writer's tag (and reports a cross-core overlap or an atomic store into unwritten bytes),
// a read of unwritten bytes is reported. Returns the diagnostic, or "".
inline std::string gm_shadow_access(Global::GmEntry& e, uintptr_t base, uintptr_t a, uint64_t bytes, const char* what,
                                    const char* api, const SrcLoc& loc) {
    if (trace_only()) return "";
    const uint64_t off = a - base;
    if (what[0] == 'w') {
        const uint16_t tag = writer_tag_locked(api, loc);
        const uint64_t k0 = off / e.esz, k1 = (off + bytes + e.esz - 1) / e.esz;  // the elements written
        const bool atomic = tag != kTagOther && writers()[tag].atomic;
        const uint8_t* u = reinterpret_cast<const uint8_t*>(base);
        if (!atomic) {  // the common case: every block unwritten or last written by this same writer (vectorised scan)
            const uint16_t* w = e.wr + off / kShadowBlock;
            const uint64_t nb = (off + bytes + kShadowBlock - 1) / kShadowBlock - off / kShadowBlock;
            uint16_t other = 0;
            for (uint64_t i = 0; i < nb; ++i) other |= uint16_t(w[i] != 0 && w[i] != tag);
            if (!other) {
                shadow_set(e, k0, k1, tag);
                return "";
            }
        }
        for (uint64_t at = off; at < off + bytes; ++at) {
            const uint16_t old = byte_tag(e, at);
            if (atomic && old == 0 && u[at] == e.pat[at % e.esz])
                return fmt("uninitialised read: an atomic store adds into bytes [%llu, %llu) of '%s' that nothing has "
                           "written (the simulator fills outputs with a poison pattern before the launch; on the NPU "
                           "they hold whatever the memory held): declare the output InitValue(0) in the OpDef, as "
                           "CANN's accumulating kernels do, or clear it (InitGlobalMemory) before a SyncAll",
                           (unsigned long long)at, (unsigned long long)(off + bytes), e.name.c_str());
            if (old != tag && old != 0 && writers_race(old, tag)) {
                uint64_t j = at;
                while (j < off + bytes && byte_tag(e, j) == old) ++j;
                const Writer& x = writers()[old];
                return fmt("cross-core write overlap: writes bytes [%llu, %llu) of '%s' that %s wrote (%s at %s:%d) in the "
                           "same SyncAll phase, neither store atomic: the result depends on which core writes last (a "
                           "block offset off by one, an offset that overflows?); give each core its own range, or "
                           "accumulate with SetAtomicAdd",
                           (unsigned long long)at, (unsigned long long)j, e.name.c_str(), x.core.c_str(),
                           x.api ? x.api : "?", x.file ? x.file : "?", x.line);
            }
        }
        shadow_set(e, k0, k1, tag);
        return "";
    }
    if (what[0] != 'r') return "";
    const uint64_t k = gm_first_unwritten(e, base, off, bytes);
    if (k == bytes) return "";
    const uint8_t* u = reinterpret_cast<const uint8_t*>(base);
    uint64_t end = off + k;
    while (end < off + bytes && byte_unwritten(e, u, end)) ++end;
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
    const uint64_t o = a - it->first, end = std::min<uint64_t>(o + bytes, e.size);
    shadow_set(e, o / e.esz, (end + e.esz - 1) / e.esz, kTagOther);
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
    const uint64_t nb = (e->size + kShadowBlock - 1) / kShadowBlock;
    uint64_t i = 0;
    while (i < e->size) {
        uint64_t b = i / kShadowBlock;
        if (e->wr[b] && e->wr[b] != kTagPartial) {  // skip written blocks (vectorised: 64 at a time)
            while (b + 64 <= nb) {
                uint16_t open = 0;
                for (uint64_t q = b; q < b + 64; ++q) open |= uint16_t(e->wr[q] == 0 || e->wr[q] == kTagPartial);
                if (open) break;
                b += 64;
            }
            while (b < nb && e->wr[b] && e->wr[b] != kTagPartial) ++b;
            i = b * kShadowBlock;
            continue;
        }
        if (!byte_unwritten(*e, u, i)) { ++i; continue; }
        uint64_t j = i;
        while (j < e->size && byte_unwritten(*e, u, j)) ++j;
        *total += j - i;
        if (out.size() < max_ranges) out.emplace_back(i, j);
        i = j;
    }
    return out;
}

}  // namespace sim
}  // namespace opkit
