"""The `vector` template: what `opkit new` writes, with its own math and from a user's spec."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opkit.golden import MARKER, ComputeNotImplemented
from opkit.scaffold.new import new_package
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]
INSTANCE = ROOT / "ops" / "examples" / "axpy_relu"
SIM_INCLUDE = ROOT / "opkit" / "sim" / "include"


def package_files(op: str) -> set[str]:
    """The file set of design.md §3 for an operator package."""
    return {
        "op.yaml", "golden.py", "CMakeLists.txt", "README.md",
        f"op_host/{op}_def.cpp", f"op_host/{op}_infershape.cpp", f"op_host/{op}_tiling.cpp",
        f"op_kernel/{op}_tiling_data.h", f"op_kernel/{op}.h", f"op_kernel/{op}.cpp",
    }


def files_of(path: Path) -> set[str]:
    return {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def load_golden(pkg: Path):
    spec = importlib.util.spec_from_file_location(f"golden_{pkg.name}_{id(pkg)}", pkg / "golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry_params(cpp: str, op: str) -> list[str]:
    m = re.search(r'extern "C" __global__ __aicore__ void ' + op + r"\(([^)]*)\)", cpp)
    assert m, "no kernel entry found"
    params = [p.strip() for p in m.group(1).split(",")]
    assert all(p.startswith("GM_ADDR ") for p in params)
    return [p.split()[1] for p in params]


def opdef_lists(def_cpp: str, kind: str, name: str) -> tuple[str, list[str], list[str]]:
    """ParamType, DataType list and Format list of one Input/Output in the OpDef constructor."""
    m = re.search(r"this->" + kind + r'\("' + name + r'"\)\s*\.ParamType\((\w+)\)\s*\.DataType\(\{([^}]*)\}\)'
                  r"\s*\.Format\(\{([^}]*)\}\)", def_cpp)
    assert m, f"{kind} {name} not registered"
    return m.group(1), [s.strip() for s in m.group(2).split(",")], [s.strip() for s in m.group(3).split(",")]


def struct_fields(header: str) -> list[str]:
    body = re.search(r"struct \w+TilingData \{(.*?)\};", header, re.S).group(1)
    return re.findall(r"^\s*(?:u?int\d+_t|float)\s+(\w+);", body, re.M)


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
    for path in sorted(p for p in pkg.rglob("*") if p.is_file()):
        text = path.read_text()
        rel = path.relative_to(pkg)
        if rel.name != "op.yaml":
            assert "{{" not in text and "{%" not in text and "cookiecutter" not in text, rel
        assert "\t" not in text, rel
        assert text.endswith("\n") and not text.endswith("\n\n"), rel
        blank_run = "\n\n\n\n" if path.suffix == ".py" else "\n\n\n"  # PEP 8 keeps two between functions
        assert blank_run not in text, f"{rel}: runs of blank lines"
        for n, line in enumerate(text.splitlines(), 1):
            assert line == line.rstrip(), f"{rel}:{n}: trailing whitespace"
            if path.suffix in (".cpp", ".h") and line.strip():
                indent = len(line) - len(line.lstrip(" "))
                assert indent % 4 == 0, f"{rel}:{n}: indentation of {indent}"


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


def syntax_check(source: Path, defines: dict[str, str]) -> subprocess.CompletedProcess:
    cmd = ["g++", "-std=c++17", "-fsyntax-only", f"-I{SIM_INCLUDE}", *(f"-D{k}={v}" for k, v in defines.items()),
           str(source)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@needs_sim
@pytest.mark.parametrize("ctype", ["half", "bfloat16_t", "float"])
def test_template_kernel_compiles_against_the_simulator(default_pkg, ctype):
    r = syntax_check(default_pkg / "op_kernel/axpy_relu.cpp", {"DTYPE_X": ctype, "DTYPE_Y": ctype, "DTYPE_Z": ctype})
    assert r.returncode == 0, r.stderr[-3000:]


@needs_sim
@pytest.mark.parametrize("column", [("int32_t", "int32_t", "int32_t", "int32_t"), ("half", "half", "half", "int32_t")])
def test_generic_kernel_compiles_against_the_simulator(generic_pkg, column):
    names = ("DTYPE_A", "DTYPE_GATE", "DTYPE_OUT", "DTYPE_COUNT")
    r = syntax_check(generic_pkg / "op_kernel/gated_pair.cpp", dict(zip(names, column, strict=True)))
    assert r.returncode == 0, r.stderr[-3000:]


# --- the template kernel run in the simulator, against the golden --------------------------------

needs_sim_runtime = pytest.mark.skipif(
    shutil.which("g++") is None or not (SIM_INCLUDE / "tikicpulib.h").is_file(),
    reason="needs g++ and the simulator's CPU-debug entry points (tikicpulib.h)",
)

# A CPU-debug driver as a CANN user writes one: GmAlloc the tensors, ICPU_RUN_KF the entry.
# Inputs come from a fixed formula so that Python can rebuild them; x, y and z go back as float32.
HARNESS = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "tikicpulib.h"
#include "axpy_relu.cpp"

int main(int argc, char** argv)
{
    AxpyReluTilingData td{};
    td.totalLength = strtoull(argv[1], nullptr, 10);
    td.formerLength = strtoull(argv[2], nullptr, 10);
    td.tailLength = strtoull(argv[3], nullptr, 10);
    td.formerNum = static_cast<uint32_t>(atoi(argv[4]));
    td.tileLength = static_cast<uint32_t>(atoi(argv[5]));
    td.alpha = static_cast<float>(atof(argv[6]));
    const int blockDim = atoi(argv[7]);
    const uint64_t n = td.totalLength;
    const size_t bytes = (n > 0 ? n : 1) * sizeof(DTYPE_X);
    auto* x = static_cast<DTYPE_X*>(AscendC::GmAlloc(bytes));
    auto* y = static_cast<DTYPE_X*>(AscendC::GmAlloc(bytes));
    auto* z = static_cast<DTYPE_X*>(AscendC::GmAlloc(bytes));
    auto* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(32u << 20));
    auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(td)));
    std::memcpy(tiling, &td, sizeof(td));
    for (uint64_t i = 0; i < n; ++i) {
        x[i] = static_cast<DTYPE_X>(static_cast<float>(static_cast<int64_t>((i * 7919u) % 2001u) - 1000) / 97.0f);
        y[i] = static_cast<DTYPE_X>(static_cast<float>(static_cast<int64_t>((i * 104729u) % 1999u) - 999) / 89.0f);
    }
    AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
    ICPU_RUN_KF(axpy_relu, blockDim, (uint8_t*)x, (uint8_t*)y, (uint8_t*)z, workspace, tiling);
    FILE* f = std::fopen(argv[8], "wb");
    for (DTYPE_X* t : {x, y, z}) {
        for (uint64_t i = 0; i < n; ++i) {
            const float v = static_cast<float>(t[i]);
            std::fwrite(&v, sizeof(v), 1, f);
        }
    }
    std::fclose(f);
    return 0;
}
"""


