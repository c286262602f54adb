// AddCustom tiling: rows split evenly over the vector cores (the first M % cores take one row
// more), so that each core's data is one contiguous range of GM.
#include <algorithm>
#include <cstdint>

#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/add_custom_tiling_data.h"

namespace optiling {
ge::graphStatus TilingAddCustom(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t cores = platform.GetCoreNumAiv();
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || attrs == nullptr || cores == 0) {
        return ge::GRAPH_FAILED;
    }
    const auto& shape = xShape->GetStorageShape();
    if (shape.GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* len = attrs->GetAttrPointer<int64_t>(0);
    const int64_t* db = attrs->GetAttrPointer<int64_t>(1);
    AddCustomTilingData* t = context->GetTilingData<AddCustomTilingData>();
    if (t == nullptr || len == nullptr || db == nullptr || *len <= 0 || *len % 16 != 0) {
        return ge::GRAPH_FAILED;
    }
    *t = AddCustomTilingData{};
    t->totalM = static_cast<uint32_t>(shape.GetDim(0));
    t->totalN = static_cast<uint32_t>(shape.GetDim(1));
    t->splitM = std::max<uint32_t>(1, std::min<uint32_t>(cores, t->totalM));
    t->dataCopyLen = static_cast<uint32_t>(*len);
    t->doubleBuffer = *db != 0 ? 1 : 0;
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    if (uint64_t(t->dataCopyLen) * 2 * 3 * (t->doubleBuffer ? 2 : 1) > ub) {
        return ge::GRAPH_FAILED;  // the buffers must fit the UB
    }
    context->SetBlockDim(t->splitM);
    size_t* ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return ge::GRAPH_FAILED;
    }
    ws[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
