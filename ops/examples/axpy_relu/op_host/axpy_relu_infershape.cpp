// AxpyRelu: output shape and dtype inference.
//
// Graph compilation and the aclnn API call these before any kernel runs, to size the outputs.
// Indices are positions in the OpDef: inputs and outputs are counted separately, from 0.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeAxpyRelu(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    if (xShape == nullptr) {
        return ge::GRAPH_FAILED;
    }

    gert::Shape* zShape = context->GetOutputShape(0);
    if (zShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *zShape = *xShape;  // "z" has the shape of "x"
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeAxpyRelu(gert::InferDataTypeContext* context)
{
    // "z" has the dtype of input "x" in every column.
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
