// AllGatherMatmul: output shapes and dtypes. With R ranks (the group's size, HcomGetRankSize) y is [R * M, N] and
// gather_out [R * M, K], or [0] when attr is_gather_out is false.
#include "hccl/hcom.h"
#include "register/op_def_registry.h"

namespace ge {
namespace {
constexpr uint32_t ATTR_GROUP = 0, ATTR_TRANS_B = 2, ATTR_GATHER_OUT = 6;
}

ge::graphStatus InferShapeAllGatherMatmul(gert::InferShapeContext* context)
{
    const gert::Shape* x1 = context->GetInputShape(0);
    const gert::Shape* x2 = context->GetInputShape(1);
    gert::Shape* y = context->GetOutputShape(0);
    gert::Shape* gather = context->GetOutputShape(1);
    const auto* attrs = context->GetAttrs();
    if (x1 == nullptr || x2 == nullptr || y == nullptr || gather == nullptr || attrs == nullptr ||
        x1->GetDimNum() != 2 || x2->GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    const char* group = attrs->GetAttrPointer<char>(ATTR_GROUP);
    const bool* transB = attrs->GetAttrPointer<bool>(ATTR_TRANS_B);
    const bool* gatherOut = attrs->GetAttrPointer<bool>(ATTR_GATHER_OUT);
    uint32_t ranks = 0;
    if (group == nullptr || HcomGetRankSize(group, &ranks) != HCCL_SUCCESS || ranks == 0) {
        return ge::GRAPH_FAILED;
    }
    const int64_t rows = x1->GetDim(0) * static_cast<int64_t>(ranks);
    y->SetDimNum(2);
    y->SetDim(0, rows);
    y->SetDim(1, transB != nullptr && *transB ? x2->GetDim(0) : x2->GetDim(1));
    if (gatherOut != nullptr && !*gatherOut) {
        gather->SetDimNum(1);
        gather->SetDim(0, 0);
    } else {
        gather->SetDimNum(2);
        gather->SetDim(0, rows);
        gather->SetDim(1, x1->GetDim(1));
    }
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeAllGatherMatmul(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    context->SetOutputDataType(1, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge
