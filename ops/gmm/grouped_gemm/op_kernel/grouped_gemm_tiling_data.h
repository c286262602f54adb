// GroupedGemm: the tiling data shared by host and kernel (a plain struct).
#ifndef GROUPED_GEMM_TILING_DATA_H
#define GROUPED_GEMM_TILING_DATA_H

#include <cstdint>

constexpr uint32_t GROUPED_GEMM_MAX_PROBLEMS = 128;  // as ops-transformer's MAX_TENSOR_CONT

struct GroupedGemmTilingData {
    uint32_t count;        // problems in the lists
    uint32_t baseM;        // rows of one output tile
    uint32_t baseN;        // columns of one output tile
    uint32_t baseK;        // depth of one Mmad
    uint32_t stepK;        // Mmads per L1 slice of K
    uint32_t transWeight;  // 1: every weight is [N_i, K_i]
    uint32_t hasBias;      // 1: a float32 bias [N_i] per problem
    uint32_t reserved;
    uint32_t mList[GROUPED_GEMM_MAX_PROBLEMS];  // M_i (rows of x_i and y_i)
    uint32_t kList[GROUPED_GEMM_MAX_PROBLEMS];  // K_i
    uint32_t nList[GROUPED_GEMM_MAX_PROBLEMS];  // N_i
};

#endif  // GROUPED_GEMM_TILING_DATA_H
