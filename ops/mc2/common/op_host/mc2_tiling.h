// The MC2 family's tiling steps that do not depend on the collective: the attrs every MC2 op has (read and
// checked), the group's ranks, the chip a mix kernel of AIC:AIV = 1:2 runs on, x1 and x2 as a 2-D matmul, the bias row, and the Matmul
// tiling of one piece. Each returns false
// after logging what is wrong (as the op named `op`), and the package's tiling then fails.
#pragma once

#include <cstdint>
#include <cstring>

#include "hccl/hcom.h"

#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace mc2 {
// The attrs every MC2 op has, as far as these packages implement them: group (an HCCL communicator's name),
// is_trans_a (false: x1 is not transposed), comm_turn (0); reduce_op, of the reducing ops, "sum". A null
// pointer is an attr not given (its default).
inline bool CommonAttrs(const char* group, const bool* transA, const int64_t* commTurn, const char* op)
{
    if (group == nullptr || group[0] == '\0') {
        OP_LOGE(op, "attr group is empty: give the HCCL communicator's name");
        return false;
    }
    if (transA != nullptr && *transA) {
        OP_LOGE(op, "attr is_trans_a is true: x1 cannot be transposed");
        return false;
    }
    if (commTurn != nullptr && *commTurn != 0) {
        OP_LOGE(op, "attr comm_turn is %ld: only 0 is supported", static_cast<long>(*commTurn));
        return false;
    }
    return true;
}

inline bool SumReduce(const char* reduceOp, const char* op)
{
    if (reduceOp != nullptr && std::strcmp(reduceOp, "sum") != 0) {
        OP_LOGE(op, "attr reduce_op is '%s': only 'sum' is supported", reduceOp);
        return false;
    }
    return true;
}

// The OpDef's indices of the attrs every MC2 op reads (-1: the op has no such attr).
struct AttrIndex {
    int group = 0, reduceOp = -1, transA = -1, transB = -1, commTurn = -1, rankSize = -1;
};

// What those attrs say, once checked: the group's name, x2 given as [N, K], attr rank_size (null: none).
struct Attrs {
    const char* group = nullptr;
    bool isTransB = false;
    const int64_t* rankSize = nullptr;
};

// Attr i of the OpDef (null: not given, or i < 0: the op has none).
template <typename V>
inline const V* AttrAt(const gert::RuntimeAttrs* attrs, int i)
{
    return attrs != nullptr && i >= 0 ? attrs->GetAttrPointer<V>(i) : nullptr;
}

// Reads the attrs at their indices and checks them (CommonAttrs; SumReduce for an op with reduce_op).
inline bool ReadAttrs(gert::TilingContext* context, const AttrIndex& at, const char* op, Attrs& out)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    out.group = AttrAt<char>(attrs, at.group);
    out.rankSize = AttrAt<int64_t>(attrs, at.rankSize);
    if (!CommonAttrs(out.group, AttrAt<bool>(attrs, at.transA), AttrAt<int64_t>(attrs, at.commTurn), op)) {
        return false;
    }
    if (at.reduceOp >= 0 && !SumReduce(AttrAt<char>(attrs, at.reduceOp), op)) {
        return false;
    }
    const bool* transB = AttrAt<bool>(attrs, at.transB);
    out.isTransB = transB != nullptr && *transB;
    return true;
}

// The group's rank count, as HCCL reports it; attr rank_size (null: the op has none), when given and not 0,
// must agree.
inline bool GroupRanks(const char* group, const int64_t* rankSize, const char* op, uint32_t& rankDim)
{
    rankDim = 0;
    if (HcomGetRankSize(group, &rankDim) != HCCL_SUCCESS || rankDim == 0) {
        OP_LOGE(op, "cannot get the rank size of group '%s'", group);
        return false;
    }
    if (rankSize != nullptr && *rankSize != 0 && static_cast<uint64_t>(*rankSize) != rankDim) {
        OP_LOGE(op, "attr rank_size is %ld, but group '%s' has %u ranks (give 0 to take the group's)",
                static_cast<long>(*rankSize), group, rankDim);
        return false;
    }
    return true;
}

struct Chip {
    uint64_t aicNum = 0, aivNum = 0, ubSize = 0, l1Size = 0, l0cSize = 0;
};

// The cores and the memories of the chip; a mix kernel of AIC:AIV = 1:2 needs two vector cores per cube core.
inline bool ReadMixChip(platform_ascendc::PlatformAscendC& platform, const char* op, Chip& chip)
{
    chip.aicNum = platform.GetCoreNumAic();
    chip.aivNum = platform.GetCoreNumAiv();
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, chip.ubSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, chip.l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, chip.l0cSize);
    if (chip.aicNum == 0 || chip.aivNum < 2 * chip.aicNum) {
        OP_LOGE(op, "a mix kernel of AIC:AIV = 1:2 needs two vector cores per cube core (AIC %lu, AIV %lu)",
                static_cast<unsigned long>(chip.aicNum), static_cast<unsigned long>(chip.aivNum));
        return false;
    }
    return true;
}

