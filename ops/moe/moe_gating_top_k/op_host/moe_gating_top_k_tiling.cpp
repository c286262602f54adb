// MoeGatingTopK: the tiling function, run on the host before every launch of the kernel.
//
// The work is split by rows (tokens): every vector core takes ceil(T / cores) consecutive rows,
// the last one what remains. A row of E <= 2048 experts stays resident in UB while it is scored,
// sorted and reduced to k experts, so there is no split along E.
//
// The UB layout of a row: the experts are viewed as groups (the attr groups when group-limited
// selection is active, else one group of E), each padded with -inf to a multiple of 32 elements,
// the group size of Sort32. With grouping this needs G * align32(E / G) <= 2048, which is refused
// here with a message otherwise.
//
// Tiling keys (TILING_KEY_* in op_kernel/moe_gating_top_k_tiling_data.h):
//   0  DeepSeek-V3 fast path: E 256, G 8, k_group 4, k <= 32, bias, group_select_mode 1 (top-2 sum),
//      sigmoid, no out: Sort32 over the 8 groups and a single 4-way MrgSort of the kept groups;
//   1  no grouping (G 1, G == E, or k_group == G): one Sort of the whole padded row;
//   2  general grouping: per-group sorts, group ranking, one Sort of the kept groups.
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/moe_gating_top_k_tiling_data.h"

namespace optiling {
namespace {
constexpr int64_t MAX_EXPERTS = 2048;       // one padded row must fit the UB layout
constexpr int64_t SORT_GROUP = 32;          // Sort32's group: every layout group is padded to it
constexpr uint64_t RESERVED_UB = 8 * 1024;  // UB that Ascend C's library APIs (Sort, Sigmoid) may use
constexpr uint64_t BLOCK_BYTES = 32;
constexpr size_t X_INDEX = 0;
constexpr size_t BIAS_INDEX = 1;
enum AttrIndex : size_t {
    K = 0, K_GROUP, GROUP_COUNT, GROUP_SELECT_MODE, RENORM, NORM_TYPE, OUT_FLAG, ROUTED_SCALING_FACTOR, EPS
};

int64_t CeilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int64_t Align(int64_t n, int64_t a)
{
    return CeilDiv(n, a) * a;
}

// One clear line on stderr naming the node and the violated limit, then failure.
ge::graphStatus Refuse(gert::TilingContext* context, const char* format, ...)
{
    std::fprintf(stderr, "MoeGatingTopK tiling error (%s): ", context->GetNodeName());
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fprintf(stderr, "\n");
    return ge::GRAPH_FAILED;
}

// UB bytes the kernel allocates for one core (op_kernel/moe_gating_top_k.h, Init): keep in step.
uint64_t UbBytes(const MoeGatingTopKTilingData& t, uint64_t elemBytes, uint64_t key)
{
    const uint64_t row = static_cast<uint64_t>(t.rowLength) * sizeof(float);
    const uint64_t stage = elemBytes == sizeof(float) ? 0 : static_cast<uint64_t>(t.rowLength) * elemBytes;
    const uint64_t kBytes = static_cast<uint64_t>(t.kAlign) * sizeof(float);
    uint64_t total = (row + stage) * (static_cast<uint64_t>(t.xBufferNum) + 1)  // x buffers and bias (+ staging)
                     + kBytes * 2                   // y and expert_idx queues
                     + (t.outFlag ? row : 0)        // out queue
                     + row * 3                      // positions, norm, selection scores
                     + row * 2                      // the final sorted pairs
                     + kBytes * 4                   // picked positions, offsets, weights, divisor
                     + 64                           // reduction result
                     + static_cast<uint64_t>(t.tmpBufBytes);
    if (key != TILING_KEY_NO_GROUP) {
        total += row * 2                                                            // per-group sorted pairs
                 + 32 + 128 * sizeof(float) + static_cast<uint64_t>(t.groupCountAlign) * sizeof(float) * 4;
    }
    if (key == TILING_KEY_GENERAL) {
        total += row * 3;  // kept groups' scores and positions, expert id table
    }
    return total;
}
}  // namespace

ge::graphStatus TilingMoeGatingTopK(gert::TilingContext* context)
{
    // 1. The chip: vector cores and UB bytes (910B: 192 KiB less the 256 B the runtime keeps).
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const int64_t coreNum = static_cast<int64_t>(platform.GetCoreNumAiv());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (coreNum <= 0 || ubSize == 0) {
        return Refuse(context, "the platform reports %ld vector cores and %lu bytes of UB", coreNum, ubSize);
    }

    // 2. Shapes and dtypes: x [T, E], optional bias [E] of x's dtype.
    const gert::StorageShape* xStorage = context->GetInputShape(X_INDEX);
    const auto* xDesc = context->GetInputDesc(X_INDEX);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xStorage == nullptr || xDesc == nullptr || attrs == nullptr) {
        return Refuse(context, "x, its description or the attrs are missing");
    }
    const gert::Shape& xShape = xStorage->GetStorageShape();
    if (xShape.GetDimNum() != 2) {
        return Refuse(context, "x must be 2-D [T, E], it has %zu dims", xShape.GetDimNum());
    }
    const int64_t rows = xShape.GetDim(0);
    const int64_t experts = xShape.GetDim(1);
    uint64_t elemBytes = 0;
    switch (xDesc->GetDataType()) {
        case ge::DT_FLOAT16:
        case ge::DT_BF16:
            elemBytes = 2;
            break;
        case ge::DT_FLOAT:
            elemBytes = 4;
            break;
        default:
            return Refuse(context, "x must be float16, bfloat16 or float32");
    }
    const gert::StorageShape* biasStorage = context->GetOptionalInputShape(BIAS_INDEX);
    const bool addBias = biasStorage != nullptr;
    if (addBias) {
        const gert::Shape& biasShape = biasStorage->GetStorageShape();
        if (biasShape.GetDimNum() != 1 || biasShape.GetDim(0) != experts) {
            return Refuse(context, "bias must be 1-D [E] = [%ld]", experts);
        }
        const auto* biasDesc = context->GetOptionalInputDesc(BIAS_INDEX);
        if (biasDesc == nullptr || biasDesc->GetDataType() != xDesc->GetDataType()) {
            return Refuse(context, "bias must have the dtype of x");
        }
    }

