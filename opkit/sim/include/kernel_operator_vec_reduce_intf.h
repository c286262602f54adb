// opkit simulator: reductions, gather, broadcast-per-block, index ramps, sorting, Sigmoid.
#pragma once
#include "kernel_operator_vec_cast_cmp_intf.h"
#include "kernel_tiling/kernel_tiling.h"
#include <algorithm>
#include <numeric>

namespace AscendC {

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t b, uint16_t r) : dstBlkStride(b), dstRepStride(r) {}
};
struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 8;
    uint8_t src1RepeatStride = 8;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t b, uint16_t r, uint16_t s0r, uint8_t s1r) : src0BlockStride(b), repeatTimes(r), src0RepeatStride(s0r), src1RepeatStride(s1r) {}
};
template <class T>
struct MrgSortSrcList {
    LocalTensor<T> src1, src2, src3, src4;
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c, const LocalTensor<T>& d)
        : src1(a), src2(b), src3(c), src4(d) {}
};
struct MrgSort4Info {
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 15;
    uint16_t repeatTimes = 1;
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t len[4], bool susp, uint16_t vb, uint16_t rep) : ifExhaustedSuspension(susp), validBit(vb), repeatTimes(rep) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = len[i];
    }
};

}  // namespace AscendC

namespace opkit {
namespace sim {

// Adds as the reduction tree of the vector unit does: rounded to T after every add, and fp16
// sums saturate at +-65504 instead of overflowing to infinity (documented for BlockReduceSum,
// assumed for the other sum reductions).
template <class T>
inline T red_add(T a, T b) {
    if (std::is_same<T, half>::value) {
        float s = float(a) + float(b);
        if (s != s) return T(s);
        if (s > 65504.0f && !std::isinf(float(a)) && !std::isinf(float(b))) return T(65504.0f);
        if (s < -65504.0f && !std::isinf(float(a)) && !std::isinf(float(b))) return T(-65504.0f);
        return T(s);
    }
    return down<T>(up(a) + up(b));
}
// Binary tree over v (adjacent pairs, odd leftover carried), length may be any.
template <class T>
inline T tree_sum(std::vector<T> v) {
    if (v.empty()) return T(0);
    while (v.size() > 1) {
        std::vector<T> n;
        n.reserve((v.size() + 1) / 2);
        for (size_t i = 0; i + 1 < v.size(); i += 2) n.push_back(red_add(v[i], v[i + 1]));
        if (v.size() % 2) n.push_back(v.back());
        v.swap(n);
    }
    return v[0];
}
// Max/min with the first index on ties; a NaN wins (propagates) - assumed.
template <class T>
inline void arg_best(const std::vector<T>& v, bool is_max, T& best, uint32_t& idx) {
    idx = 0;
    best = v[0];
    for (uint32_t i = 1; i < v.size(); ++i) {
        if (isnan_(best)) break;
        if (isnan_(v[i])) { best = v[i]; idx = i; break; }
        if (is_max ? up(v[i]) > up(best) : up(v[i]) < up(best)) { best = v[i]; idx = i; }
    }
}

template <class T>
inline void store_index(uint8_t* p, uint32_t idx) {
    if (sizeof(T) == 2) st<uint16_t>(p, uint16_t(idx));
    else st<uint32_t>(p, idx);
}

// Reads `n` contiguous elements of a source tensor with checks; returns whether all written.
template <class T>
inline bool read_src(const Opd& o, uint64_t first, uint64_t n, uint32_t seq, uint16_t site, const char* api, const SrcLoc& loc,
                     std::vector<T>& out) {
    if ((first + n) * sizeof(T) > o.len)
        fail_at(api, loc, "%s local tensor out of bounds: elements [%llu, %llu), tensor holds %u elements", o.role,
                (unsigned long long)first, (unsigned long long)(first + n), o.len / uint32_t(sizeof(T)));
    touch(A_UB, o.ub + first * sizeof(T), n * sizeof(T), P_V, false, seq, site, api, loc);
    out.resize(n);
    for (uint64_t i = 0; i < n; ++i) out[i] = ld<T>(o.p + (first + i) * sizeof(T));
    return all_init(A_UB, o.ub + first * sizeof(T), n * sizeof(T));
}
template <class T>
inline void write_dst(const Opd& o, uint64_t first, const T* v, uint64_t n, bool ok, uint32_t seq, uint16_t site, const char* api,
                      const SrcLoc& loc) {
    if ((first + n) * sizeof(T) > o.len)
        fail_at(api, loc, "%s local tensor out of bounds: elements [%llu, %llu), tensor holds %u elements", o.role,
                (unsigned long long)first, (unsigned long long)(first + n), o.len / uint32_t(sizeof(T)));
    touch(A_UB, o.ub + first * sizeof(T), n * sizeof(T), P_V, true, seq, site, api, loc);
    std::memcpy(o.p + first * sizeof(T), v, n * sizeof(T));
    set_init(A_UB, o.ub + first * sizeof(T), n * sizeof(T), ok);
}

// Gathers the enabled lanes of each repeat of a masked reduction (values; masked-off lanes excluded).
template <class T>
struct RepeatLanes { std::vector<T> v; std::vector<uint32_t> lane; std::vector<uint8_t> on; };

template <class T>
inline bool collect_repeat(const Opd& s, int64_t r, const MaskSpec& ms, uint32_t E, uint32_t blk, uint32_t rep, uint32_t seq,
                           uint16_t site, const char* api, const SrcLoc& loc, RepeatLanes<T>& out) {
    CoreState& c = core();
    out.v.clear(); out.lane.clear(); out.on.assign(E, 0);
    bool ok = true;
    uint32_t epb = 32 / sizeof(T);
    for (uint32_t e = 0; e < E; ++e) {
        bool on;
        if (c.mask_counter) on = uint64_t(r) * E + e < (ms.bits ? ms.m0 : ms.cont);
        else if (ms.bits) on = e < 64 ? ((ms.m0 >> e) & 1) : ((ms.m1 >> (e - 64)) & 1);
        else on = e < ms.cont;
        if (!on) continue;
        uint64_t el = uint64_t(r) * rep * epb + uint64_t(e / epb) * blk * epb + e % epb;
        uint64_t b = el * sizeof(T);
        if (b + sizeof(T) > s.len)
            fail_at(api, loc, "source local tensor out of bounds: repeat %lld lane %u is element %llu, tensor holds %u elements",
                    (long long)r, e, (unsigned long long)el, s.len / uint32_t(sizeof(T)));
        touch(A_UB, s.ub + b, sizeof(T), P_V, false, seq, site, api, loc);
        ok &= all_init(A_UB, s.ub + b, sizeof(T));
        out.v.push_back(ld<T>(s.p + b));
        out.lane.push_back(e);
        out.on[e] = 1;
    }
    return ok;
}

}  // namespace sim
}  // namespace opkit

