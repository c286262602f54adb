// GroupedGemm: the tiling function. Reads every problem's (M_i, K_i, N_i) from the tensor lists,
// checks them, records them in the tiling data for the kernel's problem visitor, and sizes the base
// blocks from the chip's L1 / L0 / BiasTable with the GMM family's streamed form
// (ops/gmm/common/op_host/gmm_tiling.h, as ops/gmm/grouped_matmul). The block dim is the number of cube
// cores, or the total tile count when that is smaller.
#include <algorithm>
#include <cstdint>

#include "gmm_tiling.h"
#include "../op_kernel/grouped_gemm_tiling_data.h"

namespace optiling {
namespace {
constexpr const char* OP_NAME = "GroupedGemm";

template <typename... Args>
ge::graphStatus Refuse(gert::TilingContext* context, const char* format, Args... args)
{
    return gmm::Refuse(context, OP_NAME, format, args...);
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
    const gmm::CubeChip chip = gmm::ReadCubeChip(platform);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (chip.cores == 0 || attrs == nullptr) {
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
    const uint64_t baseN = gmm::StreamedBaseN(chip, gmm::MAX_BASE_N);
    if (!gmm::StreamedFits(chip, baseN)) {
        return gmm::RefuseBuffers(context, OP_NAME, chip);
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
        if (k == 0 || n == 0 || k > gmm::MAX_ROW_STRIDE || n > gmm::MAX_ROW_STRIDE || m > UINT32_MAX) {
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
        tiles += gmm::CeilDiv(m, gmm::BASE_M) * gmm::CeilDiv(n, baseN);
    }
    tiling->count = static_cast<uint32_t>(count);
    tiling->cube = gmm::CubeFields(gmm::BASE_M, baseN, gmm::BASE_K, gmm::STEP_K, transW, bCount != 0);
    context->SetBlockDim(static_cast<uint32_t>(std::max<uint64_t>(1, std::min(chip.cores, tiles))));
    return gmm::SetWorkspace(context, OP_NAME, platform);
}
}  // namespace optiling
