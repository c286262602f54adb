// opkit simulator (host side): ge::Shape, the graph-level shape (a list of dimensions) that host
// library helpers take (AscendC::TensorShape is an alias of it). The exe_graph runtime types
// (gert::Shape, gert::Tensor) are what tiling and InferShape functions receive.
#pragma once
#include <cstdint>
#include <vector>

#include "exe_graph/runtime/tensor.h"
#include "graph/types.h"

namespace ge {
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    graphStatus SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) return GRAPH_FAILED;
        dims_[i] = v;
        return GRAPH_SUCCESS;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    // Product of the dimensions; 0 for a shape without dimensions, -1 when one is unknown (< 0).
    int64_t GetShapeSize() const {
        if (dims_.empty()) return 0;
        int64_t n = 1;
        for (int64_t d : dims_) {
            if (d < 0) return -1;
            n *= d;
        }
        return n;
    }

private:
    std::vector<int64_t> dims_;
};
}  // namespace ge
