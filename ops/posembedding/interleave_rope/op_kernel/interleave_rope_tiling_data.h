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

// Tiling keys. Keys 1-4: one per broadcast pattern of cos/sin (both always have the same shape);
// the rows of x are split across the cores. Keys 5-6: cos/sin with a row per position and enough
// positions (prefill): the positions (b, s) are split across the cores instead, and each core loops
// over the heads with one chunk of cos/sin rows in UB, so cos/sin are read once per position, not
// once per head. Plain macros, so that TILING_KEY_IS sees literal values, as the kernel compiler
// expects.
#define INTERLEAVE_ROPE_KEY_B1SD 1       // [B, 1, S, D]: a row per (b, s)      (real op)
#define INTERLEAVE_ROPE_KEY_B11D 2       // [B, 1, 1, D]: a row per b           (real op)
#define INTERLEAVE_ROPE_KEY_11SD 3       // [1, 1, S, D]: a row per s           (opkit extension)
#define INTERLEAVE_ROPE_KEY_111D 4       // [1, 1, 1, D]: one row for all rows  (opkit extension)
#define INTERLEAVE_ROPE_KEY_B1SD_HEADS 5 // [B, 1, S, D], positions split, loop over heads
#define INTERLEAVE_ROPE_KEY_11SD_HEADS 6 // [1, 1, S, D], positions split, loop over heads (opkit extension)

struct InterleaveRopeTilingData {
    uint64_t totalRows;   // B * N * S
    uint64_t batchRows;   // N * S: rows of x per batch
    uint64_t formerRows;  // units owned by each of the first formerNum cores: rows (keys 1-4) or positions (5-6)
    uint64_t tailRows;    // units owned by each of the other cores (formerRows - 1, or 0)
    uint32_t formerNum;   // cores that own formerRows units
    uint32_t usedCores;   // cores launched (blockDim)
    uint32_t seqLength;   // S
    uint32_t hiddenDim;   // D (even, 2..256)
    uint32_t rowStride;   // Xp = 2 * Hp, the x/y row pitch in UB; Hp = D/2 rounded up to 16 elements (32 bytes
                          // of fp16/bf16) is the pitch of the packed half-rows. Xp = D when D % 32 == 0
    uint32_t tileRows;    // rows of x per UB tile
    uint32_t cosRows;     // rows of the cos/sin UB buffers: tileRows (keys 1, 3), batches per tile (2), 1 (4),
                          // positions per chunk (5, 6)
    uint32_t alignedRows; // 1 when D is a multiple of 32 (Xp = D: whole tiles and cos/sin rows move with one copy,
                          // half-rows on 32-byte boundaries), else 0 (DataCopyPad, a block per row / half-row)
    uint32_t numHeads;    // N
    uint32_t headGroup;   // keys 5-6: heads per tile (a tile is headGroup heads x up to cosRows positions)
};

#endif  // INTERLEAVE_ROPE_TILING_DATA_H