namespace AscendC {

// ---- whole-tensor reductions -----------------------------------------------------------------------
template <class T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("ReduceSum", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    (void)tmp;
    const char* api = "ReduceSum";
    CoreState& c = core();
    Opd s = opd(src, false, 1, 8, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, sizeof(T));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    std::vector<T> v;
    bool ok = read_src<T>(s, 0, uint64_t(count < 0 ? 0 : count), seq, site, api, loc, v);
    const size_t E = 256 / sizeof(T);
    // per-repeat partial sums, then the partials again, until one value remains
    while (v.size() > 1) {
        std::vector<T> part;
        for (size_t i = 0; i < v.size(); i += E)
            part.push_back(tree_sum<T>(std::vector<T>(v.begin() + i, v.begin() + std::min(v.size(), i + E))));
        v.swap(part);
    }
    T r = v.empty() ? T(0) : v[0];
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, &r, 1, ok, seq, site, api, loc);
    trace(P_V, uint64_t(count) * sizeof(T), (uint64_t(count) * sizeof(T) + 255) / 256, api, dtype_name<T>());
}

template <class T>
inline void opkit_reduce_best(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count, bool calIndex, bool is_max,
                              const char* api, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    CoreState& c = core();
    Opd s = opd(src, false, 1, 8, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, sizeof(T));
    if (count <= 0) fail_at(api, loc, "count %d must be positive", count);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    std::vector<T> v;
    bool ok = read_src<T>(s, 0, uint64_t(count), seq, site, api, loc, v);
    T best;
    uint32_t idx;
    arg_best(v, is_max, best, idx);
    T out[2] = {best, T(0)};
    store_index<T>(reinterpret_cast<uint8_t*>(&out[1]), idx);
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out, calIndex ? 2 : 1, ok, seq, site, api, loc);
    trace(P_V, uint64_t(count) * sizeof(T), (uint64_t(count) * sizeof(T) + 255) / 256, api, dtype_name<T>());
}
template <class T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t count,
                      bool calIndex = false, OPKIT_LOC) {
    OPKIT_DTYPES("ReduceMax", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    (void)tmp;
    opkit_reduce_best(dst, src, count, calIndex, true, "ReduceMax", loc);
}
template <class T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t count,
                      bool calIndex = false, OPKIT_LOC) {
    OPKIT_DTYPES("ReduceMin", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    (void)tmp;
    opkit_reduce_best(dst, src, count, calIndex, false, "ReduceMin", loc);
}

// ---- per-repeat reductions (WholeReduce*), per-block (BlockReduce*), pairs (PairReduceSum) -----------
// kind: 0 sum, 1 max, 2 min
template <class T>
inline void opkit_whole_reduce(int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms,
                               int32_t repeat, int32_t dstRep, int32_t srcBlk, int32_t srcRep, ReduceOrder order, const char* api,
                               const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    check_repeat(repeat, api, loc);
    CoreState& c = core();
    uint32_t dalign = kind == 0 ? sizeof(T) : 2 * sizeof(T);
    Opd s = opd(src, false, srcBlk, srcRep, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, std::min<uint32_t>(dalign, 32));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = 256 / sizeof(T);
    int64_t reps = c.mask_counter ? int64_t(((ms.bits ? ms.m0 : ms.cont) + E - 1) / E) : repeat;
    RepeatLanes<T> L;
    for (int64_t r = 0; r < reps; ++r) {
        bool ok = collect_repeat<T>(s, r, ms, E, uint32_t(srcBlk), uint32_t(srcRep), seq, site, api, loc, L);
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
        if (L.v.empty()) continue;
        if (kind == 0) {
            std::vector<T> full(E, T(0));
            for (size_t i = 0; i < L.v.size(); ++i) full[L.lane[i]] = L.v[i];
            T sum = tree_sum<T>(full);
            write_dst<T>(d, uint64_t(r) * dstRep, &sum, 1, ok, seq, site, api, loc);
        } else {
            T best;
            uint32_t k;
            arg_best(L.v, kind == 1, best, k);
            uint32_t idx = L.lane[k];
            T pair[2];
            T ib;
            store_index<T>(reinterpret_cast<uint8_t*>(&ib), idx);
            switch (order) {
                case ReduceOrder::ORDER_VALUE_INDEX: pair[0] = best; pair[1] = ib;
                    write_dst<T>(d, uint64_t(r) * dstRep * 2, pair, 2, ok, seq, site, api, loc); break;
                case ReduceOrder::ORDER_INDEX_VALUE: pair[0] = ib; pair[1] = best;
                    write_dst<T>(d, uint64_t(r) * dstRep * 2, pair, 2, ok, seq, site, api, loc); break;
                case ReduceOrder::ORDER_ONLY_VALUE:
                    write_dst<T>(d, uint64_t(r) * dstRep, &best, 1, ok, seq, site, api, loc); break;
                default: {
                    LocalTensor<uint32_t> di = dst.template ReinterpretCast<uint32_t>();
                    Opd d32 = opd(di, true, 1, 8, "destination", api, loc, 4);
                    write_dst<uint32_t>(d32, uint64_t(r) * dstRep, &idx, 1, ok, seq, site, api, loc);
                }
            }
        }
    }
    trace(P_V, uint64_t(reps) * 256, uint64_t(reps), api, dtype_name<T>());
}

#define OPKIT_WHOLE_REDUCE(NAME, KIND, ...)                                                                                    \
    template <class T, bool isSetMask = true>                                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,   \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride __VA_ARGS__, OPKIT_LOC) { \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                                  \
        opkit_whole_reduce(KIND, dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime,      \
                           dstRepStride, srcBlkStride, srcRepStride, OPKIT_ORDER, #NAME, loc);                                \
    }                                                                                                                        \
    template <class T, bool isSetMask = true>                                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,      \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride __VA_ARGS__, OPKIT_LOC) { \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                                  \
        opkit_whole_reduce(KIND, dst, src, isSetMask ? opkit::sim::mask_cont(uint64_t(mask)) : opkit::sim::mask_reg(),        \
                           repeatTime, dstRepStride, srcBlkStride, srcRepStride, OPKIT_ORDER, #NAME, loc);                    \
    }
#define OPKIT_ORDER ReduceOrder::ORDER_VALUE_INDEX
OPKIT_WHOLE_REDUCE(WholeReduceSum, 0)
#undef OPKIT_ORDER
#define OPKIT_ORDER order
OPKIT_WHOLE_REDUCE(WholeReduceMax, 1, , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
OPKIT_WHOLE_REDUCE(WholeReduceMin, 2, , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
#undef OPKIT_ORDER
#undef OPKIT_WHOLE_REDUCE

// One result per 32-B block: 8 results per repeat at dst + r * dstRepStride * 8.
template <class T>
inline void opkit_block_reduce(int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, const opkit::sim::MaskSpec& ms,
                               int32_t dstRep, int32_t srcBlk, int32_t srcRep, const char* api, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    check_repeat(repeat, api, loc);
    CoreState& c = core();
    Opd s = opd(src, false, srcBlk, srcRep, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, 8 * sizeof(T) > 32 ? 32 : 8 * sizeof(T));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = 256 / sizeof(T), epb = 32 / sizeof(T);
    int64_t reps = c.mask_counter ? int64_t(((ms.bits ? ms.m0 : ms.cont) + E - 1) / E) : repeat;
    RepeatLanes<T> L;
    for (int64_t r = 0; r < reps; ++r) {
        bool ok = collect_repeat<T>(s, r, ms, E, uint32_t(srcBlk), uint32_t(srcRep), seq, site, api, loc, L);
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
        for (uint32_t j = 0; j < 8; ++j) {
            std::vector<T> blk;
            std::vector<T> full(epb, T(0));
            bool any = false;
            for (size_t i = 0; i < L.v.size(); ++i)
                if (L.lane[i] / epb == j) { blk.push_back(L.v[i]); full[L.lane[i] % epb] = L.v[i]; any = true; }
            if (!any) continue;
            T res;
            if (kind == 0) res = tree_sum<T>(full);
            else { uint32_t k; arg_best(blk, kind == 1, res, k); }
            write_dst<T>(d, uint64_t(r) * dstRep * 8 + j, &res, 1, ok, seq, site, api, loc);
        }
    }
    trace(P_V, uint64_t(reps) * 256, uint64_t(reps), api, dtype_name<T>());
}
#define OPKIT_BLOCK_REDUCE(NAME, KIND)                                                                                           \
    template <class T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],     \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, OPKIT_LOC) {           \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                                    \
        opkit_block_reduce(KIND, dst, src, repeatTime, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(),       \
                           dstRepStride, srcBlkStride, srcRepStride, #NAME, loc);                                               \
    }                                                                                                                          \
    template <class T, bool isSetMask = true>                                                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,        \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, OPKIT_LOC) {           \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                                    \
        opkit_block_reduce(KIND, dst, src, repeatTime, isSetMask ? opkit::sim::mask_cont(uint64_t(mask)) : opkit::sim::mask_reg(), \
                           dstRepStride, srcBlkStride, srcRepStride, #NAME, loc);                                               \
    }
OPKIT_BLOCK_REDUCE(BlockReduceSum, 0)
OPKIT_BLOCK_REDUCE(BlockReduceMax, 1)
OPKIT_BLOCK_REDUCE(BlockReduceMin, 2)
#undef OPKIT_BLOCK_REDUCE

// Sum of adjacent pairs: E/2 results per repeat at dst + r * dstRepStride * (E/2) (assumed unit).
template <class T>
inline void opkit_pair_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat, const opkit::sim::MaskSpec& ms,
                              int32_t dstRep, int32_t srcBlk, int32_t srcRep, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    const char* api = "PairReduceSum";
    check_repeat(repeat, api, loc);
    CoreState& c = core();
    Opd s = opd(src, false, srcBlk, srcRep, "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, sizeof(T));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = 256 / sizeof(T);
    int64_t reps = c.mask_counter ? int64_t(((ms.bits ? ms.m0 : ms.cont) + E - 1) / E) : repeat;
    RepeatLanes<T> L;
    for (int64_t r = 0; r < reps; ++r) {
        bool ok = collect_repeat<T>(s, r, ms, E, uint32_t(srcBlk), uint32_t(srcRep), seq, site, api, loc, L);
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
        std::vector<T> full(E, T(0));
        for (size_t i = 0; i < L.v.size(); ++i) full[L.lane[i]] = L.v[i];
        for (uint32_t k = 0; k < E / 2; ++k) {
            if (!L.on[2 * k] && !L.on[2 * k + 1]) continue;
            T res = red_add(full[2 * k], full[2 * k + 1]);
            write_dst<T>(d, uint64_t(r) * dstRep * (E / 2) + k, &res, 1, ok, seq, site, api, loc);
        }
    }
    trace(P_V, uint64_t(reps) * 256, uint64_t(reps), api, dtype_name<T>());
}
template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, OPKIT_LOC) {
    OPKIT_DTYPES("PairReduceSum", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    opkit_pair_reduce(dst, src, repeatTime, isSetMask ? opkit::sim::mask_cont(uint64_t(mask)) : opkit::sim::mask_reg(), dstRepStride,
                      srcBlkStride, srcRepStride, loc);
}
template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, OPKIT_LOC) {
    OPKIT_DTYPES("PairReduceSum", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    opkit_pair_reduce(dst, src, repeatTime, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), dstRepStride, srcBlkStride,
                      srcRepStride, loc);
}

// ---- Brcb ------------------------------------------------------------------------------------------
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime, const BrcbRepeatParams& p, OPKIT_LOC) {
    OPKIT_DTYPES("Brcb", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Brcb";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t epb = 32 / sizeof(T);
    std::vector<T> v;
    bool ok = read_src<T>(s, 0, uint64_t(repeatTime) * 8, seq, site, api, loc, v);
    std::vector<T> blk(epb);
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t j = 0; j < 8; ++j) {
            std::fill(blk.begin(), blk.end(), v[r * 8 + j]);
            uint64_t first = (uint64_t(r) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * epb;
            write_dst<T>(d, first, blk.data(), epb, ok, seq, site, api, loc);
        }
    trace(P_V, uint64_t(repeatTime) * 256, repeatTime, api, dtype_name<T>());
}

// ---- Gather / GatherMask ---------------------------------------------------------------------------
template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("Gather", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Gather";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc),
        o = opd(srcOffset, false, 1, 8, "srcOffset", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    std::vector<uint32_t> off;
    bool ok = read_src<uint32_t>(o, 0, count, seq, site, api, loc, off);
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t b = uint64_t(srcBaseAddr) + off[i];
        if (b % sizeof(T)) fail_at(api, loc, "srcOffset[%u] = %u gives byte offset %llu, not a multiple of %zu", i, off[i], (unsigned long long)b, sizeof(T));
        if (b + sizeof(T) > s.len)
            fail_at(api, loc, "srcOffset[%u] = %u (+ base %u) reads byte %llu, outside the source tensor's %u bytes", i, off[i], srcBaseAddr,
                    (unsigned long long)b, s.len);
        touch(A_UB, s.ub + b, sizeof(T), P_V, false, seq, site, api, loc);
        ok &= all_init(A_UB, s.ub + b, sizeof(T));
        out[i] = ld<T>(s.p + b);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out.data(), count, ok, seq, site, api, loc);
    trace(P_V, uint64_t(count) * sizeof(T), (uint64_t(count) * sizeof(T) + 255) / 256, api, dtype_name<T>());
}

template <class T, class U>
inline void opkit_gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>* pattern, uint8_t builtin,
                              bool reduceMode, uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("GatherMask", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "GatherMask";
    CoreState& c = core();
    if (!pattern && (builtin < 1 || builtin > 7)) fail_at(api, loc, "built-in pattern %u is outside 1..7", builtin);
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src0, false, p.src0BlockStride, p.src0RepeatStride, "src0", api, loc);
    Opd pt;
    if (pattern) pt = opd(*pattern, false, 1, 8, "src1Pattern", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = reduceMode ? mask : 256 / sizeof(T);
    const uint32_t epb = 32 / sizeof(T);
    uint32_t reps = p.repeatTimes;
    std::vector<T> out;
    bool ok = true;
    for (uint32_t r = 0; r < reps; ++r) {
        for (uint32_t e = 0; e < E; ++e) {
            bool take;
            if (pattern) {
                uint64_t bit = uint64_t(r) * p.src1RepeatStride * 32 * 8 + e;
                if (bit / 8 >= pt.len) fail_at(api, loc, "src1Pattern out of bounds at repeat %u lane %u", r, e);
                touch(A_UB, pt.ub + bit / 8, 1, P_V, false, seq, site, api, loc);
                ok &= all_init(A_UB, pt.ub + bit / 8, 1);
                take = (pt.p[bit / 8] >> (bit % 8)) & 1;
            } else {
                switch (builtin) {
                    case 1: take = e % 2 == 0; break;
                    case 2: take = e % 2 == 1; break;
                    case 3: take = e % 4 == 0; break;
                    case 4: take = e % 4 == 1; break;
                    case 5: take = e % 4 == 2; break;
                    case 6: take = e % 4 == 3; break;
                    default: take = true;
                }
            }
            if (!take) continue;
            uint64_t el = uint64_t(r) * p.src0RepeatStride * epb + uint64_t(e / epb) * p.src0BlockStride * epb + e % epb;
            if ((el + 1) * sizeof(T) > s.len)
                fail_at(api, loc, "src0 local tensor out of bounds: repeat %u lane %u is element %llu, tensor holds %u elements", r, e,
                        (unsigned long long)el, s.len / uint32_t(sizeof(T)));
            touch(A_UB, s.ub + el * sizeof(T), sizeof(T), P_V, false, seq, site, api, loc);
            ok &= all_init(A_UB, s.ub + el * sizeof(T), sizeof(T));
            out.push_back(ld<T>(s.p + el * sizeof(T)));
        }
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    if (!out.empty()) write_dst<T>(d, 0, out.data(), out.size(), ok, seq, site, api, loc);
    rsvdCnt = out.size();
    trace(P_V, uint64_t(reps) * E * sizeof(T), reps, api, dtype_name<T>());
}
template <class T, class U, GatherMaskMode m = GatherMaskMode::DEFAULT>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, OPKIT_LOC) {
    opkit_gather_mask<T, U>(dst, src0, &src1Pattern, 0, reduceMode, mask, p, rsvdCnt, loc);
}
template <class T, GatherMaskMode m = GatherMaskMode::DEFAULT>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, OPKIT_LOC) {
    opkit_gather_mask<T, uint16_t>(dst, src0, nullptr, src1Pattern, reduceMode, mask, p, rsvdCnt, loc);
}

