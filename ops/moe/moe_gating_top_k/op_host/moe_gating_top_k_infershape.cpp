// MoeGatingTopK: output shape and dtype inference.
//
// x is [T, E]; y and expert_idx are [T, k]; out is [T, E]. out has its shape even when out_flag
// is false (it is part of the signature); the kernel then leaves it untouched. Indices are
// positions in the OpDef: inputs and outputs are counted separately, from 0.
#include "register/op_def_registry.h"

namespace ge {
namespace {
constexpr size_t X_INDEX = 0;
constexpr size_t Y_INDEX = 0;
constexpr size_t EXPERT_IDX_INDEX = 1;
constexpr size_t OUT_INDEX = 2;
constexpr size_t K_ATTR_INDEX = 0;
constexpr size_t X_DIMS = 2;
}  // namespace

ge::graphStatus InferShapeMoeGatingTopK(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(X_INDEX);
    gert::Shape* yShape = context->GetOutputShape(Y_INDEX);
    gert::Shape* idxShape = context->GetOutputShape(EXPERT_IDX_INDEX);
    gert::Shape* outShape = context->GetOutputShape(OUT_INDEX);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xShape == nullptr || yShape == nullptr || idxShape == nullptr || outShape == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* k = attrs->GetAttrPointer<int64_t>(K_ATTR_INDEX);
    if (k == nullptr || *k < 1 || xShape->GetDimNum() != X_DIMS) {
        return ge::GRAPH_FAILED;  // x must be [T, E] and k >= 1
    }
    const int64_t rows = xShape->GetDim(0);
    const int64_t experts = xShape->GetDim(1);

    yShape->SetDimNum(X_DIMS);
    yShape->SetDim(0, rows);
    yShape->SetDim(1, *k);
    *idxShape = *yShape;
    outShape->SetDimNum(X_DIMS);
    outShape->SetDim(0, rows);
    outShape->SetDim(1, experts);
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeMoeGatingTopK(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(Y_INDEX, context->GetInputDataType(X_INDEX));  // y has x's dtype
    context->SetOutputDataType(EXPERT_IDX_INDEX, ge::DT_INT32);
    context->SetOutputDataType(OUT_INDEX, ge::DT_FLOAT);
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
