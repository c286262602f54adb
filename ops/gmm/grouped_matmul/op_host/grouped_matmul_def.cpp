// GroupedMatmul: operator registration (the OpDef prototype).
//
// Inputs, output and attrs in the order and under the names ops-transformer's GroupedMatmul registers
// (gmm/grouped_matmul/op_host/grouped_matmul_def.cpp there). There x, weight, bias, the quantisation
// inputs and y are dynamic lists; this package is the one-tensor form of it (split_item 2/3,
// group_type 0: one x [M, K] split by group_list, one weight [E, K, N], one y [M, N]), so they are
// single tensors here; independent problems as tensor lists are ops/gmm/grouped_gemm. The
// quantisation inputs are part of the signature and refused by the tiling when given.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeGroupedMatmul(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeGroupedMatmul(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingGroupedMatmul(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class GroupedMatmul : public OpDef {
public:
    explicit GroupedMatmul(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("weight").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("scale").ParamType(OPTIONAL).DataType({ge::DT_UINT64, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("offset").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("antiquant_scale").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("antiquant_offset").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("group_list").ParamType(OPTIONAL).DataType({ge::DT_INT64, ge::DT_INT64})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("per_token_scale").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("split_item").AttrType(OPTIONAL).Int(0);
        this->Attr("dtype").AttrType(OPTIONAL).Int(0);
        this->Attr("transpose_weight").AttrType(OPTIONAL).Bool(false);
        this->Attr("transpose_x").AttrType(OPTIONAL).Bool(false);
        this->Attr("group_type").AttrType(OPTIONAL).Int(-1);
        this->Attr("group_list_type").AttrType(OPTIONAL).Int(0);
        this->Attr("act_type").AttrType(OPTIONAL).Int(0);
        this->Attr("tuning_config").AttrType(OPTIONAL).ListInt({0});

        this->SetInferShape(ge::InferShapeGroupedMatmul).SetInferDataType(ge::InferDataTypeGroupedMatmul);
        this->AICore().SetTiling(optiling::TilingGroupedMatmul);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(GroupedMatmul);
}  // namespace ops
