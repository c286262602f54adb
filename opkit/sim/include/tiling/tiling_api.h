// opkit simulator (host side): the Ascend C host tiling library header.
//
// Provided: TilingData macros (register/tilingdata_base.h) and PlatformAscendC
// (tiling/platform/platform_ascendc.h). Not provided yet: the matmul, softmax, topk, ... tiling
// engines (matmul_tiling::MatmulApiTiling, AscendC::SoftMaxFlashV2TilingFunc, ...); code that
// uses them fails to compile here ("not declared"), never silently.
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
