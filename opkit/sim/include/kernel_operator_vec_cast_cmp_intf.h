// opkit simulator: Cast (all legal type/RoundMode pairs), Compare/CompareScalar, Select.
#pragma once
#include "kernel_operator_vec_intf.h"

namespace opkit {
namespace sim {

// Round an exactly known value to an integer with a Cast round mode.
inline long double round_int(long double y, AscendC::RoundMode m) {
    using AscendC::RoundMode;
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(y);
        case RoundMode::CAST_CEIL: return std::ceil(y);
        case RoundMode::CAST_ROUND: return std::round(y);  // half away from zero
        case RoundMode::CAST_TRUNC: return std::trunc(y);
        case RoundMode::CAST_ODD: {
            long double t = std::trunc(y);
            if (t != y && std::fmod(t, 2.0L) == 0) t += (y > 0 ? 1 : -1);
            return t;
        }
        default: return std::nearbyint(y);  // NONE, RINT, HYBRID: nearest, ties to even
    }
}

// Round x to a binary floating format with p significand bits, minimum normal exponent emin
// and largest finite value maxv, using round mode m (IEEE overflow rules per mode).
inline long double round_fmt(long double x, int p, int emin, long double maxv, AscendC::RoundMode m) {
    using AscendC::RoundMode;
    if (std::isnan(x) || std::isinf(x) || x == 0) return x;
    int e;
    std::frexp(x, &e);  // |x| = f * 2^e, f in [0.5, 1): leading bit exponent e-1
    int E = std::max(e - 1, emin);
    long double q = std::ldexp(1.0L, E - (p - 1));
    long double r = round_int(x / q, m) * q;
    if (std::fabs(r) > maxv) {
        bool pos = x > 0;
        long double inf = std::numeric_limits<long double>::infinity();
        switch (m) {
            case RoundMode::CAST_TRUNC: case RoundMode::CAST_ODD: return pos ? maxv : -maxv;
            case RoundMode::CAST_FLOOR: return pos ? maxv : -inf;
            case RoundMode::CAST_CEIL: return pos ? inf : -maxv;
            default: return pos ? inf : -inf;
        }
    }
    return r;
}

template <class T> struct fmt_of;
template <> struct fmt_of<half> { static constexpr int p = 11, emin = -14; static long double maxv() { return 65504.0L; } };
template <> struct fmt_of<bfloat16_t> { static constexpr int p = 8, emin = -126; static long double maxv() { return 0x1.fep127L; } };
template <> struct fmt_of<float> { static constexpr int p = 24, emin = -126; static long double maxv() { return FLT_MAX_L(); }
    static long double FLT_MAX_L() { return (long double)std::numeric_limits<float>::max(); } };

template <class T> inline long double exact(T v) { return (long double)v; }
inline long double exact(half v) { return (long double)float(v); }
inline long double exact(bfloat16_t v) { return (long double)float(v); }

template <class D> struct is_fp_dst : std::integral_constant<bool, std::is_same<D, half>::value || std::is_same<D, bfloat16_t>::value ||
                                                                  std::is_same<D, float>::value> {};

template <class D>
inline typename std::enable_if<is_fp_dst<D>::value, D>::type cast_to(long double x, AscendC::RoundMode m) {
    long double r = round_fmt(x, fmt_of<D>::p, fmt_of<D>::emin, fmt_of<D>::maxv(), m);
    return D(float(r));  // exact: r is representable in D (and in float)
}
// Integer destinations: round, then saturate (assumed); NaN -> 0 (assumed).
template <class D>
inline typename std::enable_if<std::is_integral<D>::value, D>::type cast_to(long double x, AscendC::RoundMode m) {
    if (std::isnan(x)) return D(0);
    long double r = round_int(x, m);
    long double lo = (long double)std::numeric_limits<D>::min(), hi = (long double)std::numeric_limits<D>::max();
    if (r < lo) return std::numeric_limits<D>::min();
    if (r > hi) return std::numeric_limits<D>::max();
    return D(r);
}

// Legal Cast pairs on the chip and the round modes each accepts (bit i = RoundMode i).
// Source: mirror-cann/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/类型转换/Cast.md
enum : uint32_t {
    RM_NONE = 1u << 0, RM_RINT = 1u << 1, RM_FLOOR = 1u << 2, RM_CEIL = 1u << 3, RM_ROUND = 1u << 4, RM_TRUNC = 1u << 5,
    RM_ODD = 1u << 6, RM_5 = RM_RINT | RM_FLOOR | RM_CEIL | RM_ROUND | RM_TRUNC, RM_ANY = 0xff
};
template <class D, class S> struct cast_modes { static constexpr uint32_t v = 0; };
#define OPKIT_CAST_PAIR(S, D, M) template <> struct cast_modes<D, S> { static constexpr uint32_t v = (M); };
OPKIT_CAST_PAIR(half, float, RM_NONE)
OPKIT_CAST_PAIR(int16_t, float, RM_NONE)
OPKIT_CAST_PAIR(int8_t, half, RM_NONE)
OPKIT_CAST_PAIR(uint8_t, half, RM_NONE)
OPKIT_CAST_PAIR(int32_t, int64_t, RM_NONE)
OPKIT_CAST_PAIR(int64_t, int32_t, RM_NONE)
OPKIT_CAST_PAIR(int32_t, int16_t, RM_NONE)
OPKIT_CAST_PAIR(float, half, RM_5 | RM_ODD | RM_NONE)
OPKIT_CAST_PAIR(float, int32_t, RM_5)
OPKIT_CAST_PAIR(float, int16_t, RM_5)
OPKIT_CAST_PAIR(float, int64_t, RM_5)
OPKIT_CAST_PAIR(float, float, RM_5)
OPKIT_CAST_PAIR(half, int32_t, RM_5)
OPKIT_CAST_PAIR(half, int16_t, RM_5)
OPKIT_CAST_PAIR(half, int8_t, RM_5 | RM_NONE)
OPKIT_CAST_PAIR(half, uint8_t, RM_5 | RM_NONE)
OPKIT_CAST_PAIR(int16_t, half, RM_5 | RM_NONE)
OPKIT_CAST_PAIR(int32_t, float, RM_5 | RM_NONE)
OPKIT_CAST_PAIR(int64_t, float, RM_5)
OPKIT_CAST_PAIR(int32_t, half, RM_ANY)
#if __NPU_ARCH__ != 2002
OPKIT_CAST_PAIR(bfloat16_t, float, RM_NONE)
OPKIT_CAST_PAIR(float, bfloat16_t, RM_5)
OPKIT_CAST_PAIR(bfloat16_t, int32_t, RM_5)
#endif
#undef OPKIT_CAST_PAIR

inline const char* round_name(AscendC::RoundMode m) {
    static const char* n[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD", "CAST_HYBRID"};
    return int(m) < 8 ? n[int(m)] : "?";
}

// float -> D with round-to-nearest-even (D floating or integral).
template <class D>
inline D cast_to_rint(float v) { return cast_to<D>((long double)v, AscendC::RoundMode::CAST_RINT); }

inline float& deq_scale() { static thread_local float s = 1.0f; return s; }

template <class D, class S>
inline D cast_one(S v, AscendC::RoundMode m) {
    // Fast paths with the same results as the general rounding below: widening half/bf16 -> float is
    // exact, and float -> half/bf16 with round-to-nearest-even (RINT, or NONE, which rounds the same
    // way when precision is lost) is the types' own conversion (F16C where available).
    if constexpr (std::is_same<D, float>::value &&
                  (std::is_same<S, half>::value || std::is_same<S, bfloat16_t>::value)) {
        return float(v);
    }
    if constexpr (std::is_same<S, float>::value &&
                  (std::is_same<D, half>::value || std::is_same<D, bfloat16_t>::value)) {
        if (m == AscendC::RoundMode::CAST_RINT || m == AscendC::RoundMode::CAST_NONE) return D(v);
    }
    if (std::is_same<S, int32_t>::value && std::is_same<D, half>::value)
        return cast_to<D>((long double)(float)((float)exact(v) * deq_scale()), AscendC::RoundMode::CAST_RINT);
    return cast_to<D>(exact(v), m);
}

}  // namespace sim
}  // namespace opkit

