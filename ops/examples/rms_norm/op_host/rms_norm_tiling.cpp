// RmsNorm: the tiling function, run on the host before every launch of the kernel.
//
// Tiling decides how the work is cut: how many AI cores (blocks) run the kernel, which rows of x
// each core owns, and how many rows go through the core's Unified Buffer (UB) at a time. It reads
// the shapes, dtypes and attrs of this very call and the capacities of the chip it runs on
// (PlatformAscendC), and passes its decisions to the kernel in RmsNormTilingData.
//
// A row (the last axis of x, D elements) is never split: the kernel needs the whole row in UB to
// sum its squares before it can scale it. So one row, with its double buffers and float32 scratch,
// must fit in UB; when it does not, tiling fails and says the largest D that fits.
#include "register/op_def_registry.h"
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/rms_norm_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t BLOCK_BYTES = 32;           // UB rows start on 32-byte blocks
constexpr uint64_t BUFFER_NUM = 2;             // double buffering: must match BUFFER_NUM in the kernel
constexpr uint64_t FLOATS_PER_BLOCK = 8;       // float32 elements in one 32-byte block
constexpr uint64_t FLOATS_PER_REPEAT = 64;     // float32 elements in one vector repeat (256 bytes)
constexpr uint64_t MAX_COPY_ROWS = 4095;       // DataCopyPad moves at most 4095 blocks (rows) per call
constexpr uint64_t MIN_BYTES_PER_CORE = 4096;  // below this, starting a core costs more than its copy
// UB that the Ascend C toolchain keeps for its own library code on 910B unless the kernel is built
// with --cce-disable-asc-reserved-ubuf; leaving it free keeps printf/DumpTensor and such APIs usable.
constexpr uint64_t ASC_RESERVED_UB_BYTES = 8 * 1024;

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t AlignUp(uint64_t a, uint64_t b)
{
    return CeilDiv(a, b) * b;
}

// A tiling error the caller can act on: the reason goes to the log (stderr of the process that
// runs tiling) and the call fails.
ge::graphStatus TilingError(gert::TilingContext* context, const char* format, ...)
{
    std::fprintf(stderr, "[ERROR] RmsNorm tiling (%s): ", context->GetNodeName());
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fprintf(stderr, "\n");
    return ge::GRAPH_FAILED;
}

// UB bytes the kernel allocates for tiles of `rows` rows of rowStride elements: the InitBuffer
// calls of op_kernel/rms_norm.h one by one, each rounded up to 32 bytes as InitBuffer does.
uint64_t UbBytes(uint64_t rows, uint64_t rowLength, uint64_t rowStride, uint64_t typeSize)
{
    const uint64_t tileElems = rows * rowStride;
    const uint64_t rows8 = AlignUp(rows, FLOATS_PER_BLOCK);  // per-row floats, in whole blocks
    uint64_t bytes = 0;
    bytes += BUFFER_NUM * AlignUp(tileElems * typeSize, BLOCK_BYTES);  // x tiles (VECIN queue)
    bytes += BUFFER_NUM * AlignUp(tileElems * typeSize, BLOCK_BYTES);  // y tiles (VECOUT queue)
    bytes += BUFFER_NUM * rows8 * sizeof(float);                       // rstd tiles (VECOUT queue)
    bytes += AlignUp(rowStride * typeSize, BLOCK_BYTES);               // gamma (VECIN queue, one buffer)
    bytes += rows8 * BLOCK_BYTES;                                      // rstd broadcast, a block per row
    bytes += AlignUp(CeilDiv(rowLength, FLOATS_PER_REPEAT), FLOATS_PER_BLOCK) * sizeof(float);  // ReduceSum work
    if (typeSize != sizeof(float)) {
        bytes += 2 * tileElems * sizeof(float);  // x and x^2 (then y) in float32
        bytes += rowStride * sizeof(float);      // gamma in float32
    }
    return bytes;
}
}  // namespace

