// opkit simulator: CANN's installed impl/dav_c220/kernel_operator_reg_others_impl.h (register
// accessors of the 220 core: sub-block dimension and index, the max/min count register, the
// compare mask). Kernels include it beside kernel_operator.h.
#pragma once
#include "kernel_operator.h"

namespace AscendC {
inline int64_t GetSubBlockDim() { return GetSubBlockNum(); }
inline int64_t GetSubBlockId() { return GetSubBlockIdx(); }
}  // namespace AscendC
