// MatmulCustom: OpDef registration.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeMatmulCustom(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMatmulCustom(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingMatmulCustom(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MatmulCustom : public OpDef {
public:
    explicit MatmulCustom(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("base_m").AttrType(OPTIONAL).Int(128);
        this->Attr("base_n").AttrType(OPTIONAL).Int(256);
        this->Attr("base_k").AttrType(OPTIONAL).Int(64);
        this->Attr("step_k").AttrType(OPTIONAL).Int(1);

        this->SetInferShape(ge::InferShapeMatmulCustom).SetInferDataType(ge::InferDataTypeMatmulCustom);
        this->AICore().SetTiling(optiling::TilingMatmulCustom);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MatmulCustom);
}  // namespace ops
