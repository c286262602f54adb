// opkit simulator: CANN's installed path of basic_api/kernel_common.h.
#pragma once
#include "basic_api/kernel_common.h"
