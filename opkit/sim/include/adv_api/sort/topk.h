// opkit simulator: TopK (advanced API, asc-devkit adv_api/sort/topk.h): the k largest (or smallest)
// values of each row and their indices, in both documented forms (scratch from a tmpLocal tensor, or
// taken from the free UB above the kernel's buffers as CANN's PopStackBuffer does).
//
// What the TopK page documents, and how it runs here:
//   - the source is topKInfo.outter rows of topKInfo.inner elements (inner a multiple of 32; the row's
//     n real values padded by the caller); every element of a row takes part in the sort, padding too;
//   - indices: isInitIndex false generates 0 .. inner-1; true reads srcIndexLocal (one row of inner
//     indices shared by all rows in TOPK_NORMAL, one row per row in TOPK_NSMALL);
//   - order: descending for isLargest (ascending otherwise); equal values keep their position order
//     (the earlier element first); NaN sorts first in both orders; inf is the largest value;
//   - TOPK_NORMAL writes row j's k results at j * k_pad (k rounded up to 32 bytes of T; indices: of
//     int32), TOPK_NSMALL (inner 32) at j * k; the lanes between k and k_pad are left as they were;
//   - isHasfinish: a row whose finishLocal flag is true gets the invalid index n for all k indices;
//   - the scratch must hold TopkTiling.tmpLocalSize elements of T (TopKTilingFunc's value).
// The rows are processed one after the other, each row read whole before its results are written, as
// the chip's Sort32/MrgSort sequence does; a source that overlaps a destination (which the page does
// not support) is a warning and runs in that order. The page's parameter checks end the run.
#pragma once
#include <algorithm>
#include <vector>

#include "adv_api/sort/topk_utils.h"
#include "basic_api/kernel_operator_proposal_intf.h"
#include "kernel_tiling/kernel_tiling.h"

