// MatmulSoftmax: the tiling function, run on the host before every launch of the kernel.
//
// y = softmax(x @ w) along N runs as a mix kernel (AIC:AIV = 1:2): the rows of x are split over the
// blocks (one cube core, AIC, and two vector cores, AIV, each) and within a block over its two
// vector cores, rowsPerCore rows each. Through the Matmul API the cube core computes the logits of
// the block's rows [2 * rowsPerCore, N] in fp32 into a GM workspace, reading w once for both vector
// cores; then each vector core runs the softmax over its whole rows, rowsPerChunk rows at a time in
// UB, and writes y.
// This function sizes all of it from the chip it runs on (PlatformAscendC): the core counts, the
// Matmul's base blocks against L1/L0A/L0B/L0C (MultiCoreMatmulTiling), the softmax chunk against UB
// (GetSoftMaxMaxTmpSize/GetSoftMaxMinTmpSize, SoftMaxTilingFunc), and the workspace: the system
// workspace the Matmul API needs (GetLibApiWorkSpaceSize) plus the logits.
#include "register/op_def_registry.h"
#include <algorithm>
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/matmul_softmax_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t ROW_ALIGN = 16;    // logits rows padded to 16 floats: 64 B in fp32, 32 B once cast to fp16/bf16
constexpr uint64_t MIN_ROWS = 16;     // rows per vector core: a whole 16-row fractal of the cube at least
constexpr uint64_t MAX_CHUNK = 64;    // rows per softmax step at most
constexpr uint64_t BUFFER_NUM = 2;    // double buffering of the logits in and y out: must match the kernel
constexpr uint64_t ACC_BYTES = 4;     // fp32 logits
constexpr uint64_t OUT_BYTES = 2;     // fp16 / bf16 y

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

// UB bytes of one softmax step of `rows` rows of `stride` floats, with its shared tmp buffer.
uint64_t ChunkBytes(uint64_t rows, uint64_t stride, uint64_t tmpBytes)
{
    return BUFFER_NUM * rows * stride * (ACC_BYTES + OUT_BYTES) + tmpBytes;
}
}  // namespace

