// Matmul test harness. usage: matmul_harness DIR COMBO M N K ta tb bias mode
//   COMBO: f16f32 (half x half -> float), bf16bf16, f32f32, s8s32, s8f16 (int8 x int8 -> half through DEQF16); mode: all | tiles | seq | atomic | mix | aic | aiv
//   DIR: a.bin, b.bin, bias.bin, c.bin (initial C, also the output)
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"

using namespace AscendC;
static int M, N, K, TA, TB, BIAS;
static std::string MODE;

template <class AT, class CT, class BT>
struct Op {
    using A = MatmulType<TPosition::GM, CubeFormat::ND, AT>;
    using B = MatmulType<TPosition::GM, CubeFormat::ND, AT>;
    using C = MatmulType<TPosition::GM, CubeFormat::ND, CT>;
    using Bias = MatmulType<TPosition::GM, CubeFormat::ND, BT>;
    static void run(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling) {
        TPipe pipe;
        Matmul<A, B, C, Bias> mm;
        TCubeTiling t = *reinterpret_cast<TCubeTiling*>(tiling);
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<AT> ga, gb;
        GlobalTensor<CT> gc;
        GlobalTensor<BT> gbias;
        ga.SetGlobalBuffer((__gm__ AT*)a);
        gb.SetGlobalBuffer((__gm__ AT*)b);
        gc.SetGlobalBuffer((__gm__ CT*)c);
        gbias.SetGlobalBuffer((__gm__ BT*)bias);
        // the second AIV of a MIX core takes no part
        if (GetSubBlockIdx() != 0) return;
        mm.SetOrgShape(M, N, K);
        mm.SetSingleShape(M, N, K);
        mm.SetTensorA(ga, TA);
        mm.SetTensorB(gb, TB);
        if (BIAS) mm.SetBias(gbias);
        if (MODE == "tiles" || MODE == "seq") {
            int off = 0;
            while (mm.Iterate()) {
                if (MODE == "tiles") mm.GetTensorC(gc);
                else {
                    mm.GetTensorC(gc[off], 0, true);
                    off += t.baseM * t.baseN;
                }
            }
        } else {
            mm.IterateAll(gc, MODE == "atomic" ? 1 : 0);
        }
        mm.End();
    }
};

static std::string COMBO;
extern "C" __global__ __aicore__ void mm_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR ws, GM_ADDR tiling) {
    if (COMBO == "f16f32") Op<half, float, float>::run(a, b, bias, c, tiling);
    else if (COMBO == "bf16bf16") Op<bfloat16_t, bfloat16_t, float>::run(a, b, bias, c, tiling);
    else if (COMBO == "f32f32") Op<float, float, float>::run(a, b, bias, c, tiling);
    else if (COMBO == "s8s32") Op<int8_t, int32_t, int32_t>::run(a, b, bias, c, tiling);
    else if (COMBO == "s8f16") Op<int8_t, half, int32_t>::run(a, b, bias, c, tiling);
}

static std::vector<uint8_t> rd(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char** argv) {
    std::string d = argv[1];
    COMBO = argv[2];
    M = std::atoi(argv[3]); N = std::atoi(argv[4]); K = std::atoi(argv[5]);
    TA = std::atoi(argv[6]); TB = std::atoi(argv[7]); BIAS = std::atoi(argv[8]);
    MODE = argv[9];
    const char* names[4] = {"a.bin", "b.bin", "bias.bin", "c.bin"};
    uint8_t* g[4];
    std::vector<uint8_t> cv;
    for (int i = 0; i < 4; ++i) {
        std::vector<uint8_t> v = rd(d + "/" + names[i]);
        g[i] = (uint8_t*)GmAlloc(v.size() ? v.size() : 32);
        std::memcpy(g[i], v.data(), v.size());
        if (i == 3) cv = v;
    }
    TCubeTiling* t = (TCubeTiling*)GmAlloc(sizeof(TCubeTiling));
    t->M = M; t->N = N; t->Ka = K; t->Kb = K; t->singleCoreM = M; t->singleCoreN = N; t->singleCoreK = K;
    t->baseM = 16; t->baseN = 32; t->baseK = 16; t->isBias = BIAS; t->iterateOrder = 0;
    uint8_t* ws = (uint8_t*)GmAlloc(16 * 1024 * 1024);
    // the Matmul needs a cube core: MIX (1 AIC + 2 AIV) unless the mode asks for a cube-only or a vector-only launch
    SetKernelMode(MODE == "aic" ? KernelMode::AIC_MODE : MODE == "aiv" ? KernelMode::AIV_MODE : KernelMode::MIX_MODE);
    ICPU_RUN_KF(mm_kernel, 1, g[0], g[1], g[2], g[3], ws, (uint8_t*)t);
    std::ofstream f(d + "/out.bin", std::ios::binary);
    f.write((const char*)g[3], cv.size());
    return 0;
}
