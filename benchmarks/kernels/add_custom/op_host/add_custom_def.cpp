// AddCustom: OpDef registration.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShapeAddCustom(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeAddCustom(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
ge::graphStatus TilingAddCustom(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("data_copy_len").AttrType(OPTIONAL).Int(16384);
        this->Attr("double_buffer").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(ge::InferShapeAddCustom).SetInferDataType(ge::InferDataTypeAddCustom);
        this->AICore().SetTiling(optiling::TilingAddCustom);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(AddCustom);
}  // namespace ops
