// MatmulAllReduce: the tiling function, run on the host before every launch of the kernel (on every rank).
//
// y = AllReduce_sum(x1 @ x2 + bias + x3) runs as a mix kernel (AIC:AIV = 1:2). The rows of the product are
// cut along M into communication tiles: rampCnt (0 to 4) growing tiles, tileCnt long tiles of tileM rows, then
// at most one short tail of tailM rows. The kernel computes tile t on every core, then commits tile t's
// AllReduce and goes on with tile t + 1 while tile t travels, so communication overlaps computation.
//
// The cut comes from a model of one rank's time (README.md, "Choosing the cut"):
//   compute(rows) = T_TILE + ceil(pieces(rows) / AIC cores) * 2 * PIECE_M * pieceN * K / F1   (rounds of pieces)
//   comm(rows)    = T_LAUNCH + 2 * (alpha(step) + step / B_LINK), step = rows * N * 2 B / R   (RS + AG steps)
// a two-stage pipeline over the tiles (tile t's AllReduce starts when it is computed and the previous one has
// landed); the cut with the least modelled time wins (ties: the simpler cut). F1 (one cube core) reproduces the
// public 8 x 910B2 matmul (4096 x 8192 x 4096 fp16: 888 us); B_LINK, T_LAUNCH and alpha (5 to 26.75 us with the
// step's bytes) the HCCL time fit ops-transformer's MC2 tiling uses; T_TILE (1 us: the cores' pipeline fill
// and SyncAll per tile) is this package's assumption. A tile has at least MIN_TILE_M rows, so M < 2 * MIN_TILE_M
// is not cut.
//
// Within a tile the product is cut into pieces of singleCoreM x singleCoreN, spread over the vector cores (two
// per block): each vector core asks its cube core for a piece (the Matmul API; the bias, converted once to fp32,
// from the BiasTable). Without x3 Fixpipe rounds the piece to fp16/bf16 straight into the staging buffer the
// AllReduce reads; with x3 the piece goes as fp32 into the core's own GM buffer, and the vector core adds x3 in
// fp32, rounds once and writes it into staging.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>

#include "hccl/hcom.h"
#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/matmul_all_reduce_tiling_data.h"
#include "mc2_cut.h"
#include "mc2_tiling.h"

