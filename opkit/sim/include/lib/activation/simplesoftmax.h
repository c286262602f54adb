// opkit simulator: CANN's installed path (lib/ = adv_api/) of adv_api/activation/simplesoftmax.h.
#pragma once
#include "adv_api/activation/simplesoftmax.h"
