// FlashAttentionScore: the host tiling, run before every launch.
//
// 1. Read the problem from the layout (flash_attention_score_shapes.h) and refuse, with one line naming
//    the input or attr and the accepted range, what the kernel does not compute: sparse modes 5-8,
//    D > 256, D2 > D, N1 % N2 != 0, keep_prob outside (0, 1], dropout without drop_mask or with too
//    few bits, pse shapes other than ops-transformer's, the compressed alibi pse, fp8/rope inputs.
// 2. Turn sparse modes 2/3/4 into one band [pre, next] counted from the top-left corner (mode 3:
//    pre = S1, next = S2 - S1; mode 4: pre - delta, next + delta) so the kernel knows one rule.
// 3. Block sizes from the chip: s1Base rows of Q per task (64, 128 when there are more tasks than
//    vector cores), s2Base columns of K per step, the largest of 1024/512/256/128 whose score tiles,
//    mask, pse and output accumulator fit UB (PlatformAscendC), and the two Matmul tilings
//    (Q K^T with K transposed, P V) against L1/L0 (MultiCoreMatmulTiling).
// 4. Cores: the tasks (b, n1, S1 block) are paired, S1 blocks 2q and 2q + 1 of one (b, n1), the two vector
//    cores of a block (one AIC) taking one task of each pair and walking the S2 blocks the band leaves to
//    either of the two, so that their Q K^T and P V read the same K and V blocks in the same order (IBShare:
//    one copy into L1 serves both). Pairs, weighted by those S2 blocks (causal skipping), are split greedily
//    into contiguous ranges of about equal work over min(pairs, AIC blocks).
// 5. Tiling key: ops-transformer's fields - DataType bits 18-19, Layout 20-22, Sparse 25-28,
//    HasDropOut 31, HasAttenMask 32, HasPse 33.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "log/log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "../op_kernel/flash_attention_score_tiling_data.h"
#include "flash_attention_score_shapes.h"

