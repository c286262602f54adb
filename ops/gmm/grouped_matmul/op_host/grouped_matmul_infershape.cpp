// GroupedMatmul: output shape and dtype. y is [M, N]: x's rows, and N from weight [E, K, N]
// (transpose_weight: [E, N, K]).
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeGroupedMatmul(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    const gert::Shape* wShape = context->GetInputShape(1);
    gert::Shape* yShape = context->GetOutputShape(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || wShape == nullptr || yShape == nullptr || attrs == nullptr ||
        wShape->GetDimNum() != 3 || xShape->GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    const bool* transW = attrs->GetAttrPointer<bool>(2);
    yShape->SetDimNum(2);
    yShape->SetDim(0, xShape->GetDim(0));
    yShape->SetDim(1, wShape->GetDim((transW != nullptr && *transW) ? 1 : 2));
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeGroupedMatmul(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));  // y has x's dtype
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
