// AddCustom: z has the shape and dtype of x.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeAddCustom(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* z = context->GetOutputShape(0);
    if (x == nullptr || z == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *z = *x;
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeAddCustom(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