// ---- index ramps -------------------------------------------------------------------------------------
template <class T>
inline void ArithProgression(const LocalTensor<T>& dst, const T first, const T diff, const int32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("ArithProgression", T, half, float, int16_t, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "ArithProgression", loc)};
    uint8_t* d = o[0].p;
    C<T> f0 = up(first), df = up(diff);
    run_count("ArithProgression", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), down<T>(f0 + C<T>(f[0]) * df)); });
}
template <class T>
inline void Arange(const LocalTensor<T>& dst, const T first, const T diff, const int32_t count, OPKIT_LOC) {
    ArithProgression(dst, first, diff, count, loc);
}
template <class T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const T firstValue, uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("CreateVecIndex", T, half, float, int16_t, int32_t);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    Opd o[1] = {opd(dst, true, 1, 8, "destination", "CreateVecIndex", loc)};
    uint8_t* d = o[0].p;
    C<T> f0 = up(firstValue);
    run_count("CreateVecIndex", loc, o, count, [&](const uint64_t* f) { st<T>(d + f[0] * sizeof(T), down<T>(f0 + C<T>(f[0]))); });
}

// ---- sorting -------------------------------------------------------------------------------------------
// (score, index) pairs of 8 bytes: float score in the low 4 B, half score in the low 2 B (2 B
// reserved); the uint32 index in the high 4 B. Descending; equal scores keep their order; NaN
// sorts as the largest value (assumed).
namespace opkit_sort {
template <class T> struct Item { T score; uint32_t index; };
template <class T> inline bool before(const Item<T>& a, const Item<T>& b) {
    bool an = opkit::sim::isnan_(a.score), bn = opkit::sim::isnan_(b.score);
    if (an || bn) return an && !bn;
    return float(a.score) > float(b.score);
}
template <class T> inline Item<T> load(const uint8_t* p) {
    Item<T> it;
    std::memcpy(&it.score, p, sizeof(T));
    std::memcpy(&it.index, p + 4, 4);
    return it;
}
template <class T> inline void store(uint8_t* p, const Item<T>& it) {
    std::memset(p, 0, 8);
    std::memcpy(p, &it.score, sizeof(T));
    std::memcpy(p + 4, &it.index, 4);
}
}  // namespace opkit_sort

