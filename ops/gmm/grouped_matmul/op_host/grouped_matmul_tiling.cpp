// GroupedMatmul: the tiling function, run on the host before every launch of the kernel.
//
// The non-quantised MoE form of ops-transformer's GroupedMatmul: x [M, K] whose rows are split into
// E groups by group_list (group_type 0), weight [E, K, N] (or [E, N, K] with transpose_weight),
// optional bias [E, N] (float16 with fp16 x, float32 with bf16 x), y [M, N]. Every group is cut into
// tiles of baseM x baseN that the kernel deals over the cube cores (op_kernel/grouped_matmul.h). The
// base blocks are sized from the chip's L1, L0A, L0B, L0C and BiasTable (GetCoreMemSize):
//   with a short K (x's 128-row block fits L1 beside three weight slices): 128 x 256 tiles in four
//   128 x 64 column parts with an L0C buffer each, Mmads 128 deep, x's block in L1 over K, the work
//   dealt to the cores in even shares of 16-column units (op_kernel/grouped_matmul.h, ProcessResident);
//   otherwise L0C holds one fp32 tile (baseM x baseN x 4), L0A / L0B two base blocks each, L1 two K
//   slices of x and of w; baseN is also the bias slice of the 1 KiB BiasTable.
// Everything outside that form is refused here with one line naming the attr or input and the fix:
// quantised inputs, group_type other than 0, transpose_x, activations, y as a list (split_item 0/1).
#include <algorithm>
#include <cstdint>

#include "gmm_tiling.h"
#include "../op_kernel/grouped_matmul_tiling_data.h"

namespace optiling {
namespace {
enum InputIndex : size_t {
    X = 0, WEIGHT, BIAS, SCALE, OFFSET, ANTIQUANT_SCALE, ANTIQUANT_OFFSET, GROUP_LIST, PER_TOKEN_SCALE
};
enum AttrIndex : size_t {
    SPLIT_ITEM = 0, DTYPE, TRANSPOSE_WEIGHT, TRANSPOSE_X, GROUP_TYPE, GROUP_LIST_TYPE, ACT_TYPE, TUNING_CONFIG
};
using gmm::ACC_BYTES;
using gmm::BUFFER_NUM;
using gmm::CeilDiv;
using gmm::IN_BYTES;
constexpr const char* OP_NAME = "GroupedMatmul";
constexpr uint64_t MAX_GROUPS = 1024;       // as ops-transformer: at most 1024 groups in a group_list
constexpr uint64_t W_BUFFERS_RESIDENT = 3;  // xResident: weight slices in flight in L1: must match the kernel
constexpr uint64_t RESIDENT_PARTS = 4;      // xResident: a tile's column parts, one L0C buffer each (kernel: <= 4)

template <typename... Args>
ge::graphStatus Refuse(gert::TilingContext* context, const char* format, Args... args)
{
    return gmm::Refuse(context, OP_NAME, format, args...);
}

template <typename T>
T AttrOr(const gert::RuntimeAttrs* attrs, size_t index, T fallback)
{
    const T* p = attrs->GetAttrPointer<T>(index);
    return p == nullptr ? fallback : *p;
}
}  // namespace

ge::graphStatus TilingGroupedMatmul(gert::TilingContext* context)
{
    // 1. The chip: its cube cores and their buffers.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gmm::CubeChip chip = gmm::ReadCubeChip(platform);
    if (chip.cores == 0) {
        return Refuse(context, "the platform reports no cube (AIC) cores");
    }

    // 2. The form of the call: only the non-quantised split-M form is implemented.
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return Refuse(context, "no attrs");
    }
    const int64_t splitItem = AttrOr<int64_t>(attrs, SPLIT_ITEM, 0);
    const bool transW = AttrOr<bool>(attrs, TRANSPOSE_WEIGHT, false);
    const bool transX = AttrOr<bool>(attrs, TRANSPOSE_X, false);
    const int64_t groupType = AttrOr<int64_t>(attrs, GROUP_TYPE, -1);
    const int64_t groupListType = AttrOr<int64_t>(attrs, GROUP_LIST_TYPE, 0);
    const int64_t actType = AttrOr<int64_t>(attrs, ACT_TYPE, 0);
    if (groupType == -1) {
        return Refuse(context, "group_type -1 (independent problems as tensor lists) is ops/gmm/grouped_gemm; "
                               "this operator splits one x by group_list: set group_type=0");
    }
    if (groupType == 2) {
        return Refuse(context, "group_type 2 (split K, e.g. weight gradients) is not supported; set group_type=0");
    }
    if (groupType != 0) {
        return Refuse(context, "group_type %lld is not valid (0 splits M; ops-transformer also rejects 1)",
                      static_cast<long long>(groupType));
    }
    if (splitItem != 2 && splitItem != 3) {
        return Refuse(context, "split_item %lld asks for y as a list of tensors; this operator writes one y [M, N]: "
                               "set split_item=2 or 3", static_cast<long long>(splitItem));
    }
    if (groupListType != 0 && groupListType != 1) {
        return Refuse(context, "group_list_type %lld is not supported: 0 (cumulative ends) or 1 (counts); "
                               "2 (sparse [e, 2] pairs) is int8-only in ops-transformer",
                      static_cast<long long>(groupListType));
    }
    if (transX) {
        return Refuse(context, "transpose_x is only meaningful with group_type 2, which is not supported; "
                               "set transpose_x=false");
    }
    if (actType != 0) {
        return Refuse(context, "act_type %lld: activations apply to the quantised paths only; set act_type=0",
                      static_cast<long long>(actType));
    }
    const char* quantNames[] = {"scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale"};
    const size_t quantIndex[] = {SCALE, OFFSET, ANTIQUANT_SCALE, ANTIQUANT_OFFSET, PER_TOKEN_SCALE};
    for (size_t i = 0; i < 5; ++i) {
        if (context->GetOptionalInputShape(quantIndex[i]) != nullptr) {
            return Refuse(context, "input %s is given: the quantised variants (int8 per-token, antiquant) are not "
                                   "supported; pass fp16 or bf16 x and weight without it", quantNames[i]);
        }
    }

