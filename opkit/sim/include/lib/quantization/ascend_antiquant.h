// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/quantization/ascend_antiquant.h.
#pragma once
#include "adv_api/quantization/ascend_antiquant.h"
