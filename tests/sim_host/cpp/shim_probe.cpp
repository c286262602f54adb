// Test shim of the Probe operator: a one-block kernel that writes y[0] = 1 when the optional
// input x arrived as nullptr, y[1] = the tiling key it runs under, y[2] = 1 when the user
// workspace (after the system workspace) is inside the workspace the host allocated; under tiling
// key 8 it reads past the end of w instead.
#include <cstdio>

#include "lib/matmul_intf.h"
#include "probe_matmul_tiling.h"
#include "tikicpulib.h"

// ProbeMatmul (tiling key PROBE_MATMUL_KEY): every cube core computes its singleCoreM x
// singleCoreN block of c with the high-level Matmul, as a MIX 1:2 kernel (the second vector core of
// each core has nothing to do).
static void ProbeMatmulKernel(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    using namespace AscendC;
    GET_TILING_DATA_WITH_STRUCT(ProbeMatmulTiling, td, tiling);
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &td.mm);
    if (GetSubBlockIdx() != 0) {
        return;
    }
    const TCubeTiling& t = td.mm;
    const int32_t core = static_cast<int32_t>(GetBlockIdx() / GetTaskRation());
    const int32_t mIdx = core % static_cast<int32_t>(td.mBlocks);
    const int32_t nIdx = core / static_cast<int32_t>(td.mBlocks);
    const int32_t m0 = mIdx * t.singleCoreM;
    const int32_t n0 = nIdx * t.singleCoreN;
    if (m0 >= t.M || n0 >= t.N) {
        return;
    }
    const int32_t sm = m0 + t.singleCoreM > t.M ? t.M - m0 : t.singleCoreM;
    const int32_t sn = n0 + t.singleCoreN > t.N ? t.N - n0 : t.singleCoreN;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer((__gm__ half*)a + static_cast<int64_t>(m0) * t.Ka);
    gb.SetGlobalBuffer((__gm__ half*)b + n0);
    gc.SetGlobalBuffer((__gm__ float*)c + static_cast<int64_t>(m0) * t.N + n0);
    mm.SetOrgShape(t.M, t.N, t.Ka);
    mm.SetSingleShape(sm, sn, t.Ka);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
}

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    if (TILING_KEY_IS(PROBE_MATMUL_KEY)) {  // ProbeMatmul: (a, b, c, workspace, tiling)
        ProbeMatmulKernel(x, w, y, tiling);
        return;
    }
    if (TILING_KEY_IS(8)) {  // w has 6 floats: a DataCopy of 64 reads past its end
        AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        AscendC::GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)w, 64);
        AscendC::LocalTensor<float> t = buf.Get<float>();
        AscendC::DataCopy(t, g, 64);
        return;
    }
    if (TILING_KEY_IS(9)) {
        return;
    }
    float* out = reinterpret_cast<float*>(y);
    out[0] = x == nullptr ? 1.0f : 0.0f;
    out[1] = TILING_KEY_IS(7) ? 7.0f : -1.0f;
    GM_ADDR user = GetUserWorkspace(workspace);
    out[2] = user != nullptr ? 1.0f : 0.0f;
    out[3] = 0.0f;
}

// ProbeList: y[0] = tensors in the list, y[1] = their rank, y[2 + k] = first element of tensor k,
// read through the ListTensorDesc layout of the dynamic input.
extern "C" __global__ __aicore__ void probe_list(GM_ADDR xs, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    (void)tiling;
    const uint64_t* d = reinterpret_cast<const uint64_t*>(xs);
    const uint64_t rank = d[1] & 0xffffffffu;
    const uint64_t n = (d[0] / 8 - 1) / (rank + 1);
    const uint64_t* ptrs = d + d[0] / 8;
    float* out = reinterpret_cast<float*>(y);
    for (int i = 0; i < 8; ++i) out[i] = 0.0f;
    out[0] = static_cast<float>(n);
    out[1] = static_cast<float>(rank);
    for (uint64_t k = 0; k < n && k < 6; ++k) out[2 + k] = *reinterpret_cast<const float*>(ptrs[k]);
}

extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args)
{
    if (n_args == 4) {  // ProbeList
        ICPU_SET_TILING_KEY(tiling_key);
        ICPU_RUN_KF(probe_list, block_dim, (uint8_t*)args[0], (uint8_t*)args[1], (uint8_t*)args[2], (uint8_t*)args[3]);
        return 0;
    }
    if (n_args != 5) {
        std::fprintf(stderr, "opkit-sim: error: probe: %d kernel arguments given, 5 expected\n", n_args);
        return 3;
    }
    ICPU_SET_TILING_KEY(tiling_key);
    ICPU_RUN_KF(probe, block_dim, (uint8_t*)args[0], (uint8_t*)args[1], (uint8_t*)args[2], (uint8_t*)args[3],
                (uint8_t*)args[4]);
    return 0;
}
