// opkit simulator: in-core synchronisation: SetFlag/WaitFlag, PipeBarrier.
#pragma once
#include "basic_api/kernel_tpipe.h"

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// In-core synchronisation.
inline void hard_event_pipes(HardEvent e, int& src, int& dst) {
    using namespace opkit::sim;
    static const int8_t tab[][2] = {
        {P_MTE2, P_MTE1}, {P_MTE1, P_MTE2}, {P_MTE1, P_M}, {P_M, P_MTE1}, {P_MTE2, P_V}, {P_V, P_MTE2}, {P_MTE3, P_V},
        {P_V, P_MTE3}, {P_M, P_V}, {P_V, P_M}, {P_V, P_V}, {P_MTE3, P_MTE1}, {P_MTE1, P_MTE3}, {P_MTE1, P_V},
        {P_MTE2, P_M}, {P_M, P_MTE2}, {P_V, P_MTE1}, {P_M, P_FIX}, {P_FIX, P_M}, {P_MTE3, P_MTE2}, {P_MTE2, P_MTE3},
        {P_S, P_V}, {P_V, P_S}, {P_S, P_MTE2}, {P_MTE2, P_S}, {P_S, P_MTE3}, {P_MTE3, P_S}, {P_MTE2, P_FIX},
        {P_FIX, P_MTE2}, {P_FIX, P_S}, {P_M, P_S}, {P_FIX, P_MTE3}, {P_MTE1, P_FIX}, {P_FIX, P_MTE1}, {P_FIX, P_FIX}};
    int i = int(e);
    if (i < 0 || i >= int(sizeof tab / sizeof tab[0])) { src = dst = P_S; return; }
    src = tab[i][0];
    dst = tab[i][1];
}

inline void set_flag_impl(HardEvent e, int32_t id, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    if (id < 0 || id > 7) fail_at("SetFlag", loc, "event ID %d out of range [0, 7]", id);
    int s, d;
    hard_event_pipes(e, s, d);
    FlagSlot& f = core().flags[int(e)][id];
    if (f.set)
        fail_at("SetFlag", loc, "event (%s->%s, ID %d) set twice without a WaitFlag in between (set before%s)", pipe_name(s),
                pipe_name(d), id, f.site.file ? fmt(" at %s:%d", f.site.file, f.site.line).c_str() : "");
    f.set = true;
    std::memset(f.snap, 0, sizeof f.snap);
    snapshot(s, f.snap);
    f.site = Site{"SetFlag", loc.file, loc.line};
    if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"set_flag\",\"from\":\"%s\",\"to\":\"%s\",\"id\":%d}", pipe_name(s), pipe_name(d), id));
}
inline void wait_flag_impl(HardEvent e, int32_t id, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    if (id < 0 || id > 7) fail_at("WaitFlag", loc, "event ID %d out of range [0, 7]", id);
    int s, d;
    hard_event_pipes(e, s, d);
    FlagSlot& f = core().flags[int(e)][id];
    if (!f.set)
        fail_at("WaitFlag", loc, "waits for event (%s->%s, ID %d) that no SetFlag has set: the %s pipe would hang", pipe_name(s),
                pipe_name(d), id, pipe_name(d));
    f.set = false;
    merge(d, f.snap);
    if (::opkit::sim::core().trace_on) trace_event(fmt("{\"ev\":\"wait_flag\",\"from\":\"%s\",\"to\":\"%s\",\"id\":%d}", pipe_name(s), pipe_name(d), id));
}

template <HardEvent e>
inline void SetFlag(int32_t id, OPKIT_LOC) { set_flag_impl(e, id, loc); }
template <HardEvent e>
inline void WaitFlag(int32_t id, OPKIT_LOC) { wait_flag_impl(e, id, loc); }

template <pipe_t p>
inline void PipeBarrier() {
    static_assert(p != PIPE_S, "PipeBarrier<PIPE_S> is not allowed");
    if (p == PIPE_ALL) opkit::sim::barrier_all();
    else opkit::sim::barrier_pipe(int(p));  // later instructions of the pipe start after its earlier ones finished
    if (opkit::sim::core().trace_on) opkit::sim::trace_event(opkit::sim::fmt("{\"ev\":\"barrier\",\"pipe\":%d}", int(p)));
}
template <pipe_t p>
inline void pipe_barrier() { PipeBarrier<p>(); }

}  // namespace AscendC