namespace AscendC {
namespace opkit_topk_k {

template <class T> struct Item { T v; int32_t idx; uint32_t pos; };

template <class T>
inline bool before(const Item<T>& a, const Item<T>& b, bool largest) {
    const bool an = opkit::sim::isnan_(a.v), bn = opkit::sim::isnan_(b.v);
    if (an || bn) return an && !bn;
    const float x = float(a.v), y = float(b.v);
    return largest ? x > y : x < y;
}

inline bool overlap(const opkit::sim::Opd& a, uint64_t abytes, const opkit::sim::Opd& b, uint64_t bbytes) {
    return a.ub < b.ub + bbytes && b.ub < a.ub + abytes;
}

template <class T, bool isInitIndex, bool isHasfinish, TopKMode topkMode>
inline void run(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>* tmpLocal, const int32_t k,
                const TopkTiling& tilling, const TopKInfo& info, const bool isLargest, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    const char* api = "TopK";
    constexpr bool small = topkMode == TopKMode::TOPK_NSMALL;
    const int32_t outter = info.outter, inner = info.inner, n = info.n;
    // The TopK page's parameter rules (CANN's CPU-debug checks).
    if (k < 1 || k > n) fail_at(api, loc, "k is %d; it must lie in [1, topKInfo.n = %d]", k, n);
    if (n < 1 || n > inner) fail_at(api, loc, "topKInfo.n is %d; it must lie in [1, topKInfo.inner = %d]", n, inner);
    if (inner % 32 != 0) fail_at(api, loc, "topKInfo.inner is %d; it must be a multiple of 32 (n padded up)", inner);
    if (outter < 1) fail_at(api, loc, "topKInfo.outter is %d; it must be at least 1", outter);
    if (small && inner != 32) fail_at(api, loc, "topKInfo.inner is %d; it must be 32 in TOPK_NSMALL mode", inner);
    if (!small && inner > 4096) fail_at(api, loc, "topKInfo.inner is %d; at most 4096 in TOPK_NORMAL mode", inner);
    static_assert(!(small && isHasfinish), "Ascend C TopK: isHasfinish must be false in TOPK_NSMALL mode");
    if (tilling.tmpLocalSize <= 0)
        fail_at(api, loc, "TopkTiling.tmpLocalSize is %d: the tiling was not filled by TopKTilingFunc (pass the "
                "TopkTiling the host's TopKTilingFunc wrote into the TilingData)", int(tilling.tmpLocalSize));
    if (!small && int64_t(tilling.sortRepeat) * 32 != inner)
        fail_at(api, loc, "the TopkTiling was computed for rows of %u elements (sortRepeat %u x 32), but topKInfo.inner "
                "is %d: TopK would sort %u elements of each row; pass the TopkTiling of TopKTilingFunc(inner = %d)",
                tilling.sortRepeat * 32u, tilling.sortRepeat, inner, tilling.sortRepeat * 32u, inner);
    constexpr int32_t perV = int32_t(32 / sizeof(T));
    const int32_t strideV = small ? k : (k + perV - 1) / perV * perV;
    const int32_t strideI = small ? k : (k + 7) / 8 * 8;
    const uint64_t rows = uint64_t(outter);
    if (dstValueLocal.GetSize() < uint64_t(strideV) * rows)
        fail_at(api, loc, "dstValueLocal holds %u elements; %s x topKInfo.outter = %d x %d are written", dstValueLocal.GetSize(),
                small ? "k" : "k_pad (k rounded up to 32 bytes)", strideV, outter);
    if (dstIndexLocal.GetSize() < uint64_t(strideI) * rows)
        fail_at(api, loc, "dstIndexLocal holds %u elements; %s x topKInfo.outter = %d x %d are written", dstIndexLocal.GetSize(),
                small ? "k" : "kpad_index (k rounded up to 8)", strideI, outter);
    if (isInitIndex && srcIndexLocal.GetSize() < uint64_t(inner) * (small ? rows : 1))
        fail_at(api, loc, "srcIndexLocal holds %u elements; %s are read", srcIndexLocal.GetSize(),
                small ? "topKInfo.inner x topKInfo.outter" : "topKInfo.inner");
    if (isHasfinish && finishLocal.GetSize() < rows)
        fail_at(api, loc, "finishLocal holds %u flags; topKInfo.outter = %d are read", finishLocal.GetSize(), outter);

    CoreState& c = core();
    Opd dv = opd(dstValueLocal, true, 1, 8, "dstValueLocal", api, loc), di = opd(dstIndexLocal, true, 1, 8, "dstIndexLocal", api, loc);
    Opd s = opd(srcLocal, false, 1, 8, "srcLocal", api, loc);
    Opd si, fl;
    if (isInitIndex) si = opd(srcIndexLocal, false, 1, 8, "srcIndexLocal", api, loc);
    if (isHasfinish) fl = opd(finishLocal, false, 1, 8, "finishLocal", api, loc, 1);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);

    // The scratch: tmpLocalSize elements of T, in tmpLocal or in the free UB above the kernel's buffers.
    const uint64_t scratch = uint64_t(tilling.tmpLocalSize) * sizeof(T);
    if (tmpLocal) {
        Opd t = opd(*tmpLocal, true, 1, 8, "tmpLocal", api, loc);
        if (scratch > t.len) local_oob(api, loc, "tmpLocal", A_UB, t.ub, t.len, t.ub + t.len, t.ub + scratch, true, seq);
        touch(A_UB, t.ub, scratch, P_V, true, seq, site, api, loc);
        set_init(A_UB, t.ub, scratch, true);
    } else {
        const uint64_t used = (c.mem(A_UB).used + 31u) & ~uint64_t(31), cap = arena_cap(A_UB);
        if (used + scratch > cap)
            fail_at(api, loc, "the pop stack buffer is insufficient: TopK needs %llu bytes of scratch (TopkTiling."
                    "tmpLocalSize %d elements of %u B) above the kernel's buffers, but only %llu bytes are free (UB byte "
                    "%llu to %llu); pass a tmpLocal buffer or leave that much UB free",
                    (unsigned long long)scratch, int(tilling.tmpLocalSize), unsigned(sizeof(T)),
                    (unsigned long long)(cap > used ? cap - used : 0), (unsigned long long)used, (unsigned long long)cap);
        touch(A_UB, used, scratch, P_V, true, seq, site, api, loc);
        set_init(A_UB, used, scratch, true);
    }

