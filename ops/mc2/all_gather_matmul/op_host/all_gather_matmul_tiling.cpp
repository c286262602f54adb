// AllGatherMatmul: the tiling function, run on the host before every launch of the kernel (on every rank).
//
// gather_out = AllGather(x1) (the ranks' x1 in rank order) and y = gather_out @ x2 + bias run as a mix kernel
// (AIC:AIV = 1:2). Each rank's x1 is cut along M into communication tiles: tileCnt long tiles of tileM rows, then
// at most one short tail. The kernel commits every tile's AllGather at once (x1 is an input: nothing to wait
// for), computes its own block of y from its local x1 while the first tiles travel, then for each tile waits for
// it and computes the other ranks' rows of that tile.
//
// The cut comes from a simple model of one rank's time (README.md, "Choosing the cut"):
//   compute(rows) = 2 * (R - 1) * rows * N * K / F + T_TILE, the local block first: 2 * M * N * K / F
//   comm(rows)    = T_LAUNCH + alpha(step) + rows * K * 2 B / B_LINK, the slices one after another from the start
// tile t's compute starts when it has landed and tile t - 1's compute is done; the tile count with the least
// modelled time wins (ties: fewer tiles).
// F, B_LINK, T_LAUNCH, alpha and T_TILE as in ops/mc2/matmul_all_reduce (values: ops/mc2/common/op_host/mc2_cut.h).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hccl/hcom.h"
#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/all_gather_matmul_tiling_data.h"
#include "mc2_cut.h"
#include "mc2_tiling.h"

