// The MC2 family's kernel set-up, shared by matmul_all_reduce, matmul_reduce_scatter and all_gather_matmul:
// the HCCL data type of a tensor type, the Matmul of one piece into a worker's fp32 piece buffer, the bias row
// in UB and the rounding store of a chunk of rows. Each package keeps its own tiles, collectives and epilogue.
#ifndef MC2_KERNEL_H
#define MC2_KERNEL_H

#include "kernel_operator.h"
#include "lib/hccl/hccl.h"
#include "lib/matmul_intf.h"

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

// The Matmul of a piece: T inputs in GM (ND), an fp32 result and bias in GM.
template <typename T>
using PieceMatmul = AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>;

// The lead worker's HCCL: the communicator's context, the init tiling and the one collective's tiling, both at
// their offsets in the tiling data.
template <typename H>
__aicore__ inline void InitHccl(H& hccl, GM_ADDR tilingGm, size_t initOffset, size_t ccOffset)
{
    hccl.InitV2(AscendC::GetHcclContext<0>(), tilingGm + initOffset);
    hccl.SetCcTiling(tilingGm + ccOffset);
}

// piece = a[:m] @ x2[:, n0 : n0 + n] (x2 is [N, K] with transB), fp32, rows as the Matmul's org shape says;
// synchronous: the piece is in GM on return.
template <typename MM, typename T>
__aicore__ inline void MatmulPiece(MM& mm, AscendC::GlobalTensor<T> a, AscendC::GlobalTensor<T> x2, uint32_t n0,
                                   uint32_t m, uint32_t n, uint32_t K, bool transB, AscendC::GlobalTensor<float> piece)
{
    mm.SetTensorA(a);
    mm.SetTensorB(transB ? x2[static_cast<uint64_t>(n0) * K] : x2[n0], transB);
    mm.SetTail(m, n, K);
    mm.IterateAll(piece);
}

// The bias columns [n0, n0 + n) as fp32 in fBuf (read as T through bBuf); fBuf's tensor, untouched without bias.
template <typename T>
__aicore__ inline AscendC::LocalTensor<float> BiasRow(AscendC::TBuf<AscendC::TPosition::VECCALC>& bBuf,
                                                      AscendC::TBuf<AscendC::TPosition::VECCALC>& fBuf,
                                                      AscendC::GlobalTensor<T> bias, bool hasBias, uint32_t n0,
                                                      uint32_t n)
{
    using namespace AscendC;
    LocalTensor<float> biasF = fBuf.Get<float>();
    if (hasBias) {
        LocalTensor<T> b = bBuf.Get<T>();
        DataCopyPad(b, bias[n0], DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0},
                    DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        Cast(biasF, b, RoundMode::CAST_NONE, n);
        PipeBarrier<PIPE_ALL>();
    }
    return biasF;
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
}  // namespace Mc2Kernel

#endif  // MC2_KERNEL_H
