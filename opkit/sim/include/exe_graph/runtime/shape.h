// opkit simulator (host side): gert::Shape, a fixed-capacity list of dimensions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "opkit_host/diag.h"

namespace gert {
struct Shape {
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        if (dims.size() > kMaxDimNum) opkit::host::fail("gert::Shape", "%zu dimensions, at most %zu", dims.size(), kMaxDimNum);
        for (int64_t d : dims) dims_[dim_num_++] = d;
    }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

    // Product of the dimensions: 1 for a scalar, -1 when a dimension is negative (unknown).
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            n *= dims_[i];
        }
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) {
        if (n > kMaxDimNum) opkit::host::fail("gert::Shape::SetDimNum", "%zu dimensions, at most %zu", n, kMaxDimNum);
        dim_num_ = n;
    }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    void SetDim(size_t i, int64_t v) {
        if (i >= kMaxDimNum) opkit::host::fail("gert::Shape::SetDim", "index %zu, at most %zu dimensions", i, kMaxDimNum);
        dims_[i] = v;
    }
    const int64_t& operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ >= kMaxDimNum) opkit::host::fail("gert::Shape::AppendDim", "already %zu dimensions", kMaxDimNum);
        dims_[dim_num_++] = v;
        return *this;
    }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};
}  // namespace gert
