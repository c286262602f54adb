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
    uint64_t totalLength;   // N: elements of x, y and z, which the kernel treats as flat vectors
    uint64_t formerLength;  // elements for each of the first formerNum cores (one 32-byte block more)
    uint64_t tailLength;    // elements for each of the other cores (the last one may own fewer)
    uint32_t formerNum;     // how many cores take formerLength
    uint32_t tileLength;    // elements per UB tile: a multiple of 64, sized from the UB capacity
    float alpha;            // attr alpha
    uint32_t reserved;      // keeps the size a multiple of 8 bytes
};

#endif  // {{ GUARD }}
