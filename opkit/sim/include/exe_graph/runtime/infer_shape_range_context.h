// opkit simulator (host side): gert::InferShapeRangeContext. Shape-range inference belongs to
// graph compilation with unknown shapes; the harness always runs concrete shapes, so functions
// registered with InferShapeRange compile here but are never called (describe does not list them).
#pragma once
#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/range.h"
#include "exe_graph/runtime/shape.h"

namespace gert {
using TensorRange = Range<Tensor>;

class InferShapeRangeContext : public ExtendedKernelContext {
public:
    explicit InferShapeRangeContext(const ComputeNodeInfo* node) : ExtendedKernelContext(node) {}
    const Range<Shape>* GetInputShapeRange(size_t) const { return nullptr; }
    const TensorRange* GetInputTensorRange(size_t) const { return nullptr; }
    const TensorRange* GetOptionalInputTensorRange(size_t) const { return nullptr; }
    const Range<Shape>* GetRequiredInputShapeRange(size_t) const { return nullptr; }
    const TensorRange* GetRequiredInputTensorRange(size_t) const { return nullptr; }
    const TensorRange* GetDynamicInputTensorRange(size_t, size_t) const { return nullptr; }
    const Range<Shape>* GetOptionalInputShapeRange(size_t) const { return nullptr; }
    const Range<Shape>* GetDynamicInputShapeRange(size_t, size_t) const { return nullptr; }
    Range<Shape>* GetOutputShapeRange(size_t) { return nullptr; }
};
}  // namespace gert
