// MatmulSoftmax: output shape and dtype inference.
//
// Graph compilation and the aclnn API call these before any kernel runs, to size the outputs.
// Indices are positions in the OpDef: inputs and outputs are counted separately, from 0.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeMatmulSoftmax(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    if (xShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape* wShape = context->GetInputShape(1);
    if (wShape == nullptr) {
        return ge::GRAPH_FAILED;
    }

    gert::Shape* yShape = context->GetOutputShape(0);
    if (yShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    // "y" has shape [M, N], built dim by dim.
    yShape->SetDimNum(2);
    yShape->SetDim(0, xShape->GetDim(0));
    yShape->SetDim(1, wShape->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeMatmulSoftmax(gert::InferDataTypeContext* context)
{
    // "y" has the dtype of input "x" in every column.
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
