// MatmulCustom: the tiling data, written by op_host/matmul_custom_tiling.cpp and read by the kernel.
#ifndef MATMUL_CUSTOM_TILING_DATA_H
#define MATMUL_CUSTOM_TILING_DATA_H

#include <cstdint>

struct MatmulCustomTilingData {
    uint32_t M;       // rows of a and c
    uint32_t N;       // columns of b and c
    uint32_t K;       // columns of a, rows of b
    uint32_t baseM;   // rows of one output tile (L0A / L0C)
    uint32_t baseN;   // columns of one output tile (L0B / L0C)
    uint32_t baseK;   // depth of one Mmad (one L0A / L0B load)
    uint32_t stepK;   // base blocks of K per GM -> L1 copy (1: one block per copy)
    uint32_t mTiles;  // ceil(M / baseM)
    uint32_t nTiles;  // ceil(N / baseN)
};

#endif  // MATMUL_CUSTOM_TILING_DATA_H
