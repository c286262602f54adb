// MatmulBiasAct: operator registration (the OpDef prototype).
//
// The OpDef says what the operator accepts: its inputs and outputs in kernel-parameter order,
// the dtypes and formats of each, its attributes, the functions that infer output shapes and
// dtypes, the tiling function, and the SoCs it is built for. CANN compiles this file into the
// operator's prototype library and generates the aclnn API (aclnnMatmulBiasAct) from it.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in matmul_bias_act_infershape.cpp.
ge::graphStatus InferShapeMatmulBiasAct(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMatmulBiasAct(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in matmul_bias_act_tiling.cpp.
ge::graphStatus TilingMatmulBiasAct(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MatmulBiasAct : public OpDef {
public:
    explicit MatmulBiasAct(const char* name) : OpDef(name)
    {
        // DataType and Format lists are read column by column: column k of every input and output
        // together is one supported combination, and the kernel is compiled once per column.
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("w")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("relu").AttrType(OPTIONAL).Bool(true);

        this->SetInferShape(ge::InferShapeMatmulBiasAct).SetInferDataType(ge::InferDataTypeMatmulBiasAct);
        this->AICore().SetTiling(optiling::TilingMatmulBiasAct);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(MatmulBiasAct);
}  // namespace ops
