// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/pad/broadcast.h.
#pragma once
#include "adv_api/pad/broadcast.h"
