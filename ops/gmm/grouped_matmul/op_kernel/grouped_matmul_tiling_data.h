// GroupedMatmul: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The host (op_host/grouped_matmul_tiling.cpp) writes it through context->GetTilingData<...>();
// the kernel copies it out with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same
// header, so the byte layout cannot drift. The group sizes are not here: group_list is a device
// tensor, read by the kernel itself.
#ifndef GROUPED_MATMUL_TILING_DATA_H
#define GROUPED_MATMUL_TILING_DATA_H

#include <cstdint>

struct GroupedMatmulTilingData {
    uint32_t M;              // rows of x and y (the rows of all groups, plus any rows past the last group)
    uint32_t N;              // columns of every weight, of y and of every bias row
    uint32_t K;              // columns of x, rows of every weight
    uint32_t E;              // groups (experts): weight is [E, K, N] or, transposed, [E, N, K]
    uint32_t baseM;          // rows of one output tile (L0A / L0C)
    uint32_t baseN;          // columns of one output tile (L0B / L0C / BiasTable)
    uint32_t baseK;          // depth of one Mmad (one L0A / L0B load)
    uint32_t stepK;          // Mmads per L1 load: an L1 slice of K is stepK * baseK deep
    uint32_t nTiles;         // ceil(N / baseN): tiles per row block of a group
    uint32_t transWeight;    // 1: weight is [E, N, K]
    uint32_t hasBias;        // 1: bias [E, N] (float32) is added
    uint32_t groupListType;  // 0: group_list holds cumulative row ends; 1: row counts
    uint32_t xResident;      // 1: x's row block stays in L1 over K (its N pieces run back to back), two L0C
                             //    buffers (Fixpipe of one piece under the next one's Mmads), work dealt in
                             //    even shares; 0: x and w streamed per K slice, one L0C tile, tiles round-robin
    uint32_t l0cNum;         // L0C buffers: 2 with xResident, else 1
};

#endif  // GROUPED_MATMUL_TILING_DATA_H
