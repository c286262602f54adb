{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
// {{ T }}: the tiling function, run on the host before every launch of the kernel.
//
// Tiling decides how the work is cut: how many AI cores (blocks) run the kernel, which slice of
// the tensors each core owns, and how many elements go through the core's Unified Buffer (UB) at
// a time. It reads the shapes, dtypes and attrs of this very call and the capacities of the chip it
// runs on (PlatformAscendC), and passes its decisions to the kernel in {{ T }}TilingData.
#include "register/op_def_registry.h"
#include <algorithm>
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/{{ cookiecutter.op_name }}_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t BLOCK_BYTES = 32;           // UB works in 32-byte blocks; DataCopy moves whole blocks
constexpr uint64_t TILE_ALIGN = 64;            // 64 floats = 256 bytes = one full vector repeat
constexpr uint64_t BUFFER_NUM = 2;             // double buffering: must match BUFFER_NUM in the kernel
constexpr uint64_t QUEUE_TENSORS = 3;          // x and y in (VECIN), z out (VECOUT)
constexpr uint64_t FLOAT_TEMPS = 2;            // float32 copies of x and y for fp16/bf16 inputs
constexpr uint64_t MIN_BYTES_PER_CORE = 4096;  // below this, starting a core costs more than its copy
// UB that the Ascend C toolchain keeps for its own library code on 910B unless the kernel is built
// with --cce-disable-asc-reserved-ubuf; leaving it free keeps printf/DumpTensor and such APIs usable.
constexpr uint64_t ASC_RESERVED_UB_BYTES = 8 * 1024;

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}
}  // namespace

ge::graphStatus Tiling{{ T }}(gert::TilingContext* context)
{
    // 1. The chip: how many vector cores (AIV) it has and how many bytes of UB each one has.
    //    On 910B, GetCoreMemSize reports the UB minus the 256 bytes the runtime keeps for itself.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (coreNum == 0 || ubSize == 0) {
        return ge::GRAPH_FAILED;
    }

    // 2. This call: the element count N, the dtype and alpha. The op is element-wise, so any shape
    //    is handled as a flat vector of N elements.
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::StorageShape* yShape = context->GetInputShape(1);
    const auto* xDesc = context->GetInputDesc(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || yShape == nullptr || xDesc == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t totalLength = static_cast<uint64_t>(xShape->GetStorageShape().GetShapeSize());
    if (static_cast<uint64_t>(yShape->GetStorageShape().GetShapeSize()) != totalLength) {
        return ge::GRAPH_FAILED;  // x and y must have the same number of elements
    }
    uint64_t typeSize = 0;
    switch (xDesc->GetDataType()) {
        case ge::DT_FLOAT16:
        case ge::DT_BF16:
            typeSize = 2;
            break;
        case ge::DT_FLOAT:
            typeSize = 4;
            break;
        default:
            return ge::GRAPH_FAILED;
    }
    const float* alpha = attrs->GetAttrPointer<float>(0);

    {{ T }}TilingData* tiling = context->GetTilingData<{{ T }}TilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = {{ T }}TilingData{};  // the tiling buffer is not zeroed for us
    tiling->totalLength = totalLength;
    tiling->alpha = (alpha != nullptr) ? *alpha : 1.0f;

    // 3. Split across cores in whole 32-byte blocks, so that every core starts on a block boundary.
    //    The first formerNum cores take one block more than the others; the last core's share is
    //    cut back to N by the kernel, so only that core can end inside a block. Tiny inputs use
    //    fewer cores: at least MIN_BYTES_PER_CORE each. N = 0 still launches one core, which
    //    finds nothing to do.
    const uint64_t alignElems = BLOCK_BYTES / typeSize;
    const uint64_t blockCount = CeilDiv(totalLength, alignElems);
    const uint64_t usedCores =
        std::max<uint64_t>(1, std::min(coreNum, CeilDiv(blockCount * BLOCK_BYTES, MIN_BYTES_PER_CORE)));
    const uint64_t baseBlocks = blockCount / usedCores;
    tiling->formerNum = static_cast<uint32_t>(blockCount % usedCores);
    tiling->formerLength = (baseBlocks + 1) * alignElems;
    tiling->tailLength = baseBlocks * alignElems;

    // 4. Size one UB tile. Per element of a tile the kernel holds BUFFER_NUM copies of x, y and z
    //    (two buffers per queue, so that the copy of tile i+1 overlaps the compute of tile i), plus,
    //    for fp16/bf16, two float32 temporaries: the vector unit of 910B has no bf16 arithmetic,
    //    so both are computed in float32. The tile is a whole number of vector repeats and never
    //    larger than a core's share.
    if (ubSize <= ASC_RESERVED_UB_BYTES) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t ubBudget = ubSize - ASC_RESERVED_UB_BYTES;
    const uint64_t bytesPerElem =
        BUFFER_NUM * QUEUE_TENSORS * typeSize + (typeSize < sizeof(float) ? FLOAT_TEMPS * sizeof(float) : 0);
    const uint64_t maxCoreLength = (tiling->formerNum > 0) ? tiling->formerLength : tiling->tailLength;
    uint64_t tileLength = ubBudget / bytesPerElem / TILE_ALIGN * TILE_ALIGN;
    tileLength = std::min(tileLength, CeilDiv(maxCoreLength, TILE_ALIGN) * TILE_ALIGN);
    if (totalLength > 0 && tileLength == 0) {
        return ge::GRAPH_FAILED;  // not even one tile fits in UB
    }
    tiling->tileLength = static_cast<uint32_t>(tileLength);

    // 5. Launch usedCores blocks (one per vector core), and ask for no workspace of our own: only
    //    the system workspace that Ascend C's library functions expect.
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
