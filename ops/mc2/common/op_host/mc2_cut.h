// The MC2 family's cut model: how a matmul fused with a collective is cut along M into communication tiles
// (an optional ramp of growing tiles, equal long tiles, a short tail), what one tile's collective costs on the
// 910B's HCCL, and the sizing of the pieces one core computes. Shared by matmul_all_reduce, matmul_reduce_scatter and
// all_gather_matmul; each package keeps its own time model (what a row costs to compute and to communicate,
// and which of the two goes first) and passes it to ChooseCut.
#pragma once

#include <algorithm>
#include <cstdint>

#include "mc2_tiling_data.h"

namespace mc2 {
constexpr uint64_t ALIGN = 16;          // rows of a tile, columns of a piece buffer: whole 16-element fractals
constexpr uint64_t MIN_TILE_M = 64;     // the fewest rows of a communication tile
constexpr uint64_t MAX_TILES = 16;      // the most equal tiles tried
constexpr uint64_t MAX_RAMP = 4;        // the most growing tiles before them (Mc2CutTiling::rampM)
constexpr uint64_t PIECE_M = 128;       // rows of a piece
constexpr uint64_t MIN_PIECE_N = 128;   // columns of a piece: at least (unless N is smaller) ...
constexpr uint64_t MAX_PIECE_N = 256;   // ... and at most
constexpr double FLOP_PER_CYCLE = 8192; // one cube core, fp16/bf16: 16 x 16 x 16 multiply-adds
constexpr double CUBE_HZ = 1.8e9;
constexpr double CUBE_EFFICIENCY = 0.85;
constexpr double T_TILE_S = 1e-6;          // fixed cost of computing one tile
// One slice (one task of HCCL's AICPU server) on the 910B full mesh, every rank sending to all peers at once
// over one link each: a launch, then per algorithm step a latency that grows with the bytes the step moves over
// a link (T_STEP_S to T_STEP_LARGE_S at STEP_KNEE_BYTES) and those bytes at a link's bandwidth. The constants
// reproduce the HCCL time fit ops-transformer's MC2 tiling plans with (8 ranks of 910B: an AllReduce of x MiB,
// x >= 8, takes 13.585 us per MiB + 61.5 us, a tiny one about 18 us; docs/perf.md §9, source T-hccl): slicing a
// collective finely is not free.
constexpr double LINK_BYTES_PER_S = 19.3e9;  // one HCCS peer link, effective: 0.25 MiB per 13.585 us
constexpr double T_LAUNCH_S = 8e-6;
constexpr double T_STEP_S = 5e-6;
constexpr double T_STEP_LARGE_S = 26.75e-6;
constexpr double STEP_KNEE_BYTES = 1 << 20;

// The seconds of one slice of `steps` algorithm steps, each moving stepBytes over every link.
inline double SliceSeconds(double steps, double stepBytes)
{
    const double knee = stepBytes < STEP_KNEE_BYTES ? stepBytes / STEP_KNEE_BYTES : 1.0;
    return T_LAUNCH_S + steps * (T_STEP_S + (T_STEP_LARGE_S - T_STEP_S) * knee + stepBytes / LINK_BYTES_PER_S);
}

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t AlignUp(uint64_t a, uint64_t b) { return CeilDiv(a, b) * b; }

// The cube throughput of aicNum cube cores, in flop/s.
inline double CubeFlops(uint64_t aicNum)
{
    return static_cast<double>(aicNum) * FLOP_PER_CYCLE * CUBE_HZ * CUBE_EFFICIENCY;
}

// The tiles in row order: rampCnt growing tiles (rampM), tileCnt tiles of tileM rows, tailCnt (0 or 1) of tailM.
struct Cut {
    uint64_t rampCnt = 0, rampM[MAX_RAMP] = {};
    uint64_t tileM = 0, tileCnt = 0, tailM = 0, tailCnt = 0;
    double seconds = 0;  // the modelled time of the whole op under this cut

