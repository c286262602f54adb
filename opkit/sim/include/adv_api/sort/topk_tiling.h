// opkit simulator (host side): asc-devkit's adv_api/sort/topk_tiling.h (TopKTilingFunc, GetTopKMaxMinTmpSize).
#pragma once
#include "tiling/opkit_topk_tiling.h"
