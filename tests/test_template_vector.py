"""The `vector` template: what `opkit new` writes, with its own math and from a user's spec."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    assert_rendered_text_clean,
    entry_params,
    load_golden,
    opdef_lists,
    own_files,
    package_files,
    struct_fields,
    syntax_check,
)

from opkit.build import sim_backend
from opkit.golden import MARKER, ComputeNotImplemented
from opkit.scaffold.new import new_package
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]
INSTANCE = ROOT / "ops" / "examples" / "axpy_relu"
SIM_INCLUDE = ROOT / "opkit" / "sim" / "include"
CHIP = "ascend910b"


files_of = own_files


@pytest.fixture(scope="module")
def default_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("default")
    return new_package("axpy_relu", family="examples", cwd=root).path


USER_SPEC = """\
name: gated_pair
family: custom
summary: A user's op whose math opkit cannot know.
socs: [ascend910b, {soc: ascend310p, columns: [float16]}]
kernel: vector
inputs:
  - {name: a, dtypes: [int32, float16], shape: [M, K]}
  - {name: gate, dtypes: [int32, float16], shape: [K], param: optional}
outputs:
  - {name: out, dtypes: [int32, float16], shape: [M, K]}
  - {name: count, dtypes: [int32, int32], shape: [M, 4]}
attrs:
  - {name: axis, type: int, default: -1}
  - {name: dims, type: list_int, default: [1, 2]}
  - {name: scale, type: float, default: 0.5}
golden: golden.py:gated_pair
cases:
  - {name: smoke, shapes: {a: [4, 16], gate: [16]}}
