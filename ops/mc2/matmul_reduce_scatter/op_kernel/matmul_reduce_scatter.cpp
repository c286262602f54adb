// MatmulReduceScatter: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs (x1, x2, bias; an absent bias is a null address), the output
// y, then the workspace and the tiling data, all as GM addresses. The build compiles this file once per dtype
// column (fp16, bf16) and defines DTYPE_<NAME> for each tensor.
#include "matmul_reduce_scatter.h"

extern "C" __global__ __aicore__ void matmul_reduce_scatter(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y,
                                                            GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // each block is one cube core and two vector cores
    REGISTER_TILING_DEFAULT(MatmulReduceScatterTilingData);
    GET_TILING_DATA_WITH_STRUCT(MatmulReduceScatterTilingData, tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);  // the fp32 bias, then the staging of the ReduceScatter
    if (userWorkspace == nullptr) {
        return;
    }
    AscendC::TPipe pipe;
    MatmulReduceScatterKernel::MatmulReduceScatter<DTYPE_X1> op;  // x1, x2, bias and y share one dtype in every column
    // On the cube cores this runs the Matmul API's server loop and returns; on the vector cores it binds op.mm
    // to its tiling. It must come before any InitBuffer.
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.mmTiling);
    op.Init(x1, x2, bias, y, userWorkspace, tiling, tilingData, &pipe);
    op.Process();
}