template <class T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1, const int32_t repeatTime, OPKIT_LOC) {
    OPKIT_DTYPES("Sort32", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Sort32";
    check_repeat(repeatTime, api, loc);
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src0, false, 1, 8, "src0", api, loc), x = opd(src1, false, 1, 8, "src1", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t n = uint64_t(repeatTime) * 32;
    std::vector<T> sc;
    std::vector<uint32_t> ix;
    bool ok = read_src<T>(s, 0, n, seq, site, api, loc, sc);
    ok &= read_src<uint32_t>(x, 0, n, seq, site, api, loc, ix);
    if (n * 8 > d.len) fail_at(api, loc, "destination local tensor out of bounds: %llu bytes needed, tensor holds %u", (unsigned long long)(n * 8), d.len);
    touch(A_UB, d.ub, n * 8, P_V, true, seq, site, api, loc);
    for (int32_t r = 0; r < repeatTime; ++r) {
        std::vector<opkit_sort::Item<T>> g(32);
        for (int k = 0; k < 32; ++k) g[k] = {sc[r * 32 + k], ix[r * 32 + k]};
        std::stable_sort(g.begin(), g.end(), opkit_sort::before<T>);
        for (int k = 0; k < 32; ++k) opkit_sort::store(d.p + (uint64_t(r) * 32 + k) * 8, g[k]);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    set_init(A_UB, d.ub, n * 8, ok);
    trace(P_V, n * sizeof(T), uint64_t(repeatTime), api, dtype_name<T>());
}

inline uint16_t (&opkit_mrg_counts())[4] { static thread_local uint16_t c[4] = {0, 0, 0, 0}; return c; }
inline void GetMrgSortResult(uint16_t& a, uint16_t& b, uint16_t& c, uint16_t& d) {
    auto& m = opkit_mrg_counts();
    a = m[0]; b = m[1]; c = m[2]; d = m[3];
}

// MrgSort: merge up to 4 sorted (score, index) lists. repeatTimes > 1 needs four contiguous lists
// of equal length and no exhausted-suspension; each repeat moves source and destination on by
// the four lists' total length (documented conditions).
template <class T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& info, OPKIT_LOC) {
    OPKIT_DTYPES("MrgSort", T, half, float);
    if (::opkit::sim::on_aic()) return;
    using namespace opkit::sim;
    const char* api = "MrgSort";
    CoreState& c = core();
    int nl = info.validBit == 3 ? 2 : info.validBit == 7 ? 3 : info.validBit == 15 ? 4 : 0;
    if (!nl) fail_at(api, loc, "validBit %u must be 3, 7 or 15", info.validBit);
    if (info.repeatTimes < 1) fail_at(api, loc, "repeatTimes %u is outside [1, 255]", info.repeatTimes);
    const LocalTensor<T>* ls[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    if (info.repeatTimes > 1) {
        bool same = nl == 4 && !info.ifExhaustedSuspension;
        for (int i = 1; i < 4 && same; ++i)
            same = info.elementLengths[i] == info.elementLengths[0] &&
                   ls[i]->address_.bufferAddr == ls[0]->address_.bufferAddr + uint32_t(i) * info.elementLengths[0] * 8u;
        if (!same)
            fail_at(api, loc, "repeatTimes %u > 1 needs 4 valid lists of equal length stored one after another and "
                    "ifExhaustedSuspension = false", info.repeatTimes);
    }
    Opd d = opd(dst, true, 1, 8, "destination", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    bool ok = true;
    uint64_t total = 0, dst_off = 0;
    auto& cnt = opkit_mrg_counts();
    for (uint32_t rep = 0; rep < info.repeatTimes; ++rep) {
        uint64_t shift = uint64_t(rep) * 4 * info.elementLengths[0] * 8;  // bytes (repeatTimes > 1 only)
        std::vector<std::vector<opkit_sort::Item<T>>> L(nl);
        for (int i = 0; i < nl; ++i) {
            Opd s = opd(*ls[i], false, 1, 8, "source list", api, loc, 8);
            uint64_t n = info.elementLengths[i];
            if (shift + n * 8 > s.len)
                fail_at(api, loc, "source list %d out of bounds: %llu pairs at byte %llu, tensor holds %u bytes", i, (unsigned long long)n,
                        (unsigned long long)shift, s.len);
            touch(A_UB, s.ub + shift, n * 8, P_V, false, seq, site, api, loc);
            ok &= all_init(A_UB, s.ub + shift, n * 8);
            for (uint64_t k = 0; k < n; ++k) L[i].push_back(opkit_sort::load<T>(s.p + shift + k * 8));
            total += n;
        }
        std::vector<opkit_sort::Item<T>> out;
        size_t pos[4] = {0, 0, 0, 0};
        while (true) {
            int best = -1;
            bool exhausted = false;
            for (int i = 0; i < nl; ++i) {
                if (pos[i] >= L[i].size()) { exhausted = true; continue; }
                if (best < 0 || opkit_sort::before(L[i][pos[i]], L[best][pos[best]])) best = i;
            }
            if (best < 0 || (exhausted && info.ifExhaustedSuspension)) break;
            out.push_back(L[best][pos[best]++]);
        }
        for (int i = 0; i < 4; ++i) cnt[i] = i < nl ? uint16_t(pos[i]) : 0;
        if (dst_off + out.size() * 8 > d.len) fail_at(api, loc, "destination out of bounds: %zu pairs, tensor holds %u bytes", out.size(), d.len);
        touch(A_UB, d.ub + dst_off, out.size() * 8, P_V, true, seq, site, api, loc);
        for (size_t k = 0; k < out.size(); ++k) opkit_sort::store(d.p + dst_off + k * 8, out[k]);
        set_init(A_UB, d.ub + dst_off, out.size() * 8, ok);
        dst_off += out.size() * 8;
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    trace(P_V, total * 8, (total + 31) / 32, api, dtype_name<T>());
}

// Sort (advanced API): sorts repeatTime x 32 scores with their indices into (score, index) pairs.
template <class T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index, LocalTensor<T>& tmp,
                 const int32_t repeatTime, OPKIT_LOC) {
    OPKIT_DTYPES("Sort", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    (void)tmp;
    Sort32(dst, concat, index, repeatTime, loc);
    if (!isFullSort) return;
    const char* api = "Sort";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t n = uint64_t(repeatTime) * 32;
    touch(A_UB, d.ub, n * 8, P_V, true, seq, site, api, loc);
    std::vector<opkit_sort::Item<T>> all(n);
    for (uint64_t k = 0; k < n; ++k) all[k] = opkit_sort::load<T>(d.p + k * 8);
    std::stable_sort(all.begin(), all.end(), opkit_sort::before<T>);
    for (uint64_t k = 0; k < n; ++k) opkit_sort::store(d.p + k * 8, all[k]);
}

// Extract: split (score, index) pairs into scores and indices.
template <class T>
inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted, const int32_t repeatTime,
                    OPKIT_LOC) {
    OPKIT_DTYPES("Extract", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Extract";
    CoreState& c = core();
    Opd v = opd(dstValue, true, 1, 8, "dstValue", api, loc), x = opd(dstIndex, true, 1, 8, "dstIndex", api, loc), s = opd(sorted, false, 1, 8, "sorted", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t n = uint64_t(repeatTime) * 32;
    if (n * 8 > s.len) fail_at(api, loc, "sorted tensor out of bounds");
    touch(A_UB, s.ub, n * 8, P_V, false, seq, site, api, loc);
    bool ok = all_init(A_UB, s.ub, n * 8);
    std::vector<T> vs(n);
    std::vector<uint32_t> is(n);
    for (uint64_t k = 0; k < n; ++k) { auto it = opkit_sort::load<T>(s.p + k * 8); vs[k] = it.score; is[k] = it.index; }
    write_dst<T>(v, 0, vs.data(), n, ok, seq, site, api, loc);
    write_dst<uint32_t>(x, 0, is.data(), n, ok, seq, site, api, loc);
}

// ---- Sigmoid (advanced API) ------------------------------------------------------------------------------
// Emulated as the vector sequence Muls(-1), Exp, Adds(1), Reciprocal, each rounded to T (assumed).
template <class T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
                    OPKIT_LOC) {
    OPKIT_DTYPES("Sigmoid", T, half, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    (void)sharedTmpBuffer;
    Opd o[2] = {opd(dst, true, 1, 8, "destination", "Sigmoid", loc), opd(src, false, 1, 8, "source", "Sigmoid", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_count("Sigmoid", loc, o, calCount, [&](const uint64_t* f) {
        T x = ld<T>(s + f[1] * sizeof(T));
        T t = down<T>(-up(x));
        t = down<T>(std::exp(up(t)));
        t = down<T>(up(t) + 1.0f);
        st<T>(d + f[0] * sizeof(T), down<T>(1.0f / up(t)));
    });
}
template <class T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Sigmoid", loc);  // no shared tmp buffer: the API takes its scratch from the reserved area
    LocalTensor<uint8_t> none;
    Sigmoid<T, isReuseSource>(dst, src, none, calCount, loc);
}

// ---- further advanced element-wise APIs (computed in float, one rounding to T — assumed) ------------------
#define OPKIT_ADV_UNARY(NAME, EXPR)                                                                                  \
    template <class T>                                                                                             \
    inline void opkit_##NAME##_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t n, const opkit::sim::SrcLoc& loc) { \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                       \
        using namespace opkit::sim;                                                                                \
        Opd o[2] = {opd(dst, true, 1, 8, "destination", #NAME, loc), opd(src, false, 1, 8, "source", #NAME, loc)}; \
        uint8_t *d = o[0].p, *s = o[1].p;                                                                          \
        run_count(#NAME, loc, o, n, [&](const uint64_t* f) {                                                      \
            float x = float(ld<T>(s + f[1] * sizeof(T)));                                                          \
            st<T>(d + f[0] * sizeof(T), T(EXPR));                                                                  \
        });                                                                                                        \
    }
// Gelu(x) = x / (1 + exp(-1.59576912 (x + 0.044715 x^3)))  (asc-devkit include/adv_api/activation/gelu.h)
OPKIT_ADV_UNARY(Gelu, x / (1.0f + std::exp(-1.59576912f * (x + 0.044715f * x * x * x))))
// FastGelu form: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))
OPKIT_ADV_UNARY(FasterGelu, x / (1.0f + std::exp(-1.702f * std::fabs(x))) * std::exp(0.851f * (x - std::fabs(x))))
// Silu(x) = x / (1 + exp(-x))
OPKIT_ADV_UNARY(Silu, x / (1.0f + std::exp(-x)))
#undef OPKIT_ADV_UNARY

template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const uint32_t dataSize, OPKIT_LOC) {
    (void)tmp;
    opkit_Gelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("Gelu", loc);
    opkit_Gelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp, const uint32_t dataSize, OPKIT_LOC) {
    (void)tmp;
    opkit_FasterGelu_impl(dst, src, dataSize, loc);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("FasterGelu", loc);
    opkit_FasterGelu_impl(dst, src, dataSize, loc);
}
template <class T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, OPKIT_LOC) {
    opkit_Silu_impl(dst, src, dataSize, loc);
}

// ---- ReduceSum / ReduceMax / ReduceMin, mask/repeat forms ---------------------------------------------------
// All enabled lanes of all repeats (source repeat stride in 32-B blocks, block stride 1) reduce to
// dst[0]; sums reduce each repeat as a tree, then the partials (as the count form).
template <class T>
inline void opkit_reduce_masked(int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms,
                                int32_t repeat, int32_t srcRep, bool calIndex, const char* api, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    check_repeat(repeat, api, loc);
    if (on_aic()) return;
    CoreState& c = core();
    Opd s = opd(src, false, 1, uint32_t(srcRep), "source", api, loc), d = opd(dst, true, 1, 8, "destination", api, loc, sizeof(T));
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = 256 / sizeof(T), epb = 32 / sizeof(T);
    RepeatLanes<T> L;
    std::vector<T> parts, all;
    std::vector<uint32_t> where;
    bool ok = true;
    for (int32_t r = 0; r < repeat; ++r) {
        ok &= collect_repeat<T>(s, r, ms, E, 1, uint32_t(srcRep), seq, site, api, loc, L);
        if (kind == 0) {
            std::vector<T> full(E, T(0));
            for (size_t i = 0; i < L.v.size(); ++i) full[L.lane[i]] = L.v[i];
            parts.push_back(tree_sum<T>(full));
        } else {
            for (size_t i = 0; i < L.v.size(); ++i) {
                all.push_back(L.v[i]);
                where.push_back(uint32_t(r) * uint32_t(srcRep) * epb + L.lane[i]);
            }
        }
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    T out[2] = {T(0), T(0)};
    if (kind == 0) {
        while (parts.size() > 1) {
            std::vector<T> nxt;
            for (size_t i = 0; i < parts.size(); i += E)
                nxt.push_back(tree_sum<T>(std::vector<T>(parts.begin() + i, parts.begin() + std::min(parts.size(), i + E))));
            parts.swap(nxt);
        }
        out[0] = parts.empty() ? T(0) : parts[0];
    } else if (!all.empty()) {
        uint32_t k;
        arg_best(all, kind == 1, out[0], k);
        store_index<T>(reinterpret_cast<uint8_t*>(&out[1]), where[k]);
    }
    write_dst<T>(d, 0, out, calIndex ? 2 : 1, ok, seq, site, api, loc);
    trace(P_V, uint64_t(repeat) * 256, uint64_t(repeat), api, dtype_name<T>());
}
#define OPKIT_REDUCE_MASKED(NAME, KIND)                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const uint64_t mask[], \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, OPKIT_LOC) {     \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                        \
        (void)tmp;                                                                                                  \
        opkit_reduce_masked(KIND, dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, \
                            srcRepStride, calIndex, #NAME, loc);                                                    \
    }                                                                                                               \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t mask, \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, OPKIT_LOC) {     \
        OPKIT_DTYPES(#NAME, T, half, float);                                                                        \
        (void)tmp;                                                                                                  \
        opkit_reduce_masked(KIND, dst, src, isSetMask ? opkit::sim::mask_cont(uint64_t(mask)) : opkit::sim::mask_reg(), \
                            repeatTime, srcRepStride, calIndex, #NAME, loc);                                        \
    }
OPKIT_REDUCE_MASKED(ReduceSum, 0)
OPKIT_REDUCE_MASKED(ReduceMax, 1)
OPKIT_REDUCE_MASKED(ReduceMin, 2)
#undef OPKIT_REDUCE_MASKED

// ---- BroadCast (advanced API): numpy-style broadcast of src (size 1 along `axis`) to dstShape ------------
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      OPKIT_LOC) {
    static_assert(dim >= 1 && dim <= 2 && axis >= 0 && axis < dim, "BroadCast: dim 1 or 2, axis < dim");
    OPKIT_DTYPES("BroadCast", T, half, float, int8_t, uint8_t);
    using namespace opkit::sim;
    const char* api = "BroadCast";
    if (on_aic()) return;
    for (int i = 0; i < dim; ++i)
        if (srcShape[i] != dstShape[i] && !(i == axis && srcShape[i] == 1))
            fail_at(api, loc, "srcShape[%d] = %u cannot broadcast to dstShape[%d] = %u along axis %d", i, srcShape[i], i, dstShape[i], axis);
    uint64_t rows = dim == 2 ? dstShape[0] : 1, cols = dstShape[dim - 1];
    uint64_t scols = srcShape[dim - 1];
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = core().site(api, loc);
    std::vector<T> sv;
    uint64_t sn = (dim == 2 ? srcShape[0] : 1) * scols;
    bool ok = read_src<T>(s, 0, sn, seq, site, api, loc, sv);
    std::vector<T> out(rows * cols);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
            uint64_t sr = (dim == 2 && srcShape[0] == 1) ? 0 : r, sc = scols == 1 ? 0 : c;
            out[r * cols + c] = sv[sr * scols + sc];
        }
    write_dst<T>(d, 0, out.data(), out.size(), ok, seq, site, api, loc);
    trace(P_V, out.size() * sizeof(T), (out.size() * sizeof(T) + 255) / 256, api, dtype_name<T>());
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& tmp, OPKIT_LOC) {
    (void)tmp;
    BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, loc);
}

// ---- SelectWithBytesMask (advanced API): byte-per-element mask, 0 -> src0, otherwise -> src1 ------------------
struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};
template <class T, class U>
inline void opkit_select_bytes(const LocalTensor<T>& dst, const LocalTensor<T>* t0, T s0, const LocalTensor<T>* t1, T s1,
                               const LocalTensor<U>& mask, const SelectWithBytesMaskShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("SelectWithBytesMask", T, half, float);
    using namespace opkit::sim;
    const char* api = "SelectWithBytesMask";
    if (on_aic()) return;
    if (info.maskLastAxis < info.srcLastAxis)
        fail_at(api, loc, "maskLastAxis %u is smaller than srcLastAxis %u", info.maskLastAxis, info.srcLastAxis);
    if ((uint64_t(info.srcLastAxis) * sizeof(T)) % 32)
        fail_at(api, loc, "srcLastAxis %u x %zu B is not 32-byte aligned", info.srcLastAxis, sizeof(T));
    if ((uint64_t(info.maskLastAxis) * sizeof(U)) % 32 || info.maskLastAxis % 16)
        fail_at(api, loc, "maskLastAxis %u must be 32-byte aligned and a multiple of 16", info.maskLastAxis);
    CoreState& c = core();
    const LocalTensor<T>& src = t0 ? *t0 : *t1;
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc), m = opd(mask, false, 1, 8, "mask", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t rows = info.firstAxis, cols = info.srcLastAxis, mcols = info.maskLastAxis;
    std::vector<T> sv;
    std::vector<U> mv;
    bool ok = read_src<T>(s, 0, rows * cols, seq, site, api, loc, sv);
    ok &= read_src<U>(m, 0, rows * mcols, seq, site, api, loc, mv);
    std::vector<T> out(rows * cols);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t k = 0; k < cols; ++k) {
            bool zero = float(mv[r * mcols + k]) == 0.0f;
            T a = t0 ? sv[r * cols + k] : s0, b = t1 ? sv[r * cols + k] : s1;
            out[r * cols + k] = zero ? a : b;
        }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out.data(), out.size(), ok, seq, site, api, loc);
    trace(P_V, out.size() * sizeof(T), (out.size() * sizeof(T) + 255) / 256, api, dtype_name<T>());
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_select_bytes<T, U>(dst, &src0, T(0), nullptr, src1, mask, info, loc);
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_select_bytes<T, U>(dst, nullptr, src0, &src1, T(0), mask, info, loc);
}