ge::graphStatus TilingMatmulSoftmax(gert::TilingContext* context)
{
    // 1. The chip: its cube and vector cores and their buffers.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t aicNum = platform.GetCoreNumAic();
    const uint64_t aivNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0, l1Size = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);
    if (aicNum == 0 || aivNum < 2 * aicNum) {
        return ge::GRAPH_FAILED;  // a mix kernel of AIC:AIV = 1:2 needs two vector cores per cube core
    }

    // 2. This call: x [M, K], w [K, N], both fp16 or both bf16.
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::StorageShape* wShape = context->GetInputShape(1);
    const auto* xDesc = context->GetInputDesc(0);
    if (xShape == nullptr || wShape == nullptr || xDesc == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& xs = xShape->GetStorageShape();
    const gert::Shape& ws = wShape->GetStorageShape();
    if (xs.GetDimNum() != 2 || ws.GetDimNum() != 2 || xs.GetDim(1) != ws.GetDim(0)) {
        return ge::GRAPH_FAILED;  // x [M, K] @ w [K, N]
    }
    const uint64_t M = static_cast<uint64_t>(xs.GetDim(0));
    const uint64_t K = static_cast<uint64_t>(xs.GetDim(1));
    const uint64_t N = static_cast<uint64_t>(ws.GetDim(1));
    if (M == 0 || N == 0 || K == 0 || M > INT32_MAX || N > INT32_MAX || K > INT32_MAX) {
        return ge::GRAPH_FAILED;  // the Matmul API takes positive int32 shapes
    }
    const matmul_tiling::DataType inType = xDesc->GetDataType() == ge::DT_BF16 ? matmul_tiling::DataType::DT_BF16
                                                                                : matmul_tiling::DataType::DT_FLOAT16;
    const uint64_t stride = CeilDiv(N, ROW_ALIGN) * ROW_ALIGN;

    // 3. Rows per vector core: M over every vector core the cube cores bring (two each), at least a
    //    16-row fractal per core and a multiple of 16; a block takes the rows of its two vector cores,
    //    and the blocks that would get no row are not launched.
    const uint64_t rowsPerCore = std::max(MIN_ROWS, CeilDiv(CeilDiv(M, 2 * aicNum), ROW_ALIGN) * ROW_ALIGN);
    const uint64_t blockRows = 2 * rowsPerCore;
    const uint64_t blocks = CeilDiv(M, blockRows);

    MatmulSoftmaxTilingData* tiling = context->GetTilingData<MatmulSoftmaxTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = MatmulSoftmaxTilingData{};  // the tiling buffer is not zeroed for us

    // 4. The Matmul of one block: [2 * rowsPerCore, K] x [K, N] -> fp32 logits in GM, no bias.
    //    Its base blocks are chosen to fit the chip's L1 and L0 buffers (L0A/L0B from the platform; the
    //    Matmul may use all of L1 and L0C: the cube cores run nothing else). With A, B and C in GM it
    //    needs no UB on 910B, so UB stays the softmax's.
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(static_cast<int32_t>(blocks));
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, inType);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, inType);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(static_cast<int32_t>(M), static_cast<int32_t>(N), static_cast<int32_t>(K));
    mm.SetOrgShape(static_cast<int32_t>(M), static_cast<int32_t>(N), static_cast<int32_t>(K));
    mm.SetSingleShape(static_cast<int32_t>(blockRows), static_cast<int32_t>(N), static_cast<int32_t>(K));
    mm.SetBias(false);
    mm.SetBufferSpace(static_cast<int32_t>(l1Size), static_cast<int32_t>(l0cSize), -1);
    if (mm.GetTiling(tiling->mmTiling) == -1) {
        return ge::GRAPH_FAILED;
    }

    // 5. The softmax: the most rows (up to MAX_CHUNK, at most a core's share) whose logits, y tile and
    //    SoftMax scratch fit UB, double-buffered; the scratch at its best size when it fits, else its
    //    minimum. A row of N fp32 logits must fit on its own: N up to about 12200 on 910B.
    uint64_t chunk = std::min(MAX_CHUNK, rowsPerCore);
    uint64_t tmpBytes = 0;
    for (; chunk > 0; --chunk) {
        const ge::Shape shape({static_cast<int64_t>(chunk), static_cast<int64_t>(stride)});
        const uint64_t maxTmp = AscendC::GetSoftMaxMaxTmpSize(shape, ACC_BYTES, false);
        const uint64_t minTmp = AscendC::GetSoftMaxMinTmpSize(shape, ACC_BYTES, false);
        if (ChunkBytes(chunk, stride, maxTmp) <= ubSize) {
            tmpBytes = maxTmp;
            break;
        }
        if (ChunkBytes(chunk, stride, minTmp) <= ubSize) {
            tmpBytes = minTmp;
            break;
        }
    }
    if (chunk == 0) {
        return ge::GRAPH_FAILED;  // one row of N fp32 logits and its softmax scratch do not fit UB
    }
    tmpBytes = CeilDiv(tmpBytes, 32) * 32;
    const ge::Shape chunkShape({static_cast<int64_t>(chunk), static_cast<int64_t>(stride)});
    AscendC::SoftMaxTilingFunc(chunkShape, ACC_BYTES, static_cast<uint32_t>(tmpBytes), tiling->smTiling);

    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->rowStride = static_cast<uint32_t>(stride);
    tiling->rowsPerCore = static_cast<uint32_t>(rowsPerCore);
    tiling->rowsPerChunk = static_cast<uint32_t>(chunk);
    tiling->tmpBytes = static_cast<uint32_t>(tmpBytes);

    // 6. One block per cube core with rows: block b owns rows [b * blockRows, (b + 1) * blockRows), its
    //    vector core GetSubBlockIdx() = s the half [b * blockRows + s * rowsPerCore, ... + rowsPerCore).
    context->SetBlockDim(static_cast<uint32_t>(blocks));

    // 7. Workspace: the system workspace the Matmul API's AIC-AIV exchange needs, then ours, the fp32
    //    logits [M, stride].
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize() + M * stride * ACC_BYTES;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