namespace AscendC {

inline void SetDeqScale(half scale) { opkit::sim::deq_scale() = float(scale); }
inline void SetDeqScale(float scale) { opkit::sim::deq_scale() = scale; }

template <class T, class U>
inline void opkit_cast_check(RoundMode rm, const opkit::sim::SrcLoc& loc) {
    constexpr uint32_t modes = opkit::sim::cast_modes<T, U>::v;
    static_assert(modes != 0,
                  "Ascend C Cast: this (dst = T, src = U) dtype pair (see 'with T = ..., U = ...' above) is not supported on " OPKIT_SIM_SOC " (" OPKIT_SIM_ARCH_NAME ")");
    if (!(modes & (1u << int(rm))))
        opkit::sim::fail_at("Cast", loc, "round mode %s is not supported for this dtype pair (%zu-byte -> %zu-byte)",
                            opkit::sim::round_name(rm), sizeof(U), sizeof(T));
}

template <class T, class U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& rm, const uint32_t count, OPKIT_LOC) {
    using namespace opkit::sim;
    opkit_cast_check<T, U>(rm, loc);
    Opd o[2] = {opd(dst, true, 1, 8, "destination", "Cast", loc), opd(src, false, 1, 8, "source", "Cast", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    RoundMode m = rm;
    constexpr bool widen = std::is_same<T, float>::value && opkit::is_f16<U>::value;
    constexpr bool narrow = std::is_same<U, float>::value && opkit::is_f16<T>::value;
    if (widen || (narrow && (m == RoundMode::CAST_RINT || m == RoundMode::CAST_NONE))) {
        // The fast paths of cast_one, a chunk at a time: widening is exact; narrowing with
        // round-to-nearest-even is the 16-bit type's own conversion.
        run_count_chunks("Cast", loc, o, count, [&](uint64_t k0, uint64_t n) {
            float buf[kChunk];
            if constexpr (widen) {
                load_up_n<U>(s + k0 * sizeof(U), buf, n);
                std::memcpy(d + k0 * sizeof(T), buf, n * sizeof(float));
            } else if constexpr (narrow) {
                std::memcpy(buf, s + k0 * sizeof(U), n * sizeof(float));
                store_down_n<T>(d + k0 * sizeof(T), buf, n);
            }
        });
        return;
    }
    run_count("Cast", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), cast_one<T, U>(ld<U>(s + f[1] * sizeof(U)), m)); });
}
template <class T, class U>
inline void opkit_cast_masked(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode rm, const opkit::sim::MaskSpec& ms,
                              uint8_t repeat, const UnaryRepeatParams& p, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    opkit_cast_check<T, U>(rm, loc);
    Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", "Cast", loc),
                opd(src, false, p.srcBlkStride, p.srcRepStride, "source", "Cast", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    constexpr uint32_t wide = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
    run_masked("Cast", loc, o, 256 / wide, ms, repeat,
               [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), cast_one<T, U>(ld<U>(s + f[1] * sizeof(U)), rm)); });
}
template <class T, class U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& rm, const uint64_t mask[], const uint8_t repeatTime,
                 const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_cast_masked(dst, src, rm, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& rm, uint64_t mask, const uint8_t repeatTime,
                 const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_cast_masked(dst, src, rm, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}

// ---- Compare / CompareScalar / Select -------------------------------------------------------------
namespace opkit_detail {
template <class T>
inline bool cmp(CMPMODE m, T x, T y) {
    auto a = opkit::sim::up(x), b = opkit::sim::up(y);
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;  // NE: true for NaN (IEEE)
    }
}
inline void set_bit(uint8_t* base, uint64_t i, bool v) {
    if (v) base[i / 8] |= uint8_t(1u << (i % 8));
    else base[i / 8] &= uint8_t(~(1u << (i % 8)));
}
inline bool get_bit(const uint8_t* base, uint64_t i) { return (base[i / 8] >> (i % 8)) & 1u; }
}  // namespace opkit_detail

