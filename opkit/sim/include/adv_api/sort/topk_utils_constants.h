// opkit simulator: TopK's modes and configuration (host and kernel), as asc-devkit's
// adv_api/sort/topk_utils_constants.h declares them.
#pragma once

namespace AscendC {

// TOPK_NORMAL: any 32-aligned inner length up to 4096; TOPK_NSMALL: inner fixed at 32 (one Sort32 per row).
enum class TopKMode {
    TOPK_NORMAL,
    TOPK_NSMALL,
};
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };
struct TopKConfig {
    TopKAlgo algo = TopKAlgo::MERGE_SORT;
    TopKOrder order = TopKOrder::UNSET;
    bool sorted = true;
};
constexpr TopKConfig defaultTopKConfig = {TopKAlgo::MERGE_SORT, TopKOrder::UNSET, true};

}  // namespace AscendC
