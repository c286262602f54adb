// opkit simulator (host side): gert::TilingParseContext, the context of a TilingParse function,
// which fills the op's compile info once (before any tiling) from the platform.
#pragma once
#include "exe_graph/runtime/extended_kernel_context.h"

namespace fe {
class PlatFormInfos;
}

namespace gert {
class TilingParseContext : public ExtendedKernelContext {
public:
    explicit TilingParseContext(const ComputeNodeInfo* node) : ExtendedKernelContext(node) {}
    template <typename T>
    T* GetCompiledInfo() { return reinterpret_cast<T*>(compile_info_); }
    const char* GetCompiledJson() const { return "{}"; }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }

    // opkit
    void* compile_info_ = nullptr;
    fe::PlatFormInfos* platform_ = nullptr;
};
}  // namespace gert
