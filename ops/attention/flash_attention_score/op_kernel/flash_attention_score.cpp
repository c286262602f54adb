// FlashAttentionScore: the kernel entry point (inputs, outputs, workspace, tiling, in OpDef order).
#include "flash_attention_score.h"

extern "C" __global__ __aicore__ void flash_attention_score(
    GM_ADDR query, GM_ADDR key, GM_ADDR value, GM_ADDR realShift, GM_ADDR dropMask, GM_ADDR paddingMask,
    GM_ADDR attenMask, GM_ADDR prefix, GM_ADDR actualSeqQlen, GM_ADDR actualSeqKvlen, GM_ADDR qStartIdx,
    GM_ADDR kvStartIdx, GM_ADDR dScaleQ, GM_ADDR dScaleK, GM_ADDR dScaleV, GM_ADDR queryRope, GM_ADDR keyRope,
    GM_ADDR softmaxMax, GM_ADDR softmaxSum, GM_ADDR softmaxOut, GM_ADDR attentionOut, GM_ADDR workspace,
    GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    REGISTER_TILING_DEFAULT(FlashAttentionScoreTilingData);
    GET_TILING_DATA_WITH_STRUCT(FlashAttentionScoreTilingData, tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);
    if (userWorkspace == nullptr) {
        return;
    }
    AscendC::TPipe pipe;
    FasKernel::FlashAttentionScore<DTYPE_QUERY, DTYPE_REAL_SHIFT> op;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm1, &tilingData.bmm1, op.mm2, &tilingData.bmm2);
    op.Init(query, key, value, realShift, dropMask, attenMask, softmaxMax, softmaxSum, attentionOut, userWorkspace,
            tilingData, &pipe);
    op.Process();
}
