// AllGatherMatmul: operator registration (the OpDef prototype), ops-transformer's interface for fp16/bf16:
// inputs x1, x2, bias; outputs y and gather_out; the attrs in their order; the HCCL communicator named by attr
// "group" (MC2().HcclGroup). op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeAllGatherMatmul(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeAllGatherMatmul(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingAllGatherMatmul(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class AllGatherMatmul : public OpDef {
public:
    explicit AllGatherMatmul(const char* name) : OpDef(name)
    {
        this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("gather_out").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("group").AttrType(REQUIRED).String();
        this->Attr("is_trans_a").AttrType(OPTIONAL).Bool(false);
        this->Attr("is_trans_b").AttrType(OPTIONAL).Bool(false);
        this->Attr("gather_index").AttrType(OPTIONAL).Int(0);
        this->Attr("comm_turn").AttrType(OPTIONAL).Int(0);
        this->Attr("rank_size").AttrType(OPTIONAL).Int(0);
        this->Attr("is_gather_out").AttrType(OPTIONAL).Bool(true);

        this->SetInferShape(ge::InferShapeAllGatherMatmul).SetInferDataType(ge::InferDataTypeAllGatherMatmul);
        this->AICore().SetTiling(optiling::TilingAllGatherMatmul);
        this->AICore().AddConfig("ascend910b");
        this->MC2().HcclGroup("group");
    }
};

OP_ADD(AllGatherMatmul);
}  // namespace ops
