{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_TILING_DATA_H" %}
// {{ T }}: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/{{ cookiecutter.op_name }}_tiling.cpp) writes it straight into the
// tiling buffer through context->GetTilingData<{{ T }}TilingData>(); the kernel copies it out
// with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header, so the byte layout
// cannot drift. Besides its own fields it holds the two library tilings the kernel hands to the
// Ascend C APIs: the Matmul's TCubeTiling (from matmul_tiling::MultiCoreMatmulTiling) and the
// SoftMax's SoftMaxTiling (from SoftMaxTilingFunc), both declared by kernel_tiling/kernel_tiling.h in
// namespace AscendC::tiling (the header a plain-struct tiling includes for them, on host and kernel).
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"

struct {{ T }}TilingData {
    uint32_t M;             // rows of x and y
    uint32_t N;             // columns of w and y: the softmax axis
    uint32_t K;             // columns of x, rows of w
    uint32_t rowStride;     // N rounded up to 16: the row stride of the fp32 logits in the workspace and in UB
    uint32_t rowsPerCore;   // rows of x each vector core owns; a block owns twice as many (the last one the tail)
    uint32_t rowsPerChunk;  // rows of logits one softmax step holds in UB
    uint32_t tmpBytes;      // the SoftMax's shared temporary buffer, in bytes
    uint32_t reserved;      // padding: keeps the struct a multiple of 8 bytes
    AscendC::tiling::TCubeTiling mmTiling;    // the Matmul of one block's rows: [2 * rowsPerCore, K] x [K, N]
    AscendC::tiling::SoftMaxTiling smTiling;  // the SoftMax of one chunk: [rowsPerChunk, rowStride], N valid columns
};

#endif  // {{ GUARD }}
