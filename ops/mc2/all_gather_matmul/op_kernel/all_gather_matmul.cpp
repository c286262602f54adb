// AllGatherMatmul: the kernel entry point. Parameters: the inputs (x1, x2, bias; an absent bias is a null
// address), the outputs (y, gather_out), the workspace and the tiling data, all GM addresses; compiled once per
// dtype column (fp16, bf16).
#include "all_gather_matmul.h"

extern "C" __global__ __aicore__ void all_gather_matmul(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y,
                                                        GM_ADDR gatherOut, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // each block is one cube core and two vector cores
    REGISTER_TILING_DEFAULT(AllGatherMatmulTilingData);
    GET_TILING_DATA_WITH_STRUCT(AllGatherMatmulTilingData, tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);  // the fp32 bias (and the gathered x1 without gather_out)
    if (userWorkspace == nullptr) {
        return;
    }
    AscendC::TPipe pipe;
    AllGatherMatmulKernel::AllGatherMatmul<DTYPE_X1> op;  // x1, x2, bias, y and gather_out share one dtype
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.mmTiling);
    op.Init(x1, x2, bias, y, gatherOut, userWorkspace, tiling, tilingData, &pipe);
    op.Process();
}
