// MatmulCustom: the kernel entry point (cube cores only).
#include "matmul_custom.h"

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    REGISTER_TILING_DEFAULT(MatmulCustomTilingData);
    GET_TILING_DATA_WITH_STRUCT(MatmulCustomTilingData, tilingData, tiling);
    (void)workspace;
    MatmulCustomKernel::MatmulCustom op;
    op.Init(a, b, c, tilingData);
    op.Process();
}
