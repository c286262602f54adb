// opkit simulator: CANN's kernel_macros.h (function qualifiers, likely/unlikely, __forceinline__, ASSERT).
#pragma once
#include "basic_api/kernel_tensor.h"
#include "utils/kernel_utils_macros.h"