    uint64_t Tiles() const { return rampCnt + tileCnt + tailCnt; }
    uint64_t RowsOf(uint64_t t) const
    {
        return t < rampCnt ? rampM[t] : t < rampCnt + tileCnt ? tileM : tailM;
    }
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

// A ramp of r tiles growing evenly from `first` rows towards tileM-row tiles, then tiles of tileM rows and the
// remainder as a short tail (rows rounded to 16); ok false when the rows do not allow it.
inline Cut RampCutOf(uint64_t M, uint64_t r, uint64_t first, uint64_t tileM, bool& ok)
{
    Cut c;
    uint64_t used = 0;
    c.rampCnt = r;
    for (uint64_t i = 0; i < r; ++i) {
        c.rampM[i] = AlignUp(first + (tileM - first) * i / r, ALIGN);
        used += c.rampM[i];
    }
    ok = used + tileM <= M;
    if (!ok) return c;
    c.tileM = tileM;
    c.tileCnt = (M - used) / tileM;
    c.tailM = M - used - c.tileCnt * tileM;
    c.tailCnt = c.tailM > 0 ? 1 : 0;
    return c;
}

// Compute, then communicate (AllReduce, ReduceScatter): tile t's collective starts once the tile is computed
// and tile t - 1's has landed. computeOf(rows), commOf(rows): the seconds of a tile's compute and collective.
template <class Compute, class Comm>
double ComputeThenCommunicate(const Cut& c, Compute&& computeOf, Comm&& commOf, bool communicates)
{
    double computed = 0, landed = 0;
    for (uint64_t t = 0; t < c.Tiles(); ++t) {
        const uint64_t rows = c.RowsOf(t);
        computed += T_TILE_S + computeOf(rows);
        if (communicates) landed = std::max(computed, landed) + commOf(rows);
    }
    return std::max(computed, landed);
}

// The cut of M with the least modelled time: one tile, up to MAX_TILES equal tiles of at least MIN_TILE_M rows
// (and a tail), and with `ramp` also a ramp of 1 to MAX_RAMP growing tiles before equal ones (the first slice
// leaves early, each later one hides under a longer compute); modelled(cut) gives a cut's seconds. single: only
// the one-tile cut (nothing to overlap). Ties keep the simpler cut.
template <class Model>
Cut ChooseCut(uint64_t M, bool single, Model&& modelled, bool ramp = false)
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
    if (!ramp || most == 1) return best;
    for (uint64_t r = 1; r <= MAX_RAMP; ++r) {
        for (uint64_t tileM = 2 * MIN_TILE_M; tileM <= M / 2; tileM += MIN_TILE_M) {
            for (uint64_t first = MIN_TILE_M; first < tileM; first += MIN_TILE_M) {
                bool ok = false;
                Cut c = RampCutOf(M, r, first, tileM, ok);
                if (!ok) break;
                c.seconds = modelled(c);
                if (c.seconds < best.seconds) best = c;
            }
        }
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

// The cut and the pieces into the tiling data's shared fields (Mc2CutTiling): direct, the pieces leave the cube
// rounded (no epilogue: rowsPerChunk 0, no piece buffers); pieceOffset, where the piece buffers start (after
// the fp32 bias).
inline void FillCut(Mc2CutTiling& t, uint32_t rankDim, const Cut& c, const Pieces& p, bool direct,
                    uint64_t rowsPerChunk, uint64_t pieceOffset)
{
    t.rankDim = rankDim;
    t.rampCnt = static_cast<uint32_t>(c.rampCnt);
    for (uint64_t i = 0; i < c.rampCnt; ++i) t.rampM[i] = static_cast<uint32_t>(c.rampM[i]);
    t.tileM = static_cast<uint32_t>(c.tileM);
    t.tileCnt = static_cast<uint32_t>(c.tileCnt);
    t.tailM = static_cast<uint32_t>(c.tailM);
    t.tailCnt = static_cast<uint32_t>(c.tailCnt);
    t.pieceStride = static_cast<uint32_t>(p.stride);
    t.rowsPerChunk = direct ? 0 : static_cast<uint32_t>(rowsPerChunk);
    t.workers = static_cast<uint32_t>(2 * p.blocks);
    t.direct = direct ? 1 : 0;
    t.pieceOffset = static_cast<uint32_t>(pieceOffset);
}

// Bytes of the fp32 bias at the start of the user workspace (0 without a bias).
inline uint64_t BiasBytes(bool hasBias, uint64_t N) { return hasBias ? AlignUp(N * 4, 512) : 0; }
}  // namespace mc2
