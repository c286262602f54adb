// In-place element-wise instructions over several 256-element chunks (and a ragged tail):
// float -> half Cast into its own source, Add/Muls/Relu with the destination equal to a source.
// argv[1]: element count n (<= 4096). GM x: n floats in, results out (see main).
#include <cstdio>
#include <cstdlib>
#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;

static int N = 0;

extern "C" __global__ __aicore__ void inplace_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {
    (void)ws; (void)tiling;
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 4096 * 4);
    pipe.InitBuffer(b, 4096 * 4);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 4096);
    gy.SetGlobalBuffer((__gm__ float*)y, 4 * 4096);
    LocalTensor<float> fa = a.Get<float>(), fb = b.Get<float>();
    DataCopy(fa, gx, 4096);
    DataCopy(fb, gx, 4096);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(fb, fb, 3.0f, N);       // dst == src
    PipeBarrier<PIPE_V>();
    Add(fb, fa, fb, N);          // dst == src1: x + 3x
    PipeBarrier<PIPE_V>();
    Relu(fb, fb, N);             // dst == src
    PipeBarrier<PIPE_V>();
    LocalTensor<half> ha = fa.ReinterpretCast<half>();
    Cast(ha, fa, RoundMode::CAST_RINT, N);  // narrowing into its own source
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, fb, 4096);
    DataCopy(gy[4096], ha.ReinterpretCast<float>(), 2048);
}

int main(int argc, char** argv) {
    N = argc > 1 ? std::atoi(argv[1]) : 4096;
    uint8_t* x = (uint8_t*)GmAlloc(4096 * 4);
    uint8_t* y = (uint8_t*)GmAlloc(4 * 4096 * 4);
    size_t got = std::fread(x, 1, 4096 * 4, stdin);
    if (got != 4096 * 4) return 2;
    uint8_t* ws = (uint8_t*)GmAlloc(16 * 1024 * 1024 + 1024);
    uint8_t* tiling = (uint8_t*)GmAlloc(64);
    ICPU_RUN_KF(inplace_kernel, 1, x, y, ws, tiling);
    std::fwrite(y, 1, 4096 * 4 + 4096 * 2, stdout);
    return 0;
}
