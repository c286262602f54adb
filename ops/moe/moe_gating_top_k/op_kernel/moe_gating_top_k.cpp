// MoeGatingTopK: the kernel entry point.
//
// Parameters as the OpDef declares them: inputs x and bias (nullptr when the optional bias is
// absent), outputs y, expert_idx and out (out is written only with out_flag), then the workspace
// and the tiling data. The build compiles this file once per dtype column and defines DTYPE_X as
// the C++ type of x (half, float or bfloat16_t); the tiling key picks the selection path.
#include "moe_gating_top_k.h"

using namespace MoeGatingTopKKernel;

template <uint64_t PATH>
__aicore__ inline void RunMoeGatingTopK(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR expertIdx, GM_ADDR out,
                                        const MoeGatingTopKTilingData& tiling, AscendC::TPipe* pipe)
{
    MoeGatingTopK<DTYPE_X, PATH> op;
    op.Init(x, bias, y, expertIdx, out, tiling, pipe);
    op.Process();
}

extern "C" __global__ __aicore__ void moe_gating_top_k(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR expert_idx,
                                                       GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // a pure vector kernel: runs on the AIV cores only
    REGISTER_TILING_DEFAULT(MoeGatingTopKTilingData);
    GET_TILING_DATA_WITH_STRUCT(MoeGatingTopKTilingData, tilingData, tiling);
    (void)workspace;  // no workspace of its own
    AscendC::TPipe pipe;
    if (TILING_KEY_IS(TILING_KEY_DEEPSEEK_V3)) {
        RunMoeGatingTopK<TILING_KEY_DEEPSEEK_V3>(x, bias, y, expert_idx, out, tilingData, &pipe);
    } else if (TILING_KEY_IS(TILING_KEY_NO_GROUP)) {
        RunMoeGatingTopK<TILING_KEY_NO_GROUP>(x, bias, y, expert_idx, out, tilingData, &pipe);
    } else if (TILING_KEY_IS(TILING_KEY_GENERAL)) {
        RunMoeGatingTopK<TILING_KEY_GENERAL>(x, bias, y, expert_idx, out, tilingData, &pipe);
    }
}
