// opkit simulator: the Ascend C kernel programming interface on the CPU.
// Same header name as CANN's, so unmodified kernels compile with g++ against it.
#pragma once
#include "kernel_fp16.h"
#include "opkit_sim_runtime.h"
#include "kernel_tensor.h"
#include "kernel_tpipe.h"
#include "kernel_launch.h"
#include "kernel_operator_data_copy_intf.h"
#include "kernel_operator_vec_intf.h"
#include "kernel_operator_vec_cast_cmp_intf.h"
#include "kernel_operator_vec_reduce_intf.h"
#include "kernel_operator_mm_intf.h"
#include "kernel_operator_fixpipe_intf.h"
#include "kernel_tiling/kernel_tiling.h"

// Core type of the running block (AIV in vector-only launches).
inline thread_local int32_t g_coreType = AscendC::AIV;
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC (g_coreType != AscendC::AIC)
#endif
