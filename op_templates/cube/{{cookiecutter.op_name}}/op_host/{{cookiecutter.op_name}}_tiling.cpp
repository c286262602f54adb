{% set T = cookiecutter.op_type %}
// {{ T }}: the tiling function, run on the host before every launch of the kernel.
//
// Tiling cuts y = act(x @ w + bias) into output tiles of baseM x baseN. Each cube core (AIC)
// computes whole tiles: for a tile it walks K in L1 slices of stepK * baseK, and each slice in
// Mmads of baseK, accumulating in L0C; then the Fixpipe adds nothing more, applies the ReLU, rounds
// to y's dtype and writes the tile to GM. The sizes are checked against the buffers of the chip it
// runs on (PlatformAscendC): L1, L0A, L0B, L0C and the BiasTable.
#include "register/op_def_registry.h"
#include <algorithm>
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/{{ cookiecutter.op_name }}_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t BASE_M = 128;      // a multiple of 16: rows of the 16 x 16 fractals
// BASE_N = 256: w's slices copy rows of 512 B, whole GM segments (128 columns give 256-B bursts, about 70 % of the
// bandwidth), and a tile reads (128 + 256) x K inputs for its 128 x 256 outputs, a quarter less GM traffic per
// output than a 128 x 128 tile. 128 x 256 fills L0C (fp32) and the BiasTable exactly.
constexpr uint64_t BASE_N = 256;      // a multiple of 16; also the bias slice in the 1 KiB BiasTable (256 floats)
constexpr uint64_t BASE_K = 64;       // a multiple of 16 (fp16/bf16 fractals are 16 deep)
constexpr uint64_t STEP_K = 4;        // K slice in L1: STEP_K * BASE_K = 256
constexpr uint64_t BUFFER_NUM = 2;    // double buffering of L1 and L0A/L0B: must match the kernel
constexpr uint64_t IN_BYTES = 2;      // fp16 / bf16
constexpr uint64_t ACC_BYTES = 4;     // fp32 accumulation in L0C and the BiasTable
constexpr uint64_t MAX_ROW_STRIDE = 65535;  // Nd2NzParams::srcDValue is 16 bits

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}
}  // namespace

ge::graphStatus Tiling{{ T }}(gert::TilingContext* context)
{
    // 1. The chip: its cube cores and their buffers.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAic();
    uint64_t l1Size = 0, l0aSize = 0, l0bSize = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0aSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0bSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);
    if (coreNum == 0) {
        return ge::GRAPH_FAILED;
    }

    // 2. This call: x [M, K], w [K, N], bias [N], and the attr relu.
    const gert::StorageShape* xShape = context->GetInputShape(0);
    const gert::StorageShape* wShape = context->GetInputShape(1);
    const gert::StorageShape* biasShape = context->GetInputShape(2);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || wShape == nullptr || biasShape == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& xs = xShape->GetStorageShape();
    const gert::Shape& ws = wShape->GetStorageShape();
    if (xs.GetDimNum() != 2 || ws.GetDimNum() != 2 || xs.GetDim(1) != ws.GetDim(0) ||
        biasShape->GetStorageShape().GetShapeSize() != ws.GetDim(1)) {
        return ge::GRAPH_FAILED;  // x [M, K] @ w [K, N] + bias [N]
    }
    const uint64_t M = static_cast<uint64_t>(xs.GetDim(0));
    const uint64_t K = static_cast<uint64_t>(xs.GetDim(1));
    const uint64_t N = static_cast<uint64_t>(ws.GetDim(1));
    if (M > UINT32_MAX || N > MAX_ROW_STRIDE || K > MAX_ROW_STRIDE) {
        return ge::GRAPH_FAILED;  // ND2NZ takes a GM row stride (K for x, N for w) of at most 65535 elements
    }
    const bool* relu = attrs->GetAttrPointer<bool>(0);

    // 3. Buffers per core, with double buffering of the loads: everything must fit the chip.
    const uint64_t l1Need = BUFFER_NUM * (BASE_M + BASE_N) * STEP_K * BASE_K * IN_BYTES + BASE_N * ACC_BYTES;
    const uint64_t l0aNeed = BUFFER_NUM * BASE_M * BASE_K * IN_BYTES;
    const uint64_t l0bNeed = BUFFER_NUM * BASE_K * BASE_N * IN_BYTES;
    const uint64_t l0cNeed = BASE_M * BASE_N * ACC_BYTES;
    if (l1Need > l1Size || l0aNeed > l0aSize || l0bNeed > l0bSize || l0cNeed > l0cSize) {
        return ge::GRAPH_FAILED;
    }

    {{ T }}TilingData* tiling = context->GetTilingData<{{ T }}TilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = {{ T }}TilingData{};  // the tiling buffer is not zeroed for us
    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->baseM = BASE_M;
    tiling->baseN = BASE_N;
    tiling->baseK = BASE_K;
    tiling->stepK = STEP_K;
    tiling->mTiles = static_cast<uint32_t>(CeilDiv(M, BASE_M));
    tiling->nTiles = static_cast<uint32_t>(CeilDiv(N, BASE_N));
    tiling->relu = (relu == nullptr || *relu) ? 1U : 0U;

    // 4. One block per cube core, at most one per output tile: block b computes tiles b, b + blockDim, ...
    //    An empty output (M or N = 0) still launches one block, which finds no tile.
    const uint64_t tiles = static_cast<uint64_t>(tiling->mTiles) * tiling->nTiles;
    context->SetBlockDim(static_cast<uint32_t>(std::max<uint64_t>(1, std::min(coreNum, tiles))));

    // 5. No workspace of our own: only the system workspace Ascend C's library functions expect.
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
