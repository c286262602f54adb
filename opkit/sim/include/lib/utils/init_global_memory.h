// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/utils/init_global_memory.h.
#pragma once
#include "adv_api/utils/init_global_memory.h"
