// opkit simulator: the vector engine (count form and mask/repeat/stride form) and the
// element-wise vector APIs: binary, unary, tensor-scalar, Duplicate, Cast, Compare/Select, Copy.
//
// Every instruction reads its operands, computes in float (floating types) or int64 (integers)
// and rounds/wraps to the destination type once, as the vector unit writes its destination.
#pragma once
#include "kernel_operator_data_copy_intf.h"

namespace AscendC {

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r) {}
};
struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool halfBlock = false;
    bool repeatStrideMode = false, strideSizeMode = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr) : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr, bool hb)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr), halfBlock(hb) {}
};
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1;
    uint16_t dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr) : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

inline void SetMaskCount() { opkit::sim::core().mask_counter = true; }
inline void SetMaskNorm() { opkit::sim::core().mask_counter = false; }
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    auto& c = opkit::sim::core();
    c.mask_hi = maskHigh;
    c.mask_lo = maskLow;
}
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
    auto& c = opkit::sim::core();
    if (mode == MaskMode::COUNTER || c.mask_counter) { c.mask_lo = uint64_t(len); c.mask_hi = 0; return; }
    constexpr int E = 256 / sizeof(T);
    int n = len > E ? E : len;
    c.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    c.mask_hi = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
}
inline void ResetMask() { auto& c = opkit::sim::core(); c.mask_hi = c.mask_lo = ~0ull; }

}  // namespace AscendC

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
    for (int i = 0; i < N; ++i) lastblk[i] = -1;
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
            for (int i = 0; i < N; ++i) {
                uint32_t epb = 32 / o[i].esz;
                uint64_t el = uint64_t(r) * o[i].rep * epb + uint64_t(e / epb) * o[i].blk * epb + e % epb;
                off[i] = el;
                uint64_t b = el * o[i].esz;
                if (b + o[i].esz > o[i].len)
                    fail_at(api, loc,
                            "%s local tensor out of bounds: repeat %lld lane %u reads/writes element %llu (bytes [%llu, %llu)), "
                            "the tensor holds %u elements",
                            o[i].role, (long long)r, e, (unsigned long long)el, (unsigned long long)b,
                            (unsigned long long)(b + o[i].esz), o[i].len / o[i].esz);
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
    for (int i = 0; i < N; ++i) {
        uint64_t bytes = uint64_t(count) * o[i].esz;
        if (bytes > o[i].len)
            fail_at(api, loc, "%s local tensor out of bounds: count %lld elements (%llu bytes) but the tensor holds %u elements", o[i].role,
                    (long long)count, (unsigned long long)bytes, o[i].len / o[i].esz);
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

namespace AscendC {

#define OPKIT_VEC_BINARY(NAME, EXPR, ...)                                                                                  \
    template <class T>                                                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count, \
                     OPKIT_LOC) {                                                                                        \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[3] = {opd(dst, true, 1, 8, "destination", #NAME, loc), opd(src0, false, 1, 8, "src0", #NAME, loc),        \
                    opd(src1, false, 1, 8, "src1", #NAME, loc)};                                                         \
        uint8_t *d = o[0].p, *p0 = o[1].p, *p1 = o[2].p;                                                                 \
        run_count_chunks(#NAME, loc, o, count, [&](uint64_t k0, uint64_t n) {                                           \
            C<T> va[kChunk], vb[kChunk];                                                                                 \
            load_up_n<T>(p0 + k0 * sizeof(T), va, n);                                                                    \
            load_up_n<T>(p1 + k0 * sizeof(T), vb, n);                                                                    \
            for (uint64_t i = 0; i < kChunk; ++i) {                                                                      \
                C<T> a = va[i], b = vb[i];                                                                               \
                va[i] = C<T>(EXPR);                                                                                      \
            }                                                                                                            \
            store_down_n<T>(d + k0 * sizeof(T), va, n);                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T>                                                                                                   \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                                      const opkit::sim::MaskSpec& ms, uint8_t repeat, const BinaryRepeatParams& p,        \
                                      const opkit::sim::SrcLoc& loc) {                                                   \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[3] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src0, false, p.src0BlkStride, p.src0RepStride, "src0", #NAME, loc),                             \
                    opd(src1, false, p.src1BlkStride, p.src1RepStride, "src1", #NAME, loc)};                            \
        uint8_t *d = o[0].p, *p0 = o[1].p, *p1 = o[2].p;                                                                 \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(p0 + f[1] * sizeof(T))), b = up(ld<T>(p1 + f[2] * sizeof(T)));                              \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const uint64_t mask[], \
                     const uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {                                 \
        opkit_##NAME##_masked(dst, src0, src1, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,    \
                     const uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {                                 \
        opkit_##NAME##_masked(dst, src0, src1, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

OPKIT_VEC_BINARY(Add, a + b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Sub, a - b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Mul, a * b, int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Div, a / b, half, float)
OPKIT_VEC_BINARY(Max, (opkit::sim::vmax<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(Min, (opkit::sim::vmin<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_BINARY(And, (C<T>(int64_t(a) & int64_t(b))), int16_t, uint16_t)
OPKIT_VEC_BINARY(Or, (C<T>(int64_t(a) | int64_t(b))), int16_t, uint16_t)
OPKIT_VEC_BINARY(AddRelu, (opkit::sim::vmax<T>(a + b, C<T>(0))), half, float, int16_t)
OPKIT_VEC_BINARY(SubRelu, (opkit::sim::vmax<T>(a - b, C<T>(0))), half, float, int16_t)

// ---- unary --------------------------------------------------------------------------------------
#define OPKIT_VEC_UNARY(NAME, EXPR, ...)                                                                                   \
    template <class T>                                                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, OPKIT_LOC) {             \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        unary_count(#NAME, loc, dst, src, count, [](C<T> a) { return C<T>(EXPR); });                                     \
    }                                                                                                                    \
    template <class T>                                                                                                   \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms, \
                                      uint8_t repeat, const UnaryRepeatParams& p, const opkit::sim::SrcLoc& loc) {        \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src, false, p.srcBlkStride, p.srcRepStride, "source", #NAME, loc)};                             \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                                \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(s + f[1] * sizeof(T)));                                                                    \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime, \
                     const UnaryRepeatParams& p, OPKIT_LOC) {                                                            \
        opkit_##NAME##_masked(dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, bool isSetMask = true>                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,       \
                     const UnaryRepeatParams& p, OPKIT_LOC) {                                                            \
        opkit_##NAME##_masked(dst, src, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

OPKIT_VEC_UNARY(Exp, std::exp(a), half, float)
OPKIT_VEC_UNARY(Ln, std::log(a), half, float)
OPKIT_VEC_UNARY(Abs, (opkit::sim::vabs<T>(a)), half, float)
OPKIT_VEC_UNARY(Sqrt, std::sqrt(a), half, float)
OPKIT_VEC_UNARY(Rsqrt, (1.0f / std::sqrt(a)), half, float)
OPKIT_VEC_UNARY(Reciprocal, (1.0f / a), half, float)
OPKIT_VEC_UNARY(Relu, (a != a ? a : (a > 0 ? a : C<T>(0))), half, float, int32_t)
OPKIT_VEC_UNARY(Not, (C<T>(~int64_t(a))), int16_t, uint16_t)

// ---- tensor-scalar ------------------------------------------------------------------------------
#define OPKIT_VEC_SCALAR_X(NAME, EXPR, PRE, ...)                                                                                  \
    template <class T, class U>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const int32_t& count, OPKIT_LOC) { \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        const C<T> b = up(static_cast<T>(scalar));                                                                       \
        const bool flag = false;                                                                                         \
        (void)flag;                                                                                                      \
        PRE;                                                                                                             \
        unary_count(#NAME, loc, dst, src, count, [=](C<T> a) { return C<T>(EXPR); });                                 \
    }                                                                                                                    \
    template <class T, class U>                                                                                          \
    inline void opkit_##NAME##_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar,               \
                                      const opkit::sim::MaskSpec& ms, uint8_t repeat, const UnaryRepeatParams& p,         \
                                      const opkit::sim::SrcLoc& loc, const bool flag = false) {                          \
        OPKIT_DTYPES(#NAME, T, __VA_ARGS__);                                                                            \
        using namespace opkit::sim;                                                                                      \
        Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", #NAME, loc),                          \
                    opd(src, false, p.srcBlkStride, p.srcRepStride, "source", #NAME, loc)};                             \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                                \
        const C<T> b = up(static_cast<T>(scalar));                                                                       \
        (void)flag;                                                                                                      \
        PRE;                                                                                                             \
        run_masked(#NAME, loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) {                                 \
            C<T> a = up(ld<T>(s + f[1] * sizeof(T)));                                                                    \
            st<T>(d + f[0] * sizeof(T), down<T>(EXPR));                                                                  \
        });                                                                                                              \
    }                                                                                                                    \
    template <class T, class U, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const uint64_t mask[],        \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }                                                                                                                    \
    template <class T, class U, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, uint64_t mask,                \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {                                  \
        opkit_##NAME##_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc); \
    }

#define OPKIT_VEC_SCALAR(NAME, EXPR, ...) OPKIT_VEC_SCALAR_X(NAME, EXPR, (void)0, __VA_ARGS__)

OPKIT_VEC_SCALAR(Adds, a + b, int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Muls, a * b, int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Maxs, (opkit::sim::vmax<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(Mins, (opkit::sim::vmin<T>(a, b)), int16_t, half, int32_t, float)
OPKIT_VEC_SCALAR(LeakyRelu, (a >= 0 ? a : a * b), half, float)
// Shifts, as documented for A2/A3: unsigned types shift logically; signed types shift
// arithmetically — ShiftLeft keeps the sign bit and drops the one below it (int16 0xAAAA << 1 is
// 0xD554), ShiftRight copies the sign bit in. The count is checked: [0, 16] for 16-bit types,
// [0, 32] for 32-bit ones. ShiftRight's repeat forms take roundEn: for signed types the result is
// incremented when the last bit shifted out is 1.
}  // namespace AscendC
namespace opkit {
namespace sim {
template <class T>
inline void check_shift(const char* api, const SrcLoc& loc, int64_t count) {
    const int64_t bits = int64_t(sizeof(T)) * 8;
    if (count < 0 || count > bits)
        fail_at(api, loc, "shift count %lld is outside [0, %lld] for a %lld-bit type", (long long)count, (long long)bits,
                (long long)bits);
}
template <class T>
inline T shift_left(T a, int64_t n) {
    using U = typename std::make_unsigned<T>::type;
    const int bits = int(sizeof(T)) * 8;
    const U ua = static_cast<U>(a);
    const U moved = n >= bits ? U(0) : static_cast<U>(ua << n);
    if (!std::is_signed<T>::value) return static_cast<T>(moved);
    const U sign = static_cast<U>(U(1) << (bits - 1));
    return static_cast<T>(static_cast<U>((ua & sign) | (moved & static_cast<U>(~sign))));
}
template <class T>
inline T shift_right(T a, int64_t n, bool round) {
    const int bits = int(sizeof(T)) * 8;
    if (!std::is_signed<T>::value) return n >= bits ? T(0) : static_cast<T>(a >> n);
    const int64_t v = int64_t(a);
    int64_t r = n >= bits ? (v < 0 ? -1 : 0) : (v >> n);
    if (round && n > 0 && n <= bits && ((static_cast<uint64_t>(v) >> (n - 1)) & 1u)) r += 1;
    return static_cast<T>(r);
}
}  // namespace sim
}  // namespace opkit
namespace AscendC {
OPKIT_VEC_SCALAR_X(ShiftLeft, (C<T>(opkit::sim::shift_left<T>(T(a), int64_t(b)))),
                   (opkit::sim::check_shift<T>("ShiftLeft", loc, int64_t(b))), int16_t, uint16_t, int32_t, uint32_t)
OPKIT_VEC_SCALAR_X(ShiftRight, (C<T>(opkit::sim::shift_right<T>(T(a), int64_t(b), flag))),
                   (opkit::sim::check_shift<T>("ShiftRight", loc, int64_t(b))), int16_t, uint16_t, int32_t, uint32_t)
template <class T, class U, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, const uint64_t mask[],
                       const uint8_t repeatTime, const UnaryRepeatParams& p, bool roundEn, OPKIT_LOC) {
    opkit_ShiftRight_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime,
                            p, loc, roundEn);
}
template <class T, class U, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, uint64_t mask,
                       const uint8_t repeatTime, const UnaryRepeatParams& p, bool roundEn, OPKIT_LOC) {
    opkit_ShiftRight_masked(dst, src, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime,
                            p, loc, roundEn);
}

// ---- Duplicate ----------------------------------------------------------------------------------
template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, const int32_t& count, OPKIT_LOC) {
    OPKIT_DTYPES("Duplicate", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "Duplicate", loc)};
    uint8_t* d = o[0].p;
    run_count("Duplicate", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), scalar); });
}
template <class T>
inline void opkit_dup_masked(const LocalTensor<T>& dst, const T& scalar, const opkit::sim::MaskSpec& ms, uint8_t repeat,
                             uint16_t blk, uint8_t rep, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Duplicate", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, blk, rep, "destination", "Duplicate", loc)};
    uint8_t* d = o[0].p;
    run_masked("Duplicate", loc, o, 256 / sizeof(T), ms, repeat, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), scalar); });
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride, OPKIT_LOC) {
    opkit_dup_masked(dst, scalar, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, dstBlockStride,
                     dstRepeatStride, loc);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, const uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, OPKIT_LOC) {
    opkit_dup_masked(dst, scalar, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, dstBlockStride,
                     dstRepeatStride, loc);
}

// ---- Copy (UB -> UB on the vector pipe) -----------------------------------------------------------
template <class T>
inline void opkit_copy_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms, uint8_t repeat,
                              const CopyRepeatParams& p, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Copy", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[2] = {opd(dst, true, p.dstStride, p.dstRepeatSize, "destination", "Copy", loc),
                opd(src, false, p.srcStride, p.srcRepeatSize, "source", "Copy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_masked("Copy", loc, o, 256 / sizeof(T), ms, repeat,
               [&](const uint64_t* f) { std::memcpy(d + f[0] * sizeof(T), s + f[1] * sizeof(T), sizeof(T)); });
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& p, OPKIT_LOC) {
    opkit_copy_masked(dst, src, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& p, OPKIT_LOC) {
    opkit_copy_masked(dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("Copy", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[2] = {opd(dst, true, 1, 8, "destination", "Copy", loc), opd(src, false, 1, 8, "source", "Copy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_count_chunks("Copy", loc, o, count,
                     [&](uint64_t k0, uint64_t n) { std::memmove(d + k0 * sizeof(T), s + k0 * sizeof(T), n * sizeof(T)); });
}

}  // namespace AscendC