// dst: one bit per element, element i -> bit (i % 8) of byte i / 8.
template <class T, class U>
inline void opkit_compare_impl(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, CMPMODE m,
                               uint32_t count, const char* api, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Compare", T, half, float, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    CoreState& c = core();
    Opd a = opd(src0, false, 1, 8, "src0", api, loc);
    Opd d = opd(dst, true, 1, 8, "destination", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t nbytes_out = (uint64_t(count) + 7) / 8;
    if (uint64_t(count) * sizeof(T) > a.len) fail_at(api, loc, "src0 local tensor out of bounds: count %u, tensor holds %u elements", count, a.len / uint32_t(sizeof(T)));
    if (nbytes_out > d.len) fail_at(api, loc, "destination out of bounds: %llu mask bytes needed, tensor holds %u bytes", (unsigned long long)nbytes_out, d.len);
    touch(A_UB, a.ub, uint64_t(count) * sizeof(T), P_V, false, seq, site, api, loc);
    bool ok = all_init(A_UB, a.ub, uint64_t(count) * sizeof(T));
    Opd b;
    if (src1) {
        b = opd(*src1, false, 1, 8, "src1", api, loc);
        if (uint64_t(count) * sizeof(T) > b.len) fail_at(api, loc, "src1 local tensor out of bounds: count %u, tensor holds %u elements", count, b.len / uint32_t(sizeof(T)));
        touch(A_UB, b.ub, uint64_t(count) * sizeof(T), P_V, false, seq, site, api, loc);
        ok &= all_init(A_UB, b.ub, uint64_t(count) * sizeof(T));
    }
    touch(A_UB, d.ub, nbytes_out, P_V, true, seq, site, api, loc);
    for (uint32_t i = 0; i < count; ++i) {
        T x = ld<T>(a.p + uint64_t(i) * sizeof(T));
        T y = src1 ? ld<T>(b.p + uint64_t(i) * sizeof(T)) : scalar;
        opkit_detail::set_bit(d.p, i, opkit_detail::cmp(m, x, y));
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    set_init(A_UB, d.ub, nbytes_out, ok);
    trace(P_V, uint64_t(count) * sizeof(T), (uint64_t(count) * sizeof(T) + 255) / 256, api, dtype_name<T>());
}

template <class T, class U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE m, uint32_t count, OPKIT_LOC) {
    if ((uint64_t(count) * sizeof(T)) % 256)
        opkit::sim::fail_at("Compare", loc,
                            "count %u x %zu B = %llu bytes is not a multiple of 256 B; the hardware compares only the first %llu elements",
                            count, sizeof(T), (unsigned long long)(uint64_t(count) * sizeof(T)),
                            (unsigned long long)((uint64_t(count) * sizeof(T)) / 256 * 256 / sizeof(T)));
    opkit_compare_impl(dst, src0, &src1, T(0), m, count, "Compare", loc);
}
template <class T, class U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE m, uint32_t count, OPKIT_LOC) {
    opkit_compare_impl(dst, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, m, count, "CompareScalar", loc);
}
template <class T, class U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE m, uint32_t count, OPKIT_LOC) {
    opkit_compare_impl(dst, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, m, count, "Compares", loc);
}

