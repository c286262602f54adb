// opkit simulator: (score, index) proposals: Sort32, MrgSort, GetMrgSortResult, Extract.
#pragma once
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_struct_proposal.h"

namespace AscendC {

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
    // Written-state per output pair: a never-written score can land anywhere in its repeat (the whole
    // repeat's result is unwritten); a never-written index travels with its score (that index only).
    const bool track = !ok && !trace_only();
    for (int32_t r = 0; r < repeatTime; ++r) {
        std::vector<opkit_sort::Item<T>> g(32);
        std::vector<std::pair<opkit_sort::Item<T>, bool>> gi(32);
        bool scores_ok = true;
        for (int k = 0; k < 32; ++k) {
            const uint64_t e = uint64_t(r) * 32 + k;
            g[k] = {sc[e], ix[e]};
            if (track) {
                scores_ok &= all_init(A_UB, s.ub + e * sizeof(T), sizeof(T));
                gi[k] = {g[k], all_init(A_UB, x.ub + e * 4, 4)};
            }
        }
        if (track) {
            std::stable_sort(gi.begin(), gi.end(), [](const auto& a, const auto& b) { return opkit_sort::before<T>(a.first, b.first); });
            for (int k = 0; k < 32; ++k) g[k] = gi[k].first;
        } else {
            std::stable_sort(g.begin(), g.end(), opkit_sort::before<T>);
        }
        for (int k = 0; k < 32; ++k) opkit_sort::store(d.p + (uint64_t(r) * 32 + k) * 8, g[k]);
        const uint64_t at = d.ub + uint64_t(r) * 32 * 8;
        set_init(A_UB, at, 32 * 8, !track || scores_ok);
        if (track && scores_ok)
            for (int k = 0; k < 32; ++k)
                if (!gi[k].second) set_init(A_UB, at + uint64_t(k) * 8 + 4, 4, false);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the pairs they reach are marked unwritten too)");
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

}  // namespace AscendC

namespace AscendC {

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

}  // namespace AscendC

namespace AscendC {

// ---- GetSortOffset / GetSortLen: offsets and lengths in the sorted (score, index) structure, in units
// of T. A2/A3 (Sort32/MrgSort): one 8-byte (score, index) pair per element; 200-series chips
// (NPU arch 2002, region proposals): 8 elements of T per proposal.
template <class T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
#if __NPU_ARCH__ == 2002
    return elemOffset * 8;
#else
    return elemOffset * 8 / uint32_t(sizeof(T));
#endif
}
template <class T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
#if __NPU_ARCH__ == 2002
    return elemCount * 8;
#else
    return elemCount * 8 / uint32_t(sizeof(T));
#endif
}

}  // namespace AscendC

namespace AscendC {

// MrgSort with the element counts as an array: merges up to 4 sorted lists (validBit 3, 7 or 15);
// with isExhaustedSuspension the merge stops when the first list runs out, and sortedNum[i]
// receives how many elements of list i were merged (what GetMrgSortResult reports).
template <class T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime, OPKIT_LOC) {
    MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit, uint16_t(repeatTime));
    MrgSort(dst, sortList, info, loc);
    uint16_t c[4];
    GetMrgSortResult(c[0], c[1], c[2], c[3]);
    for (int i = 0; i < 4; ++i) sortedNum[i] = c[i];
}

}  // namespace AscendC

namespace AscendC {

// Concat: prepares scores for Sort. On A2/A3 Sort reads the scores as they are, so `concat` becomes
// a view of `src` (the documented behaviour); the 200-series region-proposal form is not modelled.
template <class T>
inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t repeatTime,
                   OPKIT_LOC) {
    OPKIT_DTYPES("Concat", T, half, float);
    (void)tmp;
    if (repeatTime < 0 || repeatTime > 255) opkit::sim::fail_at("Concat", loc, "repeatTime %d is outside [0, 255]", repeatTime);
#if __NPU_ARCH__ == 2002
    opkit::sim::fail_at("Concat", loc, "the region-proposal form of NPU arch 2002 is not modelled by the simulator");
#else
    if (uint64_t(repeatTime) * 32 > src.GetSize())
        opkit::sim::fail_at("Concat", loc, "src holds %u elements, %d repeats need %d", src.GetSize(), repeatTime, repeatTime * 32);
    concat = src;
#endif
}

}  // namespace AscendC
