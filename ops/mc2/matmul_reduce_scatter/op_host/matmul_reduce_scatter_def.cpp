// MatmulReduceScatter: operator registration (the OpDef prototype), ops-transformer's interface for fp16/bf16:
// inputs x1, x2, bias; output y; the attrs in their order; the HCCL communicator named by attr "group"
// (MC2().HcclGroup). op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeMatmulReduceScatter(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMatmulReduceScatter(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingMatmulReduceScatter(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MatmulReduceScatter : public OpDef {
public:
    explicit MatmulReduceScatter(const char* name) : OpDef(name)
    {
        this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("group").AttrType(REQUIRED).String();
        this->Attr("reduce_op").AttrType(OPTIONAL).String("sum");
        this->Attr("is_trans_a").AttrType(OPTIONAL).Bool(false);
        this->Attr("is_trans_b").AttrType(OPTIONAL).Bool(false);
        this->Attr("comm_turn").AttrType(OPTIONAL).Int(0);
        this->Attr("rank_size").AttrType(OPTIONAL).Int(0);

        this->SetInferShape(ge::InferShapeMatmulReduceScatter).SetInferDataType(ge::InferDataTypeMatmulReduceScatter);
        this->AICore().SetTiling(optiling::TilingMatmulReduceScatter);
        this->AICore().AddConfig("ascend910b");
        this->MC2().HcclGroup("group");
    }
};

OP_ADD(MatmulReduceScatter);
}  // namespace ops
