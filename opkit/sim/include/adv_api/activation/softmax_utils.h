// opkit simulator: the types shared by the SoftMax family (SoftmaxMode, SoftmaxConfig, SoftMaxShapeInfo).
#pragma once
#include <cstdint>

namespace AscendC {

// How SoftmaxFlashV2 lays out its per-row outputs (and the matching inputs): SOFTMAX_NORMAL repeats
// each row's value over one 32-byte block ((m, 8) for float, (m, 16) for half);
// SOFTMAX_OUTPUT_WITHOUT_BRC stores one value per row ((m, 1)).
enum class SoftmaxMode {
    SOFTMAX_NORMAL = 0,
    SOFTMAX_OUTPUT_WITHOUT_BRC = 1,
};

struct SoftmaxConfig {
    constexpr SoftmaxConfig(const bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn,
                            const SoftmaxMode modeIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
    bool isCheckTiling = true;  // check the tiling against the shape; recompute it when they differ
    uint32_t oriSrcM = 0;       // non-zero: the shape is a compile-time constant (rows)
    uint32_t oriSrcK = 0;       // non-zero: the shape is a compile-time constant (last axis)
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

struct SoftMaxParams {
    uint32_t srcM{0};
    uint32_t srcK{0};
    uint32_t oriSrcM{0};
    uint32_t oriSrcK{0};
    uint32_t loopCnt{1};
    uint32_t splitMeanCnt{8};
    float alpha{0.9375};
};

// srcM: product of the non-last axes; srcK: the last axis (32-byte aligned); oriSrcM/oriSrcK: the
// unpadded extents (the reductions run over the first oriSrcK columns). NZ data: srcK is W0 * W1,
// srcM is H0 * H1.
struct SoftMaxShapeInfo {
    uint32_t srcM{0};
    uint32_t srcK{0};
    uint32_t oriSrcM{0};
    uint32_t oriSrcK{0};
};

}  // namespace AscendC