namespace optiling {
namespace {
constexpr const char* OP = "AllGatherMatmul";
constexpr uint32_t ATTR_GROUP = 0, ATTR_TRANS_A = 1, ATTR_TRANS_B = 2, ATTR_GATHER_INDEX = 3, ATTR_COMM_TURN = 4,
                   ATTR_RANK_SIZE = 5, ATTR_GATHER_OUT = 6;

using mc2::AlignUp;
using mc2::CeilDiv;

// The modelled time of a cut: communicate, then compute. The local block needs no communication; tile t of
// every other rank is computed once it has landed, and lands after tile t - 1.
double Modelled(const mc2::Cut& c, uint64_t M, uint64_t N, uint64_t K, uint64_t R, double flops)
{
    const double perRow = 2.0 * static_cast<double>(N) * static_cast<double>(K) / flops;
    double computed = mc2::T_TILE_S + static_cast<double>(M) * perRow;
    double landed = 0;
    for (uint64_t t = 0; t < c.Tiles(); ++t) {
        const double rows = static_cast<double>(c.RowsOf(t));
        // one step: this rank's tile t to every peer, over every link
        landed += mc2::SliceSeconds(1, rows * static_cast<double>(K) * 2.0);
        computed = std::max(computed, landed) + mc2::T_TILE_S + static_cast<double>(R - 1) * rows * perRow;
    }
    return computed;
}
}  // namespace

ge::graphStatus TilingAllGatherMatmul(gert::TilingContext* context)
{
    // 1. The chip.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    mc2::Chip chip;
    if (!mc2::ReadMixChip(platform, OP, chip)) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t aicNum = chip.aicNum;

    // 2. The attrs.
    const auto* attrs = context->GetAttrs();
    const char* group = attrs ? attrs->GetAttrPointer<char>(ATTR_GROUP) : nullptr;
    const bool* transA = attrs ? attrs->GetAttrPointer<bool>(ATTR_TRANS_A) : nullptr;
    const bool* transB = attrs ? attrs->GetAttrPointer<bool>(ATTR_TRANS_B) : nullptr;
    const int64_t* gatherIndex = attrs ? attrs->GetAttrPointer<int64_t>(ATTR_GATHER_INDEX) : nullptr;
    const int64_t* commTurn = attrs ? attrs->GetAttrPointer<int64_t>(ATTR_COMM_TURN) : nullptr;
    const int64_t* rankSize = attrs ? attrs->GetAttrPointer<int64_t>(ATTR_RANK_SIZE) : nullptr;
    const bool* gatherOut = attrs ? attrs->GetAttrPointer<bool>(ATTR_GATHER_OUT) : nullptr;
    if (!mc2::CommonAttrs(group, transA, commTurn, OP)) {
        return ge::GRAPH_FAILED;
    }
    if (gatherIndex != nullptr && *gatherIndex != 0) {
        OP_LOGE(OP, "attr gather_index is %ld: only 0 (gather x1) is supported", static_cast<long>(*gatherIndex));
        return ge::GRAPH_FAILED;
    }
    const bool isTransB = transB != nullptr && *transB;

    // 3. The shapes: x1 [M, K], x2 [K, N] ([N, K] with is_trans_b), bias [N].
    const auto* x1Desc = context->GetInputDesc(0);
    uint64_t M = 0, N = 0, K = 0;
    if (x1Desc == nullptr || !mc2::MatmulDims(context, OP, isTransB, M, N, K)) {
        return ge::GRAPH_FAILED;
    }
    if (M == 0 || N == 0 || K < 256 || K >= 65535 || M > 0x7fffffff || N > 65535) {
        OP_LOGE(OP, "M %lu, N %lu, K %lu: M and N must be positive (N up to 65535), K in [256, 65535)",
                static_cast<unsigned long>(M), static_cast<unsigned long>(N), static_cast<unsigned long>(K));
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* biasShape = context->GetOptionalInputShape(2);
    if (!mc2::BiasIsN(biasShape, OP, N)) {
        return ge::GRAPH_FAILED;
    }

    // 4. The world: the group's rank count, as HCCL reports it; attr rank_size, when given, must agree.
    uint32_t rankDim = 0;
    if (!mc2::GroupRanks(group, rankSize, OP, rankDim)) {
        return ge::GRAPH_FAILED;
    }

    // 5. The cut of each rank's x1, from the model.
    const double flops = mc2::CubeFlops(aicNum);
    const mc2::Cut cut =
        mc2::ChooseCut(M, rankDim == 1, [&](const mc2::Cut& c) { return Modelled(c, M, N, K, rankDim, flops); });
    OP_LOGI(OP, "cut of M = %lu on %u ranks: %lu tile(s) of %lu rows + %lu tail of %lu rows (modelled %.2f us)",
            static_cast<unsigned long>(M), rankDim, static_cast<unsigned long>(cut.tileCnt),
            static_cast<unsigned long>(cut.tileM), static_cast<unsigned long>(cut.tailCnt),
            static_cast<unsigned long>(cut.tailM), cut.seconds * 1e6);

    // 6. The pieces (of the local block's rows and of a tile's rows of a rank) and the cores.
    const mc2::Pieces grid = mc2::PiecesOf(M, N, aicNum);
    const uint64_t pieceM = grid.pieceM, pieceN = grid.pieceN, blocks = grid.blocks, stride = grid.stride;

    AllGatherMatmulTilingData* tiling = context->GetTilingData<AllGatherMatmulTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    std::memset(tiling, 0, sizeof(*tiling));

    // 7. The Matmul of one piece: [pieceM, K] x [K, pieceN] (+ the fp32 bias), rounded by Fixpipe into
    //    y (rows of N).
    const bool hasBias = biasShape != nullptr;
    if (!mc2::PieceMatmulTiling(platform, OP, x1Desc->GetDataType() == ge::DT_BF16, isTransB, true, hasBias, M, N, K,
                                pieceM, pieceN, chip, tiling->mmTiling)) {
        return ge::GRAPH_FAILED;
    }

    // 9. HCCL: the AllGather, full mesh on the 910B.
    AscendC::Mc2CcTilingConfig cc(group, static_cast<uint32_t>(AscendC::HcclCMDType::HCCL_CMD_ALLGATHER),
                                  "AllGather=level0:fullmesh");
    if (cc.GetTiling(tiling->mc2InitTiling) != 0 || cc.GetTiling(tiling->allGatherTiling) != 0) {
        OP_LOGE(OP, "Mc2CcTilingConfig of group '%s' failed", group);
        return ge::GRAPH_FAILED;
    }

    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->isTransB = isTransB ? 1 : 0;
    tiling->hasBias = hasBias ? 1 : 0;
    tiling->cut.rankDim = rankDim;
    tiling->cut.tileM = static_cast<uint32_t>(cut.tileM);
    tiling->cut.tileCnt = static_cast<uint32_t>(cut.tileCnt);
    tiling->cut.tailM = static_cast<uint32_t>(cut.tailM);
    tiling->cut.tailCnt = static_cast<uint32_t>(cut.tailCnt);
    tiling->cut.pieceStride = static_cast<uint32_t>(stride);
    tiling->cut.rowsPerChunk = 0;  // no vector epilogue
    tiling->cut.workers = static_cast<uint32_t>(2 * blocks);
    tiling->cut.direct = 1;
    tiling->gatherInWorkspace = gatherOut != nullptr && !*gatherOut ? 1 : 0;

    // 10. Workspace: the system workspace, the fp32 bias, then (without gather_out) the gathered x1 [R * M, K].
    tiling->cut.pieceOffset = static_cast<uint32_t>(hasBias ? AlignUp(N * 4, 512) : 0);  // no piece buffers
    tiling->gatherOffset = tiling->cut.pieceOffset;
    const uint64_t gatherBytes = tiling->gatherInWorkspace ? AlignUp(rankDim * M * K * 2, 512) : 0;
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize() + std::max<uint64_t>(tiling->gatherOffset + gatherBytes, 512);
    context->SetBlockDim(static_cast<uint32_t>(blocks));
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
