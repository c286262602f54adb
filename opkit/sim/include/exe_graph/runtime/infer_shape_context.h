// opkit simulator (host side): gert::InferShapeContext, input shapes in, output shapes out.
#pragma once
#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tensor.h"

namespace gert {
class InferShapeContext : public ExtendedKernelContext {
public:
    explicit InferShapeContext(const ComputeNodeInfo* node) : ExtendedKernelContext(node) {}
    const Shape* GetInputShape(size_t index) const { return index < in_shapes_.size() ? in_shapes_[index] : nullptr; }
    const Tensor* GetInputTensor(size_t index) const { return index < in_tensors_.size() ? in_tensors_[index] : nullptr; }
    const Shape* GetOptionalInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return GetDynamicInputTensor(ir, 0); }
    const Shape* GetRequiredInputShape(size_t ir) const { return GetDynamicInputShape(ir, 0); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return GetDynamicInputTensor(ir, 0); }
    const Shape* GetDynamicInputShape(size_t ir, size_t k) const {
        long i = InputInstance(ir, k);
        return i < 0 ? nullptr : GetInputShape(static_cast<size_t>(i));
    }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t k) const {
        long i = InputInstance(ir, k);
        return i < 0 ? nullptr : GetInputTensor(static_cast<size_t>(i));
    }
    Shape* GetOutputShape(size_t index) { return index < out_shapes_.size() ? out_shapes_[index] : nullptr; }
    Shape* GetDynamicOutputShape(size_t ir, size_t k) {
        long i = OutputInstance(ir, k);
        return i < 0 ? nullptr : GetOutputShape(static_cast<size_t>(i));
    }

    // opkit
    std::vector<const Shape*> in_shapes_;
    std::vector<const Tensor*> in_tensors_;
    std::vector<Shape*> out_shapes_;
};
}  // namespace gert
