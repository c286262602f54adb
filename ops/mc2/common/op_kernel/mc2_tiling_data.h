// The MC2 family's tiling-data fields: the cut of M into communication tiles and the pieces the vector cores
// take, as every MC2 package's tiling data holds them (its member `cut`). The user workspace starts with the
// bias as fp32 (N floats, when a bias is given: the cube adds it from its BiasTable), then, unless the pieces go
// straight to their destination, the workers' fp32 piece buffers at pieceOffset. The host fills them from the cut
// model (op_host/mc2_cut.h); host and kernel compile this same header.
#ifndef MC2_TILING_DATA_H
#define MC2_TILING_DATA_H

#include <cstdint>

constexpr uint32_t MC2_MAX_RAMP = 4;  // the most growing tiles before the long ones (mc2::MAX_RAMP on the host)

struct Mc2CutTiling {
    uint32_t rankDim;      // world size of the group (HcomGetRankSize)
    uint32_t rampCnt;      // growing tiles at the front (0 to MC2_MAX_RAMP), each its own collective ...
    uint32_t rampM[MC2_MAX_RAMP];  // ... of rampM[i] rows
    uint32_t tileM;        // rows of a long communication tile
    uint32_t tileCnt;      // long tiles, after the ramp
    uint32_t tailM;        // rows of the short tail tile (0: none)
    uint32_t tailCnt;      // 0 or 1
    uint32_t pieceStride;  // row stride (floats) of a worker's fp32 piece buffer: singleCoreN rounded up to 16
                           // (also the columns of a chunk of the bias's conversion to fp32)
    uint32_t rowsPerChunk; // rows of a piece the vector epilogue holds in UB at once (0: no epilogue)
    uint32_t workers;      // vector cores taking pieces: 2 per block
    uint32_t direct;       // 1: the cube rounds each piece and writes it straight to its destination (Fixpipe)
    uint32_t pieceOffset;  // bytes into the user workspace of the workers' fp32 piece buffers (after the fp32 bias)
    uint32_t reserved;     // keeps the struct a multiple of 8 bytes
};

#endif  // MC2_TILING_DATA_H
