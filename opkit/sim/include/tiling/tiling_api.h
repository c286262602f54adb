// opkit simulator (host side): the Ascend C host tiling library header.
//
// Provided: TilingData macros (register/tilingdata_base.h), PlatformAscendC
// (tiling/platform/platform_ascendc.h), ge::Shape / AscendC::TensorShape, the scratch-size
// helpers GetSigmoidMaxMinTmpSize, GetSortTmpSize, GetConcatTmpSize
// (tiling/opkit_adv_api_tiling.h), and the Matmul tiling API with optiling::TCubeTiling
// (tiling/opkit_matmul_tiling.h: MatmulApiTiling, MultiCoreMatmulTiling, BatchMatmulTiling), the SoftMaxTiling and TopkTiling classes
// (tiling/opkit_library_tiling_data.h), the SoftMax family's tiling functions
// (tiling/opkit_softmax_tiling.h: SoftMaxTilingFunc, SoftMaxFlashV2TilingFunc, Get*TmpSize, ...),
// TopK's (tiling/opkit_topk_tiling.h: TopKTilingFunc, GetTopKMaxMinTmpSize),
// AscendC::ONE_BLK_SIZE / BLOCK_CUBE / CUBE_MAX_SIZE (adv_api/transpose/confusion_transpose_tiling.h).
// Mc2CcTilingConfig with Mc2InitTiling/Mc2CcTiling (adv_api/hccl/hccl_tiling.h).
// Not provided yet: the layernorm ... tiling functions; code that
// uses them fails to compile here ("not declared"), never silently.
#pragma once
#include "adv_api/hccl/hccl_tiling.h"
#include "adv_api/transpose/confusion_transpose_tiling.h"
#include "graph/tensor.h"
#include "register/tilingdata_base.h"
#include "tiling/opkit_adv_api_tiling.h"
#include "tiling/opkit_library_tiling_data.h"
#include "tiling/opkit_matmul_tiling.h"
#include "tiling/opkit_softmax_tiling.h"
#include "tiling/opkit_topk_tiling.h"
#include "tiling/platform/platform_ascendc.h"
