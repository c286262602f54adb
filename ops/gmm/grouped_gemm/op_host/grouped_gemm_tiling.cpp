// GroupedGemm: the tiling function. Reads every problem's (M_i, K_i, N_i) from the tensor lists,
// checks them, records them in the tiling data for the kernel's problem visitor, and sizes the base
// blocks from the chip's L1 / L0 / BiasTable (as ops/gmm/grouped_matmul). The block dim is the
// number of cube cores, or the total tile count when that is smaller.
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "dlog_pub.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/grouped_gemm_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t BUFFER_NUM = 2;
constexpr uint64_t IN_BYTES = 2;
constexpr uint64_t ACC_BYTES = 4;
constexpr uint64_t MAX_ROW_STRIDE = 65535;  // Nd2NzParams::srcDValue is 16 bits
constexpr uint64_t BASE_K = 64;
constexpr uint64_t STEP_K = 4;
constexpr uint64_t BIAS_TABLE_BYTES = 1024;

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

ge::graphStatus Refuse(gert::TilingContext* context, const char* format, ...)
{
    char reason[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(reason, sizeof(reason), format, args);
    va_end(args);
    DlogRecord(OP, DLOG_ERROR, "GroupedGemm tiling error (%s): %s", context->GetNodeName(), reason);
    return ge::GRAPH_FAILED;
}

size_t ListLength(gert::TilingContext* context, size_t ir)
{
    size_t n = 0;
    while (context->GetDynamicInputShape(ir, n) != nullptr) {
        ++n;
    }
    return n;
}
}  // namespace

ge::graphStatus TilingGroupedGemm(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAic();
    uint64_t l1Size = 0, l0aSize = 0, l0bSize = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0aSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0bSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (coreNum == 0 || attrs == nullptr) {
        return Refuse(context, "no cube cores or no attrs");
    }
    const bool* transPtr = attrs->GetAttrPointer<bool>(0);
    const bool transW = transPtr != nullptr && *transPtr;

    const size_t count = ListLength(context, 0);
    const size_t wCount = ListLength(context, 1);
    const size_t bCount = ListLength(context, 2);
    if (count == 0) {
        return Refuse(context, "x is an empty list: give at least one problem");
    }
    if (count > GROUPED_GEMM_MAX_PROBLEMS) {
        return Refuse(context, "%zu problems: at most %u in one launch (as ops-transformer); split the lists",
                      count, GROUPED_GEMM_MAX_PROBLEMS);
    }
    if (wCount != count) {
        return Refuse(context, "x has %zu tensors but weight has %zu: one weight per problem", count, wCount);
    }
    if (bCount != 0 && bCount != count) {
        return Refuse(context, "bias has %zu tensors: give none or one per problem (%zu)", bCount, count);
    }

    GroupedGemmTilingData* tiling = context->GetTilingData<GroupedGemmTilingData>();
    if (tiling == nullptr) {
        return Refuse(context, "no tiling buffer");
    }
    *tiling = GroupedGemmTilingData{};
    uint64_t baseM = 128;
    uint64_t baseN = 256;
    while (baseN > 16 && (baseM * baseN * ACC_BYTES > l0cSize || baseN * ACC_BYTES > BIAS_TABLE_BYTES ||
                          BUFFER_NUM * BASE_K * baseN * IN_BYTES > l0bSize)) {
        baseN /= 2;
    }
    if (BUFFER_NUM * (baseM + baseN) * STEP_K * BASE_K * IN_BYTES + baseN * ACC_BYTES > l1Size ||
        BUFFER_NUM * baseM * BASE_K * IN_BYTES > l0aSize) {
        return Refuse(context, "the chip's L1 / L0A (%llu / %llu bytes) cannot hold the base blocks",
                      static_cast<unsigned long long>(l1Size), static_cast<unsigned long long>(l0aSize));
    }
    uint64_t tiles = 0;
    for (size_t i = 0; i < count; ++i) {
        const gert::Shape& xs = context->GetDynamicInputShape(0, i)->GetStorageShape();
        const gert::Shape& ws = context->GetDynamicInputShape(1, i)->GetStorageShape();
        if (xs.GetDimNum() != 2 || ws.GetDimNum() != 2) {
            return Refuse(context, "problem %zu: x and weight must be 2-D (x [M, K], weight [K, N] or [N, K] "
                                   "with transpose_weight)", i);
        }
        const uint64_t m = static_cast<uint64_t>(xs.GetDim(0));
        const uint64_t k = static_cast<uint64_t>(xs.GetDim(1));
        const uint64_t wk = static_cast<uint64_t>(ws.GetDim(transW ? 1 : 0));
        const uint64_t n = static_cast<uint64_t>(ws.GetDim(transW ? 0 : 1));
        if (wk != k) {
            return Refuse(context, "problem %zu: x has K = %llu columns but weight has K = %llu", i,
                          static_cast<unsigned long long>(k), static_cast<unsigned long long>(wk));
        }
        if (k == 0 || n == 0 || k > MAX_ROW_STRIDE || n > MAX_ROW_STRIDE || m > UINT32_MAX) {
            return Refuse(context, "problem %zu: K and N must be 1 to 65535, M below 2^32 (got M %llu, K %llu, N %llu)",
                          i, static_cast<unsigned long long>(m), static_cast<unsigned long long>(k),
                          static_cast<unsigned long long>(n));
        }
        if (bCount != 0) {
            const gert::Shape& bs = context->GetDynamicInputShape(2, i)->GetStorageShape();
            if (bs.GetDimNum() != 1 || static_cast<uint64_t>(bs.GetDim(0)) != n) {
                return Refuse(context, "problem %zu: bias must be [N] = [%llu] (float32)", i,
                              static_cast<unsigned long long>(n));
            }
        }
        tiling->mList[i] = static_cast<uint32_t>(m);
        tiling->kList[i] = static_cast<uint32_t>(k);
        tiling->nList[i] = static_cast<uint32_t>(n);
        tiles += CeilDiv(m, baseM) * CeilDiv(n, baseN);
    }
    tiling->count = static_cast<uint32_t>(count);
    tiling->baseM = static_cast<uint32_t>(baseM);
    tiling->baseN = static_cast<uint32_t>(baseN);
    tiling->baseK = static_cast<uint32_t>(BASE_K);
    tiling->stepK = static_cast<uint32_t>(STEP_K);
    tiling->transWeight = transW ? 1U : 0U;
    tiling->hasBias = bCount != 0 ? 1U : 0U;
    context->SetBlockDim(static_cast<uint32_t>(std::max<uint64_t>(1, std::min(coreNum, tiles))));
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return Refuse(context, "no workspace sizes");
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
