// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/filter/dropout.h.
#pragma once
#include "adv_api/filter/dropout.h"
