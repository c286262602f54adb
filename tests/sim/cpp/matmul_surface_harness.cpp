// Matmul template-surface harness. usage: matmul_surface_harness DIR MODE M N K
//   half A[M,K] x half B[K,N] -> float C, all in GM; DIR holds a.bin, b.bin, bias.bin and gets c.bin (and c2.bin).
//   MODE: mdl    Matmul declared with GetMDLConfig(true) (a CFG_MDL_EXCEED-style constant), host tiling, bias
//         two    two objects registered in one REGIST_MATMUL_OBJ: mm1 (Norm) C = A x B, mm2 (MDL) C2 = A x B^T (B given as [N,K])
//         static a MatmulApiStaticTiling MM_CFG (shapes fixed at 32 x 48 x 64 at compile time), REGIST_MATMUL_OBJ(..., nullptr)
//         basic  a static tiling with only the base block constant (GetBasicConfig), shapes set at run time
//         mmcfg  GetMMConfig<CONFIG_MDL>(MatmulShapeParams, MatmulFuncParams) as MM_CFG, tile by tile (Iterate/GetTensorC)
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"

using namespace AscendC;
static int M, N, K;
static std::string MODE;

using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using B = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BT = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using Bias = MatmulType<TPosition::GM, CubeFormat::ND, float>;

constexpr MatmulConfig MDL_EXCEED = GetMDLConfig(true);
constexpr MatmulConfig SHAPED = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulShapeParams{32, 48, 64, 16, 16, 32});
constexpr static MatmulApiStaticTiling STATIC_TILING = GetMatmulApiTiling<A, B, C, Bias>(SHAPED);
constexpr static MatmulApiStaticTiling BASIC_TILING = GetMatmulApiTiling<A, B, C, Bias>(GetBasicConfig(32, 16, 16));
constexpr MatmulConfig TILED = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(
    MatmulFuncParams{false, false, false, false, 0, IterateOrder::ORDER_N, ScheduleType::INNER_PRODUCT});

struct Gm {
    GlobalTensor<half> a, b;
    GlobalTensor<float> c, c2, bias;
};

static void run_mdl(TPipe& pipe, Gm& g, const TCubeTiling* t) {
    Matmul<A, B, C, Bias, MDL_EXCEED> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, t);
    if (GetSubBlockIdx() != 0) return;
    mm.SetTensorA(g.a);
    mm.SetTensorB(g.b);
    mm.SetBias(g.bias);
    mm.IterateAll(g.c);
    mm.End();
}

static void run_two(TPipe& pipe, Gm& g, const TCubeTiling* t1, const TCubeTiling* t2) {
    Matmul<A, B, C, Bias, CFG_NORM> mm1;
    Matmul<A, BT, C, Bias, CFG_MDL> mm2;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm1, t1, mm2, t2);
    if (GetSubBlockIdx() != 0) return;
    mm1.SetTensorA(g.a);
    mm1.SetTensorB(g.b);
    mm1.IterateAll(g.c);
    mm1.End();
    mm2.SetTensorA(g.a);
    mm2.SetTensorB(g.b, true);
    mm2.IterateAll(g.c2);
    mm2.End();
}

static void run_static(TPipe& pipe, Gm& g) {
    Matmul<A, B, C, Bias, STATIC_TILING> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, nullptr);
    if (GetSubBlockIdx() != 0) return;
    mm.SetTensorA(g.a);
    mm.SetTensorB(g.b);
    mm.SetBias(g.bias);
    mm.IterateAll(g.c);
    mm.End();
}

static void run_basic(TPipe& pipe, Gm& g) {
    Matmul<A, B, C, Bias, BASIC_TILING> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, nullptr);
    if (GetSubBlockIdx() != 0) return;
    mm.SetOrgShape(M, N, K);
    mm.SetSingleShape(M, N, K);
    mm.SetTensorA(g.a);
    mm.SetTensorB(g.b);
    // base block 32 x 16, tile by tile into place
    while (mm.Iterate()) mm.GetTensorC(g.c);
    mm.End();
}

