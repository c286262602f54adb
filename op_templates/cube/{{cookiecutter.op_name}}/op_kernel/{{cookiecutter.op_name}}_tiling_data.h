{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_TILING_DATA_H" %}
// {{ T }}: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/{{ cookiecutter.op_name }}_tiling.cpp) writes it straight into the
// tiling buffer through context->GetTilingData<{{ T }}TilingData>(); the kernel copies it out
// with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header, so the byte layout
// cannot drift. Keep it a plain struct: fixed-width fields, no pointers, constructors or virtual
// functions.
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include <cstdint>

struct {{ T }}TilingData {
    uint32_t M;        // rows of x and y
    uint32_t N;        // columns of w and y, elements of bias
    uint32_t K;        // columns of x, rows of w
    uint32_t baseM;    // rows of one output tile (L0A / L0C)
    uint32_t baseN;    // columns of one output tile (L0B / L0C / BiasTable)
    uint32_t baseK;    // depth of one Mmad (one L0A / L0B load)
    uint32_t stepK;    // Mmads per L1 load: L1 holds baseM x (stepK * baseK) of x and (stepK * baseK) x baseN of w
    uint32_t mTiles;   // ceil(M / baseM)
    uint32_t nTiles;   // ceil(N / baseN)
    uint32_t relu;     // attr relu (0 or 1)
};

#endif  // {{ GUARD }}