// Select: bit 1 -> src0, bit 0 -> src1 (or scalar). Count form consumes the mask continuously.
template <class T, class U>
inline void opkit_select_impl(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, const LocalTensor<T>* src1,
                              T scalar, uint32_t count, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Select", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Select";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), a = opd(src0, false, 1, 8, "src0", api, loc),
        s = opd(sel, false, 1, 8, "selMask", api, loc), b;
    uint64_t nb = uint64_t(count) * sizeof(T), mb = (uint64_t(count) + 7) / 8;
    if (nb > d.len || nb > a.len) fail_at(api, loc, "local tensor out of bounds: count %u exceeds an operand", count);
    if (mb > s.len) fail_at(api, loc, "selMask out of bounds: %llu bytes needed, tensor holds %u", (unsigned long long)mb, s.len);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    touch(A_UB, a.ub, nb, P_V, false, seq, site, api, loc);
    touch(A_UB, s.ub, mb, P_V, false, seq, site, api, loc);
    bool ok = all_init(A_UB, a.ub, nb) && all_init(A_UB, s.ub, mb);
    if (src1) {
        b = opd(*src1, false, 1, 8, "src1", api, loc);
        if (nb > b.len) fail_at(api, loc, "src1 local tensor out of bounds: count %u", count);
        touch(A_UB, b.ub, nb, P_V, false, seq, site, api, loc);
        ok &= all_init(A_UB, b.ub, nb);
    }
    touch(A_UB, d.ub, nb, P_V, true, seq, site, api, loc);
    for (uint32_t i = 0; i < count; ++i) {
        bool bit = opkit_detail::get_bit(s.p, i);
        T v = bit ? ld<T>(a.p + uint64_t(i) * sizeof(T)) : (src1 ? ld<T>(b.p + uint64_t(i) * sizeof(T)) : scalar);
        st<T>(d.p + uint64_t(i) * sizeof(T), v);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    set_init(A_UB, d.ub, nb, ok);
    trace(P_V, nb, (nb + 255) / 256, api, dtype_name<T>());
}
template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   SELMODE mode, uint32_t count, OPKIT_LOC) {
    if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        opkit::sim::fail_at("Select", loc, "VSEL_TENSOR_SCALAR_MODE needs a scalar src1");
    opkit_select_impl(dst, sel, src0, &src1, T(0), count, loc);
}
template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, T scalar, SELMODE mode, uint32_t count,
                   OPKIT_LOC) {
    (void)mode;
    opkit_select_impl(dst, sel, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, count, loc);
}

