// GroupedGemm: the tiling data shared by host and kernel (a plain struct). The base blocks and the forms
// of weight and bias are the GMM family's common fields (ops/gmm/common/op_kernel/gmm_tiling_data.h).
#ifndef GROUPED_GEMM_TILING_DATA_H
#define GROUPED_GEMM_TILING_DATA_H

#include <cstdint>

#include "gmm_tiling_data.h"

constexpr uint32_t GROUPED_GEMM_MAX_PROBLEMS = 128;  // as ops-transformer's MAX_TENSOR_CONT

struct GroupedGemmTilingData {
    uint32_t count;      // problems in the lists
    GmmCubeTiling cube;  // base blocks (the streamed form: stepK slices), transWeight (every weight [N_i, K_i]),
                         // hasBias (a float32 bias [N_i] per problem)
    uint32_t reserved;
    uint32_t mList[GROUPED_GEMM_MAX_PROBLEMS];  // M_i (rows of x_i and y_i)
    uint32_t kList[GROUPED_GEMM_MAX_PROBLEMS];  // K_i
    uint32_t nList[GROUPED_GEMM_MAX_PROBLEMS];  // N_i
};

#endif  // GROUPED_GEMM_TILING_DATA_H