// ---- SoftmaxFlashV2 (advanced API, ND, one dtype) -----------------------------------------------------------------
// Row-wise online softmax over src [srcM, srcK]: max = rowmax(x) (isUpdate: max(inMax, rowmax)),
// dst = exp(x - max), sum = rowsum(dst) (isUpdate: inSum * expMax + rowsum, expMax = exp(inMax - max)).
// max/sum/expMax and the in* tensors hold each row's value repeated over one 32-B block.
// Each step rounds to T; row sums use the reduction tree (assumed).
struct SoftMaxShapeInfo {
    uint32_t srcM = 0, srcK = 0, oriSrcM = 0, oriSrcK = 0;
};
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0, oriSrcK = 0;
    uint32_t mode = 0;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, 0};
constexpr SoftmaxConfig SOFTMAX_REDUCE_CFG = {true, 0, 0, 1};

constexpr tiling::SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(uint32_t srcM, uint32_t srcK, uint32_t dtypeSize1, uint32_t dtypeSize2,
                                                      uint32_t localWorkSpaceSize, bool isUpdate = false, bool isBasicBlock = false,
                                                      bool isDataFormatNZ = false, bool isFlashOutputBrc = false) {
    tiling::SoftMaxTiling t{};
    t.srcM = srcM; t.srcK = srcK; t.srcSize = srcM * srcK;
    t.outMaxM = srcM; t.outMaxK = 32 / (dtypeSize2 ? dtypeSize2 : 4); t.outMaxSize = t.outMaxM * t.outMaxK;
    t.splitM = srcM; t.splitK = srcK; t.splitSize = srcM * srcK;
    t.reduceM = srcM; t.reduceK = t.outMaxK; t.reduceSize = t.outMaxSize; t.rangeM = 1;
    (void)dtypeSize1; (void)localWorkSpaceSize; (void)isUpdate; (void)isBasicBlock; (void)isDataFormatNZ; (void)isFlashOutputBrc;
    return t;
}

