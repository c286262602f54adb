// MatmulAllReduce: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/matmul_all_reduce_tiling.cpp) writes it into the tiling buffer through
// context->GetTilingData<MatmulAllReduceTilingData>(); the kernel copies it out with
// GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header. Besides the cut of M into
// communication tiles it holds the Matmul's TCubeTiling (one tile's rows spread over the cores as pieces of
// singleCoreM x singleCoreN) and the HCCL tilings (Mc2InitTiling, Mc2CcTiling) Mc2CcTilingConfig fills.
#ifndef MATMUL_ALL_REDUCE_TILING_DATA_H
#define MATMUL_ALL_REDUCE_TILING_DATA_H

#include <cstdint>

#include "adv_api/hccl/hccl_tiling_struct.h"
#include "kernel_tiling/kernel_tiling.h"
#include "mc2_tiling_data.h"

struct MatmulAllReduceTilingData {
    uint32_t M;            // rows of x1, x3 and y
    uint32_t N;            // columns of y: x2's columns (its rows with is_trans_b)
    uint32_t K;            // the reduction: x1's columns
    uint32_t isTransB;     // attr is_trans_b: x2 is [N, K]
    uint32_t hasBias;      // a bias [N] is given
    uint32_t hasX3;        // an x3 [M, N] is given (added before the reduce, as the documented formula says)
    Mc2CutTiling cut;      // the cut into tiles and the pieces (ops/mc2/common/op_kernel/mc2_tiling_data.h)
    uint64_t stagingOffset;  // bytes into the user workspace of the [M, N] staging buffer (fp16/bf16)
    AscendC::tiling::TCubeTiling mmTiling;  // the Matmul of one piece (singleCoreM x singleCoreN x K)
    Mc2InitTiling mc2InitTiling;            // Hccl::InitV2
    Mc2CcTiling allReduceTiling;            // Hccl::SetCcTiling: the AllReduce (sum) the kernel prepares
};

#endif  // MATMUL_ALL_REDUCE_TILING_DATA_H
