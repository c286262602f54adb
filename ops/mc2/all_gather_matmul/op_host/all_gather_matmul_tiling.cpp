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
// The OpDef's attrs: group, is_trans_a, is_trans_b, gather_index, comm_turn, rank_size, is_gather_out.
constexpr mc2::AttrIndex ATTRS{0, -1, 1, 2, 4, 5};
constexpr int ATTR_GATHER_INDEX = 3, ATTR_GATHER_OUT = 6;

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
    mc2::Attrs at;
    if (!mc2::ReadAttrs(context, ATTRS, OP, at)) {
        return ge::GRAPH_FAILED;
    }
    const char* group = at.group;
    const int64_t* gatherIndex = mc2::AttrAt<int64_t>(context->GetAttrs(), ATTR_GATHER_INDEX);
    const bool* gatherOut = mc2::AttrAt<bool>(context->GetAttrs(), ATTR_GATHER_OUT);
    if (gatherIndex != nullptr && *gatherIndex != 0) {
        OP_LOGE(OP, "attr gather_index is %ld: only 0 (gather x1) is supported", static_cast<long>(*gatherIndex));
        return ge::GRAPH_FAILED;
    }
    const bool isTransB = at.isTransB;

    // 3. The shapes: x1 [M, K], x2 [K, N] ([N, K] with is_trans_b), bias [N].
    uint64_t M = 0, N = 0, K = 0;
    const gert::StorageShape* biasShape = nullptr;
    bool bf16 = false;
    if (!mc2::MatmulShapes(context, OP, isTransB, M, N, K, biasShape, bf16)) {
        return ge::GRAPH_FAILED;
    }
    if (!mc2::DimsInRange(M, N, K, 256, 65534, OP)) {
        return ge::GRAPH_FAILED;
    }

    // 4. The world: the group's rank count, as HCCL reports it; attr rank_size, when given, must agree.
    uint32_t rankDim = 0;
    if (!mc2::GroupRanks(group, at.rankSize, OP, rankDim)) {
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
    const uint64_t pieceM = grid.pieceM, pieceN = grid.pieceN, blocks = grid.blocks;

    AllGatherMatmulTilingData* tiling = context->GetTilingData<AllGatherMatmulTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    std::memset(tiling, 0, sizeof(*tiling));

    // 7. The Matmul of one piece: [pieceM, K] x [K, pieceN] (+ the fp32 bias), rounded by Fixpipe into
    //    y (rows of N).
    const bool hasBias = biasShape != nullptr;
    if (!mc2::PieceMatmulTiling(platform, OP, bf16, isTransB, true, hasBias, M, N, K,
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
    mc2::FillCut(tiling->cut, rankDim, cut, grid, true, 0, mc2::BiasBytes(hasBias, N));
    tiling->gatherInWorkspace = gatherOut != nullptr && !*gatherOut ? 1 : 0;

    // 10. Workspace: the system workspace, the fp32 bias, then (without gather_out) the gathered x1 [R * M, K].
    tiling->gatherOffset = tiling->cut.pieceOffset;  // no piece buffers
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