    // 3. Shapes: x [M, K], weight [E, K, N] ([E, N, K] transposed), bias [E, N], group_list [E].
    const gert::StorageShape* xStorage = context->GetInputShape(X);
    const gert::StorageShape* wStorage = context->GetInputShape(WEIGHT);
    const gert::StorageShape* glStorage = context->GetOptionalInputShape(GROUP_LIST);
    if (xStorage == nullptr || wStorage == nullptr) {
        return Refuse(context, "x and weight are required");
    }
    if (glStorage == nullptr) {
        return Refuse(context, "group_list is required with group_type 0 (the row split of x over the experts)");
    }
    const gert::Shape& xs = xStorage->GetStorageShape();
    const gert::Shape& ws = wStorage->GetStorageShape();
    const gert::Shape& gls = glStorage->GetStorageShape();
    if (xs.GetDimNum() != 2) {
        return Refuse(context, "x must be 2-D [M, K], got %zu dims", xs.GetDimNum());
    }
    if (ws.GetDimNum() != 3) {
        return Refuse(context, "weight must be 3-D [E, K, N] (or [E, N, K] with transpose_weight), got %zu dims",
                      ws.GetDimNum());
    }
    const uint64_t M = static_cast<uint64_t>(xs.GetDim(0));
    const uint64_t K = static_cast<uint64_t>(xs.GetDim(1));
    const uint64_t E = static_cast<uint64_t>(ws.GetDim(0));
    const uint64_t wK = static_cast<uint64_t>(ws.GetDim(transW ? 2 : 1));
    const uint64_t N = static_cast<uint64_t>(ws.GetDim(transW ? 1 : 2));
    if (wK != K) {
        return Refuse(context, "x has K = %llu columns but weight%s has K = %llu", static_cast<unsigned long long>(K),
                      transW ? " ([E, N, K], transpose_weight)" : " ([E, K, N])", static_cast<unsigned long long>(wK));
    }
    if (gls.GetDimNum() != 1 || static_cast<uint64_t>(gls.GetDim(0)) != E) {
        return Refuse(context, "group_list must be 1-D with one entry per expert (E = %llu)",
                      static_cast<unsigned long long>(E));
    }
    if (E == 0 || E > MAX_GROUPS) {
        return Refuse(context, "E = %llu experts: 1 to %llu are supported", static_cast<unsigned long long>(E),
                      static_cast<unsigned long long>(MAX_GROUPS));
    }
    if (K == 0 || N == 0) {
        return Refuse(context, "K and N must be at least 1 (x [M, K], weight K x N)");
    }
    if (K > gmm::MAX_ROW_STRIDE || N > gmm::MAX_ROW_STRIDE || M > UINT32_MAX) {
        return Refuse(context, "K and N must be at most 65535 (the innermost dim of x and weight, as "
                               "ops-transformer), M below 2^32");
    }
    const gert::StorageShape* biasStorage = context->GetOptionalInputShape(BIAS);
    if (biasStorage != nullptr) {
        const gert::Shape& bs = biasStorage->GetStorageShape();
        if (bs.GetDimNum() != 2 || static_cast<uint64_t>(bs.GetDim(0)) != E || static_cast<uint64_t>(bs.GetDim(1)) != N) {
            return Refuse(context, "bias must be [E, N] = [%llu, %llu] (one row per expert)",
                          static_cast<unsigned long long>(E), static_cast<unsigned long long>(N));
        }
    }

