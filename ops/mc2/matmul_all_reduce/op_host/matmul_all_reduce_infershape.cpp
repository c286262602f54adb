// MatmulAllReduce: output shape and dtype inference. y is [M, N]: x1's rows, x2's columns (its rows with
// is_trans_b); every rank's y has the same shape.
#include "register/op_def_registry.h"

namespace ge {
namespace {
constexpr uint32_t ATTR_TRANS_B = 3;
}

ge::graphStatus InferShapeMatmulAllReduce(gert::InferShapeContext* context)
{
    const gert::Shape* x1 = context->GetInputShape(0);
    const gert::Shape* x2 = context->GetInputShape(1);
    gert::Shape* y = context->GetOutputShape(0);
    if (x1 == nullptr || x2 == nullptr || y == nullptr || x1->GetDimNum() != 2 || x2->GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    const auto* attrs = context->GetAttrs();
    const bool* transB = attrs ? attrs->GetAttrPointer<bool>(ATTR_TRANS_B) : nullptr;
    y->SetDimNum(2);
    y->SetDim(0, x1->GetDim(0));
    y->SetDim(1, transB != nullptr && *transB ? x2->GetDim(0) : x2->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeMatmulAllReduce(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
