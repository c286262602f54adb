// The GMM family's tiling fields that both cube kernels read (ops/gmm/grouped_matmul and
// ops/gmm/grouped_gemm): the base blocks of one output tile and the forms of the weight and the bias.
// Each package's tiling data holds it as its member `cube`; host and kernel compile this same header.
#ifndef GMM_TILING_DATA_H
#define GMM_TILING_DATA_H

#include <cstdint>

struct GmmCubeTiling {
    uint32_t baseM;        // rows of one output tile (L0A / L0C)
    uint32_t baseN;        // columns of one output tile (L0B / L0C / BiasTable)
    uint32_t baseK;        // depth of one Mmad (one L0A / L0B load)
    uint32_t stepK;        // Mmads per L1 load: an L1 slice of K is stepK * baseK deep
    uint32_t transWeight;  // 1: every weight is [N, K] instead of [K, N]
    uint32_t hasBias;      // 1: a bias row [N] is added (float32 in the BiasTable)
};

#endif  // GMM_TILING_DATA_H
