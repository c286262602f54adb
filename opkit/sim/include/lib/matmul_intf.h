// opkit simulator: CANN's installed path of adv_api/matmul/matmul_intf.h.
#pragma once
#include "adv_api/matmul/matmul_intf.h"
