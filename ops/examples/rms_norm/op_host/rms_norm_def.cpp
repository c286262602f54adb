// RmsNorm: operator registration (the OpDef prototype).
//
// The OpDef says what the operator accepts: its inputs and outputs in kernel-parameter order,
// the dtypes and formats of each, its attributes, the functions that infer output shapes and
// dtypes, the tiling function, and the SoCs it is built for. CANN compiles this file into the
// operator's prototype library and generates the aclnn API (aclnnRmsNorm) from it.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in rms_norm_infershape.cpp.
ge::graphStatus InferShapeRmsNorm(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeRmsNorm(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in rms_norm_tiling.cpp.
ge::graphStatus TilingRmsNorm(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class RmsNorm : public OpDef {
public:
    explicit RmsNorm(const char* name) : OpDef(name)
    {
        // DataType and Format lists are read column by column: column k of every input and output
        // together is one supported combination, and the kernel is compiled once per column.
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("rstd")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-06);

        this->SetInferShape(ge::InferShapeRmsNorm).SetInferDataType(ge::InferDataTypeRmsNorm);
        this->AICore().SetTiling(optiling::TilingRmsNorm);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(RmsNorm);
}  // namespace ops