def mirror_tiling(n: int, type_size: int, cores: int = 48, ub: int = 192 * 1024 - 256) -> dict[str, int]:
    """The split that op_host/axpy_relu_tiling.cpp computes (kept in step with it by hand)."""
    align = 32 // type_size
    blocks = -(-n // align)
    used = max(1, min(cores, -(-blocks * 32 // 4096)))
    base, former = divmod(blocks, used)
    former_len, tail_len = (base + 1) * align, base * align
    per_elem = 2 * 3 * type_size + (8 if type_size < 4 else 0)
    tile = (ub - 8 * 1024) // per_elem // 64 * 64
    tile = min(tile, -(-(former_len if former else tail_len) // 64) * 64)
    return {"former_len": former_len, "tail_len": tail_len, "former": former, "tile": tile, "used": used}


def test_mirror_tiling_uses_the_constants_of_the_tiling_source():
    tiling = (INSTANCE / "op_host/axpy_relu_tiling.cpp").read_text()
    constants = dict(re.findall(r"constexpr uint64_t (\w+) = ([^;]+);", tiling))
    assert constants == {"BLOCK_BYTES": "32", "TILE_ALIGN": "64", "BUFFER_NUM": "2", "QUEUE_TENSORS": "3",
                         "FLOAT_TEMPS": "2", "MIN_BYTES_PER_CORE": "4096", "ASC_RESERVED_UB_BYTES": "8 * 1024"}
    t = mirror_tiling(100003, 2)
    assert (t["used"], t["former"], t["former_len"], t["tail_len"], t["tile"]) == (48, 11, 2096, 2080, 2112)
    assert mirror_tiling(3_000_001, 2)["tile"] == 9408 and mirror_tiling(3_000_001, 4)["tile"] == 7808
    assert mirror_tiling(0, 4) == {"former_len": 8, "tail_len": 0, "former": 0, "tile": 0, "used": 1}


@pytest.fixture(scope="module")
def sim_binaries(tmp_path_factory):
    out = tmp_path_factory.mktemp("simrun")
    (out / "harness.cpp").write_text(HARNESS)
    kernel_dir = INSTANCE / "op_kernel"
    built = {}
    for ctype in ("half", "bfloat16_t", "float"):
        exe = out / f"run_{ctype}"
        cmd = ["g++", "-std=c++17", "-O1", f"-I{SIM_INCLUDE}", f"-I{kernel_dir}", f"-DDTYPE_X={ctype}",
               f"-DDTYPE_Y={ctype}", f"-DDTYPE_Z={ctype}", str(out / "harness.cpp"), "-o", str(exe), "-pthread"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        built[ctype] = (exe, r)
    return built


@needs_sim_runtime
@pytest.mark.parametrize("ctype,dtype,rtol", [("half", "float16", 1e-3), ("bfloat16_t", "bfloat16", 8e-3),
                                              ("float", "float32", 1e-6)])
@pytest.mark.parametrize("n,alpha", [(0, 1.0), (7, 2.0), (2048, 1.0), (4099, -0.5), (100003, -0.5)])
def test_template_kernel_runs_in_the_simulator(sim_binaries, tmp_path, ctype, dtype, rtol, n, alpha):
    import ml_dtypes

    exe, build = sim_binaries[ctype]
    assert build.returncode == 0, build.stderr[-3000:]
    size = {"float16": 2, "bfloat16": 2, "float32": 4}[dtype]
    t = mirror_tiling(n, size)
    if n > 0:  # the shares cover N exactly, in whole blocks except the last core's
        assert t["former"] * t["former_len"] + (t["used"] - t["former"]) * t["tail_len"] >= n
        assert t["former"] * t["former_len"] + (t["used"] - t["former"]) * t["tail_len"] - n < 32 // size
    data = tmp_path / "out.bin"
    args = [str(exe), str(n), str(t["former_len"]), str(t["tail_len"]), str(t["former"]), str(t["tile"]),
            repr(alpha), str(t["used"]), str(data)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "error" not in r.stderr, r.stderr[-3000:]
    x, y, z = np.fromfile(data, dtype=np.float32).astype(np.float64).reshape(3, n)
    golden = load_golden(INSTANCE).axpy_relu(x=x, y=y, alpha=alpha)["z"]
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    expected = golden.astype(np_dtype).astype(np.float64)  # the golden rounded to the output dtype
    np.testing.assert_allclose(z, expected, rtol=rtol, atol=0)
    if n:
        assert (z == 0).any() and (z > 0).any()
