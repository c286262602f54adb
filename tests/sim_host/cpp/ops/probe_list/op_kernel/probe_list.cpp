// Kernel of the ProbeList test operator (host: ../../../probe_op.cpp; the launch shim is the one opkit's build
// generates).
#include "kernel_operator.h"

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
