// opkit simulator (host side): ops-base's platform helpers (op_common/op_host/util/platform_util.h,
// also util/platform_util.h), namespace Ops::Base, for a gert::TilingContext or
// gert::TilingParseContext. The core counts, the UB size and the library workspace come from the
// run's chip (PlatformAscendC); the others are ops-base's fixed values. A null context or platform
// logs an error and gives 0.
#pragma once
#include <cstdint>
#include <type_traits>

#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "op_common/log/log.h"
#include "tiling/platform/platform_ascendc.h"

namespace Ops {
namespace Base {
namespace opkit_detail {
template <typename T>
constexpr bool IsTilingContext() {
    using D = typename std::remove_const<T>::type;
    return std::is_same<D, gert::TilingParseContext>::value || std::is_same<D, gert::TilingContext>::value;
}

// The platform of the context, or nullptr after logging why not.
template <typename T>
fe::PlatFormInfos* Platform(const T* context, const char* who) {
    static_assert(IsTilingContext<T>(), "context should be gert::TilingParseContext or gert::TilingContext");
    OP_CHECK_IF(context == nullptr, OP_LOGE(who, "context is nullptr"), return nullptr);
    fe::PlatFormInfos* p = context->GetPlatformInfo();
    OP_CHECK_IF(p == nullptr, OP_LOGE(who, "platformInfoPtr is nullptr"), return nullptr);
    return p;
}
}  // namespace opkit_detail

template <typename T>
uint32_t GetAivCoreNum(const T* context) {
    fe::PlatFormInfos* p = opkit_detail::Platform(context, "GetAivCoreNum");
    return p == nullptr ? 0 : platform_ascendc::PlatformAscendC(p).GetCoreNumAiv();
}

template <typename T>
uint32_t GetAicCoreNum(const T* context) {
    fe::PlatFormInfos* p = opkit_detail::Platform(context, "GetAicCoreNum");
    return p == nullptr ? 0 : platform_ascendc::PlatformAscendC(p).GetCoreNumAic();
}

template <typename T>
uint32_t GetUbSize(const T* context) {
    fe::PlatFormInfos* p = opkit_detail::Platform(context, "GetUbSize");
    if (p == nullptr) return 0;
    uint64_t ub = 0;
    platform_ascendc::PlatformAscendC(p).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    return static_cast<uint32_t>(ub);
}

template <typename T>
uint32_t GetWorkspaceSize(const T* context) {
    fe::PlatFormInfos* p = opkit_detail::Platform(context, "GetWorkspaceSize");
    return p == nullptr ? 0 : platform_ascendc::PlatformAscendC(p).GetLibApiWorkSpaceSize();
}

template <typename T>
uint32_t GetUbBlockSize(const T*) { return 32U; }
template <typename T>
uint32_t GetVRegSize(const T*) { return 256U; }
template <typename T>
uint32_t GetSimtMaxThreadNum(const T*) { return 2048U; }
template <typename T>
uint32_t GetSimtMaxDCacheSize(const T*) { return 131072U; }
template <typename T>
uint32_t GetCacheLineSize(const T*) { return 256U; }
template <typename T>
uint32_t GetSectorCacheLineSize(const T* context) { return GetCacheLineSize(context) / 2U; }
template <typename T>
uint32_t GetNddmaDcacheSize(const T*) { return 8192U; }

}  // namespace Base
}  // namespace Ops
