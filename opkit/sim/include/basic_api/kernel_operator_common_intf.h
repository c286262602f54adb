// opkit simulator: the chip's low-level intrinsics that kernels call directly, in the global
// namespace as the bisheng compiler provides them: set_flag/wait_flag(pipe, pipe, event),
// pipe_barrier(pipe), set_vector_mask, set_mask_norm/set_mask_count, get_block_idx/get_block_num,
// get_subblockid. They drive the same state as their Ascend C counterparts (SetFlag/WaitFlag,
// PipeBarrier, SetVectorMask, SetMaskNorm/SetMaskCount, GetBlockIdx/GetBlockNum), with the same checks.
#pragma once
#include "basic_api/kernel_common.h"
#include "basic_api/kernel_operator_block_sync_intf.h"
#include "basic_api/kernel_operator_sys_var_intf.h"

namespace opkit {
namespace sim {
// The HardEvent of a (source pipe, destination pipe) pair; fails for a pair the chip has no flag for.
inline AscendC::HardEvent hard_event_of(pipe_t src, pipe_t dst, const char* api, const SrcLoc& loc) {
    auto idx = [](pipe_t p) { return p == PIPE_FIX ? int(P_FIX) : int(p); };
    for (int e = 0; e < int(AscendC::HardEvent::MAX); ++e) {
        int s, d;
        AscendC::hard_event_pipes(AscendC::HardEvent(e), s, d);
        if (s == idx(src) && d == idx(dst)) return AscendC::HardEvent(e);
    }
    fail_at(api, loc, "no event flag between pipe %d and pipe %d (use the pipes of a HardEvent, e.g. PIPE_V, PIPE_MTE2)",
            int(src), int(dst));
}
}  // namespace sim
}  // namespace opkit

inline void set_flag(pipe_t pipe, pipe_t tpipe, event_t eventId, OPKIT_LOC) {
    AscendC::set_flag_impl(opkit::sim::hard_event_of(pipe, tpipe, "set_flag", loc), int32_t(eventId), loc);
}
inline void set_flag(pipe_t pipe, pipe_t tpipe, int eventId, OPKIT_LOC) {
    AscendC::set_flag_impl(opkit::sim::hard_event_of(pipe, tpipe, "set_flag", loc), int32_t(eventId), loc);
}
inline void wait_flag(pipe_t pipe, pipe_t tpipe, event_t eventId, OPKIT_LOC) {
    AscendC::wait_flag_impl(opkit::sim::hard_event_of(pipe, tpipe, "wait_flag", loc), int32_t(eventId), loc);
}
inline void wait_flag(pipe_t pipe, pipe_t tpipe, int eventId, OPKIT_LOC) {
    AscendC::wait_flag_impl(opkit::sim::hard_event_of(pipe, tpipe, "wait_flag", loc), int32_t(eventId), loc);
}
// pipe_barrier(PIPE_ALL) waits for every pipe; a barrier on one pipe orders that pipe with itself (in order anyway).
inline void pipe_barrier(pipe_t pipe) {
    if (pipe == PIPE_ALL) opkit::sim::barrier_all();
}
inline void set_vector_mask(uint64_t maskHigh, uint64_t maskLow) {
    auto& c = opkit::sim::core();
    c.mask_hi = maskHigh;
    c.mask_lo = maskLow;
}
inline void set_mask_norm() { AscendC::SetMaskNorm(); }
inline void set_mask_count() { AscendC::SetMaskCount(); }
inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
inline int64_t get_subblockid() { return AscendC::GetSubBlockIdx(); }
