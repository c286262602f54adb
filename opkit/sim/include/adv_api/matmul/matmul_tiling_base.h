// opkit simulator (host side): CANN's adv_api/matmul/matmul_tiling_base.h
// (MatmulApiTilingBase and the matmul_tiling types), forwarded to tiling/opkit_matmul_tiling_base.h.
#pragma once
#include "tiling/opkit_matmul_tiling_base.h"
