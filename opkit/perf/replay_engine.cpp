// The timed run of the performance model's replay (opkit/perf/replay.py, docs/perf.md): compiled on first use by
// opkit/perf/engine.py and called through ctypes on the task graph's columns.
//
// A task starts when every task it depends on has finished. Its `fixed` cycles occupy it; then its `gm` bytes
// flow at up to `cap` bytes a cycle, while every flow in flight shares `hbm` bytes a cycle max-min fairly (a
// fluid model). The run steps from event to event (the end of a fixed part or of a flow); the flows' rates depend
// only on the set of flows in flight and are computed again only when it changed. The arithmetic and the order of
// every step are those the model has always used (the bytes left of every flow stepped at every event, flows
// kept in the order they started, the ready tasks started last in first out, ties in time broken by task
// index), so that a graph gives the same times to the last bit; the model's result is sensitive to rounding (a
// difference in the last bit of one flow grows through the HBM sharing), so this matters.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

namespace {

constexpr double kEps = 1e-9;

struct Flow {
    int32_t task;
    double left, cap, rate, end;
};

}  // namespace

// Returns 0 when every task ran, -1 when flows are left with no bandwidth, else the number of tasks that never
// became ready (a wait whose release is not in the trace). Task i is spec `spec[i]`: `fixed`, `gm` and `cap` are per
// spec. `src`/`dst`: the `m` dependency edges (a duplicate edge counts once). `start`/`end`: the tasks' times in
// cycles (written).
extern "C" int64_t opkit_replay_run(int64_t n, const int32_t* spec, const double* spec_fixed, const double* spec_gm,
                                    const double* spec_cap, int64_t m, const int32_t* src, const int32_t* dst,
                                    double hbm, double* start, double* end) {
    // successors of every task, each list ascending and without duplicates
    std::vector<int64_t> off(size_t(n) + 1, 0);
    for (int64_t e = 0; e < m; ++e) off[size_t(src[e]) + 1]++;
    for (int64_t i = 0; i < n; ++i) off[size_t(i) + 1] += off[size_t(i)];
    std::vector<int32_t> succ(static_cast<size_t>(m));
    for (int64_t e = 0; e < m; ++e) succ[size_t(off[size_t(src[e])]++)] = dst[e];  // off[i]: then row i's end
    for (int64_t i = n; i > 0; --i) off[size_t(i)] = off[size_t(i) - 1];
    off[0] = 0;
    std::vector<int32_t> indeg(size_t(n), 0);
    int64_t w = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t b = off[size_t(i)], e = off[size_t(i) + 1];
        std::sort(succ.begin() + b, succ.begin() + e);
        off[size_t(i)] = w;
        for (int64_t k = b; k < e; ++k)
            if (k == b || succ[size_t(k)] != succ[size_t(k) - 1]) {
                succ[size_t(w++)] = succ[size_t(k)];
                indeg[size_t(succ[size_t(k)])]++;
            }
    }
    off[size_t(n)] = w;

    using Item = std::pair<double, int32_t>;  // (end of the fixed part, task)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::vector<Flow> flows, kept;
    std::vector<size_t> order;
    std::vector<int32_t> stack;
    for (int64_t i = 0; i < n; ++i)
        if (indeg[size_t(i)] == 0) stack.push_back(int32_t(i));
    const double inf = std::numeric_limits<double>::infinity();
    double now = 0.0;
    int64_t done = 0;
    bool changed = false;

    auto finish = [&](int32_t i) {
        end[i] = now;
        ++done;
        for (int64_t k = off[size_t(i)]; k < off[size_t(i) + 1]; ++k)
            if (--indeg[size_t(succ[size_t(k)])] == 0) stack.push_back(succ[size_t(k)]);
    };
    auto add_flow = [&](int32_t i) {
        flows.push_back(Flow{i, spec_gm[spec[i]], spec_cap[spec[i]], 0.0, inf});
        changed = true;
    };
    auto start_ready = [&] {
        while (!stack.empty()) {
            const int32_t i = stack.back();
            stack.pop_back();
            start[i] = now;
            const int32_t k = spec[i];
            if (spec_fixed[k] > 0) heap.emplace(now + spec_fixed[k], i);
            else if (spec_gm[k] > 0) add_flow(i);
            else finish(i);
        }
    };
    // max-min fair share of hbm, flows in order of their cap (in the order they started among equal caps)
    auto share = [&] {
        order.resize(flows.size());
        for (size_t k = 0; k < flows.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return flows[a].cap < flows[b].cap; });
        double left = hbm;
        size_t cnt = flows.size();
        for (size_t k : order) {
            const double fair = left / double(cnt);
            const double r = fair < flows[k].cap ? fair : flows[k].cap;
            flows[k].rate = r;
            left -= r;
            --cnt;
        }
    };

    start_ready();
    while (!heap.empty() || !flows.empty()) {
        if (changed) {
            share();
            changed = false;
        }
        double t_flow = inf;
        for (Flow& f : flows) {
            f.end = f.rate > 0 ? now + f.left / f.rate : inf;
            t_flow = std::min(t_flow, f.end);
        }
        const double t_next = std::min(heap.empty() ? inf : heap.top().first, t_flow);
        if (t_next == inf) return -1;
        const double dt = t_next - now;
        // a flow ends when its own end time is reached (time-based, so rounding cannot stall it)
        const double tol = kEps * std::max(1.0, std::fabs(t_next));
        now = t_next;
        kept.clear();
        for (Flow& f : flows) {
            if (f.end <= now + tol) {
                changed = true;
                finish(f.task);
            } else {
                f.left -= f.rate * dt;
                kept.push_back(f);
            }
        }
        flows.swap(kept);
        while (!heap.empty() && heap.top().first <= now + kEps) {
            const int32_t i = heap.top().second;
            heap.pop();
            if (spec_gm[spec[i]] > 0) add_flow(i);
            else finish(i);
        }
        start_ready();
    }
    return done == n ? 0 : n - done;
}
