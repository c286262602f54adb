// GroupedMatmul: the kernel entry point. Its parameters are fixed by the OpDef: the inputs (also the
// optional quantisation inputs, which the tiling refuses), the output, the workspace and the tiling.
#include "grouped_matmul.h"

extern "C" __global__ __aicore__ void grouped_matmul(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR scale,
                                                     GM_ADDR offset, GM_ADDR antiquant_scale,
                                                     GM_ADDR antiquant_offset, GM_ADDR group_list,
                                                     GM_ADDR per_token_scale, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);  // a pure cube kernel
    REGISTER_TILING_DEFAULT(GroupedMatmulTilingData);
    GET_TILING_DATA_WITH_STRUCT(GroupedMatmulTilingData, tilingData, tiling);
    (void)scale;
    (void)offset;
    (void)antiquant_scale;
    (void)antiquant_offset;
    (void)per_token_scale;
    (void)workspace;
    GroupedMatmulKernel::GroupedMatmul<DTYPE_X, DTYPE_BIAS> op;  // bias: float16 with float16 x, float32 with bf16
    op.Init(x, weight, bias, group_list, y, tilingData);
    op.Process();
}