    // 3. Attrs, with the OpDef's defaults when a pointer is absent.
    auto intAttr = [attrs](size_t index, int64_t fallback) {
        const int64_t* p = attrs->GetAttrPointer<int64_t>(index);
        return p != nullptr ? *p : fallback;
    };
    auto floatAttr = [attrs](size_t index, float fallback) {
        const float* p = attrs->GetAttrPointer<float>(index);
        return p != nullptr ? *p : fallback;
    };
    const int64_t* kPtr = attrs->GetAttrPointer<int64_t>(K);
    if (kPtr == nullptr) {
        return Refuse(context, "the required attr k is missing");
    }
    const int64_t k = *kPtr;
    const int64_t kGroup = intAttr(K_GROUP, 1);
    const int64_t groupCount = intAttr(GROUP_COUNT, 1);
    const int64_t groupSelectMode = intAttr(GROUP_SELECT_MODE, 0);
    const int64_t renorm = intAttr(RENORM, 0);
    const int64_t normType = intAttr(NORM_TYPE, 0);
    const bool* outFlagPtr = attrs->GetAttrPointer<bool>(OUT_FLAG);
    const bool outFlag = outFlagPtr != nullptr && *outFlagPtr;

    // 4. The op's limits, as ops-transformer's MoeGatingTopK checks them.
    if (experts < 1 || experts > MAX_EXPERTS) {
        return Refuse(context, "expert count E = %ld must be in [1, %ld]", experts, MAX_EXPERTS);
    }
    if (rows < 0) {
        return Refuse(context, "x has a negative row count %ld", rows);
    }
    if (groupCount < 1) {
        return Refuse(context, "group_count = %ld must be >= 1", groupCount);
    }
    if (kGroup < 1 || kGroup > groupCount) {
        return Refuse(context, "k_group = %ld must be in [1, group_count = %ld]", kGroup, groupCount);
    }
    if (experts % groupCount != 0) {
        return Refuse(context, "E = %ld is not divisible by group_count = %ld", experts, groupCount);
    }
    const int64_t perGroup = experts / groupCount;
    if (groupSelectMode != 0 && groupSelectMode != 1) {
        return Refuse(context, "group_select_mode = %ld must be 0 (max) or 1 (sum of the top 2)", groupSelectMode);
    }
    if (groupSelectMode == 1 && perGroup < 2) {
        return Refuse(context, "group_select_mode 1 needs at least 2 experts per group (E / group_count = %ld)",
                      perGroup);
    }
    if (renorm != 0) {
        return Refuse(context, "renorm = %ld: only 0 (norm first, then top-k) is supported", renorm);
    }
    if (normType != 0 && normType != 1) {
        return Refuse(context, "norm_type = %ld must be 0 (softmax) or 1 (sigmoid)", normType);
    }
    if (k < 1 || k > experts || k > kGroup * perGroup) {
        return Refuse(context, "k = %ld must be in [1, k_group * E / group_count = %ld]", k, kGroup * perGroup);
    }
    const bool grouping = groupCount != 1 && groupCount != experts && kGroup != groupCount;
    if (grouping && groupCount * Align(perGroup, SORT_GROUP) > MAX_EXPERTS) {
        return Refuse(context,
                      "group_count * align32(E / group_count) = %ld * %ld = %ld exceeds %ld: each group is padded to "
                      "a multiple of 32 (Sort32) and one padded row must fit the UB layout",
                      groupCount, Align(perGroup, SORT_GROUP), groupCount * Align(perGroup, SORT_GROUP), MAX_EXPERTS);
    }

