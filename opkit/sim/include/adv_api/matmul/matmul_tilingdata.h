// opkit simulator (host side): CANN's adv_api/matmul/matmul_tilingdata.h
// (the host TilingData class optiling::TCubeTiling), forwarded to tiling/opkit_matmul_tiling_types.h.
#pragma once
#include "tiling/opkit_matmul_tiling_types.h"
