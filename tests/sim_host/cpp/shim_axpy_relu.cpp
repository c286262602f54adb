// Test copy of the entry shim opkit's build generates: the kernel of ops/examples/axpy_relu and
// the function the harness launches it through.
#include <cstdio>

#include "tikicpulib.h"
#include "axpy_relu.cpp"

extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args)
{
    if (n_args != 5) {
        std::fprintf(stderr, "opkit-sim: error: axpy_relu: %d kernel arguments given, 5 expected\n", n_args);
        return 3;
    }
    ICPU_SET_TILING_KEY(tiling_key);
    ICPU_RUN_KF(axpy_relu, block_dim, (uint8_t*)args[0], (uint8_t*)args[1], (uint8_t*)args[2], (uint8_t*)args[3],
                (uint8_t*)args[4]);
    return 0;
}
