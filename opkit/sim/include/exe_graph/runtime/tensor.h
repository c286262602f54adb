// opkit simulator (host side): gert::Tensor as tiling and InferShape functions see it: shape,
// format, dtype and, for inputs the OpDef marks ValueDepend, the host copy of the data.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace gert {
enum TensorPlacement { kOnDeviceHbm = 0, kOnHost = 1, kFollowing = 2, kOnDeviceP2p = 3, kTensorPlacementEnd };

class Tensor {
public:
    Tensor() = default;
    Tensor(const StorageShape& shape, const StorageFormat& format, ge::DataType dt)
        : shape_(shape), format_(format), dtype_(dt) {}

    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    // The origin and storage shapes together, as CANN's Tensor::GetShape gives them.
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& MutableShape() { return shape_; }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    ge::DataType GetDataType() const { return dtype_; }
    void SetDataType(ge::DataType t) { dtype_ = t; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const StorageFormat& GetFormat() const { return format_; }
    TensorPlacement GetPlacement() const { return data_ ? kOnHost : kOnDeviceHbm; }

    // Host data: only inputs declared ValueDepend carry it; for others this is nullptr, as the
    // real framework gives the tiling function no host copy of a device tensor.
    template <class T>
    const T* GetData() const { return static_cast<const T*>(data_); }
    template <class T>
    T* GetData() { return static_cast<T*>(data_); }
    const void* GetAddr() const { return data_; }
    size_t GetSize() const { return size_; }

    // opkit: set by the harness.
    void OpkitSetData(void* p, size_t bytes) { data_ = p; size_ = bytes; }

private:
    StorageShape shape_;
    StorageFormat format_;
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    void* data_ = nullptr;
    size_t size_ = 0;
};
}  // namespace gert
