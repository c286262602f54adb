// opkit simulator: CANN's kernel_log.h (KERNEL_LOG, ASCENDC_ASSERT): utils/kernel_log.h.
#pragma once
#include "utils/kernel_log.h"
