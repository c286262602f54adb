// A mix kernel (KERNEL_TYPE_MIX_AIC_1_2): per block, the AIC computes C = A x B (32 x 32 x 32, fp16 in,
// fp32 out) with the cube instructions into GM, sets a cross-core flag; its two AIVs wait for it, and
// each scales its half of the rows of C by 2 (vector Muls) into OUT.
// usage: mix_cube_harness BLOCKS SCENARIO   (SCENARIO "ok", or "no_set": the AIC never sets the flag)
// Inputs: A = 1 / (1 + (i + k) % 7), B = ((k * 3 + j) % 5) - 2 per block (the same for every block); prints OUT.
#include <cstdio>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;
constexpr int D = 32;

extern "C" __global__ __aicore__ void mix_cube(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out) {
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg, og;
    ag.SetGlobalBuffer((__gm__ half*)a);
    bg.SetGlobalBuffer((__gm__ half*)b);
    cg.SetGlobalBuffer((__gm__ float*)c + GetBlockIdx() / (ASCEND_IS_AIV ? 2 : 1) * D * D);
    og.SetGlobalBuffer((__gm__ float*)out);
    TPipe pipe;
    if ASCEND_IS_AIC {
        TQue<TPosition::A1, 1> qa1;
        TQue<TPosition::B1, 1> qb1;
        TQue<TPosition::A2, 1> qa2;
        TQue<TPosition::B2, 1> qb2;
        TQue<TPosition::CO1, 1> qc;
        pipe.InitBuffer(qa1, 1, D * D * 2);
        pipe.InitBuffer(qb1, 1, D * D * 2);
        pipe.InitBuffer(qa2, 1, D * D * 2);
        pipe.InitBuffer(qb2, 1, D * D * 2);
        pipe.InitBuffer(qc, 1, D * D * 4);
        LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
        DataCopy(a1, ag, Nd2NzParams(1, D, D, 0, D, D, 1, 0));
        DataCopy(b1, bg, Nd2NzParams(1, D, D, 0, D, D, 1, 0));
        qa1.EnQue(a1);
        qb1.EnQue(b1);
        a1 = qa1.DeQue<half>();
        b1 = qb1.DeQue<half>();
        LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
        for (int i = 0; i < D / 16; ++i) LoadData(a2[i * D * 16], a1[i * 256], LoadData2DParams(0, D / 16, D / 16, 0, 0, false, 0));
        for (int i = 0; i < D / 16; ++i) LoadData(b2[i * D * 16], b1[i * 256], LoadData2DParams(0, D / 16, D / 16, 0, 0, true, 0));
        qa1.FreeTensor(a1);
        qb1.FreeTensor(b1);
        qa2.EnQue(a2);
        qb2.EnQue(b2);
        a2 = qa2.DeQue<half>();
        b2 = qb2.DeQue<half>();
        LocalTensor<float> c1 = qc.AllocTensor<float>();
        MmadParams p;
        p.m = D; p.n = D; p.k = D;
        Mmad(c1, a2, b2, p);
        qa2.FreeTensor(a2);
        qb2.FreeTensor(b2);
        qc.EnQue(c1);
        c1 = qc.DeQue<float>();
        Fixpipe(cg, c1, FixpipeParamsV220(D, D, D, D, false));
        qc.FreeTensor(c1);
        if (S != "no_set") CrossCoreSetFlag<2, PIPE_FIX>(5);
    } else {
        TQue<TPosition::VECIN, 1> qin;
        TQue<TPosition::VECOUT, 1> qout;
        pipe.InitBuffer(qin, 1, D * D / 2 * 4);
        pipe.InitBuffer(qout, 1, D * D / 2 * 4);
        CrossCoreWaitFlag(5);
        const int half_rows = D * D / 2;
        LocalTensor<float> x = qin.AllocTensor<float>();
        DataCopy(x, cg[GetSubBlockIdx() * half_rows], half_rows);
        qin.EnQue(x);
        x = qin.DeQue<float>();
        LocalTensor<float> y = qout.AllocTensor<float>();
        Muls(y, x, 2.0f, half_rows);
        qin.FreeTensor(x);
        qout.EnQue(y);
        y = qout.DeQue<float>();
        DataCopy(og[(GetBlockIdx() / 2) * D * D + GetSubBlockIdx() * half_rows], y, half_rows);
        qout.FreeTensor(y);
    }
}

int main(int, char** argv) {
    int blocks = std::atoi(argv[1]);
    S = argv[2];
    half* a = (half*)GmAlloc(D * D * 2);
    half* b = (half*)GmAlloc(D * D * 2);
    float* c = (float*)GmAlloc(size_t(blocks) * D * D * 4);
    float* out = (float*)GmAlloc(size_t(blocks) * D * D * 4);
    for (int i = 0; i < D; ++i)
        for (int k = 0; k < D; ++k) {
            a[i * D + k] = half(1.0f / float(1 + (i + k) % 7));
            b[i * D + k] = half(float((i * 3 + k) % 5 - 2));
        }
    opkit::sim::set_kernel_type(KERNEL_TYPE_MIX_AIC_1_2);
    ICPU_RUN_KF(mix_cube, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, (uint8_t*)out);
    fwrite(out, 4, size_t(blocks) * D * D, stdout);
    return 0;
}
