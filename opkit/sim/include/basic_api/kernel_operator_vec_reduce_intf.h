// opkit simulator: reductions: ReduceSum/Max/Min (count and mask/repeat forms), WholeReduce*, BlockReduce*, PairReduceSum.
#pragma once
#include "impl/opkit/reduce_util.h"

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
    max_min_spr().record(out);
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
        if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the sums of those lanes are marked unwritten too)");
        std::vector<T> full(E, T(0));
        for (size_t i = 0; i < L.v.size(); ++i) full[L.lane[i]] = L.v[i];
        for (uint32_t k = 0; k < E / 2; ++k) {
            if (!L.on[2 * k] && !L.on[2 * k + 1]) continue;
            T res = red_add(full[2 * k], full[2 * k + 1]);
            write_dst<T>(d, uint64_t(r) * dstRep * (E / 2) + k, &res, 1, L.w[2 * k] && L.w[2 * k + 1], seq, site, api,
                         loc);  // each sum is written when both its lanes were
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

}  // namespace AscendC

namespace AscendC {

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
        max_min_spr().record(out);
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

}  // namespace AscendC

namespace AscendC {

// ---- GetReduceMaxMinCount / GetReduceRepeatMaxMinSpr: the value and index the last ReduceMax/ReduceMin
// left in the special register (the index in the same encoding as ReduceMax's dst[1]).
template <class T>
inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, T& maxMinIndex, OPKIT_LOC) {
    auto& s = opkit::sim::max_min_spr();
    if (!s.set) opkit::sim::fail_at("GetReduceMaxMinCount", loc, "no ReduceMax/ReduceMin has run on this core yet");
    std::memcpy(&maxMinValue, s.bits, sizeof(T));
    std::memcpy(&maxMinIndex, s.bits + sizeof(T), sizeof(T));
}
template <class T>
inline void GetReduceRepeatMaxMinSpr(T& maxMinValue, OPKIT_LOC) {
    T idx;
    GetReduceRepeatMaxMinSpr(maxMinValue, idx, loc);
}
template <class T>
inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex, OPKIT_LOC) { GetReduceRepeatMaxMinSpr(maxMinValue, maxMinIndex, loc); }
template <class T>
inline void GetReduceMaxMinCount(T& maxMinValue, OPKIT_LOC) { GetReduceRepeatMaxMinSpr(maxMinValue, loc); }

}  // namespace AscendC
