// opkit simulator: Cast (all legal type/RoundMode pairs) and SetDeqScale.
#pragma once
#include "impl/opkit/vec_engine.h"
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_base_types.h"

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
// int4b_t (packed two per byte, element 2i in the low nibble of byte i): half -> int4b_t and back.
#if __NPU_ARCH__ == 2002
OPKIT_CAST_PAIR(half, int4b_t, RM_NONE)
#else
OPKIT_CAST_PAIR(half, int4b_t, RM_5 | RM_NONE)
OPKIT_CAST_PAIR(int4b_t, half, RM_NONE)
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

// Cast to or from int4b_t (count form): `count` elements, two per byte (element 2i in the low nibble of
// byte i), so count must be even (documented); half -> int4b_t rounds with the round mode (CAST_NONE as
// CAST_RINT) and saturates to [-8, 7] (assumed, as for the 8-bit integer destinations); int4b_t -> half is exact.
template <class T, class U>
inline void opkit_cast_int4(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode m, uint32_t count,
                            const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    const char* api = "Cast";
    if (count % 2) fail_at(api, loc, "a Cast to or from int4b_t takes an even count (two int4b_t per byte), got %u", count);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc);
    if constexpr (std::is_same<T, int4b_t>::value) {
        std::vector<U> sv;
        bool ok = read_src<U>(s, 0, count, seq, site, api, loc, sv);
        std::vector<uint8_t> packed(count / 2, 0);
        for (uint32_t i = 0; i < count; ++i) {
            long double r = std::isnan(exact(sv[i])) ? 0 : round_int(exact(sv[i]), m);
            int q = r < -8 ? -8 : r > 7 ? 7 : int(r);
            packed[i / 2] |= uint8_t((q & 0xF) << (4 * (i & 1)));
        }
        write_dst<uint8_t>(d, 0, packed.data(), count / 2, ok, seq, site, api, loc);
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    } else {
        std::vector<uint8_t> sv;
        bool ok = read_src<uint8_t>(s, 0, count / 2, seq, site, api, loc, sv);
        std::vector<T> out(count);
        for (uint32_t i = 0; i < count; ++i) out[i] = T(float(int(int4b_t(sv[i / 2] >> (4 * (i & 1))))));
        write_dst<T>(d, 0, out.data(), count, ok, seq, site, api, loc);
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    }
    trace(P_V, uint64_t(count) * 2, (uint64_t(count) * 2 + 255) / 256, api, "int4");
}

template <class T, class U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& rm, const uint32_t count, OPKIT_LOC) {
    using namespace opkit::sim;
    opkit_cast_check<T, U>(rm, loc);
    if constexpr (std::is_same<T, int4b_t>::value || std::is_same<U, int4b_t>::value) {
        opkit_cast_int4(dst, src, rm, count, loc);
        return;
    } else {
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
}
template <class T, class U>
inline void opkit_cast_masked(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode rm, const opkit::sim::MaskSpec& ms,
                              uint8_t repeat, const UnaryRepeatParams& p, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    static_assert(!std::is_same<T, int4b_t>::value && !std::is_same<U, int4b_t>::value,
                  "opkit simulator: Cast to or from int4b_t is simulated in its count form (Cast(dst, src, mode, count)) only");
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

}  // namespace AscendC
