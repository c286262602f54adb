// opkit simulator (host side): gert::StorageShape, the origin shape and the storage shape of a
// tensor (they differ only for private formats such as FRACTAL_NZ).
#pragma once
#include "exe_graph/runtime/shape.h"

namespace gert {
struct StorageShape {
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_shape_(origin), storage_shape_(storage) {}
    const Shape& GetOriginShape() const { return origin_shape_; }
    const Shape& GetShape() const { return storage_shape_; }
    const Shape& GetStorageShape() const { return storage_shape_; }
    Shape& MutableShape() { return storage_shape_; }
    Shape& MutableOriginShape() { return origin_shape_; }
    Shape& MutableStorageShape() { return storage_shape_; }
    bool operator==(const StorageShape& o) const {
        return origin_shape_ == o.origin_shape_ && storage_shape_ == o.storage_shape_;
    }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_shape_;
    Shape storage_shape_;
};
}  // namespace gert
