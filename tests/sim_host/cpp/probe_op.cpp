// Probe: a test operator whose host code exercises the simulator's host interfaces and reports
// what it saw in its TilingData (a macro-style class), which the harness returns as hex.
//   - registration through IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE (no SetTiling in the OpDef),
//     TilingParse with a compile-info struct;
//   - PlatformAscendC values of the request's chip;
//   - instance vs IR indices with an absent optional input;
//   - attributes of every scalar and list type, with defaults;
//   - attr "mode": 0 succeed, 1 the tiling returns GRAPH_FAILED, 2 reads the float attribute
//     "scale" as int64_t, 3 returns success without SetBlockDim, 4 GetTilingData of a struct
//     larger than the tiling buffer, 5 tiling key 8: the kernel reads past the end of w, 6 tiling
//     key 9: the kernel writes nothing (y is InitValue(0)), 7..9 template tiling keys (below).
#include <cstdint>
#include <cstring>

#include "ascendc/host_api/tiling/template_argument.h"
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "probe_matmul_tiling.h"

namespace ge {
ge::graphStatus InferShapeProbeList(gert::InferShapeContext* context);
ge::graphStatus InferShapeProbeMatmul(gert::InferShapeContext* context);
}

// Template tiling key of Probe (modes 7..9): N in {2, 3, 4, 9} (index, 3 bits), FLAG (1 bit),
// D_T a dtype (8 bits); kernels exist for N in {3, 9} with FLAG 1 and D_T bf16 only.
ASCENDC_TPL_ARGS_DECL(Probe, ASCENDC_TPL_UINT_DECL(N, 3, ASCENDC_TPL_UI_MIX, 1, 2, 4, 9), ASCENDC_TPL_BOOL_DECL(FLAG, 0, 1),
                      ASCENDC_TPL_DTYPE_DECL(D_T, 0, 1, 27));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
                                     ASCENDC_TPL_UINT_SEL(N, ASCENDC_TPL_UI_LIST, 3, 9), ASCENDC_TPL_BOOL_SEL(FLAG, 1),
                                     ASCENDC_TPL_DTYPE_SEL(D_T, 27)));

namespace optiling {
BEGIN_TILING_DATA_DEF(ProbeSub)
TILING_DATA_FIELD_DEF(uint16_t, tag);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ProbeSubOp, ProbeSub)

BEGIN_TILING_DATA_DEF(ProbeTilingData)
TILING_DATA_FIELD_DEF(uint8_t, flag);
TILING_DATA_FIELD_DEF(uint32_t, aic);
TILING_DATA_FIELD_DEF(uint32_t, aiv);
TILING_DATA_FIELD_DEF(uint64_t, ub);
TILING_DATA_FIELD_DEF(uint64_t, l1);
TILING_DATA_FIELD_DEF_ARR(uint64_t, 3, l0);
TILING_DATA_FIELD_DEF(int16_t, soc);
TILING_DATA_FIELD_DEF_STRUCT(ProbeSub, sub);
TILING_DATA_FIELD_DEF(uint32_t, ws);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(int64_t, dim0);
TILING_DATA_FIELD_DEF(uint8_t, xAbsent);
TILING_DATA_FIELD_DEF(uint32_t, compileMagic);
TILING_DATA_FIELD_DEF(int64_t, dimsSum);
TILING_DATA_FIELD_DEF(uint8_t, nameLen);
TILING_DATA_FIELD_DEF(uint8_t, verbose);
TILING_DATA_FIELD_DEF(uint32_t, coreNum);
TILING_DATA_FIELD_DEF(uint32_t, tsch);
TILING_DATA_FIELD_DEF(float, wSum);
TILING_DATA_FIELD_DEF(uint8_t, xHasData);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Probe, ProbeTilingData)

struct ProbeCompileInfo {
    uint32_t magic = 0;
};

static ge::graphStatus ParseProbe(gert::TilingParseContext* context)
{
    auto* ci = context->GetCompiledInfo<ProbeCompileInfo>();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    ci->magic = 0xC0DE0000u + platform.GetCoreNumAic();
    return ge::GRAPH_SUCCESS;
}

struct Huge {
    uint8_t bytes[4096];
};

