// opkit simulator: the advanced Ascend C API, by area as asc-devkit lays it out (installed as lib/).
#pragma once
#include "adv_api/activation/sigmoid.h"
#include "adv_api/activation/gelu.h"
#include "adv_api/activation/silu.h"
#include "adv_api/activation/softmaxflashv2.h"
#include "adv_api/index/arithprogression.h"
#include "adv_api/pad/broadcast.h"
#include "adv_api/quantization/ascend_dequant.h"
#include "adv_api/select/selectwithbytesmask.h"
#include "adv_api/reduce/sum.h"
#include "adv_api/sort/sort.h"
#include "adv_api/utils/init_global_memory.h"
#include "adv_api/math/math_api.h"
