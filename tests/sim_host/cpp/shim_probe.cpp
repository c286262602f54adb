// Test shim of the Probe operator: a one-block kernel that writes y[0] = 1 when the optional
// input x arrived as nullptr, y[1] = the tiling key it runs under, y[2] = 1 when the user
// workspace (after the system workspace) is inside the workspace the host allocated; under tiling
// key 8 it reads past the end of w instead.
#include <cstdio>

#include "tikicpulib.h"

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)tiling;
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