template <class T, bool isUpdate>
inline void opkit_softmax_flash_v2(const LocalTensor<T>& dst, const LocalTensor<T>& sumT, const LocalTensor<T>& maxT, const LocalTensor<T>& src,
                                   const LocalTensor<T>& expMaxT, const LocalTensor<T>& inSumT, const LocalTensor<T>& inMaxT,
                                   const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("SoftmaxFlashV2", T, half, float);
    using namespace opkit::sim;
    const char* api = "SoftmaxFlashV2";
    if (on_aic()) return;
    uint32_t m = info.srcM ? info.srcM : tiling.srcM, k = info.srcK ? info.srcK : tiling.srcK;
    uint32_t kv = info.oriSrcK ? info.oriSrcK : k;
    if ((uint64_t(k) * sizeof(T)) % 32) fail_at(api, loc, "srcK %u x %zu B is not 32-byte aligned", k, sizeof(T));
    if (kv > k) fail_at(api, loc, "oriSrcK %u exceeds srcK %u", kv, k);
    const uint32_t B = 32 / sizeof(T);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    Opd mx = opd(maxT, true, 1, 8, "max", api, loc), sm = opd(sumT, true, 1, 8, "expSum", api, loc);
    std::vector<T> x, inMax, inSum;
    bool ok = read_src<T>(s, 0, uint64_t(m) * k, seq, site, api, loc, x);
    if (isUpdate) {
        Opd im = opd(inMaxT, false, 1, 8, "inMax", api, loc), is = opd(inSumT, false, 1, 8, "inExpSum", api, loc);
        ok &= read_src<T>(im, 0, uint64_t(m) * B, seq, site, api, loc, inMax);
        ok &= read_src<T>(is, 0, uint64_t(m) * B, seq, site, api, loc, inSum);
    }
    std::vector<T> y(uint64_t(m) * k), omax(uint64_t(m) * B), osum(uint64_t(m) * B), oexp(uint64_t(m) * B);
    for (uint32_t r = 0; r < m; ++r) {
        const T* row = x.data() + uint64_t(r) * k;
        std::vector<T> valid(row, row + kv);
        T rmax;
        uint32_t idx;
        arg_best(valid, true, rmax, idx);
        T mnew = rmax;
        if (isUpdate) mnew = down<T>(vmax<T>(up(inMax[uint64_t(r) * B]), up(rmax)));
        for (uint32_t j = 0; j < k; ++j) {
            T diff = down<T>(up(row[j]) - up(mnew));
            y[uint64_t(r) * k + j] = down<T>(std::exp(up(diff)));
        }
        T rsum = tree_sum<T>(std::vector<T>(y.begin() + uint64_t(r) * k, y.begin() + uint64_t(r) * k + kv));
        T em = T(0), snew = rsum;
        if (isUpdate) {
            T d0 = down<T>(up(inMax[uint64_t(r) * B]) - up(mnew));
            em = down<T>(std::exp(up(d0)));
            T prod = down<T>(up(inSum[uint64_t(r) * B]) * up(em));
            snew = down<T>(up(prod) + up(rsum));
        }
        for (uint32_t j = 0; j < B; ++j) {
            omax[uint64_t(r) * B + j] = mnew;
            osum[uint64_t(r) * B + j] = snew;
            oexp[uint64_t(r) * B + j] = em;
        }
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, y.data(), y.size(), ok, seq, site, api, loc);
    write_dst<T>(mx, 0, omax.data(), omax.size(), ok, seq, site, api, loc);
    write_dst<T>(sm, 0, osum.data(), osum.size(), ok, seq, site, api, loc);
    if (isUpdate) {
        Opd ex = opd(expMaxT, true, 1, 8, "expMax", api, loc);
        write_dst<T>(ex, 0, oexp.data(), oexp.size(), ok, seq, site, api, loc);
    }
    trace(P_V, uint64_t(m) * k * sizeof(T), (uint64_t(m) * k * sizeof(T) + 255) / 256 * 4, api, dtype_name<T>());
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSum, const LocalTensor<T>& max, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMax, const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax, const tiling::SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& info = {}, OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftmaxFlashV2 on NZ data is not simulated yet");
    opkit::sim::claim_reserved_ub("SoftmaxFlashV2", loc);
    opkit_softmax_flash_v2<T, isUpdate>(dst, expSum, max, src, expMax, inExpSum, inMax, tiling, info, loc);
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSum, const LocalTensor<T>& max, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMax, const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& info = {},
                           OPKIT_LOC) {
    static_assert(!isDataFormatNZ, "opkit simulator: SoftmaxFlashV2 on NZ data is not simulated yet");
    (void)sharedTmpBuffer;
    opkit_softmax_flash_v2<T, isUpdate>(dst, expSum, max, src, expMax, inExpSum, inMax, tiling, info, loc);
}

