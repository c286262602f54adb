// MoeGatingTopK: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/moe_gating_top_k_tiling.cpp) writes it straight into the tiling
// buffer through context->GetTilingData<MoeGatingTopKTilingData>(); the kernel copies it out with
// GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header, so the byte layout cannot
// drift. All fields are 8 bytes wide except the two floats at the end, which pair up.
//
// The UB layout of one row. The E experts are viewed as `layoutGroups` groups of `layoutGroupSize`
// experts (the attr groups when group-limited selection is active, one group of E otherwise), and
// each group is padded with -inf to `layoutGroupSizeAlign` = a multiple of 32 elements, the group
// size of Sort32. A padded row holds `rowLength` = layoutGroups * layoutGroupSizeAlign elements.
#ifndef MOE_GATING_TOP_K_TILING_DATA_H
#define MOE_GATING_TOP_K_TILING_DATA_H

#include <cstdint>

// Tiling keys: which selection path the kernel runs (see op_host/moe_gating_top_k_tiling.cpp).
// Plain literals behind macros, so that TILING_KEY_IS(...) sees a number after preprocessing.
#define TILING_KEY_DEEPSEEK_V3 0  // E 256, G 8, k_group 4, k <= 32, bias, top-2 sum, sigmoid, no out
#define TILING_KEY_NO_GROUP 1     // G 1, G == E or k_group == G: a plain top-k over the row
#define TILING_KEY_GENERAL 2      // group-limited selection in every other case

struct MoeGatingTopKTilingData {
    int64_t needCoreNum;           // vector cores launched (blockDim)
    int64_t rowCount;              // T: tokens (rows of x)
    int64_t perCoreRowCount;       // rows of every core but the last
    int64_t lastCoreRowCount;      // rows of the last core
    int64_t expertCount;           // E
    int64_t addBias;               // 1 when the optional bias is present
    int64_t k;                     // attr k
    int64_t kGroup;                // attr k_group
    int64_t groupCount;            // attr group_count (G)
    int64_t perGroupExpertCount;   // E / G
    int64_t groupSelectMode;       // attr group_select_mode: 0 max, 1 sum of the top 2
    int64_t renorm;                // attr renorm (only 0)
    int64_t normType;              // attr norm_type: 0 softmax, 1 sigmoid
    int64_t outFlag;               // attr out_flag
    int64_t layoutGroups;          // groups of the UB layout (G when grouping is active, else 1)
    int64_t layoutGroupSize;       // experts per layout group (E / G when grouping is active, else E)
    int64_t layoutGroupSizeAlign;  // layoutGroupSize rounded up to a multiple of 32
    int64_t rowLength;             // layoutGroups * layoutGroupSizeAlign: one padded row, <= 2048
    int64_t groupCountAlign;       // G rounded up to a multiple of 32 (the group-score sort)
    int64_t kAlign;                // k rounded up to a multiple of 32 (index extraction works in 32s)
    int64_t tmpBufBytes;           // scratch shared by Sigmoid, Sort, ReduceMax and ReduceSum
    int64_t xBufferNum;            // 2: the next row is copied in while this one is computed; 1 if UB is short
    float routedScalingFactor;     // attr routed_scaling_factor
    float eps;                     // attr eps
};

#endif  // MOE_GATING_TOP_K_TILING_DATA_H
