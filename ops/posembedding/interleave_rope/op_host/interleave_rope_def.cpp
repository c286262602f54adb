// InterleaveRope: operator registration (the OpDef prototype).
//
// Inputs x, cos, sin and output y, in kernel-parameter order; two dtype columns (all float16, or
// all bfloat16), ND format, contiguous tensors (AutoContiguous makes the framework hand over
// contiguous copies). No attributes. Built for Atlas A2 (ascend910b) and A3 (ascend910_93), like
// the real op (ops-transformer: posembedding/interleave_rope/op_host/interleave_rope_def.cpp).
// op.yaml is the source of truth; `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in interleave_rope_infershape.cpp.
ge::graphStatus InferShapeInterleaveRope(gert::InferShapeContext* context);
ge::graphStatus InferDataTypeInterleaveRope(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in interleave_rope_tiling.cpp.
ge::graphStatus TilingInterleaveRope(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class InterleaveRope : public OpDef {
public:
    explicit InterleaveRope(const char* name) : OpDef(name)
    {
        // DataType and Format lists are read column by column: column k of every input and output
        // together is one supported combination, and the kernel is compiled once per column.
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .AutoContiguous();
        this->Input("cos")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .AutoContiguous();
        this->Input("sin")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .AutoContiguous();
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShapeInterleaveRope).SetInferDataType(ge::InferDataTypeInterleaveRope);
        this->AICore().SetTiling(optiling::TilingInterleaveRope);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93");
    }
};

OP_ADD(InterleaveRope);
}  // namespace ops