"""


@pytest.fixture(scope="module")
def generic_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generic")
    (root / "spec.yaml").write_text(USER_SPEC)
    return new_package(spec_file=root / "spec.yaml", directory=root / "gen", cwd=root, force=True).path


# --- the committed instance -------------------------------------------------------------------


def test_instance_is_exactly_what_the_template_renders(default_pkg):
    assert files_of(INSTANCE) == files_of(default_pkg)
    for rel in sorted(files_of(default_pkg)):
        assert (INSTANCE / rel).read_bytes() == (default_pkg / rel).read_bytes(), (
            f"ops/examples/axpy_relu/{rel} differs from what `opkit new axpy_relu --family examples` writes; "
            "regenerate it")


def test_instance_spec_loads():
    spec = load(INSTANCE)
    assert spec.name == "axpy_relu" and spec.op_type == "AxpyRelu" and spec.family == "examples"


# --- the template's own op: z = relu(x + alpha * y) ---------------------------------------------


@pytest.mark.parametrize("which", ["default", "generic"])
def test_file_set(which, default_pkg, generic_pkg):
    pkg, op = (default_pkg, "axpy_relu") if which == "default" else (generic_pkg, "gated_pair")
    assert files_of(pkg) == package_files(op)


@pytest.mark.parametrize("which", ["default", "generic"])
def test_rendered_text_is_clean(which, default_pkg, generic_pkg):
    pkg = default_pkg if which == "default" else generic_pkg
    assert_rendered_text_clean(pkg)


def test_entry_signature_and_dtype_macros(default_pkg):
    cpp = (default_pkg / "op_kernel/axpy_relu.cpp").read_text()
    assert entry_params(cpp, "axpy_relu") == ["x", "y", "z", "workspace", "tiling"]
    assert "REGISTER_TILING_DEFAULT(AxpyReluTilingData);" in cpp
    assert "GET_TILING_DATA_WITH_STRUCT(AxpyReluTilingData, tilingData, tiling);" in cpp
    assert "<DTYPE_X>" in cpp


def test_opdef_matches_the_spec(default_pkg):
    spec = load(default_pkg)
    def_cpp = (default_pkg / "op_host/axpy_relu_def.cpp").read_text()
    for kind, params in (("Input", spec.inputs), ("Output", spec.outputs)):
        for p in params:
            param, dtypes, formats = opdef_lists(def_cpp, kind, p.name)
            assert param == p.param.upper()
            assert dtypes == ["ge::DT_FLOAT16", "ge::DT_BF16", "ge::DT_FLOAT"]
            assert formats == ["ge::FORMAT_ND"] * 3
    assert 'this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);' in def_cpp
    assert def_cpp.index('this->Input("x")') < def_cpp.index('this->Input("y")') < def_cpp.index('this->Output("z")')
    assert re.findall(r'AddConfig\("(\w+)"\)', def_cpp) == ["ascend910b", "ascend910_93"]
    assert "SetInferShape(ge::InferShapeAxpyRelu).SetInferDataType(ge::InferDataTypeAxpyRelu)" in def_cpp
    assert "this->AICore().SetTiling(optiling::TilingAxpyRelu);" in def_cpp
    assert "OP_ADD(AxpyRelu);" in def_cpp
    infer = (default_pkg / "op_host/axpy_relu_infershape.cpp").read_text()
    assert "*zShape = *xShape;" in infer
    assert "context->SetOutputDataType(0, context->GetInputDataType(0));" in infer


def test_tiling_uses_the_platform_and_fills_only_declared_fields(default_pkg):
    tiling = (default_pkg / "op_host/axpy_relu_tiling.cpp").read_text()
    for api in ("platform_ascendc::PlatformAscendC(context->GetPlatformInfo())", "GetCoreNumAiv()",
                "GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize)", "GetAttrPointer<float>(0)",
                "ubSize - ASC_RESERVED_UB_BYTES",
                "context->GetTilingData<AxpyReluTilingData>()", "context->SetBlockDim(",
                "context->GetWorkspaceSizes(1)", "GetLibApiWorkSpaceSize()",
                '#include "../op_kernel/axpy_relu_tiling_data.h"'):
        assert api in tiling, api
    header = (default_pkg / "op_kernel/axpy_relu_tiling_data.h").read_text()
    fields = struct_fields(header)
    assert fields == ["totalLength", "formerLength", "tailLength", "formerNum", "tileLength", "alpha", "reserved"]
    assert set(re.findall(r"tiling->(\w+)", tiling)) <= set(fields)
    kernel = (default_pkg / "op_kernel/axpy_relu.h").read_text()
    assert set(re.findall(r"tiling\.(\w+)", kernel)) <= set(fields)
    assert {"totalLength", "formerNum", "formerLength", "tailLength", "tileLength", "alpha"} <= set(
        re.findall(r"tiling\.(\w+)", kernel))


def test_kernel_is_a_real_fused_vector_kernel(default_pkg):
    kernel = (default_pkg / "op_kernel/axpy_relu.h").read_text()
    assert "constexpr int32_t BUFFER_NUM = 2;" in kernel
    assert kernel.count("TQue<TPosition::VECIN, 1>") == 2 and kernel.count("TQue<TPosition::VECOUT, 1>") == 1
    for queue in ("inQueueX_", "inQueueY_", "outQueueZ_"):
        assert f"pipe_.InitBuffer({queue}, BUFFER_NUM, tileLength_ * sizeof(T));" in kernel
        for call in ("AllocTensor<T>()", "EnQue", "DeQue<T>()", "FreeTensor"):
            assert f"{queue}.{call}" in kernel, (queue, call)
    # ragged tails go through DataCopyPad, whole blocks through DataCopy
    assert kernel.count("DataCopyPad(") == 3 and kernel.count("DataCopy(") == 3
    assert "bytes % BLOCK_BYTES == 0" in kernel
    # fp16/bf16 computed in float32, rounded back to nearest even
    assert "Cast(xFloat, xLocal, RoundMode::CAST_NONE, count);" in kernel
    assert "Cast(zLocal, xFloat, RoundMode::CAST_RINT, count);" in kernel
    assert "if constexpr (IsSameType<T, float>::value)" in kernel
    for op in ("Muls", "Add", "Relu"):
        assert len(re.findall(r"\b" + op + r"\(", kernel)) == 2, op
    assert "if (coreLength_ == 0)" in kernel  # empty tensors


def test_tile_budget_fits_the_ub():
    """The UB bytes the kernel allocates for the largest tile the tiling can choose (910B UB)."""
    ub = 192 * 1024 - 256
    for type_size, temps in ((2, 2), (4, 0)):
        per_elem = 2 * 3 * type_size + temps * 4
        tile = (ub - 8 * 1024) // per_elem // 64 * 64
        used = 2 * 3 * tile * type_size + temps * tile * 4
        assert used <= ub - 8 * 1024 and tile % 64 == 0 and (tile * type_size) % 32 == 0
        assert used > ub - 8 * 1024 - 64 * per_elem  # no more than one repeat of slack


def test_golden_numerics(default_pkg):
    golden = load_golden(default_pkg)
    x = np.array([-1.0, 0.5, 2.0, 3.0, np.inf, -np.inf, np.nan, 0.0, 1e4])
    y = np.array([4.0, -2.0, 1.0, -8.0, 1.0, 1.0, 1.0, -0.0, 3e4])
    z = golden.axpy_relu(x=x, y=y, alpha=-0.5)["z"]
    expected = np.array([0.0, 1.5, 1.5, 7.0, np.inf, 0.0, np.nan, 0.0, 0.0])
    assert z.dtype == np.float64 and z.shape == x.shape
    np.testing.assert_array_equal(z, expected)
    np.testing.assert_array_equal(golden.axpy_relu(x, y)["z"], np.maximum(x + y, 0))
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 33, 65)), rng.normal(size=(4, 33, 65))
    out = golden.axpy_relu(x=a, y=b, alpha=2.0)["z"]
    assert out.shape == (4, 33, 65) and (out >= 0).all()
    np.testing.assert_allclose(out, np.where(a + 2 * b > 0, a + 2 * b, 0), rtol=0, atol=0)
    shapes = {"x": (4, 33, 65), "y": (4, 33, 65), "z": (4, 33, 65)}
    assert golden.flops(shapes, {"x": "float16", "y": "float16", "z": "float16"}, {"alpha": 1.0}) == 3 * 8580
    assert golden.hbm_bytes(shapes, {"x": "bfloat16", "y": "bfloat16", "z": "bfloat16"}, {}) == 6 * 8580
    assert golden.hbm_bytes(shapes, {"x": "float32", "y": "float32", "z": "float32"}, {}) == 12 * 8580


def test_other_names_and_summary(tmp_path):
    pkg = new_package("scaled_relu", directory="d", cwd=tmp_path, summary="my own words").path
    assert files_of(pkg) == package_files("scaled_relu")
    cpp = (pkg / "op_kernel/scaled_relu.cpp").read_text()
    assert entry_params(cpp, "scaled_relu") == ["x", "y", "z", "workspace", "tiling"]
    assert "ScaledReluKernel::ScaledRelu<DTYPE_X> op;" in cpp
    assert "my own words" in (pkg / "README.md").read_text()
    assert "def scaled_relu(x, y, alpha=1.0):" in (pkg / "golden.py").read_text()


# --- a user's spec: generated skeleton ------------------------------------------------------------


def test_generic_entry_and_opdef(generic_pkg):
    cpp = (generic_pkg / "op_kernel/gated_pair.cpp").read_text()
    assert entry_params(cpp, "gated_pair") == ["a", "gate", "out", "count", "workspace", "tiling"]
    assert "GatedPairKernel::GatedPair<DTYPE_A, DTYPE_GATE, DTYPE_OUT, DTYPE_COUNT> op;" in cpp
    assert "op.Init(a, gate, out, count, tilingData);" in cpp
    def_cpp = (generic_pkg / "op_host/gated_pair_def.cpp").read_text()
    assert opdef_lists(def_cpp, "Input", "a")[:2] == ("REQUIRED", ["ge::DT_INT32", "ge::DT_FLOAT16"])
    assert opdef_lists(def_cpp, "Input", "gate")[:2] == ("OPTIONAL", ["ge::DT_INT32", "ge::DT_FLOAT16"])
    assert opdef_lists(def_cpp, "Output", "out")[:2] == ("REQUIRED", ["ge::DT_INT32", "ge::DT_FLOAT16"])
    assert opdef_lists(def_cpp, "Output", "count")[:2] == ("REQUIRED", ["ge::DT_INT32", "ge::DT_INT32"])
    assert 'this->Attr("axis").AttrType(OPTIONAL).Int(-1);' in def_cpp
    assert 'this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2});' in def_cpp
    assert 'this->Attr("scale").AttrType(OPTIONAL).Float(0.5);' in def_cpp
    # ascend310p supports only the float16 column: its own config lists that column alone
    assert 'this->AICore().AddConfig("ascend910b");' in def_cpp
    assert 'this->AICore().AddConfig("ascend310p", config);' in def_cpp
    p310 = def_cpp[def_cpp.index("OpAICoreConfig config;"):]
    assert re.search(r'config\.Input\("a"\)\s*\.ParamType\(REQUIRED\)\s*\.DataType\(\{ge::DT_FLOAT16\}\)', p310)
    assert re.search(r'config\.Output\("count"\)\s*\.ParamType\(REQUIRED\)\s*\.DataType\(\{ge::DT_INT32\}\)', p310)


def test_generic_infershape_and_tiling_data(generic_pkg):
    infer = (generic_pkg / "op_host/gated_pair_infershape.cpp").read_text()
    assert "*outShape = *aShape;" in infer
    assert "countShape->SetDimNum(2);" in infer
    assert "countShape->SetDim(0, aShape->GetDim(0));" in infer and "countShape->SetDim(1, 4);" in infer
    assert "context->SetOutputDataType(0, context->GetInputDataType(0));" in infer
    assert "context->SetOutputDataType(1, ge::DT_INT32);" in infer
    header = (generic_pkg / "op_kernel/gated_pair_tiling_data.h").read_text()
    assert struct_fields(header) == ["outLength", "countLength", "axis", "scale", "reserved"]
    tiling = (generic_pkg / "op_host/gated_pair_tiling.cpp").read_text()
    assert set(re.findall(r"tiling->(\w+)", tiling)) == {"outLength", "countLength", "axis", "scale"}
    assert "tiling->axis = (axisAttr != nullptr) ? *axisAttr : -1;" in tiling
    assert "GetAttrPointer<float>(2)" in tiling and "GetAttrPointer<int64_t>(0)" in tiling
    kernel = (generic_pkg / "op_kernel/gated_pair.h").read_text()
    assert set(re.findall(r"tiling_?\.(\w+)", kernel)) <= set(struct_fields(header))


def test_generic_marks_the_lines_to_write(generic_pkg):
    kernel = (generic_pkg / "op_kernel/gated_pair.h").read_text().splitlines()
    marked = [line for line in kernel if MARKER in line]
    assert marked == ["        ZeroFillOutputs();  // opkit: compute not implemented"]
    golden_lines = (generic_pkg / "golden.py").read_text().splitlines()
    marks = [i for i, line in enumerate(golden_lines) if MARKER in line]
    assert len(marks) == 1 and golden_lines[marks[0]].strip() == "# " + MARKER
    assert golden_lines[marks[0] + 1].strip().startswith("raise ComputeNotImplemented(")
    golden = load_golden(generic_pkg)
    with pytest.raises(ComputeNotImplemented):
        golden.gated_pair(np.zeros((4, 16)), gate=None, axis=-1, dims=(1, 2), scale=0.5)
    with pytest.raises(ComputeNotImplemented):
        golden.gated_pair(np.zeros((4, 16)))  # every attr has its default
    assert load(generic_pkg).name == "gated_pair"


def test_generic_with_dynamic_lists_and_required_attrs(tmp_path):
    spec = USER_SPEC
    for old, new in (
        ("{name: gate, dtypes: [int32, float16], shape: [K], param: optional}",
         "{name: parts, dtypes: [int32, float16], shape: [K], param: dynamic}"),
        ("{name: axis, type: int, default: -1}", "{name: axis, type: int}\n  - {name: on, type: bool}"),
        ("shapes: {a: [4, 16], gate: [16]}}", "shapes: {a: [4, 16], parts: [[16], [16]]}, attrs: {axis: 0, on: true}}"),
    ):
        assert old in spec
        spec = spec.replace(old, new)
    (tmp_path / "s.yaml").write_text(spec)
    pkg = new_package(spec_file=tmp_path / "s.yaml", directory="g", cwd=tmp_path).path
    kernel = (pkg / "op_kernel/gated_pair.h").read_text()
    assert "GM_ADDR partsList_ = nullptr;" in kernel and "T_PARTS" not in kernel
    cpp = (pkg / "op_kernel/gated_pair.cpp").read_text()
    assert entry_params(cpp, "gated_pair") == ["a", "parts", "out", "count", "workspace", "tiling"]
    assert "<DTYPE_A, DTYPE_OUT, DTYPE_COUNT>" in cpp
    tiling = (pkg / "op_host/gated_pair_tiling.cpp").read_text()
    assert "if (axisAttr == nullptr) {" in tiling and "tiling->on = *onAttr ? 1U : 0U;" in tiling
    header = (pkg / "op_kernel/gated_pair_tiling_data.h").read_text()
    assert struct_fields(header) == ["outLength", "countLength", "axis", "on", "scale"]
    assert "def gated_pair(a, *, parts, axis, on, dims=(1, 2), scale=0.5):" in (pkg / "golden.py").read_text()


# --- the C++ against the simulator (when its headers are there) ----------------------------------

needs_sim = pytest.mark.skipif(
    shutil.which("g++") is None or not (SIM_INCLUDE / "kernel_operator.h").is_file(),
    reason="needs g++ and the simulator's kernel_operator.h",
)


@needs_sim
@pytest.mark.parametrize("column", [0, 1, 2], ids=["float16", "bfloat16", "float32"])
def test_template_kernel_compiles_against_the_simulator(default_pkg, column):
    r = syntax_check(default_pkg, default_pkg / "op_kernel/axpy_relu.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


@needs_sim
@pytest.mark.parametrize("column", [0, 1], ids=["int32", "float16"])
def test_generic_kernel_compiles_against_the_simulator(generic_pkg, column):
    r = syntax_check(generic_pkg, generic_pkg / "op_kernel/gated_pair.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


# --- comparing the kernel with the golden ----------------------------------------------------------


def assert_close_to_golden(z, golden, x, y, alpha, np_dtype, rtol):
    """The float32 arithmetic of the kernel against the float64 golden rounded to the output dtype.

    Each float32 step may be off by half an ulp of its operands' magnitude, so the bound scales with
    |x| + |alpha * y| (not with |z|, which cancellation can make tiny).
    """
    expected = golden.astype(np_dtype).astype(np.float64)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(z), nan)
    scale = np.abs(x) + abs(alpha) * np.abs(y) + np.abs(expected)
    err = np.abs(z[~nan] - expected[~nan])
    assert (err <= rtol * scale[~nan]).all(), float((err / np.maximum(scale[~nan], 1e-300)).max())


# --- the whole package (OpDef, InferShape, tiling, kernel) through the simulator's harness ---------

HARNESS_MAIN = ROOT / "opkit" / "sim" / "host" / "harness_main.cpp"
needs_sim_harness = pytest.mark.skipif(
    shutil.which("g++") is None or not HARNESS_MAIN.is_file()
    or not (SIM_INCLUDE / "register" / "op_def_registry.h").is_file(),
    reason="needs g++ and the simulator's host harness",
)

def package_harnesses(pkg: Path, columns: list[int] | None = None) -> dict[str, Path]:
    """column label -> the package's harness on the chip, as `opkit build` makes it (host sources, kernel, the
    generated launch shim and the simulator's harness main; cached in the package's build folder)."""
    spec = load(pkg)
    artifacts = sim_backend.build(sim_backend.artifacts_for(spec, [CHIP], columns), jobs=1)
    return {spec.column_label(a.column): a.exe for a in artifacts}


def harness_run(exe: Path, work: Path, op_type: str, inputs, outputs, attrs) -> dict:
    import json

    from opkit import soc

    chip = soc.chip("ascend910b2")
    chip = dict(vars(chip)) if hasattr(chip, "__dict__") else dict(chip)
    chip.pop("sources", None)
    req = {"op_type": op_type, "chip": chip, "inputs": inputs, "outputs": outputs, "attrs": attrs, "trace": None}
    (work / "req.json").write_text(json.dumps(req, default=str))
    r = subprocess.run([str(exe), "run", "req.json"], cwd=work, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "error" not in r.stderr, r.stderr[-3000:]
    return json.loads((work / "req.json.result.json").read_text())


@pytest.fixture(scope="module")
def axpy_harness():
    return package_harnesses(INSTANCE)


@needs_sim_harness
@pytest.mark.parametrize("dtype,rtol", [("float16", 1e-3), ("bfloat16", 8e-3), ("float32", 1e-6)])
@pytest.mark.parametrize("shape,alpha", [((0,), 1.0), ((7,), 2.0), ((4, 33, 65), 1.0), ((100003,), -0.5),
                                         ((1 << 20,), 0.75)])
def test_package_runs_in_the_simulator_harness(axpy_harness, tmp_path, dtype, rtol, shape, alpha):
    import ml_dtypes

    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    x = rng.normal(size=shape).astype(np_dtype)
    y = rng.uniform(-2, 2, size=shape).astype(np_dtype)
    x.tofile(tmp_path / "x.bin")
    y.tofile(tmp_path / "y.bin")
    result = harness_run(
        axpy_harness[dtype], tmp_path, "AxpyRelu",
        [{"name": n, "dtype": dtype, "format": "ND", "shape": list(shape), "file": f"{n}.bin"} for n in ("x", "y")],
        [{"name": "z", "dtype": dtype, "format": "ND", "file": "z.bin"}],
        [{"name": "alpha", "type": "float", "value": alpha}],
    )
    assert result["output_shapes"] == {"z": list(shape)}
    padded_bytes = -(-int(np.prod(shape)) * np.dtype(np_dtype).itemsize // 32) * 32  # whole 32-byte blocks
    assert result["block_dim"] == min(48, max(1, -(-padded_bytes // 4096)))  # >= 4 KiB per core, <= 48 AIV
    assert result["workspace_bytes"] == 16 * 1024 * 1024 and result["tiling_bytes"] == 40
    z = np.fromfile(tmp_path / "z.bin", dtype=np_dtype).astype(np.float64).reshape(shape)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    golden = load_golden(INSTANCE).axpy_relu(x=xf, y=yf, alpha=alpha)["z"]
    assert_close_to_golden(z, golden, xf, yf, alpha, np_dtype, rtol)


@needs_sim_harness
def test_generic_package_runs_in_the_simulator_harness(generic_pkg, tmp_path):
    exe = package_harnesses(generic_pkg, [0])["int32"]
    np.arange(64, dtype=np.int32).tofile(tmp_path / "a.bin")
    for name, size in (("out", 64 * 4), ("count", 16 * 4)):
        (tmp_path / f"{name}.bin").write_bytes(b"\xab" * size)
    result = harness_run(
        exe, tmp_path, "GatedPair",
        [{"name": "a", "dtype": "int32", "format": "ND", "shape": [4, 16], "file": "a.bin"},
         {"name": "gate", "dtype": "int32", "format": "ND", "shape": None, "file": None}],
        [{"name": "out", "dtype": "int32", "format": "ND", "file": "out.bin"},
         {"name": "count", "dtype": "int32", "format": "ND", "file": "count.bin"}],
        [{"name": "axis", "value": 1}],
    )
    assert result["output_shapes"] == {"out": [4, 16], "count": [4, 4]}
    assert result["block_dim"] == 1
    assert (np.fromfile(tmp_path / "out.bin", dtype=np.int32) == 0).all()
    assert (np.fromfile(tmp_path / "count.bin", dtype=np.int32) == 0).all()
