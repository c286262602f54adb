// MatmulCustom: the tiling function. Output tiles of baseM x baseN (attrs), K in GM -> L1 copies of
// stepK * baseK; one block per cube core (at most one per tile). The buffers the kernel asks for are
// checked against the chip's L1, L0A, L0B and L0C (PlatformAscendC).
#include <algorithm>
#include <cstdint>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/matmul_custom_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t BUFFER_NUM = 2;        // double buffering of L1 and L0A/L0B: must match the kernel
constexpr uint64_t MAX_ROW_STRIDE = 65535;  // Nd2NzParams::srcDValue is 16 bits

uint64_t CeilDiv(uint64_t x, uint64_t y)
{
    return (x + y - 1) / y;
}
}  // namespace

ge::graphStatus TilingMatmulCustom(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAic();
    uint64_t l1Size = 0, l0aSize = 0, l0bSize = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0aSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0bSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);

    const gert::StorageShape* aShape = context->GetInputShape(0);
    const gert::StorageShape* bShape = context->GetInputShape(1);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (coreNum == 0 || aShape == nullptr || bShape == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& as = aShape->GetStorageShape();
    const gert::Shape& bs = bShape->GetStorageShape();
    if (as.GetDimNum() != 2 || bs.GetDimNum() != 2 || as.GetDim(1) != bs.GetDim(0)) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t M = static_cast<uint64_t>(as.GetDim(0));
    const uint64_t K = static_cast<uint64_t>(as.GetDim(1));
    const uint64_t N = static_cast<uint64_t>(bs.GetDim(1));
    if (M > UINT32_MAX || N > MAX_ROW_STRIDE || K > MAX_ROW_STRIDE) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* bm = attrs->GetAttrPointer<int64_t>(0);
    const int64_t* bn = attrs->GetAttrPointer<int64_t>(1);
    const int64_t* bk = attrs->GetAttrPointer<int64_t>(2);
    const int64_t* sk = attrs->GetAttrPointer<int64_t>(3);
    const uint64_t baseM = bm != nullptr ? static_cast<uint64_t>(*bm) : 128;
    const uint64_t baseN = bn != nullptr ? static_cast<uint64_t>(*bn) : 256;
    const uint64_t baseK = bk != nullptr ? static_cast<uint64_t>(*bk) : 64;
    const uint64_t stepK = sk != nullptr ? static_cast<uint64_t>(*sk) : 1;
    if (baseM == 0 || baseN == 0 || baseK == 0 || stepK == 0 || baseM % 16 != 0 || baseN % 16 != 0 ||
        baseK % 16 != 0 || baseM > 4096 || baseN > 4096 || baseK > 4096 || stepK > 64) {
        return ge::GRAPH_FAILED;
    }
    // fp16 operands (2 bytes), fp32 accumulator (4 bytes)
    const uint64_t l1Need = BUFFER_NUM * (baseM + baseN) * stepK * baseK * 2;
    if (l1Need > l1Size || BUFFER_NUM * baseM * baseK * 2 > l0aSize || BUFFER_NUM * baseK * baseN * 2 > l0bSize ||
        baseM * baseN * 4 > l0cSize) {
        return ge::GRAPH_FAILED;
    }

    MatmulCustomTilingData* tiling = context->GetTilingData<MatmulCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = MatmulCustomTilingData{};
    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->baseM = static_cast<uint32_t>(baseM);
    tiling->baseN = static_cast<uint32_t>(baseN);
    tiling->baseK = static_cast<uint32_t>(baseK);
    tiling->stepK = static_cast<uint32_t>(stepK);
    tiling->mTiles = static_cast<uint32_t>(CeilDiv(M, baseM));
    tiling->nTiles = static_cast<uint32_t>(CeilDiv(N, baseN));
    const uint64_t tiles = static_cast<uint64_t>(tiling->mTiles) * tiling->nTiles;
    context->SetBlockDim(static_cast<uint32_t>(std::max<uint64_t>(1, std::min(coreNum, tiles))));

    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
