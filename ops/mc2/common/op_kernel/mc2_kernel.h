// The MC2 family's kernel set-up, shared by matmul_all_reduce, matmul_reduce_scatter and all_gather_matmul:
// the HCCL data type of a tensor type, the bias as fp32 for the cube's BiasTable, the Matmul of one piece (rounded
// by Fixpipe straight into its destination, or as fp32 into a worker's piece buffer for a vector epilogue) and
// the rounding store of a chunk of rows. Each package keeps its own tiles, collectives and epilogue.
#ifndef MC2_KERNEL_H
#define MC2_KERNEL_H

#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "lib/matmul_intf.h"
#include "mc2_tiling_data.h"

namespace Mc2Kernel {
constexpr uint32_t ALIGN = 16;  // elements of a 32-byte block of fp16/bf16: the pad unit of piece rows

template <typename T>
struct HcclType;
template <>
struct HcclType<half> {
    static constexpr AscendC::HcclDataType value = AscendC::HCCL_DATA_TYPE_FP16;
};
template <>
struct HcclType<bfloat16_t> {
    static constexpr AscendC::HcclDataType value = AscendC::HCCL_DATA_TYPE_BFP16;
};

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The first of a worker's pieces of a tile; it takes every `workers`-th from there. Piece p goes to cube core
// p % blocks (blocks = workers / 2, the vector cores 2c and 2c + 1 share cube core c), its two vector cores
// alternating, so every cube core computes floor or ceil(pieces / blocks) pieces of every tile.
__aicore__ inline uint32_t FirstPiece(uint32_t worker, uint32_t workers)
{
    return worker / 2 + (worker % 2) * (workers / 2);
}

// The tiles of a cut in row order: the ramp, the long tiles, the tail.
__aicore__ inline uint32_t Tiles(const Mc2CutTiling& c) { return c.rampCnt + c.tileCnt + c.tailCnt; }
__aicore__ inline uint32_t TileRows(const Mc2CutTiling& c, uint32_t t)
{
    return t < c.rampCnt ? c.rampM[t] : t < c.rampCnt + c.tileCnt ? c.tileM : c.tailM;
}

// The Matmul template of the pieces: MDL (copies of stepKa / stepKb base blocks at a time) with the unit flag (the
// Fixpipe following the last Mmad 512 B at a time), as ops-transformer's MC2 kernels configure theirs
// (GetMDLConfig with enUnitFlag, mat_mul_v3's MM_CFG_NO_PRELOAD).
constexpr MatmulConfig MC2_MM_CFG = GetMDLConfig(false, false, 0, false, false, false, true);

// The Matmul of a piece: T inputs in GM (ND), an fp32 bias in GM (the BiasTable starts L0C from it), the result
// fp32 in GM (for a vector epilogue) ...
template <typename T>
using PieceMatmul = AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, MC2_MM_CFG>;

// ... or rounded once to T by Fixpipe (fp32 -> fp16/bf16, round to nearest even) on its way out of L0C.
template <typename T>
using DirectMatmul = AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                     AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                     AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                     AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, MC2_MM_CFG>;

// The lead worker's HCCL: the communicator's context, the init tiling and the one collective's tiling, both at
// their offsets in the tiling data.
template <typename H>
__aicore__ inline void InitHccl(H& hccl, GM_ADDR tilingGm, size_t initOffset, size_t ccOffset)
{
    hccl.InitV2(AscendC::GetHcclContext<0>(), tilingGm + initOffset);
    hccl.SetCcTiling(tilingGm + ccOffset);
}

// out = a[:m] @ x2[:, n0 : n0 + n] (+ biasF[n0 : n0 + n]) (x2 is [N, K] with transB), C's rows as the Matmul's
// org shape says (its orgKc); synchronous: the piece is in GM on return.
template <typename MM, typename T, typename C>
__aicore__ inline void MatmulPiece(MM& mm, AscendC::GlobalTensor<T> a, AscendC::GlobalTensor<T> x2, uint32_t n0,
                                   uint32_t m, uint32_t n, uint32_t K, bool transB, bool hasBias,
                                   AscendC::GlobalTensor<float> biasF, AscendC::GlobalTensor<C> out)
{
    mm.SetTensorA(a);
    mm.SetTensorB(transB ? x2[static_cast<uint64_t>(n0) * K] : x2[n0], transB);
    if (hasBias) {
        mm.SetBias(biasF[n0]);
    } else {
        mm.DisableBias();
    }
    mm.SetTail(m, n, K);
    mm.IterateAll(out);
}

// biasF[:N] = float(bias[:N]), the columns shared out over the workers in chunks of `chunk` (at most the buffers'
// elements), through bBuf (T) and fBuf (fp32). The caller makes every worker wait for all chunks (SyncAll)
// before the cube reads biasF.
template <typename T>
__aicore__ inline void BiasToFloat(AscendC::TBuf<AscendC::TPosition::VECCALC>& bBuf,
                                   AscendC::TBuf<AscendC::TPosition::VECCALC>& fBuf, AscendC::GlobalTensor<T> bias,
                                   AscendC::GlobalTensor<float> biasF, uint32_t N, uint32_t chunk, uint32_t worker,
                                   uint32_t workers)
{
    using namespace AscendC;
    LocalTensor<T> b = bBuf.Get<T>();
    LocalTensor<float> f = fBuf.Get<float>();
    for (uint32_t c0 = worker * chunk; c0 < N; c0 += workers * chunk) {
        const uint32_t n = N - c0 < chunk ? N - c0 : chunk;
        DataCopyPad(b, bias[c0], DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0},
                    DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        Cast(f, b, RoundMode::CAST_NONE, n);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(biasF[c0], f, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
    }
}

// dst[:rows, :n] (rows N elements apart) = round(c[:rows, :n]) (c's rows s floats apart), through outBuf:
// fp32 to fp16/bf16, round to nearest even.
template <typename T>
__aicore__ inline void StoreRows(AscendC::TBuf<AscendC::TPosition::VECCALC>& outBuf, AscendC::LocalTensor<float>& c,
                                 AscendC::GlobalTensor<T> dst, uint32_t rows, uint32_t n, uint32_t N, uint32_t s)
{
    using namespace AscendC;
    const uint32_t nPad = CeilDiv(n, ALIGN) * ALIGN;
    LocalTensor<T> out = outBuf.Get<T>();
    Cast(out, c, RoundMode::CAST_RINT, rows * s);
    PipeBarrier<PIPE_ALL>();
    const DataCopyExtParams o{static_cast<uint16_t>(rows), static_cast<uint32_t>(n * sizeof(T)), (s - nPad) / ALIGN,
                              static_cast<uint32_t>((N - n) * sizeof(T)), 0};
    DataCopyPad(dst, out, o);
    PipeBarrier<PIPE_ALL>();
}
// The pieces (pm x pn of rows x N, in `blocks` alike blocks of rows) a worker computes, in its order:
// piece(block, r, n0, m, n) for rows [r, r + m) of the block and columns [n0, n0 + n).
template <class F>
__aicore__ inline void ForEachPiece(uint32_t worker, uint32_t workers, uint32_t rows, uint32_t blocks, uint32_t pm,
                                    uint32_t pn, uint32_t N, F&& piece)
{
    const uint32_t colPieces = CeilDiv(N, pn);
    const uint32_t perBlock = CeilDiv(rows, pm) * colPieces;
    for (uint32_t q = FirstPiece(worker, workers); q < perBlock * blocks; q += workers) {
        const uint32_t p = q % perBlock;
        const uint32_t r = (p / colPieces) * pm;
        const uint32_t n0 = (p % colPieces) * pn;
        piece(q / perBlock, r, n0, rows - r < pm ? rows - r : pm, N - n0 < pn ? N - n0 : pn);
    }
}

// What every MC2 kernel's vector cores hold alike: this worker (GetBlockIdx counts vector cores) and the lead
// (worker 0, which prepares and commits the collectives), x1 [x1Rows, K], x2, the bias [N] and its fp32 copy at
// the start of the user workspace (the cube's BiasTable reads it), and the UB buffers of its conversion.
template <typename T>
struct Operands {
    AscendC::GlobalTensor<T> x1, x2, bias;
    AscendC::GlobalTensor<float> biasF;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bBuf, fBuf;
    uint32_t worker = 0, workers = 0, N = 0, chunk = 0;
    bool hasBias = false, lead = false;

    __aicore__ inline void Init(GM_ADDR x1Addr, GM_ADDR x2Addr, GM_ADDR biasAddr, GM_ADDR userWorkspace,
                                uint64_t x1Rows, uint32_t n, uint32_t K, bool withBias, const Mc2CutTiling& cut,
                                AscendC::TPipe* pipe)
    {
        worker = AscendC::GetBlockIdx();
        workers = cut.workers;
        lead = worker == 0;
        N = n;
        chunk = cut.pieceStride;
        hasBias = withBias;
        x1.SetGlobalBuffer((__gm__ T*)x1Addr, x1Rows * K);
        x2.SetGlobalBuffer((__gm__ T*)x2Addr, static_cast<uint64_t>(K) * N);
        if (hasBias) bias.SetGlobalBuffer((__gm__ T*)biasAddr, N);
        biasF.SetGlobalBuffer((__gm__ float*)userWorkspace, N);
        pipe->InitBuffer(bBuf, chunk * sizeof(T));
        pipe->InitBuffer(fBuf, chunk * sizeof(float));
    }

    // This worker's share of the fp32 bias; the caller's next SyncAll makes it whole before the cube reads it.
    __aicore__ inline void ConvertBias()
    {
        if (hasBias) BiasToFloat<T>(bBuf, fBuf, bias, biasF, N, chunk, worker, workers);
    }
};
}  // namespace Mc2Kernel

#endif  // MC2_KERNEL_H
