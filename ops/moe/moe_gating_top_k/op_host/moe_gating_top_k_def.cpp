// MoeGatingTopK: operator registration (the OpDef prototype).
//
// Inputs, outputs and attrs in the order, with the dtypes and defaults, that ops-transformer's
// MoeGatingTopK registers (moe/moe_gating_top_k/op_host/moe_gating_top_k_def.cpp there), so that
// graphs and aclnn callers written for it work unchanged. Dtype lists are read column by column:
// column k of every tensor together is one supported combination, and the kernel is compiled once
// per column. `out` is always part of the signature; the kernel writes it only when out_flag is set.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in moe_gating_top_k_infershape.cpp.
ge::graphStatus InferShapeMoeGatingTopK(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMoeGatingTopK(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in moe_gating_top_k_tiling.cpp.
ge::graphStatus TilingMoeGatingTopK(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MoeGatingTopK : public OpDef {
public:
    explicit MoeGatingTopK(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias")
            .ParamType(OPTIONAL)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("expert_idx")
            .ParamType(REQUIRED)
            .DataType({ge::DT_INT32, ge::DT_INT32, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("out")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("k").AttrType(REQUIRED).Int();
        this->Attr("k_group").AttrType(OPTIONAL).Int(1);
        this->Attr("group_count").AttrType(OPTIONAL).Int(1);
        this->Attr("group_select_mode").AttrType(OPTIONAL).Int(0);
        this->Attr("renorm").AttrType(OPTIONAL).Int(0);
        this->Attr("norm_type").AttrType(OPTIONAL).Int(0);
        this->Attr("out_flag").AttrType(OPTIONAL).Bool(false);
        this->Attr("routed_scaling_factor").AttrType(OPTIONAL).Float(1.0f);
        this->Attr("eps").AttrType(OPTIONAL).Float(1e-20f);

        this->SetInferShape(ge::InferShapeMoeGatingTopK).SetInferDataType(ge::InferDataTypeMoeGatingTopK);
        this->AICore().SetTiling(optiling::TilingMoeGatingTopK);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(MoeGatingTopK);
}  // namespace ops
