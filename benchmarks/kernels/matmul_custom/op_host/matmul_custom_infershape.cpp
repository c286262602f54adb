// MatmulCustom: output shape [M, N] and dtype float32.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeMatmulCustom(gert::InferShapeContext* context)
{
    const gert::Shape* aShape = context->GetInputShape(0);
    const gert::Shape* bShape = context->GetInputShape(1);
    gert::Shape* cShape = context->GetOutputShape(0);
    if (aShape == nullptr || bShape == nullptr || cShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    cShape->SetDimNum(2);
    cShape->SetDim(0, aShape->GetDim(0));
    cShape->SetDim(1, bShape->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeMatmulCustom(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