// ---- mask/repeat forms of Compare, CompareScalar and Select -------------------------------------
// Compare: repeat r writes its E result bits at bit offset r * E of dst (assumed layout);
// masked-off lanes write 0 bits (assumed).
template <class T, class U>
inline void opkit_compare_masked(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, CMPMODE m,
                                 const opkit::sim::MaskSpec& ms, uint8_t repeat, uint32_t s0b, uint32_t s0r, uint32_t s1b, uint32_t s1r,
                                 const char* api, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Compare", T, half, float, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const uint32_t E = 256 / sizeof(T);
    Opd d = opd(dst, true, 1, 8, "destination", api, loc);
    uint64_t nbytes = (uint64_t(repeat) * E + 7) / 8;
    if (nbytes > d.len) fail_at(api, loc, "destination out of bounds: %llu mask bytes needed, tensor holds %u bytes", (unsigned long long)nbytes, d.len);
    bool ok = true;
    std::vector<uint8_t> bits(nbytes, 0);
    if (src1) {
        Opd o[2] = {opd(src0, false, s0b, s0r, "src0", api, loc), opd(*src1, false, s1b, s1r, "src1", api, loc)};
        uint8_t *pa = o[0].p, *pb = o[1].p;
        run_masked(api, loc, o, E, ms, repeat, [&](const uint64_t* f, int64_t r, uint32_t e) {
            opkit_detail::set_bit(bits.data(), uint64_t(r) * E + e, opkit_detail::cmp(m, ld<T>(pa + f[0] * sizeof(T)), ld<T>(pb + f[1] * sizeof(T))));
        });
    } else {
        Opd o[1] = {opd(src0, false, s0b, s0r, "src0", api, loc)};
        uint8_t* pa = o[0].p;
        run_masked(api, loc, o, E, ms, repeat, [&](const uint64_t* f, int64_t r, uint32_t e) {
            opkit_detail::set_bit(bits.data(), uint64_t(r) * E + e, opkit_detail::cmp(m, ld<T>(pa + f[0] * sizeof(T)), scalar));
        });
    }
    touch(A_UB, d.ub, nbytes, P_V, true, core().cnt[P_V], core().site(api, loc), api, loc);
    std::memcpy(d.p, bits.data(), nbytes);
    set_init(A_UB, d.ub, nbytes, ok);
}
template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE m, const uint64_t mask[],
                    uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_compare_masked(dst, src0, &src1, T(0), m, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime,
                         p.src0BlkStride, p.src0RepStride, p.src1BlkStride, p.src1RepStride, "Compare", loc);
}
template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE m, const uint64_t mask,
                    uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_compare_masked(dst, src0, &src1, T(0), m, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime,
                         p.src0BlkStride, p.src0RepStride, p.src1BlkStride, p.src1RepStride, "Compare", loc);
}
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE m, const uint64_t mask[],
                          uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_compare_masked(dst, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, m,
                         isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p.srcBlkStride, p.srcRepStride, 1, 8,
                         "CompareScalar", loc);
}
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE m, const uint64_t mask,
                          uint8_t repeatTime, const UnaryRepeatParams& p, OPKIT_LOC) {
    opkit_compare_masked(dst, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, m,
                         isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p.srcBlkStride, p.srcRepStride, 1, 8,
                         "CompareScalar", loc);
}

