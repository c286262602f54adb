// GroupedGemm: y is packed, sum_i M_i * N_i elements (N_i from weight_i [K_i, N_i], or [N_i, K_i] transposed).
#include "dlog_pub.h"
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeGroupedGemm(gert::InferShapeContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    gert::Shape* yShape = context->GetOutputShape(0);
    if (attrs == nullptr || yShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const bool* transW = attrs->GetAttrPointer<bool>(0);
    const bool trans = transW != nullptr && *transW;
    int64_t total = 0;
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
        total += xShape->GetDim(0) * wShape->GetDim(trans ? 0 : 1);
    }
    yShape->SetDimNum(1);
    yShape->SetDim(0, total);
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeGroupedGemm(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
