{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_TILING_DATA_H" %}
// {{ T }}: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/{{ cookiecutter.op_name }}_tiling.cpp) writes it straight into the
// tiling buffer through context->GetTilingData<{{ T }}TilingData>(); the kernel copies it out
// with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header, so the byte layout
// cannot drift. Keep it a plain struct: fixed-width fields, no pointers, constructors or virtual
// functions, 8-byte fields first so that no padding holes appear.
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include <cstdint>

struct {{ T }}TilingData {
    uint64_t rowNum;      // R: rows of x, the product of all its dims but the last
    uint64_t formerRows;  // rows for each of the first formerNum cores (one row more than the others)
    uint64_t tailRows;    // rows for each of the other cores
    uint32_t formerNum;   // how many cores take formerRows
    uint32_t rowLength;   // D: elements per row, the length of gamma
    uint32_t rowStride;   // D rounded up to whole 32-byte blocks of x's dtype: row pitch in UB
    uint32_t tileRows;    // rows per UB tile, sized from the UB capacity
    float epsilon;        // attr epsilon
    float avgFactor;      // 1 / D, so that the mean is one multiplication
};

#endif  // {{ GUARD }}
