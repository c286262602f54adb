// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/activation/softmax.h.
#pragma once
#include "adv_api/activation/softmax.h"