// Select, mask form: mode VSEL_CMPMASK_SPR reuses the first E bits of selMask in every repeat;
// the tensor modes consume selMask continuously (bit r * E + e). Masked-off lanes keep dst.
template <class T, class U>
inline void opkit_select_masked(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, const LocalTensor<T>* src1,
                                T scalar, SELMODE mode, const opkit::sim::MaskSpec& ms, uint8_t repeat, const BinaryRepeatParams& p,
                                const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Select", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Select";
    const uint32_t E = 256 / sizeof(T);
    Opd s = opd(sel, false, 1, 8, "selMask", api, loc);
    uint64_t nbits = mode == SELMODE::VSEL_CMPMASK_SPR ? E : uint64_t(repeat) * E;
    if ((nbits + 7) / 8 > s.len) fail_at(api, loc, "selMask out of bounds: %llu bytes needed, tensor holds %u", (unsigned long long)((nbits + 7) / 8), s.len);
    touch(A_UB, s.ub, (nbits + 7) / 8, P_V, false, core().cnt[P_V] + 1, core().site(api, loc), api, loc);
    if (!all_init(A_UB, s.ub, (nbits + 7) / 8)) warn_at(api, loc, "selMask holds UB bytes that were never written");
    if (src1) {
        Opd o[3] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", api, loc),
                    opd(src0, false, p.src0BlkStride, p.src0RepStride, "src0", api, loc),
                    opd(*src1, false, p.src1BlkStride, p.src1RepStride, "src1", api, loc)};
        uint8_t *d = o[0].p, *a = o[1].p, *b = o[2].p;
        run_masked(api, loc, o, E, ms, repeat, [&](const uint64_t* f, int64_t r, uint32_t e) {
            uint64_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? e : uint64_t(r) * E + e;
            bool take0 = opkit_detail::get_bit(s.p, bit);
            st<T>(d + f[0] * sizeof(T), take0 ? ld<T>(a + f[1] * sizeof(T)) : ld<T>(b + f[2] * sizeof(T)));
        });
    } else {
        Opd o[2] = {opd(dst, true, p.dstBlkStride, p.dstRepStride, "destination", api, loc),
                    opd(src0, false, p.src0BlkStride, p.src0RepStride, "src0", api, loc)};
        uint8_t *d = o[0].p, *a = o[1].p;
        run_masked(api, loc, o, E, ms, repeat, [&](const uint64_t* f, int64_t r, uint32_t e) {
            uint64_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? e : uint64_t(r) * E + e;
            st<T>(d + f[0] * sizeof(T), opkit_detail::get_bit(s.p, bit) ? ld<T>(a + f[1] * sizeof(T)) : scalar);
        });
    }
}
template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE mode,
                   const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_select_masked(dst, sel, src0, &src1, T(0), mode, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE mode,
                   uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_select_masked(dst, sel, src0, &src1, T(0), mode, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, T scalar, SELMODE mode,
                   const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_select_masked(dst, sel, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, mode,
                        isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, T scalar, SELMODE mode, uint64_t mask,
                   uint8_t repeatTime, const BinaryRepeatParams& p, OPKIT_LOC) {
    opkit_select_masked(dst, sel, src0, static_cast<const LocalTensor<T>*>(nullptr), scalar, mode,
                        isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}

}  // namespace AscendC
