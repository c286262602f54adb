// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/sort/sort.h.
#pragma once
#include "adv_api/sort/sort.h"
