// opkit simulator: the Ascend C kernel programming interface on the CPU.
// Same header name as CANN's, so unmodified kernels compile with g++ against it. The tree under
// this directory follows asc-devkit's public headers (basic_api/, adv_api/, utils/); the paths
// CANN installs (kernel_operator_*_intf.h, lib/..., kernel_tiling/...) forward into it.
#pragma once
#include "kernel_fp16.h"
#include "opkit_sim_runtime.h"
#include "basic_api/kernel_type.h"
#include "basic_api/kernel_operator_intf.h"

// Core type of the running block (AIV in vector-only launches).
inline thread_local int32_t g_coreType = AscendC::AIV;
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC (g_coreType != AscendC::AIC)
#endif
