// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/quantization/ascend_dequant.h.
#pragma once
#include "adv_api/quantization/ascend_dequant.h"
