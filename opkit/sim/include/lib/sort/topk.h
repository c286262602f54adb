// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/sort/topk.h.
#pragma once
#include "adv_api/sort/topk.h"
