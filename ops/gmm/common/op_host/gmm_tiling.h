// The GMM family's host tiling steps that ops/gmm/grouped_matmul and ops/gmm/grouped_gemm share: the error
// record of a refusal, the chip's cube cores and buffers, the streamed base blocks sized from them, the
// common tiling fields (GmmCubeTiling) and the workspace. Each package keeps its own attrs, shapes and
// schedule.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "dlog_pub.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "gmm_tiling_data.h"

namespace gmm {
constexpr uint64_t BUFFER_NUM = 2;          // double buffering of L1 and L0A/L0B: must match the kernels
constexpr uint64_t IN_BYTES = 2;            // fp16 / bf16
constexpr uint64_t ACC_BYTES = 4;           // fp32 in L0C and the BiasTable
constexpr uint64_t MAX_ROW_STRIDE = 65535;  // Nd2NzParams::srcDValue is 16 bits
constexpr uint64_t BASE_K = 64;             // the streamed Mmad depth
constexpr uint64_t STEP_K = 4;              // the streamed Mmads per L1 slice of K
constexpr uint64_t BASE_M = 128;
constexpr uint64_t MAX_BASE_N = 256;
constexpr uint64_t BIAS_TABLE_BYTES = 1024;  // BiasTable of the 910B / 910_93 AIC

inline uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

// One error record in CANN's log (DlogRecord, module OP) naming the operator, the node and the violated
// limit, then failure; the simulator's harness prints it under the tiling's failure.
inline ge::graphStatus Refuse(gert::TilingContext* context, const char* op, const char* format, ...)
{
    char reason[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(reason, sizeof(reason), format, args);
    va_end(args);
    DlogRecord(OP, DLOG_ERROR, "%s tiling error (%s): %s", op, context->GetNodeName(), reason);
    return ge::GRAPH_FAILED;
}

// The chip's cube cores and the buffers of one AIC (GetCoreMemSize)
struct CubeChip {
    uint64_t cores = 0;
    uint64_t l1 = 0;
    uint64_t l0a = 0;
    uint64_t l0b = 0;
    uint64_t l0c = 0;
};

inline CubeChip ReadCubeChip(const platform_ascendc::PlatformAscendC& platform)
{
    CubeChip chip;
    chip.cores = platform.GetCoreNumAic();
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, chip.l1);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, chip.l0a);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, chip.l0b);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, chip.l0c);
    return chip;
}

// The widest baseN from `startN` down (halving) whose fp32 tile of BASE_M rows fits L0C, whose bias slice
// fits the BiasTable and whose two BASE_K-deep L0B blocks fit L0B
inline uint64_t StreamedBaseN(const CubeChip& chip, uint64_t startN)
{
    uint64_t baseN = startN;
    while (baseN > 16 && (BASE_M * baseN * ACC_BYTES > chip.l0c || baseN * ACC_BYTES > BIAS_TABLE_BYTES ||
                          BUFFER_NUM * BASE_K * baseN * IN_BYTES > chip.l0b)) {
        baseN /= 2;
    }
    return baseN;
}

// True when the streamed form's buffers fit the chip: two K slices (STEP_K * BASE_K) of x and of w plus the
// bias row in L1, two base blocks in L0A, one fp32 tile in L0C
inline bool StreamedFits(const CubeChip& chip, uint64_t baseN)
{
    const uint64_t l1Need = BUFFER_NUM * (BASE_M + baseN) * STEP_K * BASE_K * IN_BYTES + baseN * ACC_BYTES;
    return l1Need <= chip.l1 && BUFFER_NUM * BASE_M * BASE_K * IN_BYTES <= chip.l0a &&
           BASE_M * baseN * ACC_BYTES <= chip.l0c;
}

inline ge::graphStatus RefuseBuffers(gert::TilingContext* context, const char* op, const CubeChip& chip)
{
    return Refuse(context, op, "the chip's L1 / L0 buffers (L1 %llu, L0A %llu, L0C %llu bytes) cannot hold the base "
                               "blocks", static_cast<unsigned long long>(chip.l1),
                  static_cast<unsigned long long>(chip.l0a), static_cast<unsigned long long>(chip.l0c));
}

inline GmmCubeTiling CubeFields(uint64_t baseM, uint64_t baseN, uint64_t baseK, uint64_t stepK, bool transWeight,
                                bool hasBias)
{
    GmmCubeTiling cube{};
    cube.baseM = static_cast<uint32_t>(baseM);
    cube.baseN = static_cast<uint32_t>(baseN);
    cube.baseK = static_cast<uint32_t>(baseK);
    cube.stepK = static_cast<uint32_t>(stepK);
    cube.transWeight = transWeight ? 1U : 0U;
    cube.hasBias = hasBias ? 1U : 0U;
    return cube;
}

// One workspace: the library's (GetLibApiWorkSpaceSize); the kernels use none of their own
inline ge::graphStatus SetWorkspace(gert::TilingContext* context, const char* op,
                                    const platform_ascendc::PlatformAscendC& platform)
{
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return Refuse(context, op, "no workspace sizes");
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace gmm
