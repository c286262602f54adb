// A half bias with float accumulation (grouped_matmul's fp16 path): L1 (C1) -> BiasTable (C2) converts half -> float.
// usage: ot_bias_harness DIR SCENARIO M N K
//   matmul      AIC-only: Matmul<half A, half B, float C, half bias> IterateAll with SetBias (tiling base 32 x 32 x 32)
//   bf16        DataCopy(C2 float, C1 bfloat16_t, DataCopyParams): refused (A2/A3 convert half -> float only)
//   ub_to_bt    DataCopy(C2 float, UB half, DataCopyParams): refused (the converting copy starts in L1)
// Reads DIR/a.bin (half [M, K]), b.bin (half [K, N]), bias.bin (half [N]); writes DIR/out.bin (float [M, N]).
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;
static int M, N, K;
static TCubeTiling* T;

using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void ot_bias_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    GlobalTensor<half> ga, gb, gbias;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer((__gm__ half*)a);
    gb.SetGlobalBuffer((__gm__ half*)b);
    gbias.SetGlobalBuffer((__gm__ half*)bias);
    gc.SetGlobalBuffer((__gm__ float*)c);
    TPipe pipe;
    if (S == "matmul") {
        Matmul<A, A, C, A> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, T);
        mm.SetTensorA(ga);
        mm.SetTensorB(gb);
        mm.SetBias(gbias);
        mm.IterateAll(gc);
        mm.End();
        return;
    }
    TBuf<TPosition::C2> bt;
    pipe.InitBuffer(bt, 64 * sizeof(float));
    LocalTensor<float> dst = bt.Get<float>();
    if (S == "bf16") {
        TBuf<TPosition::C1> l1;
        pipe.InitBuffer(l1, 64 * sizeof(bfloat16_t));
        LocalTensor<bfloat16_t> src = l1.Get<bfloat16_t>();
        DataCopy(dst, src, DataCopyParams(1, 4, 0, 0));  // @bf16
    } else if (S == "ub_to_bt") {
        TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, 64 * sizeof(half));
        LocalTensor<half> src = ub.Get<half>();
        DataCopy(dst, src, DataCopyParams(1, 4, 0, 0));  // @ub_to_bt
    }
}

static std::vector<uint8_t> rd(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char** argv) {
    if (argc != 6) return 2;
    std::string d = argv[1];
    S = argv[2];
    M = std::atoi(argv[3]); N = std::atoi(argv[4]); K = std::atoi(argv[5]);
    const char* names[3] = {"a.bin", "b.bin", "bias.bin"};
    uint8_t* g[3];
    for (int i = 0; i < 3; ++i) {
        std::vector<uint8_t> v = rd(d + "/" + names[i]);
        g[i] = (uint8_t*)GmAlloc(v.size() ? v.size() : 32);
        std::memcpy(g[i], v.data(), v.size());
    }
    const size_t cbytes = size_t(M) * N * sizeof(float);
    uint8_t* c = (uint8_t*)GmAlloc(cbytes);
    T = (TCubeTiling*)GmAlloc(sizeof(TCubeTiling));
    new (T) TCubeTiling();
    T->M = M; T->N = N; T->Ka = K; T->Kb = K; T->singleCoreM = M; T->singleCoreN = N; T->singleCoreK = K;
    T->baseM = 32; T->baseN = 32; T->baseK = 32; T->isBias = 1; T->iterateOrder = 0;
    T->depthA1 = 1; T->depthB1 = 1; T->stepKa = 1; T->stepKb = 1; T->dbL0A = 1; T->dbL0B = 1; T->dbL0C = 1;
    SetKernelMode(KernelMode::AIC_MODE);
    ICPU_RUN_KF(ot_bias_kernel, 1, g[0], g[1], g[2], c);
    std::ofstream f(d + "/out.bin", std::ios::binary);
    f.write((const char*)c, cbytes);
    return 0;
}
