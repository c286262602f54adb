// AllGatherMatmul: the tiling data, a plain struct that the host fills and the kernel reads (host and kernel
// compile this same header). Besides the cut of each rank's x1 into communication tiles it holds the Matmul's
// TCubeTiling (a piece of singleCoreM x singleCoreN) and the HCCL tilings Mc2CcTilingConfig fills.
#ifndef ALL_GATHER_MATMUL_TILING_DATA_H
#define ALL_GATHER_MATMUL_TILING_DATA_H

#include <cstdint>

#include "adv_api/hccl/hccl_tiling_struct.h"
#include "kernel_tiling/kernel_tiling.h"

struct AllGatherMatmulTilingData {
    uint32_t M;            // rows of each rank's x1 (y and gather_out have rankDim * M)
    uint32_t N;            // columns of y: x2's columns (its rows with is_trans_b)
    uint32_t K;            // columns of x1 and gather_out
    uint32_t isTransB;     // attr is_trans_b: x2 is [N, K]
    uint32_t hasBias;      // a bias [N] is given
    uint32_t rankDim;      // world size of the group (HcomGetRankSize)
    uint32_t tileM;        // rows of a long communication tile of x1
    uint32_t tileCnt;      // long tiles, at the front: rows [0, tileCnt * tileM) of each rank's x1
    uint32_t tailM;        // rows of the short tail tile (0: none)
    uint32_t tailCnt;      // 0 or 1
    uint32_t pieceStride;  // row stride (floats) of a worker's fp32 piece buffer: singleCoreN rounded up to 16
    uint32_t rowsPerChunk; // rows of a piece the vector epilogue holds in UB at once
    uint32_t workers;      // vector cores taking pieces: 2 per block
    uint32_t gatherInWorkspace;  // attr is_gather_out false: the gathered x1 goes to the workspace, not to gather_out
    uint64_t gatherOffset;       // bytes into the user workspace of that buffer
    AscendC::tiling::TCubeTiling mmTiling;  // the Matmul of one piece (singleCoreM x singleCoreN x K)
    Mc2InitTiling mc2InitTiling;            // Hccl::InitV2
    Mc2CcTiling allGatherTiling;            // Hccl::SetCcTiling: the AllGather the kernel prepares
};

#endif  // ALL_GATHER_MATMUL_TILING_DATA_H
