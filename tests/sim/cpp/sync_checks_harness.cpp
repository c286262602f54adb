// Scenarios for the software SyncAll (SyncAll(gmWorkspace, ubWorkspace, usedCores)) and same-pipe ordering.
// usage: sync_checks_harness SCENARIO. 4 AIV blocks; each writes its value into a GM exchange buffer, synchronises
// and sums every taking-part block's value into y (8 int32 per block); clean scenarios print "y v0 v1 v2 v3". A
// line marked "// @name" is where scenario "name" must be reported.
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;
constexpr int32_t BLOCKS = 4;

extern "C" __global__ __aicore__ void soft_sync_kernel(GM_ADDR sync, GM_ADDR xchg, GM_ADDR y, GM_ADDR tiling) {
    const int32_t blk = int32_t(GetBlockIdx());
    int32_t used = 0, rounds = 1;
    uint64_t gm_elems = 8 * BLOCKS, ub_elems = 8 * BLOCKS;
    if (S == "soft_subset_ok" || S == "soft_beyond" || S == "soft_subset_small") used = 2;
    if (S == "soft_used_over") used = 5;
    if (S == "soft_mismatch") used = blk == 0 ? 2 : 3;
    if (S == "soft_twice_ok") rounds = 2;
    if (S == "soft_gm_small") gm_elems = 16;
    if (S == "soft_ub_small") ub_elems = 8;
    if (S == "soft_subset_small") gm_elems = ub_elems = 16;  // the 2 slots used, not GetBlockNum() of them
    const int32_t n = used ? used : BLOCKS;
    if ((S == "soft_subset_ok" || S == "soft_mismatch" || S == "soft_subset_small") && blk >= n) return;  // the cores past usedCores stay out
    if (S == "soft_mismatch" && blk >= 2) return;
    GlobalTensor<int32_t> gsync, gx, gy;
    gsync.SetGlobalBuffer((__gm__ int32_t*)sync, gm_elems);
    gx.SetGlobalBuffer((__gm__ int32_t*)xchg, 8 * BLOCKS);
    gy.SetGlobalBuffer((__gm__ int32_t*)y, 8 * BLOCKS);
    TPipe pipe;
    TBuf<TPosition::VECCALC> wb;
    pipe.InitBuffer(wb, 8 * BLOCKS * sizeof(int32_t));
    LocalTensor<int32_t> work = wb.Get<int32_t>(uint32_t(ub_elems));
    int32_t sum = 0;
    for (int32_t r = 0; r < rounds; ++r) {
        gx.SetValue(blk * 8, (blk + 1) * (r + 1));
        if (S == "soft_missing" && blk == 2) return;  // a taking-part block returns before the SyncAll
        SyncAll(gsync, work, used);  // @soft_sync
        for (int32_t i = 0; i < n; ++i) sum += gx.GetValue(i * 8);
        if (rounds > 1) SyncAll(gsync, work, used);  // nobody overwrites xchg before every core has read it
    }
    for (int32_t i = 0; i < 8; ++i) gy.SetValue(blk * 8 + i, sum);
}

// Same-pipe ordering: x holds 512 floats i, y 512 floats. Each block works alone (one block launched).
extern "C" __global__ __aicore__ void order_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 512);
    gy.SetGlobalBuffer((__gm__ float*)y, 512);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 3 * 256 * sizeof(float));
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> a = t, c = t[256], d = t[512];
    const bool barrier = S.size() > 3 && S.compare(S.size() - 3, 3, "_ok") == 0;
    if (S.rfind("order_mte2", 0) == 0) {  // two loads into overlapping UB: the second must land last
        DataCopy(a, gx, 256);
        if (barrier) PipeBarrier<PIPE_MTE2>();
        DataCopy(t[192], gx[256], 128);  // @order_mte2
        SetFlag<HardEvent::MTE2_MTE3>(0);
        WaitFlag<HardEvent::MTE2_MTE3>(0);
        DataCopy(gy, t, 320);
    } else if (S.rfind("order_mte3", 0) == 0) {  // two stores to overlapping GM (a tail copied back from its end)
        DataCopy(a, gx, 256);
        DataCopy(c, gx[256], 256);
        SetFlag<HardEvent::MTE2_MTE3>(0);
        WaitFlag<HardEvent::MTE2_MTE3>(0);
        DataCopy(gy, a, 256);
        if (barrier) PipeBarrier<PIPE_MTE3>();
        if (S.rfind("order_mte3_pad", 0) == 0) {
            DataCopyExtParams p{2, 64 * sizeof(float), 0, 0, 0};  // two rows of 64, the first over the earlier store
            DataCopyPad(gy[192], c, p);  // @order_mte3_pad
        } else {
            DataCopy(gy[224], c, 288 - 32);  // @order_mte3
        }
    } else if (S == "order_v_dependent_ok") {  // Add, then Mul reading Add's result, no PipeBarrier<PIPE_V>
        DataCopy(a, gx, 256);
        DataCopy(c, gx[256], 256);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
        Add(d, a, c, 256);
        Mul(d, d, a, 256);  // reads Add's result on the same pipe
        Adds(d, d, 1.0f, 256);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(gy, d, 256);
        DataCopy(gy[256], d, 256);
    }
}

int order_main() {
    float* x = (float*)GmAlloc(512 * sizeof(float));
    for (int i = 0; i < 512; ++i) x[i] = float(i);
    float* y = (float*)GmAlloc(512 * sizeof(float));
    uint8_t* tiling = (uint8_t*)GmAlloc(64);
    ICPU_RUN_KF(order_kernel, 1, (GM_ADDR)x, (GM_ADDR)y, tiling);
    double sum = 0;
    for (int i = 0; i < 512; ++i) sum += y[i];
    std::printf("ysum %.0f\ny0 %.0f %.0f %.0f\n", sum, y[0], y[1], y[255]);
    return 0;
}

int main(int argc, char** argv) {
    S = argc > 1 ? argv[1] : "soft_ok";
    if (S.rfind("order", 0) == 0) return order_main();
    const uint64_t sync_bytes = S == "soft_gm_small" || S == "soft_subset_small" ? 64 : 32 * BLOCKS;
    int32_t* sync = (int32_t*)GmAlloc(sync_bytes);
    if (S == "soft_not_zeroed") sync[2 * 8] = 7;  // block 2's slot holds garbage
    int32_t* xchg = (int32_t*)GmAlloc(32 * BLOCKS);
    int32_t* y = (int32_t*)GmAlloc(32 * BLOCKS);
    uint8_t* tiling = (uint8_t*)GmAlloc(64);
    ICPU_RUN_KF(soft_sync_kernel, BLOCKS, (GM_ADDR)sync, (GM_ADDR)xchg, (GM_ADDR)y, tiling);
    std::printf("y");
    for (int32_t b = 0; b < BLOCKS; ++b) std::printf(" %d", y[b * 8]);
    std::printf("\nslots");
    for (int32_t b = 0; b < BLOCKS; ++b) std::printf(" %d", sync[b * 8]);
    std::printf("\n");
    return 0;
}
