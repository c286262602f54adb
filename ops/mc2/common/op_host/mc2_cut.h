// The MC2 family's cut model: how a matmul fused with a collective is cut along M into communication tiles,
// and the sizing of the pieces one core computes. Shared by matmul_all_reduce, matmul_reduce_scatter and
// all_gather_matmul; each package keeps its own time model (what a row costs to compute and to communicate,
// and which of the two goes first) and passes it to ChooseCut.
#pragma once

#include <algorithm>
#include <cstdint>

namespace mc2 {
constexpr uint64_t ALIGN = 16;          // rows of a tile, columns of a piece buffer: whole 16-element fractals
constexpr uint64_t MIN_TILE_M = 64;     // the fewest rows of a communication tile
constexpr uint64_t MAX_TILES = 16;      // the most tiles tried
constexpr uint64_t PIECE_M = 128;       // rows of a piece
constexpr uint64_t MIN_PIECE_N = 128;   // columns of a piece: at least (unless N is smaller) ...
constexpr uint64_t MAX_PIECE_N = 256;   // ... and at most
constexpr double FLOP_PER_CYCLE = 8192; // one cube core, fp16/bf16: 16 x 16 x 16 multiply-adds
constexpr double CUBE_HZ = 1.8e9;
constexpr double CUBE_EFFICIENCY = 0.85;
constexpr double BUS_BYTES_PER_S = 115e9;  // collective bus bandwidth on the 910B full mesh (HCCS)
constexpr double T_TILE_S = 1e-6;          // fixed cost of computing one tile
constexpr double T_SLICE_S = 2e-6;         // fixed cost of communicating one tile

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t AlignUp(uint64_t a, uint64_t b) { return CeilDiv(a, b) * b; }

// The cube throughput of aicNum cube cores, in flop/s.
inline double CubeFlops(uint64_t aicNum)
{
    return static_cast<double>(aicNum) * FLOP_PER_CYCLE * CUBE_HZ * CUBE_EFFICIENCY;
}

struct Cut {
    uint64_t tileM = 0, tileCnt = 0, tailM = 0, tailCnt = 0;
    double seconds = 0;  // the modelled time of the whole op under this cut

    uint64_t Tiles() const { return tileCnt + tailCnt; }
    uint64_t RowsOf(uint64_t t) const { return t < tileCnt ? tileM : tailM; }
};

// The cut of M rows into n tiles: tiles of ceil(M / n) rows rounded up to 16, the remainder as one short tail.
inline Cut CutOf(uint64_t M, uint64_t n)
{
    Cut c;
    c.tileM = std::min(M, AlignUp(CeilDiv(M, n), ALIGN));
    c.tileCnt = M / c.tileM;
    c.tailM = M - c.tileCnt * c.tileM;
    c.tailCnt = c.tailM > 0 ? 1 : 0;
    return c;
}

// Compute, then communicate (AllReduce, ReduceScatter): tile t's collective starts once the tile is computed
// and tile t - 1's has landed. perRow and commPerRow are the seconds a row takes to compute and to communicate.
inline double ComputeThenCommunicate(const Cut& c, double perRow, double commPerRow, bool communicates)
{
    double computed = 0, landed = 0;
    for (uint64_t t = 0; t < c.Tiles(); ++t) {
        const double rows = static_cast<double>(c.RowsOf(t));
        computed += T_TILE_S + rows * perRow;
        if (communicates) landed = std::max(computed, landed) + T_SLICE_S + rows * commPerRow;
    }
    return std::max(computed, landed);
}

// The cut of M with the least modelled time, from one tile up to MAX_TILES tiles of at least MIN_TILE_M rows;
// modelled(cut) gives a cut's seconds. single: only the one-tile cut (nothing to overlap).
template <class Model>
Cut ChooseCut(uint64_t M, bool single, Model&& modelled)
{
    const uint64_t most = single || M < 2 * MIN_TILE_M ? 1 : std::min(MAX_TILES, M / MIN_TILE_M);
    Cut best = CutOf(M, 1);
    best.seconds = modelled(best);
    for (uint64_t n = 2; n <= most; ++n) {
        Cut c = CutOf(M, n);
        if (c.tileM < MIN_TILE_M) break;
        c.seconds = modelled(c);
        if (c.seconds < best.seconds) best = c;
    }
    return best;
}

// The pieces `copies` tiles of `rows` x N each (one per rank's block for ReduceScatter, else 1) are computed
// in: PIECE_M rows and MIN_PIECE_N..MAX_PIECE_N columns, enough of them for every vector core (two per cube
// core) when the tiles allow; a block (one cube core, two vector cores) per two pieces, at most aicNum blocks;
// rows of a piece buffer `stride` elements apart.
struct Pieces {
    uint64_t pieceM = 0, pieceN = 0, count = 0, blocks = 0, stride = 0;
};

inline Pieces PiecesOf(uint64_t rows, uint64_t N, uint64_t aicNum, uint64_t copies = 1)
{
    Pieces p;
    p.pieceM = std::min(PIECE_M, AlignUp(rows, ALIGN));
    const uint64_t rowPieces = CeilDiv(rows, p.pieceM);
    const uint64_t colWanted = std::max<uint64_t>(1, CeilDiv(2 * aicNum, copies * rowPieces));
    const uint64_t colPieces = std::min(colWanted, std::max<uint64_t>(1, CeilDiv(N, MIN_PIECE_N)));
    p.pieceN = std::min(MAX_PIECE_N, AlignUp(CeilDiv(N, colPieces), ALIGN));
    p.count = copies * rowPieces * CeilDiv(N, p.pieceN);
    p.blocks = std::min(aicNum, CeilDiv(p.count, 2));
    p.stride = AlignUp(p.pieceN, ALIGN);
    return p;
}
}  // namespace mc2
