// MatmulBiasAct: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs, then the outputs, in declaration order, then
// the workspace and the tiling data, all as GM addresses. The build compiles this file once per
// dtype column of the OpDef and defines DTYPE_<NAME> (the C++ type of tensor NAME) for each.
#include "matmul_bias_act.h"

extern "C" __global__ __aicore__ void matmul_bias_act(GM_ADDR x, GM_ADDR w, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);  // a pure cube kernel: runs on the AIC cores only
    REGISTER_TILING_DEFAULT(MatmulBiasActTilingData);
    // Copy the tiling data the host wrote (see op_host/matmul_bias_act_tiling.cpp) onto this core.
    GET_TILING_DATA_WITH_STRUCT(MatmulBiasActTilingData, tilingData, tiling);
    (void)workspace;  // no scratch GM needed: the tiling asked only for the system workspace
    MatmulBiasActKernel::MatmulBiasAct<DTYPE_X> op;  // x, w and y share one dtype in every column; bias is float32
    op.Init(x, w, bias, y, tilingData);
    op.Process();
}
