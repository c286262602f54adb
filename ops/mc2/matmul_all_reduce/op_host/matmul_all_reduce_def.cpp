// MatmulAllReduce: operator registration (the OpDef prototype), ops-transformer's interface for fp16/bf16:
// inputs x1, x2, bias, x3 (the quantised inputs of the full operator are not part of this package), the
// attrs in their order, the HCCL communicator named by attr "group" (MC2().HcclGroup), 910B only.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in matmul_all_reduce_infershape.cpp.
ge::graphStatus InferShapeMatmulAllReduce(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMatmulAllReduce(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in matmul_all_reduce_tiling.cpp.
ge::graphStatus TilingMatmulAllReduce(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MatmulAllReduce : public OpDef {
public:
    explicit MatmulAllReduce(const char* name) : OpDef(name)
    {
        this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x3").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("group").AttrType(REQUIRED).String();
        this->Attr("reduce_op").AttrType(OPTIONAL).String("sum");
        this->Attr("is_trans_a").AttrType(OPTIONAL).Bool(false);
        this->Attr("is_trans_b").AttrType(OPTIONAL).Bool(false);
        this->Attr("comm_turn").AttrType(OPTIONAL).Int(0);

        this->SetInferShape(ge::InferShapeMatmulAllReduce).SetInferDataType(ge::InferDataTypeMatmulAllReduce);
        this->AICore().SetTiling(optiling::TilingMatmulAllReduce);
        this->AICore().AddConfig("ascend910b");
        this->MC2().HcclGroup("group");
    }
};

OP_ADD(MatmulAllReduce);
}  // namespace ops