static void run_mmcfg(TPipe& pipe, Gm& g, const TCubeTiling* t) {
    Matmul<A, B, C, Bias, TILED> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, t);
    if (GetSubBlockIdx() != 0) return;
    mm.SetTensorA(g.a);
    mm.SetTensorB(g.b);
    int off = 0;
    while (mm.Iterate()) {
        mm.GetTensorC(g.c[off], 0, true);
        off += t->baseM * t->baseN;
    }
    mm.End();
}

extern "C" __global__ __aicore__ void mm_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR c2, GM_ADDR ws,
                                                GM_ADDR tiling) {
    TPipe pipe;
    Gm g;
    g.a.SetGlobalBuffer((__gm__ half*)a);
    g.b.SetGlobalBuffer((__gm__ half*)b);
    g.bias.SetGlobalBuffer((__gm__ float*)bias);
    g.c.SetGlobalBuffer((__gm__ float*)c);
    g.c2.SetGlobalBuffer((__gm__ float*)c2);
    const TCubeTiling* t = reinterpret_cast<const TCubeTiling*>(tiling);
    if (MODE == "mdl") run_mdl(pipe, g, t);
    else if (MODE == "two") run_two(pipe, g, t, t + 1);
    else if (MODE == "static") run_static(pipe, g);
    else if (MODE == "basic") run_basic(pipe, g);
    else if (MODE == "mmcfg") run_mmcfg(pipe, g, t);
}

static std::vector<uint8_t> rd(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

static void shape(TCubeTiling& t, int m, int n, int k, int bm, int bn, int bk, int bias) {
    t.M = m; t.N = n; t.Ka = k; t.Kb = k; t.singleCoreM = m; t.singleCoreN = n; t.singleCoreK = k;
    t.baseM = bm; t.baseN = bn; t.baseK = bk; t.isBias = bias; t.iterateOrder = 0; t.usedCoreNum = 1;
}

int main(int argc, char** argv) {
    if (argc != 6) return 2;
    std::string d = argv[1];
    MODE = argv[2];
    M = std::atoi(argv[3]); N = std::atoi(argv[4]); K = std::atoi(argv[5]);
    std::vector<uint8_t> va = rd(d + "/a.bin"), vb = rd(d + "/b.bin"), vbias = rd(d + "/bias.bin");
    const size_t cbytes = size_t(M) * N * sizeof(float);
    uint8_t* a = (uint8_t*)GmAlloc(va.size());
    uint8_t* b = (uint8_t*)GmAlloc(vb.size());
    uint8_t* bias = (uint8_t*)GmAlloc(vbias.size());
    uint8_t* c = (uint8_t*)GmAlloc(cbytes);
    uint8_t* c2 = (uint8_t*)GmAlloc(cbytes);
    std::memcpy(a, va.data(), va.size());
    std::memcpy(b, vb.data(), vb.size());
    std::memcpy(bias, vbias.data(), vbias.size());
    std::memset(c, 0, cbytes);
    std::memset(c2, 0, cbytes);
    TCubeTiling* t = (TCubeTiling*)GmAlloc(2 * sizeof(TCubeTiling));
    new (t) TCubeTiling[2]();
    shape(t[0], M, N, K, 16, 32, 16, MODE == "mdl");
    shape(t[1], M, N, K, 32, 16, 32, 0);
    uint8_t* ws = (uint8_t*)GmAlloc(16 * 1024 * 1024);
    SetKernelMode(KernelMode::MIX_MODE);  // the Matmul needs a cube core
    ICPU_RUN_KF(mm_kernel, 1, a, b, bias, c, c2, ws, (uint8_t*)t);
    std::ofstream(d + "/c.bin", std::ios::binary).write((const char*)c, cbytes);
    std::ofstream(d + "/c2.bin", std::ios::binary).write((const char*)c2, cbytes);
    return 0;
}
