// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/reduce/sum.h.
#pragma once
#include "adv_api/reduce/sum.h"