    const uint64_t srcBytes = uint64_t(inner) * rows * sizeof(T);
    if (overlap(dv, uint64_t(strideV) * rows * sizeof(T), s, srcBytes) ||
        (isInitIndex && overlap(di, uint64_t(strideI) * rows * 4, si, uint64_t(inner) * (small ? rows : 1) * 4)))
        warn_at(api, loc, "a destination overlaps a source, which the TopK page does not support; opkit runs it as the "
                "chip's sequence does: row by row, each row read whole before its results are written");

    bool all_ok = true;
    std::vector<T> v;
    std::vector<int32_t> ix;
    std::vector<uint8_t> fin;
    std::vector<Item<T>> items(static_cast<size_t>(inner));
    std::vector<T> outV(static_cast<size_t>(k));
    std::vector<int32_t> outI(static_cast<size_t>(k));
    for (int32_t j = 0; j < outter; ++j) {
        bool ok = read_src<T>(s, uint64_t(j) * inner, uint64_t(inner), seq, site, api, loc, v);
        if (isInitIndex) ok &= read_src<int32_t>(si, small ? uint64_t(j) * inner : 0, uint64_t(inner), seq, site, api, loc, ix);
        bool finished = false;
        if (isHasfinish) {
            ok &= read_src<uint8_t>(fl, uint64_t(j), 1, seq, site, api, loc, fin);
            finished = fin[0] != 0;
        }
        for (int32_t e = 0; e < inner; ++e) items[size_t(e)] = {v[size_t(e)], isInitIndex ? ix[size_t(e)] : e, uint32_t(e)};
        std::stable_sort(items.begin(), items.end(),
                         [isLargest](const Item<T>& a, const Item<T>& b) { return before<T>(a, b, isLargest); });
        for (int32_t e = 0; e < k; ++e) {
            outV[size_t(e)] = items[size_t(e)].v;
            outI[size_t(e)] = finished ? n : items[size_t(e)].idx;
        }
        const bool w = ok || trace_only();
        write_dst<T>(dv, uint64_t(j) * strideV, outV.data(), uint64_t(k), w, seq, site, api, loc);
        write_dst<int32_t>(di, uint64_t(j) * strideI, outI.data(), uint64_t(k), w, seq, site, api, loc);
        all_ok &= ok;
    }
    if (!all_ok && !trace_only())
        warn_at(api, loc, "reads UB bytes that were never written (the results of those rows are marked unwritten too)");
    trace(P_V, srcBytes, uint64_t(outter) * uint64_t(inner / 32), api, dtype_name<T>());
}

}  // namespace opkit_topk_k

// With a caller-provided scratch tensor (tmpLocal: TopkTiling.tmpLocalSize elements of T, GetTopKMaxMinTmpSize bytes).
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
                 const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true, OPKIT_LOC) {
    OPKIT_DTYPES("TopK", T, half, float);
    (void)isReuseSrc;
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    opkit_topk_k::run<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, &tmpLocal, k, tilling, topKInfo, isLargest, loc);
}

// With the scratch taken from the free UB above the kernel's buffers (CANN's PopStackBuffer).
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling,
                 const TopKInfo& topKInfo, const bool isLargest = true, OPKIT_LOC) {
    OPKIT_DTYPES("TopK", T, half, float);
    (void)isReuseSrc;
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    opkit_topk_k::run<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, nullptr, k, tilling, topKInfo, isLargest, loc);
}

}  // namespace AscendC