    // 5. Tiling key and the UB layout of a row.
    const bool deepseek = experts == 256 && groupCount == 8 && kGroup == 4 && k <= 32 && addBias &&
                          groupSelectMode == 1 && normType == 1 && !outFlag;
    const uint64_t key = deepseek ? TILING_KEY_DEEPSEEK_V3 : (grouping ? TILING_KEY_GENERAL : TILING_KEY_NO_GROUP);

    MoeGatingTopKTilingData* t = context->GetTilingData<MoeGatingTopKTilingData>();
    if (t == nullptr) {
        return Refuse(context, "no tiling buffer");
    }
    *t = MoeGatingTopKTilingData{};  // the tiling buffer is not zeroed for us
    t->rowCount = rows;
    t->expertCount = experts;
    t->addBias = addBias ? 1 : 0;
    t->k = k;
    t->kGroup = kGroup;
    t->groupCount = groupCount;
    t->perGroupExpertCount = perGroup;
    t->groupSelectMode = groupSelectMode;
    t->renorm = renorm;
    t->normType = normType;
    t->outFlag = outFlag ? 1 : 0;
    t->routedScalingFactor = floatAttr(ROUTED_SCALING_FACTOR, 1.0f);
    t->eps = floatAttr(EPS, 1e-20f);
    const bool grouped = key != TILING_KEY_NO_GROUP;
    t->layoutGroups = grouped ? groupCount : 1;
    t->layoutGroupSize = grouped ? perGroup : experts;
    t->layoutGroupSizeAlign = Align(t->layoutGroupSize, SORT_GROUP);
    t->rowLength = t->layoutGroups * t->layoutGroupSizeAlign;
    t->groupCountAlign = Align(grouped ? groupCount : 1, SORT_GROUP);
    t->kAlign = Align(k, SORT_GROUP);

    // Scratch shared by the library calls, each sized by its own host helper.
    const uint32_t rowLength = static_cast<uint32_t>(t->rowLength);
    uint32_t sigmoidMax = 0;
    uint32_t sigmoidMin = 0;
    AscendC::GetSigmoidMaxMinTmpSize(ge::Shape(std::vector<int64_t>{t->rowLength}), sizeof(float), false, sigmoidMax,
                                     sigmoidMin);
    const uint32_t sortTmp = AscendC::GetSortTmpSize(platform, rowLength, sizeof(float));
    const uint64_t reduceTmp = static_cast<uint64_t>(rowLength) * sizeof(float);
    const uint64_t tmpBytes = std::max<uint64_t>({sigmoidMax, sigmoidMin, sortTmp, reduceTmp});
    t->tmpBufBytes = static_cast<int64_t>(Align(static_cast<int64_t>(tmpBytes), BLOCK_BYTES));

    // Two x buffers (prefetch of the next row) when they fit, else one.
    const uint64_t budget = ubSize > RESERVED_UB ? ubSize - RESERVED_UB : 0;
    t->xBufferNum = 2;
    if (UbBytes(*t, elemBytes, key) > budget) {
        t->xBufferNum = 1;
    }
    const uint64_t need = UbBytes(*t, elemBytes, key);
    if (need > budget) {
        return Refuse(context, "one row needs %lu bytes of UB but %lu are available (E = %ld, k = %ld)", need, budget,
                      experts, k);
    }

    // 6. Rows across cores: ceil(T / cores) each, the last core takes the rest. T = 0 launches one
    //    core with nothing to do.
    const int64_t perCore = rows > 0 ? CeilDiv(rows, coreNum) : 0;
    const int64_t usedCores = rows > 0 ? CeilDiv(rows, perCore) : 1;
    t->needCoreNum = usedCores;
    t->perCoreRowCount = perCore;
    t->lastCoreRowCount = rows - (usedCores - 1) * perCore;

    context->SetTilingKey(key);
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return Refuse(context, "no workspace array");
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();  // no workspace of its own
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
