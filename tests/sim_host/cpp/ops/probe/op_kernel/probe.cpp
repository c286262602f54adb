// Kernel of the Probe test operator (host: ../../../probe_op.cpp; the launch shim is the one opkit's build
// generates): a one-block kernel that writes y[0] = 1 when the optional input x arrived as nullptr, y[1] = the
// tiling key it runs under, y[2] = 1 when the user workspace (after the system workspace) is inside the
// workspace the host allocated; under tiling key 8 it reads past the end of w instead. Under PROBE_MATMUL_KEY
// it is the ProbeMatmul kernel, a MIX 1:2 launch (its KERNEL_TASK_TYPE below).
#include "lib/matmul_intf.h"
#include "probe_matmul_tiling.h"

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
    KERNEL_TASK_TYPE(PROBE_MATMUL_KEY, KERNEL_TYPE_MIX_AIC_1_2);
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
