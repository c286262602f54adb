// GroupedMatmul: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The host (op_host/grouped_matmul_tiling.cpp) writes it through context->GetTilingData<...>();
// the kernel copies it out with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same
// header, so the byte layout cannot drift. The group sizes are not here: group_list is a device
// tensor, read by the kernel itself.
#ifndef GROUPED_MATMUL_TILING_DATA_H
#define GROUPED_MATMUL_TILING_DATA_H

#include <cstdint>

#include "gmm_tiling_data.h"

struct GroupedMatmulTilingData {
    uint32_t M;              // rows of x and y (the rows of all groups, plus any rows past the last group)
    uint32_t N;              // columns of every weight, of y and of every bias row
    uint32_t K;              // columns of x, rows of every weight
    uint32_t E;              // groups (experts): weight is [E, K, N] or, transposed, [E, N, K]
    GmmCubeTiling cube;      // base blocks, transWeight (weight [E, N, K]), hasBias (bias [E, N]): the GMM
                             // family's common fields (ops/gmm/common/op_kernel/gmm_tiling_data.h)
    uint32_t nTiles;         // ceil(N / baseN): tiles per row block of a group
    uint32_t groupListType;  // 0: group_list holds cumulative row ends; 1: row counts
    uint32_t xResident;      // 1: x's row block stays in L1 over K (its tiles run back to back), l0cNum column
                             //    parts a tile with an L0C buffer each, work dealt in even shares; 0: x and w
                             //    streamed per K slice, one L0C tile, tiles round-robin
    uint32_t l0cNum;         // L0C buffers: a tile's column parts with xResident, else 1
    uint32_t l0bNum;         // L0B buffers of a part's K step with xResident (2 to l0cNum), else 2
};

#endif  // GROUPED_MATMUL_TILING_DATA_H