static ge::graphStatus TilingProbe(gert::TilingContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t mode = *attrs->GetInt(0);
    if (mode == 1 || *attrs->GetInt(7) != 0) {
        return ge::GRAPH_FAILED;
    }
    if (mode == 2) {
        (void)attrs->GetAttrPointer<int64_t>(1);
    }
    if (mode == 4) {
        return context->GetTilingData<Huge>() == nullptr ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    ProbeTilingData t;
    t.set_flag(1);
    t.set_aic(platform.GetCoreNumAic());
    t.set_aiv(platform.GetCoreNumAiv());
    uint64_t v = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, v);
    t.set_ub(v);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
    t.set_l1(v);
    uint64_t l0[3] = {0, 0, 0};
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0[0]);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0[1]);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0[2]);
    t.set_l0(l0);
    t.set_soc(static_cast<int16_t>(platform.GetSocVersion()));
    t.sub.set_tag(0xBEEF);
    t.set_ws(platform.GetLibApiWorkSpaceSize());
    t.set_scale(*attrs->GetFloat(1));
    // Instance index 0 is the first input present: w when the optional x is absent.
    t.set_dim0(context->GetInputShape(0)->GetStorageShape().GetDim(0));
    t.set_xAbsent(context->GetOptionalInputShape(0) == nullptr ? 1 : 0);
    t.set_compileMagic(context->GetCompileInfo<ProbeCompileInfo>()->magic);
    const gert::TypedContinuousVector<int64_t>* dims = attrs->GetListInt(2);
    int64_t sum = 0;
    for (size_t i = 0; i < dims->GetSize(); ++i) {
        sum += dims->GetData()[i];
    }
    t.set_dimsSum(sum);
    t.set_nameLen(static_cast<uint8_t>(std::strlen(attrs->GetStr(3))));
    t.set_verbose(*attrs->GetBool(4) ? 1 : 0);
    t.set_coreNum(platform.GetCoreNum());
    t.set_tsch(platform.CalcTschBlockDim(7, platform.GetCoreNumAic(), platform.GetCoreNumAiv()));
    // w is ValueDepend: its data is on the host; x is not: no host data even when present.
    const gert::Tensor* w = context->GetRequiredInputTensor(1);
    float wSum = 0.0f;
    for (int64_t i = 0; i < w->GetShapeSize(); ++i) {
        wSum += w->GetData<float>()[i];
    }
    t.set_wSum(wSum);
    const gert::Tensor* x = context->GetOptionalInputTensor(0);
    t.set_xHasData(x != nullptr && x->GetData<float>() != nullptr ? 1 : 0);
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    context->SetTilingKey(mode == 5 ? 8 : (mode == 6 ? 9 : 7));
    if (mode == 7) {
        ASCENDC_TPL_SEL_PARAM(context, 3, 1, 27);  // index 1 | 1 << 3 | 27 << 4 = 441
    } else if (mode == 8) {
        context->SetTilingKey(GET_TPL_TILING_KEY(4, 1, 27));  // declared, but selected by no ASCENDC_TPL_ARGS_SEL
    } else if (mode == 9) {
        context->SetTilingKey(GET_TPL_TILING_KEY(5, 1, 27));  // not declared
    }
    if (mode != 3) {
        context->SetBlockDim(1);
    }
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = platform.GetLibApiWorkSpaceSize() + 1024;
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(Probe).Tiling(TilingProbe).TilingParse<ProbeCompileInfo>(ParseProbe);

struct ProbeListTiling {
    uint64_t instances;
};

