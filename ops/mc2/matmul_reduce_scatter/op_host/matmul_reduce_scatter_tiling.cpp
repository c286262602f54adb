// MatmulReduceScatter: the tiling function, run on the host before every launch of the kernel (on every rank).
//
// y_r = rows [r * M / R, (r + 1) * M / R) of sum_p (x1_p @ x2_p + bias_p) runs as a mix kernel (AIC:AIV = 1:2).
// The product's R blocks (block p: the rows rank p receives) are cut alike along M into communication tiles:
// tileCnt long tiles of tileM rows, then at most one short tail. The kernel computes tile t of every block, then
// commits tile t's ReduceScatter and goes on with tile t + 1 while tile t travels.
//
// The cut comes from a simple model of one rank's time (README.md, "Choosing the cut"):
//   compute(rows) = 2 * R * rows * N * K / F + T_TILE      (tile t of all R blocks)
//   comm(rows)    = T_LAUNCH + alpha(step) + rows * N * 2 B / B_LINK    (one step over every link)
// a two-stage pipeline over the tiles; the tile count with the least modelled time wins (ties: fewer tiles).
//
// F, B_LINK, T_LAUNCH, alpha and T_TILE as in ops/mc2/matmul_all_reduce (values: ops/mc2/common/op_host/mc2_cut.h).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hccl/hcom.h"
#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/matmul_reduce_scatter_tiling_data.h"
#include "mc2_cut.h"
#include "mc2_tiling.h"

namespace optiling {
namespace {
constexpr const char* OP = "MatmulReduceScatter";
// The OpDef's attrs: group, reduce_op, is_trans_a, is_trans_b, comm_turn, rank_size.
constexpr mc2::AttrIndex ATTRS{0, 1, 2, 3, 4, 5};

using mc2::AlignUp;
using mc2::CeilDiv;

// The modelled time of a cut of a block's rows: tile t's ReduceScatter starts once it is computed (in all R
// blocks) and tile t - 1's has landed.
double Modelled(const mc2::Cut& c, uint64_t N, uint64_t K, uint64_t R, double flops)
{
    const double perRow = 2.0 * static_cast<double>(R) * static_cast<double>(N) * static_cast<double>(K) / flops;
    // one step: tile t of block p to rank p, over every link
    const auto commOf = [&](uint64_t rows) {
        const double bytes = static_cast<double>(rows) * static_cast<double>(N) * 2.0;
        return mc2::SliceSeconds(1, bytes);
    };
    const auto computeOf = [&](uint64_t rows) { return static_cast<double>(rows) * perRow; };
    return mc2::ComputeThenCommunicate(c, computeOf, commOf, R > 1);
}

}  // namespace

ge::graphStatus TilingMatmulReduceScatter(gert::TilingContext* context)
{
    // 1. The chip.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    mc2::Chip chip;
    if (!mc2::ReadMixChip(platform, OP, chip)) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t aicNum = chip.aicNum;

    // 2. The attrs: only what this package implements (sum, no transposed x1, comm_turn 0).
    mc2::Attrs at;
    if (!mc2::ReadAttrs(context, ATTRS, OP, at)) {
        return ge::GRAPH_FAILED;
    }
    const char* group = at.group;
    const bool isTransB = at.isTransB;

    // 3. The shapes: x1 [M, K], x2 [K, N] ([N, K] with is_trans_b), bias [N].
    uint64_t M = 0, N = 0, K = 0;
    const gert::StorageShape* biasShape = nullptr;
    bool bf16 = false;
    if (!mc2::MatmulShapes(context, OP, isTransB, M, N, K, biasShape, bf16)) {
        return ge::GRAPH_FAILED;
    }
    if (!mc2::DimsInRange(M, N, K, 1, 65535, OP)) {
        return ge::GRAPH_FAILED;
    }

    // 4. The world: the group's rank count, as HCCL reports it; attr rank_size, when given, must agree; M must
    //    split into one block per rank.
    uint32_t rankDim = 0;
    if (!mc2::GroupRanks(group, at.rankSize, OP, rankDim)) {
        return ge::GRAPH_FAILED;
    }
    if (M % rankDim != 0) {
        OP_LOGE(OP, "x1's M = %lu is not a multiple of the %u ranks: each rank receives M / ranks rows",
                static_cast<unsigned long>(M), rankDim);
        return ge::GRAPH_FAILED;
    }
    const uint64_t blockM = M / rankDim;

    // 5. The cut of a block's rows, from the model.
    const double flops = mc2::CubeFlops(aicNum);
    const mc2::Cut cut =
        mc2::ChooseCut(blockM, false, [&](const mc2::Cut& c) { return Modelled(c, N, K, rankDim, flops); });
    OP_LOGI(OP, "cut of M / ranks = %lu on %u ranks: %lu tile(s) of %lu rows + %lu tail of %lu rows (modelled %.2f us)",
            static_cast<unsigned long>(blockM), rankDim, static_cast<unsigned long>(cut.tileCnt),
            static_cast<unsigned long>(cut.tileM), static_cast<unsigned long>(cut.tailCnt),
            static_cast<unsigned long>(cut.tailM), cut.seconds * 1e6);

    // 6. The pieces of a tile (of all R blocks) and the cores: pieces of PIECE_M rows and 128..256 columns, enough of them for
    //    every vector core when the tile allows; a block (one cube core, two vector cores) per two pieces.
    const mc2::Pieces grid = mc2::PiecesOf(cut.tileM, N, aicNum, rankDim);  // tile t of every block
    const uint64_t pieceM = grid.pieceM, pieceN = grid.pieceN, blocks = grid.blocks;

    MatmulReduceScatterTilingData* tiling = context->GetTilingData<MatmulReduceScatterTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    std::memset(tiling, 0, sizeof(*tiling));  // the tiling buffer is not zeroed for us

    // 7. The Matmul of one piece: [pieceM, K] x [K, pieceN] (+ the fp32 bias), rounded by Fixpipe into
    //    staging (rows of N).
    const bool hasBias = biasShape != nullptr;
    if (!mc2::PieceMatmulTiling(platform, OP, bf16, isTransB, true, hasBias, M, N, K,
                                pieceM, pieceN, chip, tiling->mmTiling)) {
        return ge::GRAPH_FAILED;
    }

    // 9. HCCL: the ReduceScatter (sum) the kernel prepares, full mesh on the 910B.
    AscendC::Mc2CcTilingConfig cc(group, static_cast<uint32_t>(AscendC::HcclCMDType::HCCL_CMD_REDUCE_SCATTER),
                                  "ReduceScatter=level0:fullmesh", AscendC::HCCL_REDUCE_SUM);
    if (cc.GetTiling(tiling->mc2InitTiling) != 0 || cc.GetTiling(tiling->reduceScatterTiling) != 0) {
        OP_LOGE(OP, "Mc2CcTilingConfig of group '%s' failed", group);
        return ge::GRAPH_FAILED;
    }

    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->isTransB = isTransB ? 1 : 0;
    tiling->hasBias = hasBias ? 1 : 0;
    tiling->blockM = static_cast<uint32_t>(blockM);
    mc2::FillCut(tiling->cut, rankDim, cut, grid, true, 0, mc2::BiasBytes(hasBias, N));

    // 10. Workspace: the system workspace, the fp32 bias, then the [M, N] staging.
    tiling->stagingOffset = tiling->cut.pieceOffset;  // no piece buffers
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize() + tiling->stagingOffset + AlignUp(M * N * 2, 512);
    context->SetBlockDim(static_cast<uint32_t>(blocks));
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
