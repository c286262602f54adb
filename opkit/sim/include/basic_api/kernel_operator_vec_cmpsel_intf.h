// opkit simulator: Compare, CompareScalar/Compares and Select (count and mask/repeat forms).
#pragma once
#include "impl/opkit/vec_engine.h"

namespace AscendC {

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