// ---- AscendDequant (advanced API): dst(x, y) = src(x, y) * deqScale(y) for y < calCount ---------------------------
// src int32 [m, n]; dst rows padded to 32 B; products in fp32, one RINT rounding to dstT (assumed);
// DEQUANT_WITH_SINGLE_ROW turns {1, n, c} into {n / c, c, c} when c is a multiple of 32 / sizeof(dstT)
// and n % c == 0 (documented). Columns from calCount to the padded row end are left undefined.
enum class DeQuantMode : uint8_t { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };
struct DequantParams {
    uint32_t m = 0, n = 0, calCount = 0;
};
template <class dstT, class scaleT, DeQuantMode mode>
inline void opkit_dequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>* scaleT_, float scalar,
                          DequantParams p, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("AscendDequant", dstT, half, float, bfloat16_t);
    using namespace opkit::sim;
    const char* api = "AscendDequant";
    if (on_aic()) return;
    if (mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount && p.calCount % (32 / sizeof(dstT)) == 0 &&
        p.n % p.calCount == 0) {
        p = DequantParams{p.n / p.calCount, p.calCount, p.calCount};
    }
    if ((uint64_t(p.n) * 4) % 32) fail_at(api, loc, "a source row of %u int32 values is not 32-byte aligned", p.n);
    if (p.calCount > p.n) fail_at(api, loc, "calCount %u exceeds the row length n = %u", p.calCount, p.n);
    uint64_t nd = (uint64_t(p.n) * sizeof(dstT) + 31) / 32 * 32 / sizeof(dstT);
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    std::vector<int32_t> sv;
    bool ok = read_src<int32_t>(s, 0, uint64_t(p.m) * p.n, seq, site, api, loc, sv);
    std::vector<scaleT> sc;
    if (scaleT_) {
        Opd so = opd(*scaleT_, false, 1, 8, "deqScale", api, loc);
        ok &= read_src<scaleT>(so, 0, p.calCount, seq, site, api, loc, sc);
    }
    for (uint32_t r = 0; r < p.m; ++r) {
        std::vector<dstT> row(p.calCount);
        for (uint32_t k = 0; k < p.calCount; ++k) {
            float f = float(sv[uint64_t(r) * p.n + k]) * (scaleT_ ? float(sc[k]) : scalar);
            row[k] = cast_to_rint<dstT>(f);
        }
        if (p.calCount) write_dst<dstT>(d, uint64_t(r) * nd, row.data(), p.calCount, ok, seq, site, api, loc);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    trace(P_V, uint64_t(p.m) * p.calCount * sizeof(dstT), (uint64_t(p.m) * p.n * 4 + 255) / 256 * 3, api, dtype_name<dstT>());
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>& deqScale,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0.0f, params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const LocalTensor<scaleT>& deqScale,
                          DequantParams params, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendDequant", loc);
    opkit_dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0.0f, params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || opkit::is_f16<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr), float(deqScale), params, loc);
}
template <class dstT, class scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename std::enable_if<std::is_arithmetic<scaleT>::value || opkit::is_f16<scaleT>::value, int>::type = 0>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale, DequantParams params, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendDequant", loc);
    opkit_dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr), float(deqScale), params, loc);
}

}  // namespace AscendC