// M, N and K of x1 [M, K] (input 0) and x2 [K, N] ([N, K] with isTransB, input 1); the ranges are the package's.
inline bool MatmulDims(gert::TilingContext* context, const char* op, bool isTransB, uint64_t& M, uint64_t& N,
                       uint64_t& K)
{
    const gert::StorageShape* x1Shape = context->GetInputShape(0);
    const gert::StorageShape* x2Shape = context->GetInputShape(1);
    if (x1Shape == nullptr || x2Shape == nullptr) {
        return false;
    }
    const gert::Shape& a = x1Shape->GetStorageShape();
    const gert::Shape& b = x2Shape->GetStorageShape();
    if (a.GetDimNum() != 2 || b.GetDimNum() != 2) {
        OP_LOGE(op, "x1 and x2 must be 2-D (x1 has %zu dims, x2 %zu)", a.GetDimNum(), b.GetDimNum());
        return false;
    }
    M = static_cast<uint64_t>(a.GetDim(0));
    K = static_cast<uint64_t>(a.GetDim(1));
    const uint64_t kB = static_cast<uint64_t>(isTransB ? b.GetDim(1) : b.GetDim(0));
    N = static_cast<uint64_t>(isTransB ? b.GetDim(0) : b.GetDim(1));
    if (kB != K) {
        OP_LOGE(op, "x1's K (%lu) and x2's K (%lu) differ (is_trans_b %d)", static_cast<unsigned long>(K),
                static_cast<unsigned long>(kB), isTransB ? 1 : 0);
        return false;
    }
    return true;
}

// The optional bias (input 2), when given, is [N].
inline bool BiasIsN(const gert::StorageShape* biasShape, const char* op, uint64_t N)
{
    if (biasShape != nullptr && (biasShape->GetStorageShape().GetDimNum() != 1 ||
                                 static_cast<uint64_t>(biasShape->GetStorageShape().GetDim(0)) != N)) {
        OP_LOGE(op, "bias must be [N] = [%lu]", static_cast<unsigned long>(N));
        return false;
    }
    return true;
}

// x1 [M, K] and x2 (MatmulDims) and the optional bias [N] (BiasIsN; null when not given); bf16: x1's dtype.
inline bool MatmulShapes(gert::TilingContext* context, const char* op, bool isTransB, uint64_t& M, uint64_t& N,
                         uint64_t& K, const gert::StorageShape*& biasShape, bool& bf16)
{
    const auto* x1Desc = context->GetInputDesc(0);
    if (x1Desc == nullptr || !MatmulDims(context, op, isTransB, M, N, K)) {
        return false;
    }
    bf16 = x1Desc->GetDataType() == ge::DT_BF16;
    biasShape = context->GetOptionalInputShape(2);
    return BiasIsN(biasShape, op, N);
}

// M positive (up to 2^31 - 1), N in [1, 65535] and K in [kMin, kMax]: the ranges the packages' tilings support.
inline bool DimsInRange(uint64_t M, uint64_t N, uint64_t K, uint64_t kMin, uint64_t kMax, const char* op)
{
    if (M == 0 || N == 0 || K < kMin || K > kMax || M > 0x7fffffff || N > 65535) {
        OP_LOGE(op, "M %lu, N %lu, K %lu: M must be positive, N in [1, 65535] and K in [%lu, %lu]",
                static_cast<unsigned long>(M), static_cast<unsigned long>(N), static_cast<unsigned long>(K),
                static_cast<unsigned long>(kMin), static_cast<unsigned long>(kMax));
        return false;
    }
    return true;
}

// The Matmul tiling of one piece: [pieceM, K] x [K, pieceN] ([pieceN, K] with isTransB) of the [M, K] x [K, N]
// product, fp16 or (bf16) bf16 inputs in GM, the result in GM as fp32 or (rounded) as the inputs' dtype, an
// fp32 bias in GM when `bias` (the BiasTable adds it).
inline bool PieceMatmulTiling(platform_ascendc::PlatformAscendC& platform, const char* op, bool bf16, bool isTransB,
                              bool rounded, bool bias, uint64_t M, uint64_t N, uint64_t K, uint64_t pieceM,
                              uint64_t pieceN, const Chip& chip, AscendC::tiling::TCubeTiling& out)
{
    const matmul_tiling::DataType inType = bf16 ? matmul_tiling::DataType::DT_BF16
                                                : matmul_tiling::DataType::DT_FLOAT16;
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(1);
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, inType);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, inType, isTransB);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                rounded ? inType : matmul_tiling::DataType::DT_FLOAT);
    mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetOrgShape(static_cast<int32_t>(M), static_cast<int32_t>(N), static_cast<int32_t>(K));
    mm.SetShape(static_cast<int32_t>(pieceM), static_cast<int32_t>(pieceN), static_cast<int32_t>(K));
    mm.SetSingleShape(static_cast<int32_t>(pieceM), static_cast<int32_t>(pieceN), static_cast<int32_t>(K));
    mm.SetBias(bias);
    mm.SetBufferSpace(static_cast<int32_t>(chip.l1Size), static_cast<int32_t>(chip.l0cSize), -1);
    if (mm.GetTiling(out) == -1) {
        OP_LOGE(op, "no Matmul tiling for a piece of %lu x %lu x %lu", static_cast<unsigned long>(pieceM),
                static_cast<unsigned long>(pieceN), static_cast<unsigned long>(K));
        return false;
    }
    return true;
}
}  // namespace mc2
