// Tiling of the rank_sum test operator (rank_sum_op.cpp, ops/rank_sum/op_kernel/rank_sum.cpp): host and kernel share this struct.
#pragma once
#include <cstdint>

struct RankSumTiling {
    uint64_t n;        // elements of x and y
    uint32_t tileCnt;  // slices committed one by one
    uint32_t tileLen;  // elements per slice (n = tileCnt * tileLen)
};
