// AllGatherMatmul: the tiling data, a plain struct that the host fills and the kernel reads (host and kernel
// compile this same header). Besides the cut of each rank's x1 into communication tiles it holds the Matmul's
// TCubeTiling (a piece of singleCoreM x singleCoreN) and the HCCL tilings Mc2CcTilingConfig fills.
#ifndef ALL_GATHER_MATMUL_TILING_DATA_H
#define ALL_GATHER_MATMUL_TILING_DATA_H

#include <cstdint>

#include "adv_api/hccl/hccl_tiling_struct.h"
#include "kernel_tiling/kernel_tiling.h"
#include "mc2_tiling_data.h"

struct AllGatherMatmulTilingData {
    uint32_t M;            // rows of each rank's x1 (y and gather_out have rankDim * M)
    uint32_t N;            // columns of y: x2's columns (its rows with is_trans_b)
    uint32_t K;            // columns of x1 and gather_out
    uint32_t isTransB;     // attr is_trans_b: x2 is [N, K]
    uint32_t hasBias;      // a bias [N] is given
    Mc2CutTiling cut;      // the cut into tiles and the pieces (ops/mc2/common/op_kernel/mc2_tiling_data.h)
    uint32_t gatherInWorkspace;  // attr is_gather_out false: the gathered x1 goes to the workspace, not to gather_out
    uint64_t gatherOffset;       // bytes into the user workspace of that buffer
    AscendC::tiling::TCubeTiling mmTiling;  // the Matmul of one piece (singleCoreM x singleCoreN x K)
    Mc2InitTiling mc2InitTiling;            // Hccl::InitV2
    Mc2CcTiling allGatherTiling;            // Hccl::SetCcTiling: the AllGather the kernel prepares
};

#endif  // ALL_GATHER_MATMUL_TILING_DATA_H