namespace optiling {
namespace {
constexpr const char* OP = "MatmulAllReduce";
// The OpDef's attrs: group, reduce_op, is_trans_a, is_trans_b, comm_turn.
constexpr mc2::AttrIndex ATTRS{0, 1, 2, 3, 4, -1};

using mc2::AlignUp;
using mc2::CeilDiv;

// The modelled time of a cut: tile t's AllReduce starts once it is computed and tile t - 1's has landed. A tile
// is computed in rounds of pieces (PIECE_M x pieceN, one per cube core and round: a tile whose pieces do not
// fill the last round pays for a whole one). The AllReduce of a tile on the full mesh: a ReduceScatter step and
// an AllGather step, each moving a 1 / R block of the tile over every link.
double Modelled(const mc2::Cut& c, uint64_t N, uint64_t K, uint64_t R, uint64_t aicNum, uint64_t pieceN)
{
    const double piece = 2.0 * static_cast<double>(mc2::PIECE_M * pieceN * K) / mc2::CubeFlops(1);  // one cube core
    const uint64_t colPieces = CeilDiv(N, pieceN);
    const auto computeOf = [&](uint64_t rows) {
        return static_cast<double>(CeilDiv(CeilDiv(rows, mc2::PIECE_M) * colPieces, aicNum)) * piece;
    };
    const double r = static_cast<double>(R);  // R > 1 when it communicates
    const auto commOf = [&](uint64_t rows) {
        const double bytes = static_cast<double>(rows) * static_cast<double>(N) * 2.0;
        return mc2::SliceSeconds(2, bytes / r);
    };
    return mc2::ComputeThenCommunicate(c, computeOf, commOf, R > 1);
}

}  // namespace

ge::graphStatus TilingMatmulAllReduce(gert::TilingContext* context)
{
    // 1. The chip.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    mc2::Chip chip;
    if (!mc2::ReadMixChip(platform, OP, chip)) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t aicNum = chip.aicNum, ubSize = chip.ubSize;

    // 2. The attrs: only what this package implements (sum, no transposed x1, comm_turn 0).
    mc2::Attrs at;
    if (!mc2::ReadAttrs(context, ATTRS, OP, at)) {
        return ge::GRAPH_FAILED;
    }
    const char* group = at.group;
    const bool isTransB = at.isTransB;

    // 3. The shapes: x1 [M, K], x2 [K, N] ([N, K] with is_trans_b), bias [N], x3 [M, N].
    uint64_t M = 0, N = 0, K = 0;
    const gert::StorageShape* biasShape = nullptr;
    bool bf16 = false;
    if (!mc2::MatmulShapes(context, OP, isTransB, M, N, K, biasShape, bf16)) {
        return ge::GRAPH_FAILED;
    }
    if (!mc2::DimsInRange(M, N, K, 1, 65535, OP)) {
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* x3Shape = context->GetOptionalInputShape(3);
    if (x3Shape != nullptr && (x3Shape->GetStorageShape().GetDimNum() != 2 ||
                               static_cast<uint64_t>(x3Shape->GetStorageShape().GetDim(0)) != M ||
                               static_cast<uint64_t>(x3Shape->GetStorageShape().GetDim(1)) != N)) {
        OP_LOGE(OP, "x3 must be [M, N] = [%lu, %lu], the shape of y", static_cast<unsigned long>(M),
                static_cast<unsigned long>(N));
        return ge::GRAPH_FAILED;
    }

    // 4. The world: the group's rank count, as HCCL reports it.
    uint32_t rankDim = 0;
    if (!mc2::GroupRanks(group, nullptr, OP, rankDim)) {
        return ge::GRAPH_FAILED;
    }

    // 5. The cut along M, from the model.
    const uint64_t modelN = mc2::PiecesOf(M, N, aicNum).pieceN;  // the pieces' width the model assumes
    const mc2::Cut cut =
        mc2::ChooseCut(M, false, [&](const mc2::Cut& c) { return Modelled(c, N, K, rankDim, aicNum, modelN); }, true);
    char ramp[64] = "";
    for (uint64_t i = 0, at = 0; i < cut.rampCnt; ++i) {
        at += static_cast<uint64_t>(std::snprintf(ramp + at, sizeof(ramp) - at, "%s%lu", i ? ", " : "ramp of ",
                                                  static_cast<unsigned long>(cut.rampM[i])));
    }
    if (cut.rampCnt > 0) std::strncat(ramp, " rows + ", sizeof(ramp) - std::strlen(ramp) - 1);
    OP_LOGI(OP, "cut of M = %lu on %u ranks: %s%lu tile(s) of %lu rows + %lu tail of %lu rows (modelled %.2f us)",
            static_cast<unsigned long>(M), rankDim, ramp, static_cast<unsigned long>(cut.tileCnt),
            static_cast<unsigned long>(cut.tileM), static_cast<unsigned long>(cut.tailCnt),
            static_cast<unsigned long>(cut.tailM), cut.seconds * 1e6);

    // 6. The pieces of a tile and the cores: pieces of PIECE_M rows and 128..256 columns, enough of them for
    //    every vector core when the tile allows; a block (one cube core, two vector cores) per two pieces.
    const mc2::Pieces grid = mc2::PiecesOf(cut.tileM, N, aicNum);
    const uint64_t pieceM = grid.pieceM, pieceN = grid.pieceN, blocks = grid.blocks, stride = grid.stride;

    MatmulAllReduceTilingData* tiling = context->GetTilingData<MatmulAllReduceTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    std::memset(tiling, 0, sizeof(*tiling));  // the tiling buffer is not zeroed for us

    // 7. The Matmul of one piece: [pieceM, K] x [K, pieceN] (+ bias) -> rounded into staging (rows of N), or
    //    with x3 fp32 in GM, rows `stride` floats apart.
    const bool hasBias = biasShape != nullptr, direct = x3Shape == nullptr;
    if (!mc2::PieceMatmulTiling(platform, OP, bf16, isTransB, direct, hasBias, M, N, K,
                                pieceM, pieceN, chip, tiling->mmTiling)) {
        return ge::GRAPH_FAILED;
    }

    // 8. The vector epilogue of the x3 path: rows of a piece per UB chunk: the fp32 piece rows, x3 in and as
    //    fp32, the result; plus a chunk of the bias in and as fp32 (its conversion).
    const uint64_t perRow = stride * (4 + 2 + 4 + 2);
    const uint64_t fixed = stride * (2 + 4) + 1024;
    const uint64_t rowsPerChunk = std::min<uint64_t>(pieceM, ubSize > fixed ? (ubSize - fixed) / perRow : 0);
    if (rowsPerChunk == 0) {
        return ge::GRAPH_FAILED;
    }

    // 9. HCCL: the AllReduce (sum) the kernel prepares, full mesh on the 910B.
    AscendC::Mc2CcTilingConfig cc(group, static_cast<uint32_t>(AscendC::HcclCMDType::HCCL_CMD_ALLREDUCE),
                                  "AllReduce=level0:fullmesh", AscendC::HCCL_REDUCE_SUM);
    if (cc.GetTiling(tiling->mc2InitTiling) != 0 || cc.GetTiling(tiling->allReduceTiling) != 0) {
        OP_LOGE(OP, "Mc2CcTilingConfig of group '%s' failed", group);
        return ge::GRAPH_FAILED;
    }

    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->isTransB = isTransB ? 1 : 0;
    tiling->hasBias = hasBias ? 1 : 0;
    tiling->hasX3 = direct ? 0 : 1;
    const uint64_t biasBytes = mc2::BiasBytes(hasBias, N);
    mc2::FillCut(tiling->cut, rankDim, cut, grid, direct, rowsPerChunk, biasBytes);

    // 10. Workspace: the system workspace, the fp32 bias, every vector core's fp32 piece buffer (the x3 path),
    //     then the [M, N] staging.
    const uint64_t pieceBytes = direct ? 0 : 2 * blocks * pieceM * stride * 4;
    tiling->stagingOffset = AlignUp(biasBytes + pieceBytes, 512);
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize() + tiling->stagingOffset + AlignUp(M * N * 2, 512);
    context->SetBlockDim(static_cast<uint32_t>(blocks));
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
