// GroupedGemm: y is a list, y_i [M_i, N_i] (N_i from weight_i [K_i, N_i], or [N_i, K_i] transposed).
#include "dlog_pub.h"
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeGroupedGemm(gert::InferShapeContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const bool* transW = attrs->GetAttrPointer<bool>(0);
    const bool trans = transW != nullptr && *transW;
    for (size_t i = 0;; ++i) {
        const gert::Shape* xShape = context->GetDynamicInputShape(0, i);
        if (xShape == nullptr) {
            break;
        }
        const gert::Shape* wShape = context->GetDynamicInputShape(1, i);
        if (wShape == nullptr) {
            DlogRecord(OP, DLOG_ERROR, "GroupedGemm: x has %zu or more tensors but weight has %zu: one weight per "
                       "problem", i + 1, i);
            return ge::GRAPH_FAILED;
        }
        if (xShape->GetDimNum() != 2 || wShape->GetDimNum() != 2) {
            DlogRecord(OP, DLOG_ERROR, "GroupedGemm: problem %zu: x and weight must be 2-D", i);
            return ge::GRAPH_FAILED;
        }
        gert::Shape* yShape = context->GetOutputShape(i);  // the list's i-th tensor
        if (yShape == nullptr) {
            DlogRecord(OP, DLOG_ERROR, "GroupedGemm: y has fewer tensors than x (%zu): one y per problem", i);
            return ge::GRAPH_FAILED;
        }
        yShape->SetDimNum(2);
        yShape->SetDim(0, xShape->GetDim(0));
        yShape->SetDim(1, wShape->GetDim(trans ? 0 : 1));
    }
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeGroupedGemm(gert::InferDataTypeContext* context)
{
    // every y_i has x's dtype: one output tensor per x tensor (SetOutputDataType refuses an index past the list)
    const ge::DataType dt = context->GetDynamicInputDataType(0, 0);
    for (size_t i = 0; context->GetDynamicInputDataType(0, i) != ge::DT_UNDEFINED; ++i) {
        if (context->SetOutputDataType(i, dt) != ge::GRAPH_SUCCESS) {
            return ge::GRAPH_FAILED;
        }
    }
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
