// InterleaveRope: output shape and dtype inference.
//
// y has the shape and the dtype of x. Indices are OpDef positions: inputs x = 0, cos = 1, sin = 2;
// output y = 0. Shape checks beyond the rank (D, the cos/sin broadcast pattern) live in the tiling,
// which sees every launch.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeInterleaveRope(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    if (xShape == nullptr || xShape->GetDimNum() != 4) {
        return ge::GRAPH_FAILED;  // x is [B, N, S, D]
    }
    gert::Shape* yShape = context->GetOutputShape(0);
    if (yShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *yShape = *xShape;
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeInterleaveRope(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
