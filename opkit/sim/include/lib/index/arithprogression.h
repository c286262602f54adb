// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/index/arithprogression.h.
#pragma once
#include "adv_api/index/arithprogression.h"