// Tiling key = 100 * (tensors in the list) + rows of the second tensor.
ge::graphStatus TilingProbeList(gert::TilingContext* context)
{
    const size_t n = context->GetIrInputInstanceInfo(0)->GetInstanceNum();
    if (n < 2 || context->GetDynamicInputShape(0, n) != nullptr) {
        return ge::GRAPH_FAILED;
    }
    context->GetTilingData<ProbeListTiling>()->instances = n;
    context->SetTilingKey(100 * n + static_cast<uint64_t>(context->GetDynamicInputShape(0, 1)->GetStorageShape().GetDim(0)));
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
// ProbeMatmul: c[M, N] (float32) = a[M, K] * b[K, N] (float16) over the cube cores, tiled by
// MultiCoreMatmulTiling.
ge::graphStatus TilingProbeMatmul(gert::TilingContext* context)
{
    const gert::Shape& a = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& b = context->GetInputShape(1)->GetStorageShape();
    const int32_t m = static_cast<int32_t>(a.GetDim(0));
    const int32_t k = static_cast<int32_t>(a.GetDim(1));
    const int32_t n = static_cast<int32_t>(b.GetDim(1));
    if (b.GetDim(0) != k) {
        return ge::GRAPH_FAILED;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(static_cast<int32_t>(platform.GetCoreNumAic()));
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetShape(m, n, k);
    mm.SetOrgShape(m, n, k);
    mm.SetBias(false);
    ProbeMatmulTiling* t = context->GetTilingData<ProbeMatmulTiling>();
    *t = ProbeMatmulTiling{};
    if (mm.GetTiling(t->mm) == -1) {
        return ge::GRAPH_FAILED;
    }
    int32_t dim = 0;
    int32_t mDim = 0;
    int32_t nDim = 0;
    mm.GetCoreNum(dim, mDim, nDim);
    t->mBlocks = static_cast<uint32_t>(mDim);
    context->SetBlockDim(static_cast<uint32_t>(t->mm.usedCoreNum));
    context->SetTilingKey(PROBE_MATMUL_KEY);
    context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShapeProbe(gert::InferShapeContext* context)
{
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, 4);
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus InferDataTypeProbe(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_INFERSHAPE(Probe).InferShape(InferShapeProbe).InferDataType(InferDataTypeProbe);

ge::graphStatus InferShapeProbeMatmul(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(0), context->GetInputShape(1)->GetDim(1)});
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferShapeProbeList(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = gert::Shape({8});
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class Probe : public OpDef {
public:
    explicit Probe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("w")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .ValueDepend(REQUIRED);
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .InitValue(0);
        this->Attr("mode").Int();
        this->Attr("scale").AttrType(OPTIONAL).Float(0.5f);
        this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2, 3});
        this->Attr("name").AttrType(OPTIONAL).String("probe");
        this->Attr("verbose").AttrType(OPTIONAL).Bool(false);
        this->Attr("grid").AttrType(OPTIONAL).ListListInt({{1, 2}, {3}});
        this->Attr("eps").AttrType(OPTIONAL).Float(1e-20f);
        this->Attr("opt_noval").AttrType(OPTIONAL).Int();  // optional without a default: 0
        OpAICoreConfig cfg;
        cfg.DynamicCompileStaticFlag(true).DynamicShapeSupportFlag(true).ExtendCfgInfo("opFile.value", "probe_apt");
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend910_93", cfg);
    }
};

OP_ADD(Probe);

static ge::graphStatus CheckProbeDsl(const ge::Operator& op, ge::AscendString& result)
{
    (void)op;
    result = ge::AscendString("{}");
    return ge::GRAPH_SUCCESS;
}

// ProbeDsl: registration only (describe), exercising the rest of the DSL.
class ProbeDsl : public OpDef {
public:
    explicit ProbeDsl(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("b").ParamType(OPTIONAL).DataTypeList({ge::DT_INT32}).FormatList({ge::FORMAT_ND});
        this->Input("c").ParamType(DYNAMIC).Follow("a");
        this->Input("idx").ParamType(REQUIRED).DataTypeList({ge::DT_INT32, ge::DT_INT64}).FormatList({ge::FORMAT_ND}).ValueDepend(OPTIONAL);
        this->Output("o").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT});
        this->Attr("s").String();
        this->Attr("fl").AttrType(OPTIONAL).ListFloat({0.5f, 1.5f});
        this->Attr("flags").AttrType(OPTIONAL).ListBool({true, false});
        this->MC2().HcclGroup({"group_a", "group_b"});
        OpAICoreConfig cfg;
        cfg.Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        cfg.NeedCheckSupportFlag(false).PrecisionReduceFlag(true);
        this->AICore().SetCheckSupport(CheckProbeDsl);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend310p", cfg);
    }
};

OP_ADD(ProbeDsl);

// ProbeList: a dynamic (list) input.
class ProbeList : public OpDef {
public:
    explicit ProbeList(const char* name) : OpDef(name)
    {
        this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShapeProbeList);
        this->AICore().SetTiling(optiling::TilingProbeList);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(ProbeList);

class ProbeMatmul : public OpDef {
public:
    explicit ProbeMatmul(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShapeProbeMatmul);
        this->AICore().SetTiling(optiling::TilingProbeMatmul);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(ProbeMatmul);
}  // namespace ops
