// opkit simulator (host side): gert::TilingContext, what a tiling function reads (shapes, dtypes,
// formats, attributes, the platform, the compile info) and writes (tiling key, block dim,
// workspace sizes, the tiling data).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/types.h"

namespace fe {
class PlatFormInfos;
}

namespace gert {
struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
};

class TilingContext : public ExtendedKernelContext {
public:
    explicit TilingContext(const ComputeNodeInfo* node) : ExtendedKernelContext(node) {}

    template <typename T>
    const T* GetCompileInfo() const { return reinterpret_cast<const T*>(compile_info_); }
    const void* GetCompileInfo() const { return compile_info_; }

    const StorageShape* GetInputShape(size_t index) const { return index < in_shapes_.size() ? in_shapes_[index] : nullptr; }
    const Tensor* GetInputTensor(size_t index) const { return index < in_tensors_.size() ? in_tensors_[index] : nullptr; }
    const StorageShape* GetOptionalInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return GetDynamicInputTensor(ir, 0); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return GetDynamicInputTensor(ir, 0); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t k) const {
        long i = InputInstance(ir, k);
        return i < 0 ? nullptr : GetInputShape(static_cast<size_t>(i));
    }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t k) const {
        long i = InputInstance(ir, k);
        return i < 0 ? nullptr : GetInputTensor(static_cast<size_t>(i));
    }
    const StorageShape* GetOutputShape(size_t index) const { return index < out_shapes_.size() ? out_shapes_[index] : nullptr; }
    const StorageShape* GetDynamicOutputShape(size_t ir, size_t k) const {
        long i = OutputInstance(ir, k);
        return i < 0 ? nullptr : GetOutputShape(static_cast<size_t>(i));
    }

    ge::graphStatus SetTilingKey(uint64_t k) { tiling_key_ = k; tiling_key_set_ = true; return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const { return tiling_key_; }
    ge::graphStatus SetScheduleMode(uint32_t m) { schedule_mode_ = m; return ge::GRAPH_SUCCESS; }
    uint32_t GetScheduleMode() const { return schedule_mode_; }
    ge::graphStatus SetBlockDim(uint32_t n) { return SetSimdNumBlocks(n); }
    ge::graphStatus SetSimdNumBlocks(uint32_t n) { block_dim_ = n; block_dim_set_ = true; return ge::GRAPH_SUCCESS; }
    uint32_t GetBlockDim() const { return block_dim_; }
    uint32_t GetSimdNumBlocks() const { return block_dim_; }
    ge::graphStatus SetAicpuBlockDim(uint32_t n) { aicpu_block_dim_ = n; return ge::GRAPH_SUCCESS; }
    uint32_t GetAicpuBlockDim() const { return aicpu_block_dim_; }
    ge::graphStatus SetTilingCond(int32_t c) { tiling_cond_ = c; return ge::GRAPH_SUCCESS; }
    int32_t GetTilingCond() const { return tiling_cond_; }
    ge::graphStatus SetNeedAtomic(bool a) { need_atomic_ = a; return ge::GRAPH_SUCCESS; }
    bool NeedAtomic() const { return need_atomic_; }
    ge::graphStatus SetLocalMemorySize(uint32_t n) { local_mem_ = n; return ge::GRAPH_SUCCESS; }
    ge::graphStatus SetDynUBufSize(uint32_t n) { local_mem_ = n; return ge::GRAPH_SUCCESS; }
    uint32_t GetLocalMemorySize() const { return local_mem_; }
    uint32_t GetDynUBufSize() const { return local_mem_; }

    // Plain-struct tiling data: a pointer into the raw tiling buffer, whose data size becomes
    // sizeof(T). Returns nullptr when T does not fit the buffer's capacity. Not zeroed.
    template <typename T>
    T* GetTilingData() {
        static_assert(std::is_trivially_copyable<T>::value && std::is_standard_layout<T>::value,
                      "GetTilingData<T>: the tiling data struct is copied byte by byte to the kernel; it must be a plain "
                      "struct (no virtual functions, no non-trivial members, no mixed access control)");
        TilingData* td = GetRawTilingData();
        if (td == nullptr) return nullptr;
        if (td->GetCapacity() < sizeof(T)) {
            opkit_note_ = opkit::host::format("GetTilingData<T>(): the struct has %zu bytes, more than the tiling buffer's capacity of %zu",
                                              sizeof(T), td->GetCapacity());
            return nullptr;
        }
        td->SetDataSize(sizeof(T));
        return static_cast<T*>(td->GetData());
    }
    TilingData* GetRawTilingData() { return tiling_data_; }
    size_t* GetWorkspaceSizes(size_t n) {
        if (workspace_.SetSize(n) != ge::GRAPH_SUCCESS) {
            opkit_note_ = opkit::host::format("GetWorkspaceSizes(%zu): at most %zu workspaces", n, workspace_.GetCapacity());
            return nullptr;
        }
        return workspace_.MutableData();
    }
    size_t GetWorkspaceNum() const { return workspace_.GetSize(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    int32_t GetDeterministic() const { return deterministic_; }
    int32_t GetDeterministicLevel() const { return deterministic_; }

    // opkit: filled and read by the harness.
    std::vector<const StorageShape*> in_shapes_;
    std::vector<const Tensor*> in_tensors_;
    std::vector<const StorageShape*> out_shapes_;
    const void* compile_info_ = nullptr;
    fe::PlatFormInfos* platform_ = nullptr;
    TilingData* tiling_data_ = nullptr;
    TypedContinuousVector<size_t> workspace_{16};
    uint64_t tiling_key_ = 0;
    bool tiling_key_set_ = false;
    uint32_t block_dim_ = 0;
    bool block_dim_set_ = false;
    uint32_t schedule_mode_ = 0;
    uint32_t aicpu_block_dim_ = 0;
    int32_t tiling_cond_ = 0;
    bool need_atomic_ = false;
    uint32_t local_mem_ = 0;
    int32_t deterministic_ = 0;
    std::string opkit_note_;
};
}  // namespace gert
