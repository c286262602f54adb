// opkit simulator: CANN's kernel_utils.h (Ascend C's internal utility umbrella that kernels include
// for Ceil/DivCeil/AlignUp, IsSameType, likely/unlikely and the mask helpers).
#pragma once
#include "kernel_operator.h"
