// Tiling data of the ProbeMatmul test operator (plain-struct style, shared by host and kernel):
// the Matmul library's TCubeTiling, as flash-attention-style operators embed it.
#ifndef PROBE_MATMUL_TILING_H
#define PROBE_MATMUL_TILING_H

#include "kernel_tiling/kernel_tiling.h"

struct ProbeMatmulTiling {
    AscendC::tiling::TCubeTiling mm;
    uint32_t mBlocks;  // cores along M (the N split is usedCoreNum / mBlocks)
    uint32_t reserved;
};

#define PROBE_MATMUL_KEY 1000

#endif  // PROBE_MATMUL_TILING_H
