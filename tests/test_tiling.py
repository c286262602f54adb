"""`opkit tiling`: an operator's own tiling on a case, with the host side only.

The expected figures are derived here from each operator's tiling algorithm and the chip's numbers
(core count, UB), not read back from opkit: the fixture row_scale (ops-transformer layout, a
BEGIN_TILING_DATA_DEF class) and the package rms_norm of ops/ (a plain struct shared by host and
kernel, decoded through its debug information).
"""

from __future__ import annotations

import json
import math
import shutil
import struct
from pathlib import Path

import pytest
from helpers import fresh_copy

from opkit import soc

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "layouts"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def layouts(tmp_path_factory) -> Path:
    return fresh_copy(FIXTURES, tmp_path_factory.mktemp("tiling-layouts"))


def _json(cli, *args) -> dict:
    code, out, err = cli("tiling", *args, "--soc", CHIP, "-j", "1", "--json")
    assert code == 0, out + err
    return json.loads(out)


def _chip(key: str) -> int:
    return int(soc.chip(CHIP)[key])


def _row_scale_expected(shape: list[int], elem: int) -> dict:
    """RowScale's tiling (op_tiling/row_scale_tiling.cpp), written again from its comments."""
    cols = shape[-1]
    rows = math.prod(shape) // cols
    cores = _chip("aiv_cores")
    ub = _chip("ub_reported")
    used = max(1, min(cores, rows))
    per_core = -(-rows // used)
    used = -(-rows // per_core)
    per_block = 32 // elem
    tile = ub // 6 // elem // per_block * per_block
    padded = -(-cols // per_block) * per_block
    if padded <= tile:
        return {"key": 100, "block_dim": used, "rows": rows, "cols": cols, "rowsPerCore": per_core,
                "rowsPerTile": max(1, min(tile // padded, per_core)), "colsPerTile": padded}
    return {"key": 200, "block_dim": used, "rows": rows, "cols": cols, "rowsPerCore": per_core, "rowsPerTile": 1,
            "colsPerTile": tile}


@pytest.mark.parametrize("case, shape, bias", [("whole_rows", [2, 37, 40], 0.5), ("split_row", [3, 70001], 0.0)])
def test_macro_class_fields_equal_the_tiling(cli, layouts, case, shape, bias):
    res = _json(cli, layouts / "optrans" / "demos" / "row_scale", "--case", case)
    want = _row_scale_expected(shape, 4)
    assert res["tiling_key"] == want["key"] and res["block_dim"] == want["block_dim"]
    assert res["tiling_class"] == "RowScaleTilingData" and res["tiling_bytes"] == 48
    f = res["fields"]
    assert {k: f[k] for k in ("rows", "cols", "rowsPerCore", "rowsPerTile", "colsPerTile")} == \
        {k: want[k] for k in ("rows", "cols", "rowsPerCore", "rowsPerTile", "colsPerTile")}
    assert f["bias"] == bias
    assert res["workspace_sizes"] == [_chip("sys_workspace")]  # the fixture asks for the library's workspace only
    # the bytes are what the fields say, in declaration order
    data = bytes.fromhex(res["tiling_data_hex"])
    assert struct.unpack_from("<5qf", data) == (want["rows"], want["cols"], want["rowsPerCore"], want["rowsPerTile"],
                                                want["colsPerTile"], bias)


def test_text_output_and_attr_override(cli, layouts):
    pkg = layouts / "optrans" / "demos" / "row_scale"
    code, out, err = cli("tiling", pkg, "--case", "whole_rows", "--attr", "bias=2.25", "--dtype", "float16",
                         "--soc", CHIP, "-j", "1")
    assert code == 0, out + err
    want = _row_scale_expected([2, 37, 40], 2)
    assert f"tiling key     {want['key']}" in out and f"block dim      {want['block_dim']}" in out
    assert "[float16@ascend910b2]" in out and "RowScaleTilingData" in out
    lines = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith("    ")}
    assert lines["bias"] == "2.25" and lines["colsPerTile"] == str(want["colsPerTile"])


def _row_scale_copy(layouts: Path, tmp_path: Path) -> Path:
    """A fresh copy of the fixture, its library's common/ where its build options look (two folders up)."""
    pkg = tmp_path / "demos" / "row_scale"
    fresh_copy(layouts / "optrans" / "demos" / "row_scale", pkg)
    shutil.copytree(layouts / "optrans" / "common", tmp_path / "common")
    return pkg


def test_host_only_a_kernel_that_does_not_compile(cli, layouts, tmp_path):
    pkg = _row_scale_copy(layouts, tmp_path)
    kernel = pkg / "op_kernel" / "row_scale.cpp"
    kernel.write_text(kernel.read_text() + "\nstatic void broken() { AscendC::NoSuchMatmulApi<half>(); }\n")
    code, out, err = cli("build", pkg, "--soc", CHIP, "-j", "1")
    assert code != 0 and "NoSuchMatmulApi" in out + err  # the kernel really does not build
    res = _json(cli, pkg, "--case", "whole_rows")
    assert res["tiling_key"] == 100 and res["fields"]["rows"] == 74


@pytest.mark.skipif(shutil.which("gdb") is None, reason="a plain tiling struct's fields are read with gdb, which is "
                    "not installed (without it opkit tiling shows the bytes and says so)")
def test_plain_struct_of_an_ops_package(cli, tmp_path):
    pkg = tmp_path / "rms_norm"
    fresh_copy(ROOT / "ops" / "examples" / "rms_norm", pkg)
    res = _json(cli, pkg, "--case", "smoke")  # x [2, 8, 128], gamma [128], float16
    assert res["tiling_class"] == "RmsNormTilingData" and res["tiling_bytes"] == 48
    f = res["fields"]
    assert f["rowNum"] == 16 and f["rowLength"] == 128 and f["rowStride"] == 128  # 128 halves: whole blocks
    assert f["formerRows"] * f["formerNum"] + f["tailRows"] * (res["block_dim"] - f["formerNum"]) == 16
    assert f["epsilon"] == pytest.approx(1e-6) and f["avgFactor"] == 1 / 128
    assert res["tiling_key"] == 0 and 1 <= res["block_dim"] <= _chip("aiv_cores")
    data = bytes.fromhex(res["tiling_data_hex"])
    assert struct.unpack_from("<3Q4I2f", data)[:4] == (f["rowNum"], f["formerRows"], f["tailRows"], f["formerNum"])


def test_unknown_case_bad_attr_and_missing_case(cli, layouts):
    pkg = layouts / "optrans" / "demos" / "row_scale"
    code, out, err = cli("tiling", pkg, "--case", "nope", "--soc", CHIP)
    assert code == 2 and "has no case 'nope'" in err and "whole_rows" in err and "Traceback" not in out + err
    code, out, err = cli("tiling", pkg, "--case", "whole_rows", "--attr", "bias=abc", "--soc", CHIP)
    assert code == 2 and "--attr bias" in err and "Traceback" not in out + err
    code, out, err = cli("tiling", pkg, "--case", "whole_rows", "--attr", "gain=1", "--soc", CHIP)
    assert code == 2 and "no attr 'gain'" in err
    code, out, err = cli("tiling", pkg, "--soc", CHIP)
    assert code == 2 and "--case" in err


def test_failing_tiling_shows_what_it_logged(cli, layouts, tmp_path):
    pkg = _row_scale_copy(layouts, tmp_path)
    tiling = pkg / "op_host" / "op_tiling" / "row_scale_tiling.cpp"
    # an ops-base check as ops-transformer writes them: the log statement, then the caller's own action
    text = tiling.read_text().replace('#include <algorithm>\n', '#include <algorithm>\n\n#include "log/log.h"\n')
    text = text.replace("    data_.set_cols(cols);\n", '    OP_LOGI(context_, "cols = %ld", cols);\n'
                        '    OP_CHECK_IF(cols > 65536, OP_LOGE(context_, "a row of %ld elements; at most 65536", cols),\n'
                        "                return ge::GRAPH_FAILED);\n    data_.set_cols(cols);\n")
    tiling.write_text(text)
    code, out, err = cli("tiling", pkg, "--case", "split_row", "--soc", CHIP, "-j", "1")  # 70001 columns
    assert code == 1 and "Traceback" not in out + err
    assert "split_row" in err and "tiling of RowScale" in err
    assert "a row of 70001 elements; at most 65536" in err  # what the op logged, under the error
    assert _json(cli, pkg, "--case", "whole_rows")["tiling_key"] == 100  # the other case still tiles


def test_expected_key_mismatch_is_noted(cli, layouts, tmp_path):
    pkg = _row_scale_copy(layouts, tmp_path)
    text = (pkg / "op.yaml").read_text().replace("attrs: {bias: 0.5}}", "attrs: {bias: 0.5}, tiling_key: 200}")
    (pkg / "op.yaml").write_text(text)
    res = _json(cli, pkg, "--case", "whole_rows")
    assert res["tiling_key"] == 100 and res["expected_tiling_key"] == 200
    assert any("expects tiling key 200" in n for n in res["notes"])


PROBE_YAML = """name: pack_probe
family: t
summary: an int4 input the tiling reads (ValueDepend) and a float16 one it does not.
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [int4], shape: [N]}
  - {name: y, dtypes: [float16], shape: [N]}
outputs:
  - {name: z, dtypes: [float16], shape: [N]}
golden: golden.py:pack_probe
cases:
  - {name: a, shapes: {x: [21], y: [21]}, init: {x: {randint: [-8, 7]}}}
"""
PROBE_HOST = """#include <cstdint>

#include "register/op_def_registry.h"
#include "../op_kernel/pack_probe_tiling_data.h"

namespace optiling {
static ge::graphStatus TilingPackProbe(gert::TilingContext* context)
{
    PackProbeTilingData* t = context->GetTilingData<PackProbeTilingData>();
    const gert::Tensor* x = context->GetInputTensor(0);
    const gert::Tensor* y = context->GetInputTensor(1);
    t->n = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    t->yHasData = (y != nullptr && y->GetData<uint8_t>() != nullptr) ? 1 : 0;
    const uint8_t* bytes = x == nullptr ? nullptr : x->GetData<uint8_t>();
    for (uint32_t i = 0; i < 11; ++i) t->packed[i] = bytes == nullptr ? 0xEE : bytes[i];
    context->GetRawTilingData()->SetDataSize(sizeof(PackProbeTilingData));
    context->SetBlockDim(1);
    context->SetTilingKey(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShapePackProbe(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class PackProbe : public OpDef {
public:
    explicit PackProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_INT4}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShapePackProbe);
        this->AICore().SetTiling(optiling::TilingPackProbe);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(PackProbe);
}  // namespace ops
"""
PROBE_STRUCT = """#pragma once
#include <cstdint>
struct PackProbeTilingData {
    uint32_t n;
    uint32_t yHasData;
    uint8_t packed[11];
};
"""


def test_value_depend_int4_data_reaches_the_tiling_packed(cli, tmp_path):
    """The input the tiling reads arrives with the case's data, two int4 values per byte (element 2i in the low
    nibble); the input it does not read travels as a shape only."""
    pkg = tmp_path / "pack_probe"
    (pkg / "op_host").mkdir(parents=True)
    (pkg / "op_kernel").mkdir()
    (pkg / "op.yaml").write_text(PROBE_YAML)
    (pkg / "golden.py").write_text("def pack_probe(x, y):\n    return {'z': y}\n")
    (pkg / "op_host" / "pack_probe.cpp").write_text(PROBE_HOST)
    (pkg / "op_kernel" / "pack_probe_tiling_data.h").write_text(PROBE_STRUCT)
    (pkg / "op_kernel" / "pack_probe.cpp").write_text('#include "kernel_operator.h"\nextern "C" __global__ __aicore__ '
                                                      "void pack_probe(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws, "
                                                      "GM_ADDR tiling) { NotYetWritten(); }\n")
    from opkit.run.inputs import make_inputs
    from opkit.spec import load

    spec = load(pkg)
    values = [int(v) for v in make_inputs(spec, spec.cases[0], 0)["x"]]  # what verify would draw, 21 values
    padded = values + [0]
    want = [(padded[2 * i] & 0xF) | ((padded[2 * i + 1] & 0xF) << 4) for i in range(11)]
    code, out, err = cli("tiling", pkg, "--case", "a", "--soc", CHIP, "-j", "1", "--json")
    assert code == 0, out + err
    res = json.loads(out)
    assert res["tiling_class"] == "PackProbeTilingData"
    assert res["fields"] == {"n": 21, "yHasData": 0, "packed": want}
    assert res["output_shapes"] == {"z": [21]}
