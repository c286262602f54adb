// GroupedGemm: the kernel entry point. x, weight and bias are tensor lists (ListTensorDesc), y one packed tensor.
#include "grouped_gemm.h"

extern "C" __global__ __aicore__ void grouped_gemm(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y,
                                                   GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    REGISTER_TILING_DEFAULT(GroupedGemmTilingData);
    GET_TILING_DATA_WITH_STRUCT(GroupedGemmTilingData, tilingData, tiling);
    (void)workspace;
    GroupedGemmKernel::GroupedGemm<DTYPE_X> op;
    op.Init(x, weight, bias, y, tilingData);
    op.Process();
}
