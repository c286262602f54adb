// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/math/power.h.
#pragma once
#include "adv_api/math/power.h"
