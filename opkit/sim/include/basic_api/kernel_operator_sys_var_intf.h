// opkit simulator: system variables (GetBlockIdx, GetBlockNum, ...), SyncAll's declaration.
#pragma once
#include "basic_api/kernel_tpipe.h"

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// System variables.
inline int64_t GetBlockIdx() { return opkit::sim::core().block_idx; }
inline int64_t GetBlockNum() { return opkit::sim::core().block_num; }
inline int64_t GetTaskRatio() { return opkit::sim::core().core_type == opkit::sim::CT_AIV ? opkit::sim::core().task_ratio : 1; }
inline int64_t GetTaskRation() { return GetTaskRatio(); }
inline int64_t GetSubBlockIdx() { return opkit::sim::core().sub_block_idx; }
inline int64_t GetSubBlockNum() { return opkit::sim::core().task_ratio; }
inline void InitSocState() {}
inline constexpr uint32_t GetUBSizeInBytes() { return OPKIT_SIM_UB_CAP; }
inline uint32_t GetRuntimeUBSize() { return OPKIT_SIM_UB_CAP; }
inline void SetSysWorkspace(GM_ADDR) {}

template <bool isAIVOnly = true>
void SyncAll(OPKIT_LOC);

}  // namespace AscendC

// Global-namespace helpers, as in Ascend C.
inline AscendC::TPipe* GetTPipePtr() { return static_cast<AscendC::TPipe*>(opkit::sim::core().pipe); }