namespace optiling {
namespace {
using namespace fas_host;
constexpr int64_t MAX_D = 256;          // head size of this kernel (ops-transformer's limit is 768)
constexpr int64_t MAX_HEADS = 256;
constexpr int64_t COMPRESSED = 2048;    // the compressed mask of modes 2/3/4
constexpr int64_t INF_TOKENS = 2147483647;
constexpr uint64_t MAX_CORES = 48;
constexpr int64_t AUX_ROWS = 16;        // rows per step of the kernel's mask / pse / dropout work, at most
constexpr int64_t SM_TMP = 8192;        // the shared scratch with a mask or dropout (DropOut, SelectWithBytesMask), at least

int64_t CeilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

// scratch of the kernel's row reductions (OnlineSoftmax / RowReduce) for one chunk of `rows` rows, rounded up to
// 8 rows (at least 16): [rp, 64] + [rp, 32] + [rp] + [rp, 8] floats
int64_t RowReduceBytes(int64_t rows)
{
    const int64_t rp = std::max<int64_t>(16, CeilDiv(rows, 8) * 8);
    return rp * 105 * 4;
}

// bytes per row of the kernel's bit buffers for s2Base columns: whole 32-byte blocks
int64_t BitPitch(int64_t s2Base)
{
    return CeilDiv(CeilDiv(s2Base, 8), 32) * 32;
}

// One error line naming what is refused and what is accepted, logged as the op's error (OP_LOGE).
ge::graphStatus Refuse(gert::TilingContext* context, const char* format, ...)
{
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    OP_LOGE(context->GetNodeName(), "FlashAttentionScore tiling error: %s", text);
    return ge::GRAPH_FAILED;
}

const gert::Shape* Optional(gert::TilingContext* context, size_t index)
{
    const gert::StorageShape* s = context->GetOptionalInputShape(index);
    return s == nullptr ? nullptr : &s->GetStorageShape();
}

// int64 values of a ValueDepend input (empty when absent)
std::vector<int64_t> Values(gert::TilingContext* context, size_t index)
{
    std::vector<int64_t> out;
    const gert::Tensor* t = context->GetOptionalInputTensor(index);
    if (t == nullptr || t->GetData<int64_t>() == nullptr) {
        return out;
    }
    const int64_t n = t->GetStorageShape().GetShapeSize();
    out.assign(t->GetData<int64_t>(), t->GetData<int64_t>() + n);
    return out;
}

// S2 blocks of s2Base columns that rows [r0, r0 + rows) reach inside the band [pre, next] (top-left)
int64_t ValidBlocks(int64_t r0, int64_t rows, int64_t s2, int64_t s2Base, int64_t pre, int64_t next)
{
    const int64_t lo = std::max<int64_t>(0, r0 - pre);
    const int64_t hi = std::min<int64_t>(s2 - 1, r0 + rows - 1 + next);
    return hi < lo ? 0 : hi / s2Base - lo / s2Base + 1;
}
}  // namespace

ge::graphStatus TilingFlashAttentionScore(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t aicNum = platform.GetCoreNumAic();
    const uint64_t aivNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0, l1Size = 0, l0cSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1Size);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0cSize);
    if (aicNum == 0 || aivNum < 2 * aicNum || ubSize == 0) {
        return Refuse(context, "the platform reports %lu cube and %lu vector cores; the kernel needs AIC:AIV = 1:2",
                      aicNum, aivNum);
    }

    // 1. The problem.
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const gert::StorageShape* qS = context->GetInputShape(QUERY);
    const gert::StorageShape* kS = context->GetInputShape(KEY);
    const gert::StorageShape* vS = context->GetInputShape(VALUE);
    const auto* qDesc = context->GetInputDesc(QUERY);
    if (attrs == nullptr || qS == nullptr || kS == nullptr || vS == nullptr || qDesc == nullptr) {
        return Refuse(context, "query, key, value or the attrs are missing");
    }
    const float* scale = attrs->GetAttrPointer<float>(SCALE_VALUE);
    const float* keepProb = attrs->GetAttrPointer<float>(KEEP_PROB);
    const int64_t* preP = attrs->GetAttrPointer<int64_t>(PRE_TOCKENS);
    const int64_t* nextP = attrs->GetAttrPointer<int64_t>(NEXT_TOCKENS);
    const int64_t* headNum = attrs->GetAttrPointer<int64_t>(HEAD_NUM);
    const char* layoutAttr = attrs->GetAttrPointer<char>(INPUT_LAYOUT);
    const int64_t* sparseP = attrs->GetAttrPointer<int64_t>(SPARSE_MODE);
    const int64_t* pseTypeP = attrs->GetAttrPointer<int64_t>(PSE_TYPE);
    const char* softmaxOutLayout = attrs->GetAttrPointer<char>(SOFTMAX_OUT_LAYOUT);
    if (scale == nullptr || keepProb == nullptr || preP == nullptr || nextP == nullptr || headNum == nullptr ||
        layoutAttr == nullptr || sparseP == nullptr || pseTypeP == nullptr) {
        return Refuse(context, "an attr is missing (scale_value ... pse_type, in the op's launch order)");
    }
    const Dims d = ReadDims(layoutAttr, *headNum, qS->GetStorageShape(), kS->GetStorageShape(), vS->GetStorageShape());
    if (!d.error.empty()) {
        return Refuse(context, "%s", d.error.c_str());
    }
    const bool tnd = d.layout == "TND";
    if (d.N1 > MAX_HEADS || d.N2 <= 0 || d.N1 % d.N2 != 0) {
        return Refuse(context, "N1 = %ld query heads must be a multiple of N2 = %ld key/value heads and at most %ld",
                      d.N1, d.N2, MAX_HEADS);
    }
    if (d.D <= 0 || d.D > MAX_D || d.D2 <= 0 || d.D2 > d.D) {
        return Refuse(context, "head sizes D = %ld, D2 = %ld: this kernel takes 1 <= D2 <= D <= %ld", d.D, d.D2, MAX_D);
    }
    if (*keepProb <= 0.0f || *keepProb > 1.0f) {
        return Refuse(context, "keep_prob = %g must be in (0, 1]", static_cast<double>(*keepProb));
    }
    const int64_t sparse = *sparseP;
    if (sparse < 0 || sparse > 8) {
        return Refuse(context, "sparse_mode = %ld is not a mode (0 to 8)", sparse);
    }
    if (sparse >= 5) {
        return Refuse(context, "sparse_mode %ld (%s) is not implemented by this kernel; modes 0 to 4 are", sparse,
                      sparse <= 6 ? "prefix" : "TND split-query causal");
    }
    const int64_t pseType = *pseTypeP;
    if (pseType < 0 || pseType > 3) {
        return Refuse(context, "pse_type = %ld must be 0, 1, 2 or 3", pseType);
    }
    for (size_t idx : {D_SCALE_Q, D_SCALE_K, D_SCALE_V, QUERY_ROPE, KEY_ROPE}) {
        if (Optional(context, idx) != nullptr) {
            return Refuse(context, "d_scale_q/k/v and query_rope/key_rope (input %zu) are not supported (fp8 and rope "
                          "paths of other SoCs)", idx);
        }
    }
    if (softmaxOutLayout != nullptr && Upper(softmaxOutLayout) == "SAME_AS_INPUT") {
        return Refuse(context, "softmax_out_layout 'same_as_input' is not supported; leave it empty");
    }

    FlashAttentionScoreTilingData* t = context->GetTilingData<FlashAttentionScoreTilingData>();
    if (t == nullptr) {
        return Refuse(context, "no tiling buffer");
    }
    *t = FlashAttentionScoreTilingData{};

    // batches: TND from the cumulative lengths, else B equal ones
    std::vector<int64_t> cumQ, cumKv;
    if (tnd) {
        cumQ = Values(context, ACTUAL_SEQ_QLEN);
        cumKv = Values(context, ACTUAL_SEQ_KVLEN);
        if (cumQ.empty() || cumQ.size() != cumKv.size()) {
            return Refuse(context, "input_layout TND needs actual_seq_qlen and actual_seq_kvlen of one length B "
                          "(cumulative); got %zu and %zu values", cumQ.size(), cumKv.size());
        }
        if (cumQ.size() > fas::MAX_BATCH) {
            return Refuse(context, "TND with %zu batches: at most %u", cumQ.size(), fas::MAX_BATCH);
        }
        for (size_t i = 0; i < cumQ.size(); ++i) {
            const int64_t pq = i ? cumQ[i - 1] : 0, pk = i ? cumKv[i - 1] : 0;
            if (cumQ[i] < pq || cumKv[i] < pk) {
                return Refuse(context, "actual_seq_qlen/kvlen[%zu] decreases: the lists hold cumulative lengths", i);
            }
        }
        if (cumQ.back() != d.S1 || cumKv.back() != d.S2) {
            return Refuse(context, "actual_seq_qlen ends at %ld and actual_seq_kvlen at %ld, but query has T1 = %ld "
                          "and key T2 = %ld rows", cumQ.back(), cumKv.back(), d.S1, d.S2);
        }
    } else {
        for (int64_t b = 1; b <= d.B && b <= static_cast<int64_t>(fas::MAX_BATCH); ++b) {
            cumQ.push_back(b * d.S1);
            cumKv.push_back(b * d.S2);
        }
    }
    const int64_t nb = tnd ? static_cast<int64_t>(cumQ.size()) : d.B;
    int64_t maxS1 = 0, maxS2 = 0;
    for (int64_t b = 0; b < static_cast<int64_t>(cumQ.size()); ++b) {
        maxS1 = std::max(maxS1, cumQ[b] - (b ? cumQ[b - 1] : 0));
        maxS2 = std::max(maxS2, cumKv[b] - (b ? cumKv[b - 1] : 0));
    }
    if (!tnd) {
        maxS1 = d.S1;
        maxS2 = d.S2;
    }

    // masks
    const gert::Shape* mask = Optional(context, ATTEN_MASK);
    uint32_t maskShape = fas::MASK_NONE;
    int64_t pre = INF_TOKENS, next = INF_TOKENS;
    if (mask != nullptr) {
        const bool compressed = sparse >= 2;
        if (compressed) {
            if (mask->GetDimNum() != 2 || mask->GetDim(0) != COMPRESSED || mask->GetDim(1) != COMPRESSED) {
                return Refuse(context, "sparse_mode %ld takes the compressed atten_mask [2048, 2048]; got %s", sparse,
                              ShapeText(*mask).c_str());
            }
            maskShape = fas::MASK_COMPRESSED;
        } else if (mask->GetDimNum() == 2 && (tnd || (mask->GetDim(0) == d.S1 && mask->GetDim(1) == d.S2))) {
            if (tnd && (mask->GetDim(0) < maxS1 || mask->GetDim(1) < maxS2)) {
                return Refuse(context, "TND atten_mask %s must be at least [max Sq, max Skv] = [%ld, %ld]",
                              ShapeText(*mask).c_str(), maxS1, maxS2);
            }
            maskShape = fas::MASK_SS;
        } else if (!tnd && mask->GetDimNum() == 4 && mask->GetDim(2) == d.S1 && mask->GetDim(3) == d.S2 &&
                   (mask->GetDim(0) == 1 || mask->GetDim(0) == d.B) && (mask->GetDim(1) == 1 || mask->GetDim(1) == d.N1)) {
            maskShape = mask->GetDim(0) == 1 ? (mask->GetDim(1) == 1 ? fas::MASK_SS : fas::MASK_1NSS)
                                             : (mask->GetDim(1) == 1 ? fas::MASK_B1SS : fas::MASK_BNSS);
        } else {
            return Refuse(context, "atten_mask %s: sparse_mode %ld takes [S1, S2], [1|B, 1|N1, S1, S2] = [.., %ld, %ld]",
                          ShapeText(*mask).c_str(), sparse, d.S1, d.S2);
        }
        // 2. one band rule, from the top-left corner; TND: per batch, so the deltas are applied by the kernel
        if (sparse == 0) {
            pre = *preP;
            next = *nextP;
        } else if (sparse == 2) {
            next = 0;
        } else if (sparse == 4) {
            pre = *preP;
            next = *nextP;
            if (pre + next < 0) {
                return Refuse(context, "sparse_mode 4: pre_tockens = %ld and next_tockens = %ld leave no band (their "
                              "sum must be >= 0)", pre, next);
            }
        }
        if (sparse == 0 && pre + next < 0) {
            return Refuse(context, "pre_tockens = %ld and next_tockens = %ld leave no band (their sum must be >= 0)",
                          pre, next);
        }
    }

    // pse
    const gert::Shape* pse = Optional(context, REAL_SHIFT);
    uint32_t pseShape = fas::PSE_NONE;
    if (pse != nullptr) {
        if (pseType >= 2) {
            if (pse->GetDimNum() == 2 && pse->GetDim(0) == nb && pse->GetDim(1) == d.N1) {
                pseShape = fas::PSE_SLOPE_BN;
            } else if (pse->GetDimNum() == 1 && pse->GetDim(0) == d.N1) {
                pseShape = fas::PSE_SLOPE_N;
            } else {
                return Refuse(context, "pse_type %ld takes slopes real_shift [B, N1] or [N1] = [%ld, %ld]; got %s",
                              pseType, nb, d.N1, ShapeText(*pse).c_str());
            }
        } else if (tnd) {
            return Refuse(context, "input_layout TND takes real_shift only as slopes (pse_type 2 or 3)");
        } else if (pse->GetDimNum() == 4 && pse->GetDim(1) == d.N1 && pse->GetDim(3) == d.S2 &&
                   ((pse->GetDim(0) == d.B && (pse->GetDim(2) == d.S1 || pse->GetDim(2) == 1)) ||
                    (pse->GetDim(0) == 1 && pse->GetDim(2) == d.S1))) {
            // [B, N1, 1, S2] before [1, N1, S1, S2]: with B = 1 the broadcast row has dim 0 = 1 too
            pseShape = pse->GetDim(2) == 1 && d.S1 != 1 ? fas::PSE_BN1S
                                                        : (pse->GetDim(0) == 1 ? fas::PSE_1NSS : fas::PSE_BNSS);
        } else {
            return Refuse(context, "real_shift %s: pse_type %ld takes [B, N1, S1, S2], [B, N1, 1, S2] or [1, N1, S1, S2] "
                          "= [%ld, %ld, %ld, %ld] (the compressed alibi form is not supported)", ShapeText(*pse).c_str(),
                          pseType, d.B, d.N1, d.S1, d.S2);
        }
    }
    const std::vector<int64_t> qStart = Values(context, Q_START_IDX);
    const std::vector<int64_t> kvStart = Values(context, KV_START_IDX);

    // dropout
    const bool drop = *keepProb < 1.0f;
    if (drop) {
        const gert::Shape* dm = Optional(context, DROP_MASK);
        int64_t bits = 0;
        for (int64_t b = 0; b < static_cast<int64_t>(cumQ.size()); ++b) {
            bits += d.N1 * (cumQ[b] - (b ? cumQ[b - 1] : 0)) * (cumKv[b] - (b ? cumKv[b - 1] : 0));
        }
        if (!tnd) {
            bits = d.B * d.N1 * d.S1 * d.S2;
        }
        if (dm == nullptr || dm->GetShapeSize() < CeilDiv(bits, 8)) {
            return Refuse(context, "keep_prob = %g needs drop_mask with at least %ld bytes (one bit per score of "
                          "[B, N1, S1, S2]); got %ld", static_cast<double>(*keepProb), CeilDiv(bits, 8),
                          dm == nullptr ? 0L : static_cast<long>(dm->GetShapeSize()));
        }
    }

    // 3. Block sizes. A task is s1Base query rows (64, 128 when there are more tasks of 64 than vector cores); a
    //    step of it is one S2 block of s2Base columns: one bmm1 job [s1Base x s2Base] and one bmm2 job
    //    [s1Base x D2] on the cube, as ops-transformer's kernel runs 128-row jobs over several 128-column blocks.
    //    The vector core walks a step's scores in chunks of vecRows rows (the whole row of the block, so each
    //    chunk's online softmax is exact), two chunks in UB at once. UB per vector core, as the kernel allocates it
    //    (op_kernel/flash_attention_score.h, Init): two fp32 score chunks and two P chunks of the input dtype
    //    (vecRows x s2Base each; the P V rows and the output rows pass through them too), the fp32 output
    //    accumulator (s1Base x d2Align), the row statistics (s1Base x 48 floats) and their compare bits, the row
    //    reductions' scratch and, when a given mask (modes 0, 1), pse or dropout is read, auxRows rows of fp32 and
    //    16-bit work space, their bit rows and one column-index row (auxRows: 16, or 8 when UB is short). The most rows
    //    per chunk first (16 at tasks of 64 rows or more, else 8: each chunk pays the same drains of the vector
    //    pipeline), then the largest s1Base (halving down to 16) and s2Base of 512/256/128 (no larger than the
    //    sequence needs) that fit.
    const int64_t inBytes = qDesc->GetDataType() == ge::DT_FLOAT ? 4 : 2;
    int64_t tasks64 = 0;
    for (int64_t b = 0; b < nb; ++b) {
        const int64_t s1 = tnd ? cumQ[b] - (b ? cumQ[b - 1] : 0) : d.S1;
        tasks64 += d.N1 * CeilDiv(s1, 64);
    }
    // work buffers: the given mask's bytes (modes 0 and 1; the band of modes 2-4 needs none), pse, dropout
    const bool aux = (mask != nullptr && sparse <= 1) || pse != nullptr || drop;
    const int64_t dAlign = CeilDiv(d.D, 16) * 16, d2Align = CeilDiv(d.D2, 16) * 16;
    const int64_t s1Start = (tasks64 > static_cast<int64_t>(aivNum) && maxS1 >= 128) ? 128 : 64;
    int64_t s1Base = s1Start, s2Base = 0, vecRows = 0, auxRows = 0;
    uint32_t smTmp = 0;
    // UB of a choice, as the kernel allocates it (the mask / pse / dropout work in steps of `ar` rows) and the
    // shared scratch it needs: the row reductions', SM_TMP at least for DropOut and SelectWithBytesMask
    auto tmpBytes = [&](int64_t rows) {
        return static_cast<uint32_t>(CeilDiv(std::max<int64_t>(RowReduceBytes(rows), aux ? SM_TMP : 0), 32) * 32);
    };
    auto fits = [&](int64_t s1, int64_t cand, int64_t rows, int64_t ar) {
        const int64_t auxUb = aux ? ar * cand * (4 + 2) + ar * BitPitch(cand) + cand * 4 : 0;
        const int64_t ub = 2 * rows * cand * (4 + inBytes) + s1 * d2Align * 4 + s1 * 48 * 4 + CeilDiv(s1, 32) * 32 +
                           tmpBytes(rows) + auxUb;
        return ub <= static_cast<int64_t>(ubSize) && rows * cand >= d2Align;
    };
    // the first choice that fits, in the order of the comment above
    auto choose = [&]() {
        for (int64_t rows : {16, 8}) {
            const int64_t s1Min = rows == 16 ? std::min<int64_t>(64, s1Start) : 16;  // 16 rows: tasks of 64 or more
            for (int64_t s1 = s1Start; s1 >= s1Min; s1 /= 2) {
                for (int64_t cand : {512, 256, 128}) {
                    if (cand > 128 && cand >= 2 * CeilDiv(std::max<int64_t>(maxS2, 1), 128) * 128) {
                        continue;  // no larger block than the sequence needs
                    }
                    const int64_t r = std::min(rows, s1);
                    for (int64_t ar : {std::min<int64_t>(r, AUX_ROWS), std::min<int64_t>(r, 8)}) {
                        if (fits(s1, cand, r, ar)) {
                            s1Base = s1;
                            s2Base = cand;
                            vecRows = r;
                            auxRows = aux ? ar : 0;
                            smTmp = tmpBytes(r);
                            return;
                        }
                    }
                }
            }
        }
    };
    choose();
    if (s2Base == 0) {
        return Refuse(context, "no block of 16 query rows fits UB (%lu bytes) with D2 = %ld", ubSize, d.D2);
    }

    // the two Matmuls of one step, on GM operands. The two objects of the cube core take their buffers from one
    // shared start (shareMode 0, the whole L1 and L0C each, as ops-transformer's tiling sets them), base blocks of
    // 128 x 128 x 128 (64 deep in fp32: half of L0A per buffer); the operand whose K fits is kept in L1 (depth =
    // its K blocks: the query rows of bmm1, the P rows of bmm2), K and V are IBShare (held whole).
    const matmul_tiling::DataType mmIn = qDesc->GetDataType() == ge::DT_BF16 ? matmul_tiling::DataType::DT_BF16
                                         : qDesc->GetDataType() == ge::DT_FLOAT ? matmul_tiling::DataType::DT_FLOAT
                                                                                : matmul_tiling::DataType::DT_FLOAT16;
    auto cubeTiling = [&](AscendC::tiling::TCubeTiling& out, int64_t m, int64_t n, int64_t k, bool transB) {
        matmul_tiling::MultiCoreMatmulTiling mm(platform);
        mm.SetDim(1);
        mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, mmIn);
        mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, mmIn, transB);
        mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        mm.SetShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
        mm.SetOrgShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
        mm.SetSingleShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
        mm.SetBias(false);
        const int64_t baseK = std::min<int64_t>(CeilDiv(k, 16) * 16, inBytes == 4 ? 64 : 128);
        mm.SetFixSplit(static_cast<int32_t>(std::min<int64_t>(CeilDiv(m, 16) * 16, 128)),
                       static_cast<int32_t>(std::min<int64_t>(CeilDiv(n, 16) * 16, 128)), static_cast<int32_t>(baseK));
        mm.SetBufferSpace(static_cast<int32_t>(l1Size), static_cast<int32_t>(l0cSize), -1);
        if (mm.GetTiling(out) == -1) {
            return false;
        }
        const int32_t kIter = static_cast<int32_t>(CeilDiv(k, baseK));
        out.stepM = 1;
        out.stepN = 1;
        out.stepKa = 1;
        out.stepKb = 1;
        out.depthA1 = kIter;  // A's K blocks cached (the query rows, the P rows)
        out.depthB1 = kIter;
        out.dbL0A = 2;
        out.dbL0B = 2;
        out.dbL0C = 1;
        out.iterateOrder = 0;
        out.shareMode = 0;
        out.shareL1Size = static_cast<int32_t>(l1Size);
        out.shareL0CSize = static_cast<int32_t>(l0cSize);
        return true;
    };
    if (!cubeTiling(t->bmm1, s1Base, s2Base, d.D, true) || !cubeTiling(t->bmm2, s1Base, d.D2, s2Base, false)) {
        return Refuse(context, "the Matmul tiling of a [%ld x %ld] step with D = %ld, D2 = %ld does not fit L1/L0",
                      s1Base, s2Base, d.D, d.D2);
    }

    // 4. Tasks and their work: S2 blocks inside the band per S1 block (mode 3/4 bands per batch)
    std::vector<int64_t> work;
    int64_t tasks = 0;
    for (int64_t b = 0; b < nb; ++b) {
        const int64_t s1 = tnd ? cumQ[b] - (b ? cumQ[b - 1] : 0) : d.S1;
        const int64_t s2 = tnd ? cumKv[b] - (b ? cumKv[b - 1] : 0) : d.S2;
        int64_t bp = pre, bn = next;
        if (mask != nullptr && sparse == 3) {
            bp = INF_TOKENS;
            bn = s2 - s1;
        } else if (mask != nullptr && sparse == 4) {
            bp = pre - (s2 - s1);
            bn = next + (s2 - s1);
        }
        for (int64_t n = 0; n < d.N1; ++n) {
            for (int64_t r0 = 0; r0 < s1; r0 += 2 * s1Base) {  // a pair of S1 blocks: its band's S2 blocks
                work.push_back(1 + ValidBlocks(r0, std::min(2 * s1Base, s1 - r0), s2, s2Base, bp, bn));
                tasks += r0 + s1Base < s1 ? 2 : 1;
            }
        }
    }
    // `cores` counts vector cores (two per AIC block); `work` has one entry per pair, split over the blocks
    const uint64_t blocks = std::max<uint64_t>(1, std::min<uint64_t>({work.size(), aivNum / 2, MAX_CORES / 2}));
    const uint64_t cores = 2 * blocks;
    int64_t total = 0;
    for (int64_t w : work) {
        total += w;
    }
    uint32_t c = 0;
    int64_t acc = 0;
    t->taskStart[0] = 0;
    for (size_t i = 0; i < work.size() && c + 1 < blocks; ++i) {
        acc += work[i];
        if (acc * static_cast<int64_t>(blocks) >= total * static_cast<int64_t>(c + 1)) {
            t->taskStart[++c] = static_cast<uint32_t>(i + 1);
        }
    }
    while (c + 1 <= blocks) {
        t->taskStart[++c] = static_cast<uint32_t>(work.size());
    }

    // fill the rest
    t->B = static_cast<uint32_t>(nb);
    t->N1 = static_cast<uint32_t>(d.N1);
    t->N2 = static_cast<uint32_t>(d.N2);
    t->G = static_cast<uint32_t>(d.N1 / d.N2);
    t->S1 = static_cast<uint32_t>(maxS1);
    t->S2 = static_cast<uint32_t>(maxS2);
    t->D = static_cast<uint32_t>(d.D);
    t->D2 = static_cast<uint32_t>(d.D2);
    t->layout = d.layout == "BSH" ? fas::LAYOUT_BSH : d.layout == "SBH" ? fas::LAYOUT_SBH
              : d.layout == "BNSD" ? fas::LAYOUT_BNSD : d.layout == "TND" ? fas::LAYOUT_TND : fas::LAYOUT_BSND;
    t->sparseMode = static_cast<uint32_t>(mask ? sparse : 0);
    t->preTokens = pre;
    t->nextTokens = next;
    t->scale = *scale;
    // scale * Q exact in the input dtype: fp32 (one rounding of 2^-24, far below the fp32 thresholds of
    // softmax_max / softmax_sum), or a power of two of magnitude <= 1 (no overflow; an fp16 product that
    // turns subnormal loses bits below 2^-24 only). Otherwise the kernel scales the fp32 scores.
    {
        int e = 0;
        const double mant = std::frexp(std::fabs(static_cast<double>(*scale)), &e);
        t->foldScale = (inBytes == 4 && *scale != 0.0f) || (mant == 0.5 && std::fabs(*scale) <= 1.0f) ? 1 : 0;
    }
    t->keepProb = *keepProb;
    t->pseType = static_cast<uint32_t>(pseType);
    t->pseShape = pseShape;
    t->maskShape = maskShape;
    t->hasDrop = drop ? 1 : 0;
    t->qStartIdx = qStart.empty() ? 0 : qStart[0];
    t->kvStartIdx = kvStart.empty() ? 0 : kvStart[0];
    // strides (elements): (b, n, s, d)
    auto strides = [&](uint64_t n, uint64_t s, uint64_t dd, uint64_t* sb, uint64_t* sn, uint64_t* ss) {
        if (d.layout == "BNSD") { *sb = n * s * dd; *sn = s * dd; *ss = dd; }
        else if (d.layout == "SBH") { *sb = n * dd; *sn = dd; *ss = static_cast<uint64_t>(nb) * n * dd; }
        else { *sb = s * n * dd; *sn = dd; *ss = n * dd; }  // BSH, BSND, TND (rows of tokens)
    };
    strides(d.N1, maxS1, d.D, &t->qStrideB, &t->qStrideN, &t->qStrideS);
    strides(d.N2, maxS2, d.D, &t->kStrideB, &t->kStrideN, &t->kStrideS);
    strides(d.N2, maxS2, d.D2, &t->vStrideB, &t->vStrideN, &t->vStrideS);
    strides(d.N1, maxS1, d.D2, &t->oStrideB, &t->oStrideN, &t->oStrideS);
    t->s1Base = static_cast<uint32_t>(s1Base);
    t->s2Base = static_cast<uint32_t>(s2Base);
    t->dAlign = static_cast<uint32_t>(dAlign);
    t->d2Align = static_cast<uint32_t>(d2Align);
    t->smTmpBytes = smTmp;
    t->vecRows = static_cast<uint32_t>(vecRows);
    t->auxRows = static_cast<uint32_t>(auxRows);
    t->bitPitch = static_cast<uint32_t>(BitPitch(s2Base));
    t->dropAligned = 1;
    for (size_t b = 0; b < cumKv.size(); ++b) {
        const int64_t s2 = tnd ? cumKv[b] - (b ? cumKv[b - 1] : 0) : d.S2;
        t->dropAligned &= s2 % 8 == 0 ? 1u : 0u;
    }
    t->dropBytes = 0;
    if (drop) {
        const gert::Shape* dm = Optional(context, DROP_MASK);
        t->dropBytes = static_cast<uint64_t>(dm->GetShapeSize());
    }
    t->coreNum = static_cast<uint32_t>(cores);
    t->tasksTotal = static_cast<uint32_t>(tasks);
    for (size_t b = 0; b < cumQ.size(); ++b) {
        t->cumQ[b] = cumQ[b];
        t->cumKv[b] = cumKv[b];
    }

    // 5. Tiling key (ops-transformer's field positions)
    const uint64_t dtypeKey = qDesc->GetDataType() == ge::DT_FLOAT ? 1 : qDesc->GetDataType() == ge::DT_BF16 ? 2 : 0;
    const uint64_t layoutKey = t->layout == fas::LAYOUT_BSND ? 1 : t->layout;
    const uint64_t sparseKey = mask == nullptr ? 0 : (sparse == 1 || sparse == 0 ? 1 : 2);  // 0 none, 1 full mask, 2 band
    const uint64_t key = (dtypeKey << 18) | (layoutKey << 20) | (sparseKey << 25) | (static_cast<uint64_t>(drop) << 31) |
                         (static_cast<uint64_t>(mask != nullptr) << 32) | (static_cast<uint64_t>(pse != nullptr) << 33);
    context->SetTilingKey(key);
    // blocks of one AIC and two AIVs: enough for `cores` vector cores
    context->SetBlockDim(static_cast<uint32_t>(CeilDiv(static_cast<int64_t>(cores), 2)));

    // workspace: the Matmul API's, then per vector core the fp32 scores, the P rows and the P V rows of a step
    size_t* ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return Refuse(context, "no workspace sizes");
    }
    const uint64_t perCore = static_cast<uint64_t>(s1Base) * (s2Base * 4 + s2Base * inBytes + d2Align * 4);
    // (two sets per vector core: the kernel's software pipeline alternates them), then the task's query rows
    // times the scale (s1Base x dAlign of the input dtype, the A operand of its bmm1 steps)
    const uint64_t scaledQ = static_cast<uint64_t>(s1Base) * dAlign * inBytes;
    ws[0] = platform.GetLibApiWorkSpaceSize() + 2 * static_cast<uint64_t>(CeilDiv(static_cast<int64_t>(cores), 2)) *
            (2 * perCore + scaledQ);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
