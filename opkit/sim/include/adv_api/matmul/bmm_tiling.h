// opkit simulator (host side): CANN's adv_api/matmul/bmm_tiling.h
// (MultiCoreMatmulTiling, BatchMatmulTiling), forwarded to tiling/opkit_matmul_tiling.h.
#pragma once
#include "tiling/opkit_matmul_tiling.h"
