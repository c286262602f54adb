// GroupedGemm: operator registration. The group_type = -1 case of ops-transformer's GroupedMatmul
// (independent problems as tensor lists) as an operator of its own: x, weight and bias are dynamic
// inputs, as there; y is one packed tensor (y_0, y_1, ... flattened one after another), not a list. op.yaml is the source of truth (`opkit spec check`).
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeGroupedGemm(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeGroupedGemm(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingGroupedGemm(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class GroupedGemm : public OpDef {
public:
    explicit GroupedGemm(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("weight").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("transpose_weight").AttrType(OPTIONAL).Bool(false);

        this->SetInferShape(ge::InferShapeGroupedGemm).SetInferDataType(ge::InferDataTypeGroupedGemm);
        this->AICore().SetTiling(optiling::TilingGroupedGemm);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(GroupedGemm);
}  // namespace ops
