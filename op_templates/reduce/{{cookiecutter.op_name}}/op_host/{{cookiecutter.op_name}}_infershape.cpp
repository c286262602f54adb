{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
// {{ T }}: output shape and dtype inference.
//
// Graph compilation and the aclnn API call these before any kernel runs, to size the outputs.
// Indices are positions in the OpDef: inputs and outputs are counted separately, from 0.
// y has the shape of x. rstd holds one value per row: the shape of x with its last dim set to 1,
// as CANN's RmsNorm returns it (x [4, 1, 4096] gives rstd [4, 1, 1]). op.yaml cannot say "x with
// the last dim 1", so this function is written by hand rather than generated from the spec.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShape{{ T }}(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    if (xShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const size_t dimNum = xShape->GetDimNum();
    if (dimNum == 0) {
        return ge::GRAPH_FAILED;  // a scalar x has no last axis to normalise over
    }

    gert::Shape* yShape = context->GetOutputShape(0);
    if (yShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *yShape = *xShape;  // "y" has the shape of "x"

    gert::Shape* rstdShape = context->GetOutputShape(1);
    if (rstdShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *rstdShape = *xShape;  // "rstd": the shape of "x" with the last dim 1
    rstdShape->SetDim(dimNum - 1, 1);
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataType{{ T }}(gert::InferDataTypeContext* context)
{
    // "y" has the dtype of input "x" in every column; "rstd" is float32 in every column.
    context->SetOutputDataType(0, context->GetInputDataType(0));
    context->SetOutputDataType(1, ge::DT_FLOAT);
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
