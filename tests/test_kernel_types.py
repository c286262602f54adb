"""The cores a launch starts come from the kernel's own KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE(key, type)
declarations, per tiling key, as CANN's build reads them; op.yaml's `kernel:` only fills in for a kernel that
declares nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
CHIP = "ascend910b2"

HOST = r'''
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CoreCensusTilingData)
TILING_DATA_FIELD_DEF(int32_t, mode);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(CoreCensus, CoreCensusTilingData)

static ge::graphStatus CoreCensusTiling(gert::TilingContext* context)
{
    const int64_t mode = *context->GetAttrs()->GetAttrPointer<int64_t>(0);
    CoreCensusTilingData tiling;
    tiling.set_mode(static_cast<int32_t>(mode));
    context->SetTilingKey(static_cast<uint64_t>(mode));
    context->SetBlockDim(2);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 16 * 1024 * 1024;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus CoreCensusInferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class CoreCensus : public OpDef {
public:
    explicit CoreCensus(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(1);
        this->SetInferShape(ge::CoreCensusInferShape);
        this->AICore().SetTiling(optiling::CoreCensusTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CoreCensus);
}  // namespace ops
'''

KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
constexpr uint64_t CENSUS_ONE_TO_ONE = 3;

// y[0]: the AIV:AIC task ratio; y[8 + b]: AIC block b ran; y[10 + i]: AIV core i ran.
extern "C" __global__ __aicore__ void core_census(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KERNEL_TASK_TYPE(2, KERNEL_TYPE_MIX_AIC_1_2);
    KERNEL_TASK_TYPE(CENSUS_ONE_TO_ONE, KERNEL_TYPE_MIX_AIC_1_1);
    GET_TILING_DATA(t, tiling);
    GlobalTensor<int32_t> out;
    out.SetGlobalBuffer((__gm__ int32_t*)y, 16);
    if ASCEND_IS_AIC {
        out.SetValue(8 + GetBlockIdx(), 1);
    } else {
        out.SetValue(10 + GetBlockIdx(), 1);
        if (GetBlockIdx() == 0) {
            out.SetValue(0, static_cast<int32_t>(GetTaskRatio()));
        }
    }
    (void)t;
}
'''

GOLDEN = '''import numpy as np


def core_census(x, *, mode=1):
    ratio, aic, aiv = {1: (1, 0, 2), 2: (2, 2, 4), 3: (1, 2, 2)}[mode]
    y = np.zeros(16, np.int32)
    y[0] = ratio
    y[8:8 + aic] = 1
    y[10:10 + aiv] = 1
    return {"y": y}


def census_unwritten(x, *, mode=1):
    """The cells no core writes (the census marks only the cores that ran): left as they were."""
    return core_census(x, mode=mode)["y"] == 0
'''

OP_YAML = """name: core_census
family: tests
socs: [ascend910b]
kernel: {kind}
inputs:
  - {{name: x, dtypes: [float32], shape: [16]}}
outputs:
  - {{name: y, dtypes: [int32], shape: [16], untouched: census_unwritten}}
attrs:
  - {{name: mode, type: int, default: 1}}
golden: golden.py:core_census
cases:
  - {{name: aiv_only, shapes: {{x: [16]}}, attrs: {{mode: 1}}, tiling_key: 1}}
  - {{name: mix_1_2, shapes: {{x: [16]}}, attrs: {{mode: 2}}, tiling_key: 2}}
  - {{name: mix_1_1, shapes: {{x: [16]}}, attrs: {{mode: 3}}, tiling_key: 3}}
"""


def _package(root: Path, kind: str) -> Path:
    pkg = root / "core_census"
    (pkg / "op_host").mkdir(parents=True)
    (pkg / "op_kernel").mkdir()
    (pkg / "op_host" / "core_census.cpp").write_text(HOST)
    (pkg / "op_kernel" / "core_census.cpp").write_text(KERNEL)
    (pkg / "golden.py").write_text(GOLDEN)
    (pkg / "op.yaml").write_text(OP_YAML.format(kind=kind))
    return pkg


def test_each_tiling_key_launches_the_cores_its_kernel_type_declares(cli, tmp_path):
    pkg = _package(tmp_path, "mix")
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0, out + err
    cases = json.loads((tmp_path / "v" / "results.json").read_text())["cases"]
    assert {c["case"]: c["status"] for c in cases} == {"aiv_only": "pass", "mix_1_2": "pass", "mix_1_1": "pass"}
    assert "the kernel declares" not in out + err  # op.yaml's mix is one of the declared kinds


def test_op_yaml_kernel_kind_the_kernel_contradicts_is_a_build_warning(cli, tmp_path):
    pkg = _package(tmp_path, "cube")
    code, out, err = cli("build", pkg, "--soc", CHIP, "-j", "1")
    assert code == 0, out + err
    assert ("the kernel declares KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2 but op.yaml "
            "says kernel: cube") in out + err


def test_declarations_are_read_from_the_files_the_entry_compiles(tmp_path):
    from opkit.build.kernel_entry import KernelTypes, declared_kernel_types

    (tmp_path / "types.h").write_text("// KERNEL_TASK_TYPE(9, KERNEL_TYPE_AIC_ONLY) in a comment\n"
                                      "#define K KERNEL_TASK_TYPE(KEY_A, KERNEL_TYPE_MIX_AIC_1_1)\n")
    (tmp_path / "entry.cpp").write_text("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n")
    got = declared_kernel_types([tmp_path / "entry.cpp", tmp_path / "types.h"])
    assert got == KernelTypes("KERNEL_TYPE_MIX_AIC_1_2", (("KEY_A", "KERNEL_TYPE_MIX_AIC_1_1"),))
    assert declared_kernel_types([tmp_path / "missing.cpp"]) == KernelTypes()
