// MatmulAllReduce: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs (x1, x2, bias, x3; an absent optional input is a null
// address), the output y, then the workspace and the tiling data, all as GM addresses. The build compiles this
// file once per dtype column (fp16, bf16) and defines DTYPE_<NAME> for each tensor.
#include "matmul_all_reduce.h"

extern "C" __global__ __aicore__ void matmul_all_reduce(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR x3, GM_ADDR y,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // each block is one cube core and two vector cores
    REGISTER_TILING_DEFAULT(MatmulAllReduceTilingData);
    GET_TILING_DATA_WITH_STRUCT(MatmulAllReduceTilingData, tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);  // the fp32 bias and pieces, then the staging of the AllReduce
    if (userWorkspace == nullptr) {
        return;
    }
    AscendC::TPipe pipe;
    MatmulAllReduceKernel::MatmulAllReduce<DTYPE_X1> op;  // x1, x2, bias, x3 and y share one dtype in every column
    // On the cube cores this runs the Matmul API's server loop and returns; on the vector cores it binds op.mm
    // and op.mmDirect to the tiling. It must come before any InitBuffer.
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.mmTiling, op.mmDirect, &tilingData.mmTiling);
    op.Init(x1, x2, bias, x3, y, userWorkspace, tiling, tilingData, &pipe);
    op.Process();
}
