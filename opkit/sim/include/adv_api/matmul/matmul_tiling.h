// opkit simulator (host side): CANN's adv_api/matmul/matmul_tiling.h
// (MatmulApiTiling, MatmulGetTmpBufSize), forwarded to tiling/opkit_matmul_tiling.h.
#pragma once
#include "tiling/opkit_matmul_tiling.h"
