// opkit simulator: the vector engine: operands, count form and mask/repeat/stride form, normal and counter mask modes.
//
// Every instruction reads its operands, computes in float (floating types) or int64 (integers)
// and rounds/wraps to the destination type once, as the vector unit writes its destination.
#pragma once
#include "impl/opkit/copy_engine.h"
#include "basic_api/kernel_struct_binary.h"
#include "basic_api/kernel_struct_unary.h"
#include "basic_api/kernel_common.h"

namespace opkit {
namespace sim {

template <class T, class... Ts> struct one_of : std::false_type {};
template <class T, class U, class... Ts> struct one_of<T, U, Ts...>
    : std::integral_constant<bool, std::is_same<T, U>::value || one_of<T, Ts...>::value> {};

// Refuses at compile time an API/dtype pair the chip does not have. g++ names the dtype in the
// "required from here / [with T = ...]" context of the message.
#define OPKIT_DTYPES(API, T, ...)                                                                  \
    static_assert(::opkit::sim::one_of<T, __VA_ARGS__>::value,                                     \
                  "Ascend C " API ": this dtype (see 'with T = ...' above) is not supported on " OPKIT_SIM_SOC " (" OPKIT_SIM_ARCH_NAME ")" \
                  "; supported: " #__VA_ARGS__ " (Cast to a supported type first)")

#if __NPU_ARCH__ == 2002
#define OPKIT_B16_ONLY_BF16
#define OPKIT_BF16_COMMA
#else
#define OPKIT_BF16_COMMA bfloat16_t,
#endif

template <class T> struct ctype { using type = float; };
template <> struct ctype<int8_t> { using type = int64_t; };
template <> struct ctype<uint8_t> { using type = int64_t; };
template <> struct ctype<int16_t> { using type = int64_t; };
template <> struct ctype<uint16_t> { using type = int64_t; };
template <> struct ctype<int32_t> { using type = int64_t; };
template <> struct ctype<uint32_t> { using type = int64_t; };
template <> struct ctype<int64_t> { using type = int64_t; };
template <> struct ctype<uint64_t> { using type = int64_t; };
template <class T> using C = typename ctype<T>::type;

template <class T> inline C<T> up(T v) { return C<T>(v); }
template <class T> inline T down(C<T> v) { return static_cast<T>(v); }

template <class T> inline T ld(const uint8_t* p) { T v; std::memcpy(&v, p, sizeof(T)); return v; }
template <class T> inline void st(uint8_t* p, T v) { std::memcpy(p, &v, sizeof(T)); }

// One operand of a vector instruction.
struct Opd {
    uint8_t* p = nullptr;   // absolute start
    uint64_t ub = 0;        // byte offset in arena
    uint32_t len = 0;       // bytes available
    int arena = 0;
    uint32_t esz = 0;       // element size
    uint32_t blk = 1;       // block stride (32-B blocks)
    uint32_t rep = 8;       // repeat stride (32-B blocks)
    bool write = false;
    bool read_init = true;  // source lanes count as reads for the written-state
    const char* role = "";
    const char* dt = "";
};

template <class T>
inline Opd opd(const AscendC::LocalTensor<T>& t, bool write, uint32_t blk, uint32_t rep, const char* role, const char* api,
               const SrcLoc& loc, uint32_t align = 32) {
    Opd o;
    if (!t.address_.absAddr) fail_at(api, loc, "%s tensor has no buffer (not allocated / Get() not called)", role);
    o.arena = t.arena();
    if (o.arena < 0) fail_at(api, loc, "%s tensor is not in on-chip memory", role);
    if (o.arena != A_UB) fail_at(api, loc, "%s tensor must be in UB (VECIN/VECOUT/VECCALC) for a vector instruction", role);
    if (t.address_.bufferAddr % align)
        fail_at(api, loc, "%s UB address %u is not %u-byte aligned", role, t.address_.bufferAddr, align);
    o.p = t.address_.absAddr;
    o.ub = t.address_.bufferAddr;
    o.len = t.address_.dataLen;
    o.esz = sizeof(T);
    o.dt = dtype_name<T>();
    o.blk = blk;
    o.rep = rep;
    o.write = write;
    o.role = role;
    return o;
}

struct MaskSpec {
    bool bits = false;
    uint64_t m0 = 0, m1 = 0;  // bit mask (lanes 0-63, 64-127)
    uint64_t cont = 0;        // continuous mask
};
inline MaskSpec mask_cont(uint64_t m) { MaskSpec s; s.cont = m; return s; }
inline MaskSpec mask_bits(const uint64_t* m) { MaskSpec s; s.bits = true; s.m0 = m ? m[0] : 0; s.m1 = m ? m[1] : 0; return s; }
inline MaskSpec mask_reg() {
    MaskSpec s;
    s.bits = true;
    s.m0 = core().mask_lo;
    s.m1 = core().mask_hi;
    return s;
}

inline void check_repeat(int64_t repeat, const char* api, const SrcLoc& loc) {
    if (repeat < 0 || repeat > 255) fail_at(api, loc, "repeatTime %lld is outside [0, 255]", (long long)repeat);
}

// Drives one masked/repeated vector instruction. `E` lanes per repeat. `f(off)` receives the
// element offsets of every operand for one lane (off[i] in elements of operand i).
template <int N, class F>
inline void run_masked(const char* api, const SrcLoc& loc, Opd (&o)[N], uint32_t E, const MaskSpec& ms, int64_t repeat, F&& f,
                       bool propagate = true) {
    CoreState& c = core();
    if (c.core_type == CT_AIC) return;  // vector instructions execute on vector cores only (assumed no-op on AIC)
    check_repeat(repeat, api, loc);
    uint64_t total_lanes = 0;
    int64_t reps = repeat;
    uint64_t counter = 0;
    if (c.mask_counter) {
        counter = ms.bits ? ms.m0 : ms.cont;
        reps = int64_t((counter + E - 1) / E);
    }
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t off[N];
    bool any_uninit = false;
    const bool compute = !trace_only();  // trace-only: lanes, bounds and pipe records only
    if (!compute) propagate = false;
    int64_t lastblk[N];
    bool oob[N];
    int order[N], n_order = 0;
    for (int i = 0; i < N; ++i) { lastblk[i] = -1; oob[i] = false; if (!o[i].write) order[n_order++] = i; }
    for (int i = 0; i < N; ++i) if (o[i].write) order[n_order++] = i;
    ArenaMem& m = c.mem(A_UB);
    for (int64_t r = 0; r < reps; ++r) {
        for (uint32_t e = 0; e < E; ++e) {
            bool on;
            if (c.mask_counter) on = uint64_t(r) * E + e < counter;
            else if (ms.bits) on = e < 64 ? ((ms.m0 >> e) & 1) : ((ms.m1 >> (e - 64)) & 1);
            else on = e < ms.cont;
            if (!on) continue;
            ++total_lanes;
            bool src_ok = true;
            for (int k = 0; k < N; ++k) {
                const int i = order[k];  // sources before destinations: a lane reads, then writes
                uint32_t epb = 32 / o[i].esz;
                uint64_t el = uint64_t(r) * o[i].rep * epb + uint64_t(e / epb) * o[i].blk * epb + e % epb;
                off[i] = el;
                uint64_t b = el * o[i].esz;
                if (b + o[i].esz > o[i].len && !oob[i]) {  // the lanes past the tensor, as the NPU runs them
                    oob[i] = true;
                    uint64_t lo = ~0ull, hi = 0;
                    for (int64_t r2 = 0; r2 < reps; ++r2)
                        for (uint32_t e2 = 0; e2 < E; ++e2) {
                            bool on2;
                            if (c.mask_counter) on2 = uint64_t(r2) * E + e2 < counter;
                            else if (ms.bits) on2 = e2 < 64 ? ((ms.m0 >> e2) & 1) : ((ms.m1 >> (e2 - 64)) & 1);
                            else on2 = e2 < ms.cont;
                            uint64_t b2 = (uint64_t(r2) * o[i].rep * epb + uint64_t(e2 / epb) * o[i].blk * epb + e2 % epb) * o[i].esz;
                            if (on2 && b2 + o[i].esz > o[i].len) { lo = std::min(lo, b2); hi = std::max(hi, b2 + o[i].esz); }
                        }
                    local_oob(api, loc, o[i].role, o[i].arena, o[i].ub, o[i].len, o[i].ub + lo, o[i].ub + hi, o[i].write, seq);
                }
                int64_t blk = int64_t((o[i].ub + b) / 32);
                if (blk != lastblk[i]) {
                    touch(o[i].arena, o[i].ub + b, o[i].esz, P_V, o[i].write, seq, site, api, loc);
                    lastblk[i] = blk;
                }
                if (!o[i].write && o[i].read_init && propagate) {
                    const uint8_t* s = m.init.data() + o[i].ub + b;
                    for (uint32_t k = 0; k < o[i].esz; ++k) src_ok &= s[k] != 0;
                }
            }
            if (compute) {
                if constexpr (std::is_invocable<F, const uint64_t*, int64_t, uint32_t>::value) f(off, r, e);
                else f(off);
            }
            if (propagate)
                for (int i = 0; i < N; ++i)
                    if (o[i].write) std::memset(m.init.data() + o[i].ub + off[i] * o[i].esz, src_ok ? 1 : 0, o[i].esz);
            any_uninit |= !src_ok;
        }
    }
    if (any_uninit) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    trace(P_V, total_lanes * o[0].esz, uint64_t(reps), api, o[N > 1 ? 1 : 0].dt);
}

// Count form: `count` contiguous elements in every operand. The checks and the pipe records come
// first (count_begin), then the arithmetic, then the written-state of the destination (count_end).
template <int N>
inline bool count_begin(const char* api, const SrcLoc& loc, Opd (&o)[N], int64_t count) {
    CoreState& c = core();
    if (count < 0) fail_at(api, loc, "count %lld is negative", (long long)count);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    bool all_ok = true;
    for (int k = 0; k < 2 * N; ++k) {  // sources first, then destinations: the instruction reads, then writes
        const int i = k % N;
        if (o[i].write != (k >= N)) continue;
        uint64_t bytes = uint64_t(count) * o[i].esz;
        if (bytes > o[i].len)  // count elements past the tensor, as the NPU runs them
            local_oob(api, loc, o[i].role, o[i].arena, o[i].ub, o[i].len, o[i].ub + o[i].len, o[i].ub + bytes, o[i].write, seq);
        touch(o[i].arena, o[i].ub, bytes, P_V, o[i].write, seq, site, api, loc);
        if (!o[i].write && o[i].read_init) all_ok &= all_init(o[i].arena, o[i].ub, bytes);
    }
    // Overlap rule: a source and the destination overlap completely (same start; a narrowing
    // instruction may write over its own source) or not at all.
    for (int i = 0; i < N; ++i) {
        if (!o[i].write) continue;
        for (int j = 0; j < N; ++j) {
            if (o[j].write || o[j].arena != o[i].arena || count == 0) continue;
            uint64_t d0 = o[i].ub, d1 = d0 + uint64_t(count) * o[i].esz, s0 = o[j].ub, s1 = s0 + uint64_t(count) * o[j].esz;
            bool meet = d0 < s1 && s0 < d1;
            if (meet && !(d0 == s0 && o[i].esz <= o[j].esz))
                fail_at(api, loc,
                        "destination UB bytes [%llu, %llu) partially overlap %s bytes [%llu, %llu); the vector unit needs operands "
                        "that overlap completely (same address) or not at all",
                        (unsigned long long)d0, (unsigned long long)d1, o[j].role, (unsigned long long)s0, (unsigned long long)s1);
        }
    }
    return all_ok;
}
template <int N>
inline void count_end(const char* api, const SrcLoc& loc, Opd (&o)[N], int64_t count, bool all_ok) {
    ArenaMem& m = core().mem(A_UB);
    if (all_ok) {
        for (int i = 0; i < N; ++i)
            if (o[i].write) set_init(o[i].arena, o[i].ub, uint64_t(count) * o[i].esz);
    } else {
        warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
        for (int64_t k = 0; k < count; ++k) {
            bool ok = true;
            for (int i = 0; i < N; ++i)
                if (!o[i].write && o[i].read_init)
                    for (uint32_t b = 0; b < o[i].esz; ++b) ok &= m.init[o[i].ub + uint64_t(k) * o[i].esz + b] != 0;
            for (int i = 0; i < N; ++i)
                if (o[i].write) std::memset(m.init.data() + o[i].ub + uint64_t(k) * o[i].esz, ok ? 1 : 0, o[i].esz);
        }
    }
    uint32_t wide = 0;
    for (int i = 0; i < N; ++i) wide = std::max(wide, o[i].esz);
    trace(P_V, uint64_t(count) * o[0].esz, (uint64_t(count) * wide + 255) / 256, api, o[N > 1 ? 1 : 0].dt);
}

// `f(off)` per element (off[i] = element index in operand i).
template <int N, class F>
inline void run_count(const char* api, const SrcLoc& loc, Opd (&o)[N], int64_t count, F&& f) {
    if (core().core_type == CT_AIC) return;  // vector instructions execute on vector cores only (assumed no-op on AIC)
    bool all_ok = count_begin(api, loc, o, count);
    uint64_t off[N];
    if (!trace_only()) {
        for (int64_t k = 0; k < count; ++k) {
            for (int i = 0; i < N; ++i) off[i] = uint64_t(k);
            f(off);
        }
    }
    count_end(api, loc, o, count, all_ok);
}

// Element-wise instructions in chunks: `f(k0, n)` computes elements [k0, k0 + n), n <= kChunk,
// reading each chunk of its sources before writing that chunk of its destination (the overlap rule
// above leaves only same-start overlaps, for which this order is exact).
constexpr uint64_t kChunk = 256;
template <int N, class F>
inline void run_count_chunks(const char* api, const SrcLoc& loc, Opd (&o)[N], int64_t count, F&& f) {
    if (core().core_type == CT_AIC) return;  // vector instructions execute on vector cores only (assumed no-op on AIC)
    bool all_ok = count_begin(api, loc, o, count);
    if (!trace_only())
        for (uint64_t k0 = 0; k0 < uint64_t(count); k0 += kChunk) f(k0, std::min<uint64_t>(kChunk, uint64_t(count) - k0));
    count_end(api, loc, o, count, all_ok);
}

// Chunk loads/stores through the compute type C<T> (the same conversions as up/down).
// `out` holds kChunk values: lanes from n on are set to zero, so that the compute loops can run
// over all kChunk lanes (a fixed trip count, which the compiler vectorises at -O2).
template <class T>
inline void load_up_n(const uint8_t* p, C<T>* out, uint64_t n) {
    if (n < kChunk) std::fill(out + n, out + kChunk, C<T>(0));
    if constexpr (std::is_same<T, half>::value) {
        fp::half_bits_to_float_n(reinterpret_cast<const uint16_t*>(p), out, n);
    } else if constexpr (std::is_same<T, float>::value) {
        std::memcpy(out, p, n * sizeof(float));
    } else {
        for (uint64_t i = 0; i < n; ++i) out[i] = up(ld<T>(p + i * sizeof(T)));
    }
}
template <class T>
inline void store_down_n(uint8_t* p, const C<T>* in, uint64_t n) {
    if constexpr (std::is_same<T, half>::value) {
        fp::float_to_half_bits_n(in, reinterpret_cast<uint16_t*>(p), n);
    } else if constexpr (std::is_same<T, float>::value) {
        std::memcpy(p, in, n * sizeof(float));
    } else {
        for (uint64_t i = 0; i < n; ++i) st<T>(p + i * sizeof(T), down<T>(in[i]));
    }
}

// The count form of a one-source element-wise instruction: dst[i] = f(src[i]) in the compute type,
// chunk by chunk (unary instructions, and tensor-scalar ones whose f holds the scalar).
template <class T, class F>
inline void unary_count(const char* api, const SrcLoc& loc, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, int32_t count, F f) {
    Opd o[2] = {opd(dst, true, 1, 8, "destination", api, loc), opd(src, false, 1, 8, "source", api, loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_count_chunks(api, loc, o, count, [&](uint64_t k0, uint64_t n) {
        C<T> va[kChunk];
        load_up_n<T>(s + k0 * sizeof(T), va, n);
        for (uint64_t i = 0; i < kChunk; ++i) va[i] = f(va[i]);
        store_down_n<T>(d + k0 * sizeof(T), va, n);
    });
}

// ---- element kernels --------------------------------------------------------------------------
template <class T> inline bool isnan_(T v) { return std::is_integral<T>::value ? false : std::isnan(float(v)); }

// Max/Min: NaN propagates (assumed, see README NaN table).
template <class T> inline C<T> vabs(C<T> a) {
    if (std::is_integral<T>::value) return a < 0 ? -a : a;
    return C<T>(std::fabs(double(a)));  // clears the sign bit, also of -0 and NaN
}
template <class T> inline C<T> vmax(C<T> a, C<T> b) {
    if (!std::is_integral<T>::value && (a != a || b != b)) return a != a ? a : b;
    return a > b ? a : b;
}
template <class T> inline C<T> vmin(C<T> a, C<T> b) {
    if (!std::is_integral<T>::value && (a != a || b != b)) return a != a ? a : b;
    return a < b ? a : b;
}

}  // namespace sim
}  // namespace opkit
