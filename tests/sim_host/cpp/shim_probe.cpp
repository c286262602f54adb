// Test shim of the Probe operator: a one-block kernel that writes y[0] = 1 when the optional
// input x arrived as nullptr, y[1] = the tiling key it runs under, y[2] = 1 when the user
// workspace (after the system workspace) is inside the workspace the host allocated.
#include <cstdio>

#include "tikicpulib.h"

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)w;
    (void)tiling;
    float* out = reinterpret_cast<float*>(y);
    out[0] = x == nullptr ? 1.0f : 0.0f;
    out[1] = TILING_KEY_IS(7) ? 7.0f : -1.0f;
    GM_ADDR user = GetUserWorkspace(workspace);
    out[2] = user != nullptr ? 1.0f : 0.0f;
    out[3] = 0.0f;
}

extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args)
{
    if (n_args != 5) {
        std::fprintf(stderr, "opkit-sim: error: probe: %d kernel arguments given, 5 expected\n", n_args);
        return 3;
    }
    ICPU_SET_TILING_KEY(tiling_key);
    ICPU_RUN_KF(probe, block_dim, (uint8_t*)args[0], (uint8_t*)args[1], (uint8_t*)args[2], (uint8_t*)args[3],
                (uint8_t*)args[4]);
    return 0;
}
