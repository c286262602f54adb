// AxpyRelu: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs, then the outputs, in declaration order, then
// the workspace and the tiling data, all as GM addresses. The build compiles this file once per
// dtype column of the OpDef and defines DTYPE_<NAME> (the C++ type of tensor NAME) for each.
#include "axpy_relu.h"

extern "C" __global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // a pure vector kernel: runs on the AIV cores only
    REGISTER_TILING_DEFAULT(AxpyReluTilingData);
    // Copy the tiling data the host wrote (see op_host/axpy_relu_tiling.cpp) onto this core.
    GET_TILING_DATA_WITH_STRUCT(AxpyReluTilingData, tilingData, tiling);
    (void)workspace;  // no scratch GM needed: the tiling asked only for the system workspace
    AxpyReluKernel::AxpyRelu<DTYPE_X> op;  // x, y and z share one dtype in every column
    op.Init(x, y, z, tilingData);
    op.Process();
}