    // 4. Base blocks from the chip. First choice (xResident): tiles of 128 x 256 computed as
    //    RESIDENT_PARTS column parts with an L0C buffer each (a part's Fixpipe under the others' Mmads),
    //    Mmads 128 deep, x's 128-row block kept in L1 over the whole K while the core runs its tiles of
    //    that block, the weight in 128-deep slices, three in flight; it needs x's block, those weight
    //    slices and the bias row to fit L1, and 16 K (x's 16-row ND2NZ matrix stride) its 16-bit field.
    //    Otherwise: the widest tile whose L0C, BiasTable, L0A/L0B and L1 needs fit, x streamed.
    const uint64_t baseM = gmm::BASE_M;
    const uint64_t residentN = gmm::MAX_BASE_N;
    const uint64_t residentK = 2 * gmm::BASE_K;
    const uint64_t kPadded = CeilDiv(K, 16) * 16;
    const uint64_t residentL1 = baseM * kPadded * IN_BYTES + W_BUFFERS_RESIDENT * residentK * residentN * IN_BYTES +
                                residentN * ACC_BYTES;
    const bool xResident = residentL1 <= chip.l1 && baseM * residentN * ACC_BYTES <= chip.l0c &&
                           16 * K <= gmm::MAX_ROW_STRIDE && residentN * ACC_BYTES <= gmm::BIAS_TABLE_BYTES &&
                           BUFFER_NUM * residentK * (residentN / RESIDENT_PARTS) * IN_BYTES <= chip.l0b &&
                           BUFFER_NUM * baseM * residentK * IN_BYTES <= chip.l0a;
    const uint64_t baseN = gmm::StreamedBaseN(chip, residentN);  // the resident tile's 256 where the chip allows
    if (!gmm::StreamedFits(chip, baseN)) {
        return gmm::RefuseBuffers(context, OP_NAME, chip);
    }

    GroupedMatmulTilingData* tiling = context->GetTilingData<GroupedMatmulTilingData>();
    if (tiling == nullptr) {
        return Refuse(context, "no tiling buffer");
    }
    *tiling = GroupedMatmulTilingData{};
    tiling->M = static_cast<uint32_t>(M);
    tiling->N = static_cast<uint32_t>(N);
    tiling->K = static_cast<uint32_t>(K);
    tiling->E = static_cast<uint32_t>(E);
    tiling->cube = gmm::CubeFields(baseM, baseN, xResident ? residentK : gmm::BASE_K,
                                   xResident ? 1 : gmm::STEP_K,  // xResident: an L1 weight slice is one step
                                   transW, biasStorage != nullptr);
    tiling->nTiles = static_cast<uint32_t>(CeilDiv(N, baseN));
    tiling->groupListType = static_cast<uint32_t>(groupListType);
    tiling->xResident = xResident ? 1U : 0U;
    tiling->l0cNum = xResident ? static_cast<uint32_t>(RESIDENT_PARTS) : 1U;
    // xResident: as many L0B buffers of a part's K step as L0B holds, up to one per part, so MTE1 loads
    // the later parts' weight while the cube still works on the first ones (at least two: checked above)
    const uint64_t partL0b = residentK * (residentN / RESIDENT_PARTS) * IN_BYTES;
    tiling->l0bNum = xResident ? static_cast<uint32_t>(std::min<uint64_t>(RESIDENT_PARTS, chip.l0b / partL0b))
                               : static_cast<uint32_t>(BUFFER_NUM);

    // 5. The group sizes live on the device (group_list), so the host cannot count the tiles: launch
    //    every cube core, or fewer when no split of the M rows can have that many tiles (each group
    //    adds at most one partial row block).
    //    With xResident the shares are cut in 16-column units, so as many cores as units can be used.
    const uint64_t perRowBlock = xResident ? CeilDiv(N, 16) : tiling->nTiles;
    const uint64_t maxTiles = std::max<uint64_t>(1, (CeilDiv(M, baseM) + E) * perRowBlock);
    context->SetBlockDim(static_cast<uint32_t>(std::min(chip.cores, maxTiles)));

    return gmm::SetWorkspace(context, OP_NAME, platform);
}
}  // namespace optiling
