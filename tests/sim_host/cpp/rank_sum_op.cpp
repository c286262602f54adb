// Test operator of the multi-rank harness (`harness run-ranks`): y = the sum over the ranks of 2 * x (float32),
// the kernel computing x * 2 slice by slice and committing each slice's all-reduce as soon as it is computed.
// The OpDef names its communicator (MC2().HcclGroup("group")); a "fail" attr of N > 0 selects broken variant N
// (tiling key N, ops/rank_sum/op_kernel/rank_sum.cpp). 1 makes rank 1's kernel
// prepare a different repeat count (ranks disagreeing: the diagnostic, not a hang).
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "rank_sum_tiling.h"

namespace {
ge::graphStatus InferShapeRankSum(gert::InferShapeContext* context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}
ge::graphStatus InferDataTypeRankSum(gert::InferDataTypeContext* context) {
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
ge::graphStatus TilingRankSum(gert::TilingContext* context) {
    const uint64_t n = static_cast<uint64_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    RankSumTiling* t = context->GetTilingData<RankSumTiling>();
    t->n = n;
    t->tileCnt = n % 4 == 0 ? 4 : 1;
    t->tileLen = static_cast<uint32_t>(n / t->tileCnt);
    const int64_t* fail = context->GetAttrs()->GetAttrPointer<int64_t>(1);
    context->SetTilingKey(fail && *fail > 0 ? uint64_t(*fail) : 0);  // the broken variants of ops/rank_sum/op_kernel/rank_sum.cpp
    context->SetBlockDim(2);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize() + n * sizeof(float);
    return ge::GRAPH_SUCCESS;
}
}  // namespace

namespace ops {
class RankSum : public OpDef {
public:
    explicit RankSum(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("group").AttrType(REQUIRED).String();
        this->Attr("fail").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(InferShapeRankSum).SetInferDataType(InferDataTypeRankSum);
        this->AICore().SetTiling(TilingRankSum);
        this->AICore().AddConfig("ascend910b");
        this->MC2().HcclGroup("group");
    }
};
OP_ADD(RankSum);
}  // namespace ops
