// opkit simulator (host side): gert::InferDataTypeContext, input dtypes in, output dtypes out.
#pragma once
#include <vector>

#include "exe_graph/runtime/extended_kernel_context.h"

namespace gert {
class InferDataTypeContext : public ExtendedKernelContext {
public:
    explicit InferDataTypeContext(const ComputeNodeInfo* node) : ExtendedKernelContext(node) {}
    ge::DataType GetInputDataType(size_t index) const {
        const CompileTimeTensorDesc* d = GetInputDesc(index);
        return d ? d->GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return GetDynamicInputDataType(ir, 0); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return GetDynamicInputDataType(ir, 0); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t k) const {
        const CompileTimeTensorDesc* d = GetDynamicInputDesc(ir, k);
        return d ? d->GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOutputDataType(size_t index) const {
        return index < out_dtypes_.size() ? out_dtypes_[index] : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t index, ge::DataType t) {
        if (index >= out_dtypes_.size()) return ge::GRAPH_FAILED;
        out_dtypes_[index] = t;
        return ge::GRAPH_SUCCESS;
    }

    // opkit
    std::vector<ge::DataType> out_dtypes_;
};
}  // namespace gert
