// AxpyRelu: operator registration (the OpDef prototype).
//
// The OpDef says what the operator accepts: its inputs and outputs in kernel-parameter order,
// the dtypes and formats of each, its attributes, the functions that infer output shapes and
// dtypes, the tiling function, and the SoCs it is built for. CANN compiles this file into the
// operator's prototype library and generates the aclnn API (aclnnAxpyRelu) from it.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in axpy_relu_infershape.cpp.
ge::graphStatus InferShapeAxpyRelu(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeAxpyRelu(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in axpy_relu_tiling.cpp.
ge::graphStatus TilingAxpyRelu(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class AxpyRelu : public OpDef {
public:
    explicit AxpyRelu(const char* name) : OpDef(name)
    {
        // DataType and Format lists are read column by column: column k of every input and output
        // together is one supported combination, and the kernel is compiled once per column.
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);

        this->SetInferShape(ge::InferShapeAxpyRelu).SetInferDataType(ge::InferDataTypeAxpyRelu);
        this->AICore().SetTiling(optiling::TilingAxpyRelu);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(AxpyRelu);
}  // namespace ops
