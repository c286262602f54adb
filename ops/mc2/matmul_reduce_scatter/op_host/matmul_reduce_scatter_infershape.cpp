// MatmulReduceScatter: output shape and dtype. With R ranks (the group's size, HcomGetRankSize) y is [M / R, N].
#include "hccl/hcom.h"
#include "register/op_def_registry.h"

namespace ge {
namespace {
constexpr uint32_t ATTR_GROUP = 0, ATTR_TRANS_B = 3;
}

ge::graphStatus InferShapeMatmulReduceScatter(gert::InferShapeContext* context)
{
    const gert::Shape* x1 = context->GetInputShape(0);
    const gert::Shape* x2 = context->GetInputShape(1);
    gert::Shape* y = context->GetOutputShape(0);
    const auto* attrs = context->GetAttrs();
    if (x1 == nullptr || x2 == nullptr || y == nullptr || attrs == nullptr || x1->GetDimNum() != 2 ||
        x2->GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    const char* group = attrs->GetAttrPointer<char>(ATTR_GROUP);
    const bool* transB = attrs->GetAttrPointer<bool>(ATTR_TRANS_B);
    uint32_t ranks = 0;
    if (group == nullptr || HcomGetRankSize(group, &ranks) != HCCL_SUCCESS || ranks == 0) {
        return ge::GRAPH_FAILED;
    }
    y->SetDimNum(2);
    y->SetDim(0, x1->GetDim(0) / static_cast<int64_t>(ranks));
    y->SetDim(1, transB != nullptr && *transB ? x2->GetDim(0) : x2->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeMatmulReduceScatter(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
