// MatmulSoftmax: operator registration (the OpDef prototype).
//
// The OpDef says what the operator accepts: its inputs and outputs in kernel-parameter order,
// the dtypes and formats of each, its attributes, the functions that infer output shapes and
// dtypes, the tiling function, and the SoCs it is built for. CANN compiles this file into the
// operator's prototype library and generates the aclnn API (aclnnMatmulSoftmax) from it.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in matmul_softmax_infershape.cpp.
ge::graphStatus InferShapeMatmulSoftmax(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeMatmulSoftmax(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in matmul_softmax_tiling.cpp.
ge::graphStatus TilingMatmulSoftmax(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class MatmulSoftmax : public OpDef {
public:
    explicit MatmulSoftmax(const char* name) : OpDef(name)
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
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShapeMatmulSoftmax).SetInferDataType(ge::InferDataTypeMatmulSoftmax);
        this->AICore().SetTiling(optiling::TilingMatmulSoftmax);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(MatmulSoftmax);
}  // namespace ops
