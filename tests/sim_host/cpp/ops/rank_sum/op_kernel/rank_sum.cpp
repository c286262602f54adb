// Kernel of the rank_sum test operator (host: ../../../rank_sum_op.cpp; the launch shim is the one opkit's build
// generates), with the broken variants the multi-rank tests need (tiling keys 1-3) and a clean one (4).
#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "rank_sum_tiling.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void rank_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    const RankSumTiling t = *reinterpret_cast<const RankSumTiling*>(tiling);
    GM_ADDR stage = GetUserWorkspace(workspace);
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    const bool lead = GetBlockIdx() == 0;
    HcclHandle h = -1;
    uint8_t repeat = uint8_t(t.tileCnt);
    // The broken variant: rank 1 prepares one slice fewer (and commits and waits only those), so the only
    // defect is the disagreement itself, whichever rank prepares first.
    if (TILING_KEY_IS(1) && hccl.GetRankId() == 1) repeat = uint8_t(repeat - 1);
    // Broken variant 2: every rank collects one slice fewer, so the collective never lands y's last slice.
    if (TILING_KEY_IS(2)) repeat = uint8_t(repeat - 1);
    // Broken variant 3: the lead core reads y (the receive buffer) before the collective has landed anything.
    if (TILING_KEY_IS(3) && lead) {
        GlobalTensor<float> yg;
        yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), t.n);
        const float early = yg.GetValue(0);  // @rank_sum_early_read
        (void)early;
    }
    if (lead) h = hccl.AllReduce(stage, y, t.tileLen, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, repeat);  // @rank_sum_prepare
    GlobalTensor<float> xg, sg;
    xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), t.n);
    sg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(stage), t.n);
    for (uint32_t i = 0; i < t.tileCnt; ++i) {
        for (uint64_t j = i * uint64_t(t.tileLen) + GetBlockIdx(); j < (i + 1) * uint64_t(t.tileLen); j += GetBlockNum())
            sg.SetValue(j, xg.GetValue(j) * 2.0f);
        SyncAll();
        if (lead && i < repeat) hccl.Commit(h);
    }
    if (lead) {
        for (uint32_t i = 0; i < repeat; ++i) hccl.Wait(h);
        hccl.Finalize();
    }
    // Clean variant 4: once the collective has landed y, another core reads it and writes it again (no
    // uninitialised read, no cross-core overlap: the landed bytes are the collective's, not a core's).
    if (TILING_KEY_IS(4)) {
        SyncAll();
        if (GetBlockIdx() == 1) {
            GlobalTensor<float> yg;
            yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), t.n);
            for (uint32_t j = 0; j < 8; ++j) yg.SetValue(j, yg.GetValue(j));
        }
    }
}
