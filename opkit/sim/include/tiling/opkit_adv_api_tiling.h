// opkit simulator (host side): the host helpers of Ascend C's advanced APIs that size their
// temporary buffers (namespace AscendC). Included by tiling/tiling_api.h.
//
// Provided: GetSigmoidMaxMinTmpSize, GetSortTmpSize, GetConcatTmpSize. Arguments CANN rejects
// (with a log line and untouched outputs) end the run with a diagnostic here.
#pragma once
#include <cstdint>

#include "graph/tensor.h"
#include "graph/types.h"
#include "opkit_host/diag.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {
using TensorShape = ge::Shape;
using TensorDataType = ge::DataType;

// Sigmoid: at least 256 B of scratch; at most (and best) one buffer as large as the input.
inline void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    const char* fn = "AscendC::GetSigmoidMaxMinTmpSize";
    (void)isReuseSource;
    if (typeSize != 2 && typeSize != 4) opkit::host::fail(fn, "typeSize %u; Sigmoid supports 2 (half) and 4 (float)", typeSize);
    const int64_t n = srcShape.GetShapeSize();
    if (n <= 0) opkit::host::fail(fn, "the source shape has %lld elements; it must have at least one", static_cast<long long>(n));
    const uint64_t bytes = static_cast<uint64_t>(n) * typeSize;
    maxValue = static_cast<uint32_t>(bytes > 256 ? bytes : 256);
    minValue = 256;
}

namespace opkit_detail {
inline void CheckSortArgs(const char* fn, const platform_ascendc::PlatformAscendC& p, uint32_t n, uint32_t size) {
    if (n == 0) opkit::host::fail(fn, "elemCount is 0; it must be greater than 0");
    if (size != 2 && size != 4) opkit::host::fail(fn, "dataTypeSize %u; Sort supports 2 (half) and 4 (float)", size);
    uint64_t ub = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    if (static_cast<uint64_t>(n) * size >= ub)
        opkit::host::fail(fn, "%u elements of %u bytes (%llu B) do not fit the UB (%llu B)", n, size,
                          static_cast<unsigned long long>(static_cast<uint64_t>(n) * size), static_cast<unsigned long long>(ub));
}
inline bool RegionProposalV220(const platform_ascendc::PlatformAscendC& p) {
    const NpuArch a = p.GetCurNpuArch();
    return a == NpuArch::DAV_2201 || a == NpuArch::DAV_3510;
}
}  // namespace opkit_detail

// Sort's scratch: on NPU arch 2201/3510 the (value, index) pairs, 8 B per element for float and
// half alike; elsewhere 8 region-proposal slots per element.
inline uint32_t GetSortTmpSize(const platform_ascendc::PlatformAscendC& p, const uint32_t elemCount, const uint32_t dataTypeSize) {
    opkit_detail::CheckSortArgs("AscendC::GetSortTmpSize", p, elemCount, dataTypeSize);
    if (opkit_detail::RegionProposalV220(p)) return elemCount * (dataTypeSize == 4 ? 2u : 4u) * dataTypeSize;
    return elemCount * 8u * dataTypeSize;
}

// Concat's scratch: none on NPU arch 2201/3510, 8 region-proposal slots per element elsewhere.
inline uint32_t GetConcatTmpSize(const platform_ascendc::PlatformAscendC& p, const uint32_t elemCount, const uint32_t dataTypeSize) {
    opkit_detail::CheckSortArgs("AscendC::GetConcatTmpSize", p, elemCount, dataTypeSize);
    return opkit_detail::RegionProposalV220(p) ? 0u : elemCount * 8u * dataTypeSize;
}
}  // namespace AscendC
