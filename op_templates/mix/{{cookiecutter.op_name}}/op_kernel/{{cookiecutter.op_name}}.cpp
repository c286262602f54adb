{% set T = cookiecutter.op_type %}
// {{ T }}: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs, then the outputs, in declaration order, then
// the workspace and the tiling data, all as GM addresses. The build compiles this file once per
// dtype column of the OpDef and defines DTYPE_<NAME> (the C++ type of tensor NAME) for each.
#include "{{ cookiecutter.op_name }}.h"

extern "C" __global__ __aicore__ void {{ cookiecutter.op_name }}(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // a mix kernel: each block is one cube core and two vector cores
    REGISTER_TILING_DEFAULT({{ T }}TilingData);
    // Copy the tiling data the host wrote (see op_host/{{ cookiecutter.op_name }}_tiling.cpp) onto this core.
    GET_TILING_DATA_WITH_STRUCT({{ T }}TilingData, tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);  // past the system workspace: the fp32 logits
    if (userWorkspace == nullptr) {
        return;
    }
    AscendC::TPipe pipe;
    {{ T }}Kernel::{{ T }}<DTYPE_X> op;  // x, w and y share one dtype in every column
    // On the cube cores this runs the Matmul API's server loop and returns; on the vector cores it
    // binds op.mm to its tiling. It must come before any InitBuffer.
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.mmTiling);
    op.Init(x, w, y, userWorkspace, tilingData, &pipe);
    op.Process();
}
