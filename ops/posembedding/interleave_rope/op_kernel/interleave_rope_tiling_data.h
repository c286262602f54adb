// InterleaveRope: the tiling data, a plain struct that the host fills and the kernel reads.
//
// op_host/interleave_rope_tiling.cpp writes it straight into the tiling buffer through
// context->GetTilingData<InterleaveRopeTilingData>(); the kernel copies it out with
// GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this one header, so the byte layout cannot
// drift. Plain struct: fixed-width fields, 8-byte fields first, size a multiple of 8 bytes.
//
// Vocabulary. x is [B, N, S, D]; a "row" is one D-vector x[b, n, s, :], and the B*N*S rows are
// numbered in memory order. cos/sin rows are numbered the same way in their own shape.
#ifndef INTERLEAVE_ROPE_TILING_DATA_H
#define INTERLEAVE_ROPE_TILING_DATA_H

#include <cstdint>

// Tiling keys: one per broadcast pattern of cos/sin (both always have the same shape). Plain
// macros, so that TILING_KEY_IS sees literal values, as the kernel compiler expects.
#define INTERLEAVE_ROPE_KEY_B1SD 1  // [B, 1, S, D]: a row per (b, s)      (real op)
#define INTERLEAVE_ROPE_KEY_B11D 2  // [B, 1, 1, D]: a row per b           (real op)
#define INTERLEAVE_ROPE_KEY_11SD 3  // [1, 1, S, D]: a row per s           (opkit extension)
#define INTERLEAVE_ROPE_KEY_111D 4  // [1, 1, 1, D]: one row for all rows  (opkit extension)

struct InterleaveRopeTilingData {
    uint64_t totalRows;   // B * N * S
    uint64_t batchRows;   // N * S: rows of x per batch
    uint64_t formerRows;  // rows owned by each of the first formerNum cores
    uint64_t tailRows;    // rows owned by each of the other cores (formerRows - 1, or 0)
    uint32_t formerNum;   // cores that own formerRows rows
    uint32_t usedCores;   // cores launched (blockDim)
    uint32_t seqLength;   // S
    uint32_t hiddenDim;   // D (even, 2..256)
    uint32_t rowStride;   // Dp: D rounded up to 16 elements, the row pitch in UB (32 bytes of fp16/bf16)
    uint32_t tileRows;    // rows of x per UB tile
    uint32_t cosRows;     // rows of the cos/sin UB buffers: tileRows (per-s keys), else batches per tile
    uint32_t alignedRows; // 1 when D * sizeof(T) is a multiple of 32 bytes (DataCopy), else 0 (DataCopyPad)
};

#endif  // INTERLEAVE_ROPE_TILING_DATA_H
