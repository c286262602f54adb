// opkit simulator: the legacy installed path lib/matrix/matmul/tiling.h (Matmul configurations:
// MatmulConfig, CFG_NORM/CFG_MDL, Get*Config), kept in adv_api/matmul/matmul_intf.h.
#pragma once
#include "adv_api/matmul/matmul_intf.h"
