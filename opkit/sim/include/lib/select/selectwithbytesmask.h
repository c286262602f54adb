// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/select/selectwithbytesmask.h.
#pragma once
#include "adv_api/select/selectwithbytesmask.h"
