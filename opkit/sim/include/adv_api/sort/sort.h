// opkit simulator: Sort (advanced API).
#pragma once
#include "basic_api/kernel_operator_proposal_intf.h"

namespace AscendC {

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
    // The written-state travels with each pair (see Sort32): an unwritten score spoils the whole order.
    std::vector<std::pair<opkit_sort::Item<T>, uint8_t>> all(n);
    bool scores_ok = true;
    for (uint64_t k = 0; k < n; ++k) {
        all[k] = {opkit_sort::load<T>(d.p + k * 8), uint8_t(trace_only() || all_init(A_UB, d.ub + k * 8 + 4, 4))};
        scores_ok &= trace_only() || all_init(A_UB, d.ub + k * 8, 4);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return opkit_sort::before<T>(a.first, b.first); });
    for (uint64_t k = 0; k < n; ++k) opkit_sort::store(d.p + k * 8, all[k].first);
    set_init(A_UB, d.ub, n * 8, scores_ok);
    if (scores_ok)
        for (uint64_t k = 0; k < n; ++k)
            if (!all[k].second) set_init(A_UB, d.ub + k * 8 + 4, 4, false);
}

}  // namespace AscendC