ge::graphStatus TilingRmsNorm(gert::TilingContext* context)
{
    // 1. The chip: how many vector cores (AIV) it has and how many bytes of UB each one has.
    //    On 910B, GetCoreMemSize reports the UB minus the 256 bytes the runtime keeps for itself;
    //    the kernel's buffers stay below Ascend C's reserved area on top of that.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (coreNum == 0 || ubSize <= ASC_RESERVED_UB_BYTES) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t ubBudget = ubSize - ASC_RESERVED_UB_BYTES;

    // 2. This call: x [..., D] is R rows of D elements (R = product of the other dims, 0 for an
    //    empty x); gamma must be [D]; x, gamma and y share one dtype.
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::StorageShape* gammaShape = context->GetInputShape(1);
    const auto* xDesc = context->GetInputDesc(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || gammaShape == nullptr || xDesc == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& x = xShape->GetStorageShape();
    const gert::Shape& gamma = gammaShape->GetStorageShape();
    const size_t dimNum = x.GetDimNum();
    if (dimNum == 0) {
        return TilingError(context, "x is a scalar; it needs a last axis to normalise over");
    }
    const uint64_t rowLength = static_cast<uint64_t>(x.GetDim(dimNum - 1));
    if (rowLength == 0) {
        return TilingError(context, "the last dim of x is 0: there is nothing to normalise over");
    }
    if (gamma.GetDimNum() != 1 || static_cast<uint64_t>(gamma.GetDim(0)) != rowLength) {
        return TilingError(context, "gamma must have shape [%llu], the last dim of x", (unsigned long long)rowLength);
    }
    const uint64_t rowNum = static_cast<uint64_t>(x.GetShapeSize()) / rowLength;
    uint64_t typeSize = 0;
    const char* typeName = "";
    switch (xDesc->GetDataType()) {
        case ge::DT_FLOAT16:
            typeSize = 2;
            typeName = "float16";
            break;
        case ge::DT_BF16:
            typeSize = 2;
            typeName = "bfloat16";
            break;
        case ge::DT_FLOAT:
            typeSize = 4;
            typeName = "float32";
            break;
        default:
            return ge::GRAPH_FAILED;
    }
    const float* epsilon = attrs->GetAttrPointer<float>(0);

    RmsNormTilingData* tiling = context->GetTilingData<RmsNormTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = RmsNormTilingData{};  // the tiling buffer is not zeroed for us
    const uint64_t rowStride = AlignUp(rowLength, BLOCK_BYTES / typeSize);
    tiling->rowNum = rowNum;
    tiling->rowLength = static_cast<uint32_t>(rowLength);
    tiling->rowStride = static_cast<uint32_t>(rowStride);
    tiling->epsilon = (epsilon != nullptr) ? *epsilon : 1e-6f;
    tiling->avgFactor = static_cast<float>(1.0 / static_cast<double>(rowLength));

    // 3. One row must fit in UB, with everything the kernel allocates around it. If not, say the
    //    largest D that would fit for this dtype.
    if (UbBytes(1, rowLength, rowStride, typeSize) > ubBudget) {
        uint64_t lo = 1;  // the largest D that fits lies in [lo, hi)
        uint64_t hi = rowLength;
        while (hi - lo > 1) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (UbBytes(1, mid, AlignUp(mid, BLOCK_BYTES / typeSize), typeSize) <= ubBudget) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return TilingError(
            context,
            "one row of x (D = %llu %s elements) needs %llu bytes of UB with its double buffers and float32 "
            "scratch, but the kernel may use %llu bytes (the UB less Ascend C's reserved %llu): D can be at most "
            "%llu for %s",
            (unsigned long long)rowLength, typeName, (unsigned long long)UbBytes(1, rowLength, rowStride, typeSize),
            (unsigned long long)ubBudget, (unsigned long long)ASC_RESERVED_UB_BYTES, (unsigned long long)lo,
            typeName);
    }

    // 4. Split the rows across cores: the first formerNum cores take one row more than the others.
    //    Small inputs use fewer cores, at least MIN_BYTES_PER_CORE of x each (and at least a row).
    //    R = 0 still launches one core, which finds nothing to do.
    const uint64_t usedCores = std::max<uint64_t>(
        1, std::min({coreNum, rowNum, CeilDiv(rowNum * rowLength * typeSize, MIN_BYTES_PER_CORE)}));
    tiling->formerNum = static_cast<uint32_t>(rowNum % usedCores);
    tiling->formerRows = rowNum / usedCores + 1;
    tiling->tailRows = rowNum / usedCores;

    // 5. Rows per UB tile: as many as fit (UbBytes grows with the row count), never more than a
    //    core's share nor than one DataCopyPad can move.
    const uint64_t maxCoreRows = (tiling->formerNum > 0) ? tiling->formerRows : tiling->tailRows;
    uint64_t lo = 1;  // fits
    uint64_t hi = std::max<uint64_t>(1, std::min(maxCoreRows, MAX_COPY_ROWS)) + 1;  // beyond the cap
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (UbBytes(mid, rowLength, rowStride, typeSize) <= ubBudget) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    tiling->tileRows = static_cast<uint32_t>(lo);

    // 6. Launch usedCores blocks (one per vector core), and ask for no workspace of our own: only
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
