"""The `reduce` template: what `opkit new --template reduce` writes, with its own math (RMSNorm) and
from a user's spec, and the committed instance ops/examples/rms_norm."""

from __future__ import annotations

import re
import shutil
import struct
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

from opkit.build import program
from opkit.golden import MARKER, ComputeNotImplemented
from opkit.scaffold.new import new_package
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]
INSTANCE = ROOT / "ops" / "examples" / "rms_norm"
SIM_INCLUDE = ROOT / "opkit" / "sim" / "include"
CHIP = "ascend910b"
UB_910B = 192 * 1024 - 256  # what GetCoreMemSize(UB) reports on 910B
ASC_RESERVED = 8 * 1024  # Ascend C's reserved UB, left free by the kernel
TYPE_SIZE = {"float16": 2, "bfloat16": 2, "float32": 4}


files_of = own_files


@pytest.fixture(scope="module")
def default_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("default")
    return new_package("rms_norm", family="examples", template="reduce", cwd=root).path


USER_SPEC = """\
name: row_stats
family: custom
summary: A user's row reduction whose math opkit cannot know.
socs: [ascend910b, {soc: ascend310p, columns: [float16]}]
kernel: vector
inputs:
  - {name: x, dtypes: [float32, float16], shape: [R, D]}
  - {name: weight, dtypes: [float32, float16], shape: [D], param: optional}
outputs:
  - {name: mean, dtypes: [float32, float32], shape: [R, 1]}
  - {name: argmax, dtypes: [int32, int32], shape: [R]}
attrs:
  - {name: keep_dims, type: bool, default: true}
  - {name: scale, type: float, default: 0.5}
golden: golden.py:row_stats
cases:
  - {name: smoke, shapes: {x: [4, 16], weight: [16]}}
"""


@pytest.fixture(scope="module")
def generic_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generic")
    (root / "spec.yaml").write_text(USER_SPEC)
    return new_package(spec_file=root / "spec.yaml", directory=root / "gen", cwd=root).path


# --- the committed instance -------------------------------------------------------------------


def test_instance_is_exactly_what_the_template_renders(default_pkg):
    assert files_of(INSTANCE) == files_of(default_pkg)
    for rel in sorted(files_of(default_pkg)):
        assert (INSTANCE / rel).read_bytes() == (default_pkg / rel).read_bytes(), (
            f"ops/examples/rms_norm/{rel} differs from what `opkit new rms_norm --family examples --template reduce` "
            "writes; regenerate it")


def test_instance_spec():
    spec = load(INSTANCE)
    assert (spec.name, spec.op_type, spec.family, spec.kernel) == ("rms_norm", "RmsNorm", "examples", "vector")
    assert [p.name for p in spec.inputs] == ["x", "gamma"] and [p.name for p in spec.outputs] == ["y", "rstd"]
    assert spec.outputs[1].dtypes == ("float32",) * 3
    assert [(a.name, a.type, a.default) for a in spec.attrs] == [("epsilon", "float", 1e-6)]
    cases = {c.name: c for c in spec.cases}
    assert {"smoke", "odd_d", "many_short_rows", "long_row", "bf16", "special_values", "empty_rows"} <= set(cases)
    assert cases["odd_d"].shapes["x"][-1] == 1000 and 1000 % 16 != 0
    assert cases["many_short_rows"].shapes["x"] == [4097, 64]
    assert cases["long_row"].shapes["x"] == [1, 8192] and cases["long_row"].columns == (2,)  # float32
    assert cases["bf16"].columns == (1,)
    assert set(cases["special_values"].special["x"]) == {"nan", "inf", "-inf"}
    assert cases["empty_rows"].shapes["x"][0] == 0


# --- the template's own op: RMSNorm ---------------------------------------------------------------


@pytest.mark.parametrize("which", ["default", "generic"])
def test_file_set(which, default_pkg, generic_pkg):
    pkg, op = (default_pkg, "rms_norm") if which == "default" else (generic_pkg, "row_stats")
    assert files_of(pkg) == package_files(op)


@pytest.mark.parametrize("which", ["default", "generic"])
def test_rendered_text_is_clean(which, default_pkg, generic_pkg):
    pkg = default_pkg if which == "default" else generic_pkg
    assert_rendered_text_clean(pkg)


def test_entry_signature_and_dtype_macros(default_pkg):
    cpp = (default_pkg / "op_kernel/rms_norm.cpp").read_text()
    assert entry_params(cpp, "rms_norm") == ["x", "gamma", "y", "rstd", "workspace", "tiling"]
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);" in cpp
    assert "REGISTER_TILING_DEFAULT(RmsNormTilingData);" in cpp
    assert "GET_TILING_DATA_WITH_STRUCT(RmsNormTilingData, tilingData, tiling);" in cpp
    assert "RmsNormKernel::RmsNorm<DTYPE_X> op;" in cpp
    assert "op.Init(x, gamma, y, rstd, tilingData);" in cpp


def test_opdef_matches_the_spec(default_pkg):
    def_cpp = (default_pkg / "op_host/rms_norm_def.cpp").read_text()
    columns = ["ge::DT_FLOAT16", "ge::DT_BF16", "ge::DT_FLOAT"]
    for kind, name, dtypes in (("Input", "x", columns), ("Input", "gamma", columns), ("Output", "y", columns),
                               ("Output", "rstd", ["ge::DT_FLOAT"] * 3)):
        param, got, formats = opdef_lists(def_cpp, kind, name)
        assert (param, got, formats) == ("REQUIRED", dtypes, ["ge::FORMAT_ND"] * 3), name
    order = [def_cpp.index(s) for s in ('Input("x")', 'Input("gamma")', 'Output("y")', 'Output("rstd")')]
    assert order == sorted(order)
    assert 'this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-06);' in def_cpp
    assert re.findall(r'AddConfig\("(\w+)"\)', def_cpp) == ["ascend910b", "ascend910_93"]
    assert "SetInferShape(ge::InferShapeRmsNorm).SetInferDataType(ge::InferDataTypeRmsNorm)" in def_cpp
    assert "this->AICore().SetTiling(optiling::TilingRmsNorm);" in def_cpp
    assert "OP_ADD(RmsNorm);" in def_cpp


def test_infershape_is_written_for_rstd(default_pkg):
    infer = (default_pkg / "op_host/rms_norm_infershape.cpp").read_text()
    assert "*yShape = *xShape;" in infer
    assert "*rstdShape = *xShape;" in infer and "rstdShape->SetDim(dimNum - 1, 1);" in infer
    assert infer.index("*rstdShape = *xShape;") < infer.index("rstdShape->SetDim(dimNum - 1, 1);")
    assert "context->SetOutputDataType(0, context->GetInputDataType(0));" in infer
    assert "context->SetOutputDataType(1, ge::DT_FLOAT);" in infer


def test_tiling_reads_the_call_and_fills_only_declared_fields(default_pkg):
    tiling = (default_pkg / "op_host/rms_norm_tiling.cpp").read_text()
    for api in ("platform_ascendc::PlatformAscendC(context->GetPlatformInfo())", "GetCoreNumAiv()",
                "GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize)", "GetAttrPointer<float>(0)",
                "context->GetTilingData<RmsNormTilingData>()", "context->SetBlockDim(",
                "context->GetWorkspaceSizes(1)", "GetLibApiWorkSpaceSize()",
                '#include "../op_kernel/rms_norm_tiling_data.h"',
                "ASC_RESERVED_UB_BYTES = 8 * 1024", "MAX_COPY_ROWS = 4095"):
        assert api in tiling, api
    assert "tiling->epsilon = (epsilon != nullptr) ? *epsilon : 1e-6f;" in tiling  # the spec's default
    assert "D can be at most" in tiling
    header = (default_pkg / "op_kernel/rms_norm_tiling_data.h").read_text()
    fields = struct_fields(header)
    assert fields == ["rowNum", "formerRows", "tailRows", "formerNum", "rowLength", "rowStride", "tileRows",
                      "epsilon", "avgFactor"]
    assert set(re.findall(r"tiling->(\w+)", tiling)) == set(fields)
    kernel = (default_pkg / "op_kernel/rms_norm.h").read_text()
    assert set(re.findall(r"(?<![\w/])tiling\.(\w+)", kernel)) == set(fields)


def test_kernel_is_a_real_row_reduction(default_pkg):
    kernel = (default_pkg / "op_kernel/rms_norm.h").read_text()
    assert "constexpr int32_t BUFFER_NUM = 2;" in kernel
    for queue, pos in (("inQueueX_", "VECIN"), ("outQueueY_", "VECOUT"), ("outQueueRstd_", "VECOUT")):
        assert f"TQue<TPosition::{pos}, 1> {queue};" in kernel
        assert f"pipe_.InitBuffer({queue}, BUFFER_NUM, " in kernel
        for call in ("AllocTensor", "EnQue", "DeQue", "FreeTensor"):
            assert f"{queue}.{call}" in kernel, (queue, call)
    # rows come in with DataCopyPad, padded with zeros that DataCopyPad itself defines
    zero_padded = "DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(rowStride_ - rowLength_), 0};"
    assert kernel.count(zero_padded) == 2
    assert "DataCopy(" not in kernel  # every GM copy is DataCopyPad: rows need not be whole blocks
    # the reductions count D lanes, never the padding
    assert "WholeReduceSum(sums[r], squares[r * rowStride_], mask, n, 1, 1, rowBlocks);" in kernel
    assert "const int32_t mask = static_cast<int32_t>(rowLength_);" in kernel
    assert "ReduceSum(sums[r], squares[r * rowStride_], work, static_cast<int32_t>(rowLength_));" in kernel
    for api in ("Rsqrt(rstdLocal, rstdLocal, rows8);", "Muls(rstdLocal, rstdLocal, avgFactor_, rows8);",
                "Adds(rstdLocal, rstdLocal, epsilon_, rows8);", "Brcb(",
                "Cast(yLocal, yFloat, RoundMode::CAST_RINT, count);",
                "Cast(xFloat, xLocal, RoundMode::CAST_NONE, count);", "if constexpr (IsSameType<T, float>::value)",
                "if (coreRows_ == 0)"):
        assert api in kernel, api


def ub_bytes(rows: int, d: int, type_size: int) -> int:
    """The UB the kernel allocates for a tile of `rows` rows, counted independently of the tiling code."""
    def up(n: int, k: int) -> int:
        return -(-n // k) * k

    stride = up(d, 32 // type_size)
    tile = rows * stride
    rows8 = up(rows, 8)
    total = 2 * up(tile * type_size, 32) * 2 + 2 * rows8 * 4 + up(stride * type_size, 32) + rows8 * 32
    total += up(-(-d // 64), 8) * 4
    if type_size == 2:
        total += 2 * tile * 4 + stride * 4
    return total


def test_ub_limits_in_the_readme(default_pkg):
    budget = UB_910B - ASC_RESERVED
    limits = {}
    for size in (4, 2):
        limits[size] = max(d for d in range(1, 20000) if ub_bytes(1, d, size) <= budget)
        assert ub_bytes(1, 8192, size) <= budget  # the long_row case fits, in every dtype
    assert limits == {4: 9360, 2: 8512}
    readme = (default_pkg / "README.md").read_text()
    assert "D <= 9360 for float32 and D <= 8512 for float16/bfloat16" in readme


def independent_rms_norm(x: np.ndarray, gamma: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Row by row with math.fsum, a different route from the golden's vectorised NumPy."""
    import math

    rows = x.reshape(-1, x.shape[-1])
    rstd = np.array([1.0 / math.sqrt(math.fsum(v * v for v in row) / len(row) + eps) for row in rows])
    y = rows * rstd[:, None] * gamma[None, :]
    return y.reshape(x.shape), rstd.reshape(x.shape[:-1] + (1,))


def test_golden_numerics(default_pkg):
    golden = load_golden(default_pkg)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4, 1000)) * 3
    gamma = rng.uniform(-2, 2, size=1000)
    out = golden.rms_norm(x=x, gamma=gamma, epsilon=1e-3)
    y, rstd = independent_rms_norm(x, gamma, 1e-3)
    assert out["y"].dtype == np.float64 and out["y"].shape == (3, 4, 1000) and out["rstd"].shape == (3, 4, 1)
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out["rstd"], rstd, rtol=1e-12)
    # epsilon defaults to 1e-6 and matters for tiny rows
    tiny = np.full((1, 4), 1e-4)
    np.testing.assert_allclose(golden.rms_norm(tiny, np.ones(4))["rstd"], [[1 / np.sqrt(1e-8 + 1e-6)]], rtol=1e-12)
    # a known row: x = [3, 4] has mean square 12.5
    r = golden.rms_norm(np.array([[3.0, 4.0]]), np.array([1.0, 2.0]), epsilon=0.0)
    np.testing.assert_allclose(r["y"], [[3 / np.sqrt(12.5), 8 / np.sqrt(12.5)]], rtol=1e-15)
    # special values: NaN poisons its row; inf gives rstd 0, NaN at the inf and 0 elsewhere
    s = np.ones((3, 4))
    s[0, 1] = np.nan
    s[1, 2] = np.inf
    r = golden.rms_norm(s, np.ones(4))
    assert np.isnan(r["y"][0]).all() and np.isnan(r["rstd"][0, 0])
    assert r["rstd"][1, 0] == 0 and np.isnan(r["y"][1, 2]) and (r["y"][1, [0, 1, 3]] == 0).all()
    assert np.isfinite(r["y"][2]).all()
    # no rows at all
    e = golden.rms_norm(np.zeros((0, 64)), np.ones(64))
    assert e["y"].shape == (0, 64) and e["rstd"].shape == (0, 1)
    # cost model
    shapes = {"x": (8, 128), "gamma": (128,), "y": (8, 128), "rstd": (8, 1)}
    dtypes = {"x": "bfloat16", "gamma": "bfloat16", "y": "bfloat16", "rstd": "float32"}
    assert golden.flops(shapes, dtypes, {}) == 4 * 1024 + 3 * 8
    assert golden.hbm_bytes(shapes, dtypes, {}) == 1024 * 4 + 128 * 2 + 8 * 4


def test_other_names_and_summary(tmp_path):
    pkg = new_package("layer_rms", template="reduce", directory="d", cwd=tmp_path, summary="my own words").path
    assert files_of(pkg) == package_files("layer_rms")
    cpp = (pkg / "op_kernel/layer_rms.cpp").read_text()
    assert entry_params(cpp, "layer_rms") == ["x", "gamma", "y", "rstd", "workspace", "tiling"]
    assert "LayerRmsKernel::LayerRms<DTYPE_X> op;" in cpp
    assert "my own words" in (pkg / "README.md").read_text()
    assert "def layer_rms(x, gamma, epsilon=1e-06):" in (pkg / "golden.py").read_text()


# --- a user's spec: generated skeleton ------------------------------------------------------------


def test_generic_entry_opdef_and_infershape(generic_pkg):
    cpp = (generic_pkg / "op_kernel/row_stats.cpp").read_text()
    assert entry_params(cpp, "row_stats") == ["x", "weight", "mean", "argmax", "workspace", "tiling"]
    assert "RowStatsKernel::RowStats<DTYPE_X, DTYPE_WEIGHT, DTYPE_MEAN, DTYPE_ARGMAX> op;" in cpp
    def_cpp = (generic_pkg / "op_host/row_stats_def.cpp").read_text()
    assert opdef_lists(def_cpp, "Input", "weight")[:2] == ("OPTIONAL", ["ge::DT_FLOAT", "ge::DT_FLOAT16"])
    assert opdef_lists(def_cpp, "Output", "argmax")[:2] == ("REQUIRED", ["ge::DT_INT32", "ge::DT_INT32"])
    assert 'this->Attr("keep_dims").AttrType(OPTIONAL).Bool(true);' in def_cpp
    assert 'this->AICore().AddConfig("ascend310p", config);' in def_cpp
    infer = (generic_pkg / "op_host/row_stats_infershape.cpp").read_text()
    assert "meanShape->SetDim(0, xShape->GetDim(0));" in infer and "meanShape->SetDim(1, 1);" in infer
    assert "argmaxShape->SetDimNum(1);" in infer
    assert "context->SetOutputDataType(1, ge::DT_INT32);" in infer
    assert "rstd" not in infer and "rstd" not in (generic_pkg / "op_host/row_stats_tiling.cpp").read_text()
    header = (generic_pkg / "op_kernel/row_stats_tiling_data.h").read_text()
    assert struct_fields(header) == ["meanLength", "argmaxLength", "keep_dims", "scale"]
    kernel = (generic_pkg / "op_kernel/row_stats.h").read_text()
    assert set(re.findall(r"tiling_?\.(\w+)", kernel)) <= set(struct_fields(header))
    assert "--template reduce" in kernel


def test_generic_marks_the_lines_to_write(generic_pkg):
    kernel = (generic_pkg / "op_kernel/row_stats.h").read_text().splitlines()
    marked = [line for line in kernel if MARKER in line]
    assert marked == ["        ZeroFillOutputs();  // opkit: compute not implemented"]
    golden_lines = (generic_pkg / "golden.py").read_text().splitlines()
    marks = [i for i, line in enumerate(golden_lines) if MARKER in line]
    assert len(marks) == 1 and golden_lines[marks[0]].strip() == "# " + MARKER
    assert golden_lines[marks[0] + 1].strip().startswith("raise ComputeNotImplemented(")
    golden = load_golden(generic_pkg)
    with pytest.raises(ComputeNotImplemented):
        golden.row_stats(np.zeros((4, 16)), weight=None, keep_dims=True, scale=0.5)
    readme = (generic_pkg / "README.md").read_text()
    assert "computation not written yet" in readme and "RMSNorm" not in readme and "rstd" not in readme
    assert load(generic_pkg).name == "row_stats"


# --- the C++ against the simulator (when its headers are there) ----------------------------------

needs_sim = pytest.mark.skipif(
    shutil.which("g++") is None or not (SIM_INCLUDE / "kernel_operator.h").is_file(),
    reason="needs g++ and the simulator's kernel_operator.h",
)
CTYPES = {"float16": "half", "bfloat16": "bfloat16_t", "float32": "float"}


@needs_sim
@pytest.mark.parametrize("column", [0, 1, 2], ids=["float16", "bfloat16", "float32"])
def test_template_kernel_compiles_against_the_simulator(default_pkg, column):
    r = syntax_check(default_pkg, default_pkg / "op_kernel/rms_norm.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


@needs_sim
@pytest.mark.parametrize("column", [0, 1], ids=["float32", "float16"])
def test_generic_kernel_compiles_against_the_simulator(generic_pkg, column):
    r = syntax_check(generic_pkg, generic_pkg / "op_kernel/row_stats.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.skipif(shutil.which("g++") is None or not (SIM_INCLUDE / "register" / "op_def_registry.h").is_file(),
                    reason="needs g++ and the simulator's host headers")
@pytest.mark.parametrize("which", ["default", "generic"])
def test_host_sources_compile_against_the_simulator(which, default_pkg, generic_pkg):
    pkg = default_pkg if which == "default" else generic_pkg
    for src in sorted((pkg / "op_host").glob("*.cpp")):
        r = syntax_check(pkg, src, CHIP)
        assert r.returncode == 0, (src.name, r.stderr[-3000:])


# The real tiling and InferShape functions, run on the host: op_host/rms_norm_tiling.cpp and
# rms_norm_infershape.cpp compiled against the smallest stand-ins of the CANN host headers they
# include (shapes, dtypes, attrs, platform), independent of the simulator's own host side.
STUB_OP_DEF = r"""
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
enum DataType { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_BF16 = 27 };
}
namespace fe { class PlatFormInfos; }
namespace gert {
struct Shape {
    std::vector<int64_t> dims;
    size_t GetDimNum() const { return dims.size(); }
    int64_t GetDim(size_t i) const { return dims[i]; }
    void SetDim(size_t i, int64_t v) { dims.at(i) = v; }
    int64_t GetShapeSize() const { int64_t n = 1; for (int64_t d : dims) n *= d; return n; }
};
struct InferShapeContext {
    Shape in[2], out[2];
    const Shape* GetInputShape(size_t i) const { return i < 2 ? &in[i] : nullptr; }
    Shape* GetOutputShape(size_t i) { return i < 2 ? &out[i] : nullptr; }
};
struct InferDataTypeContext {
    ge::DataType in[2] = {}, out[2] = {};
    ge::DataType GetInputDataType(size_t i) const { return in[i]; }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType d) { out[i] = d; return ge::GRAPH_SUCCESS; }
};
struct StorageShape { Shape shape; const Shape& GetStorageShape() const { return shape; } };
struct TensorDesc { ge::DataType dtype; ge::DataType GetDataType() const { return dtype; } };
struct RuntimeAttrs {
    bool given = false;
    float epsilon = 0;
    template <typename T> const T* GetAttrPointer(size_t i) const {
        return (i == 0 && given) ? reinterpret_cast<const T*>(&epsilon) : nullptr;
    }
};
struct TilingContext {
    StorageShape x, gamma;
    TensorDesc xDesc;
    RuntimeAttrs attrs;
    alignas(8) unsigned char tiling[256];
    uint32_t blockDim = 0;
    size_t workspaces[4] = {0, 0, 0, 0};
    const char* GetNodeName() const { return "rms_norm_test"; }
    fe::PlatFormInfos* GetPlatformInfo() const { return nullptr; }
    const StorageShape* GetInputShape(size_t i) const { return i == 0 ? &x : i == 1 ? &gamma : nullptr; }
    const TensorDesc* GetInputDesc(size_t i) const { return i == 0 ? &xDesc : nullptr; }
    const RuntimeAttrs* GetAttrs() const { return &attrs; }
    template <typename T> T* GetTilingData() { return reinterpret_cast<T*>(tiling); }
    void SetBlockDim(uint32_t n) { blockDim = n; }
    size_t* GetWorkspaceSizes(size_t) { return workspaces; }
};
}
"""

STUB_PLATFORM = r"""
#pragma once
#include <cstdint>
namespace fe { class PlatFormInfos; }
namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6 };
inline uint32_t g_coreNum = 48;
inline uint64_t g_ubSize = 196352;
class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos*) {}
    uint32_t GetCoreNumAiv() const { return g_coreNum; }
    void GetCoreMemSize(CoreMemType t, uint64_t& size) const { size = t == CoreMemType::UB ? g_ubSize : 0; }
    uint32_t GetLibApiWorkSpaceSize() const { return 16u << 20; }
};
}
"""

# usage: tiling_driver OUT DTYPE(0|1|27) EPS|- CORES UB GAMMA_DIMS(a,b) X_DIMS...
# writes blockDim (uint32), status (uint32) and the TilingData bytes to OUT.
TILING_DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include "rms_norm_tiling.cpp"

int main(int argc, char** argv)
{
    gert::TilingContext ctx;
    std::memset(ctx.tiling, 0xAB, sizeof(ctx.tiling));  // not zeroed on the NPU either
    ctx.xDesc.dtype = static_cast<ge::DataType>(std::atoi(argv[2]));
    if (std::string(argv[3]) != "-") {
        ctx.attrs.given = true;
        ctx.attrs.epsilon = std::strtof(argv[3], nullptr);
    }
    platform_ascendc::g_coreNum = static_cast<uint32_t>(std::atoi(argv[4]));
    platform_ascendc::g_ubSize = std::strtoull(argv[5], nullptr, 10);
    for (char* p = std::strtok(argv[6], ","); p != nullptr; p = std::strtok(nullptr, ",")) {
        ctx.gamma.shape.dims.push_back(std::atoll(p));
    }
    for (int i = 7; i < argc; ++i) {
        ctx.x.shape.dims.push_back(std::atoll(argv[i]));
    }
    const uint32_t status = optiling::TilingRmsNorm(&ctx);
    FILE* f = std::fopen(argv[1], "wb");
    std::fwrite(&ctx.blockDim, 4, 1, f);
    std::fwrite(&status, 4, 1, f);
    std::fwrite(ctx.tiling, sizeof(RmsNormTilingData), 1, f);
    std::fclose(f);
    return 0;
}
"""

# usage: infer_driver DTYPE X_DIMS...   prints: status y_dims rstd_dims y_dtype rstd_dtype
INFER_DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include "rms_norm_infershape.cpp"

static void Print(const gert::Shape& s)
{
    std::printf(" [");
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        std::printf(i ? ",%lld" : "%lld", static_cast<long long>(s.GetDim(i)));
    }
    std::printf("]");
}

int main(int argc, char** argv)
{
    gert::InferShapeContext shapes;
    for (int i = 2; i < argc; ++i) {
        shapes.in[0].dims.push_back(std::atoll(argv[i]));
    }
    gert::InferDataTypeContext dtypes;
    dtypes.in[0] = dtypes.in[1] = static_cast<ge::DataType>(std::atoi(argv[1]));
    const uint32_t status = ge::InferShapeRmsNorm(&shapes) | ge::InferDataTypeRmsNorm(&dtypes);
    std::printf("%u", status);
    Print(shapes.out[0]);
    Print(shapes.out[1]);
    std::printf(" %d %d\n", static_cast<int>(dtypes.out[0]), static_cast<int>(dtypes.out[1]));
    return 0;
}
"""

TILING_FIELDS = ("rowNum", "formerRows", "tailRows", "formerNum", "rowLength", "rowStride", "tileRows", "epsilon",
                 "avgFactor")
TILING_FORMAT = "<QQQIIIIff"
GE_DTYPE = {"float32": 0, "float16": 1, "bfloat16": 27}


@pytest.fixture(scope="module")
def tiling_driver(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    out = tmp_path_factory.mktemp("tiling")
    (out / "register").mkdir()
    (out / "register" / "op_def_registry.h").write_text(STUB_OP_DEF)
    (out / "tiling" / "platform").mkdir(parents=True)
    (out / "tiling" / "platform" / "platform_ascendc.h").write_text(STUB_PLATFORM)
    (out / "driver.cpp").write_text(TILING_DRIVER)
    (out / "infer.cpp").write_text(INFER_DRIVER)
    # The stubs come before the simulator's host headers of the same names: quoted includes search -iquote first.
    stubs = [out / "register" / "op_def_registry.h", out / "tiling" / "platform" / "platform_ascendc.h"]
    plans = [program.plan_program([out / src], chip=CHIP, opt="-O1", include_dirs=[INSTANCE / "op_host"],
                                  flags=["-Wall", "-Werror", f"-iquote{out}"], deps=stubs, name=name)
             for src, name in (("driver.cpp", "rms_norm_tiling_driver"), ("infer.cpp", "rms_norm_infer_driver"))]
    exe, infer = (p.exe for p in program.build_programs(plans, jobs=1))

    def run(x_shape, dtype="float16", gamma_shape=None, epsilon=None, cores=48, ub=UB_910B):
        gamma_shape = [x_shape[-1]] if gamma_shape is None and x_shape else (gamma_shape or [1])
        data = out / "tiling.bin"
        args = [str(exe), str(data), str(GE_DTYPE[dtype]), "-" if epsilon is None else repr(epsilon), str(cores),
                str(ub), ",".join(str(d) for d in gamma_shape), *(str(d) for d in x_shape)]
        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        raw = data.read_bytes()
        block_dim, status = struct.unpack("<II", raw[:8])
        fields = dict(zip(TILING_FIELDS, struct.unpack(TILING_FORMAT, raw[8:]), strict=True))
        return status, block_dim, fields, raw[8:], p.stderr

    run.infer = infer
    return run


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_infershape_runs(tiling_driver, dtype):
    exe = tiling_driver.infer
    for x_shape, rstd in (([4, 1, 4096], "[4,1,1]"), ([1024], "[1]"), ([0, 64], "[0,1]"), ([2, 3, 5, 7], "[2,3,5,1]")):
        p = subprocess.run([str(exe), str(GE_DTYPE[dtype]), *map(str, x_shape)], capture_output=True, text=True)
        y = "[" + ",".join(map(str, x_shape)) + "]"
        assert p.stdout.split() == ["0", y, rstd, str(GE_DTYPE[dtype]), "0"], (x_shape, p.stdout)
    p = subprocess.run([str(exe), "1"], capture_output=True, text=True)  # a scalar x
    assert p.stdout.split()[0] != "0"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("shape", [[2, 8, 128], [37, 1000], [50, 7], [4097, 64], [1, 8192], [0, 64], [20000, 8],
                                   [1024, 4096], [5]])
def test_tiling_splits_rows_and_fits_the_ub(tiling_driver, dtype, shape):
    status, block_dim, t, _, _ = tiling_driver(shape, dtype, epsilon=0.25)
    assert status == 0
    size = TYPE_SIZE[dtype]
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    d = shape[-1]
    assert (t["rowNum"], t["rowLength"], t["epsilon"]) == (rows, d, 0.25)
    assert t["rowStride"] >= d and (t["rowStride"] * size) % 32 == 0 and t["rowStride"] - d < 32 // size
    assert t["avgFactor"] == np.float32(1.0 / d)
    assert 1 <= block_dim <= max(1, min(48, rows))
    assert t["formerRows"] == t["tailRows"] + 1 and t["formerNum"] < block_dim
    assert t["formerNum"] * t["formerRows"] + (block_dim - t["formerNum"]) * t["tailRows"] == rows
    largest = t["formerRows"] if t["formerNum"] else t["tailRows"]
    assert 1 <= t["tileRows"] <= max(1, min(largest, 4095))
    budget = UB_910B - ASC_RESERVED
    assert ub_bytes(t["tileRows"], d, size) <= budget
    if t["tileRows"] < min(largest, 4095):  # as many rows as fit
        assert ub_bytes(t["tileRows"] + 1, d, size) > budget


def test_tiling_uses_few_cores_for_small_inputs_and_the_default_epsilon(tiling_driver):
    status, block_dim, t, _, _ = tiling_driver([3, 100], "float32")
    assert status == 0 and block_dim == 1 and t["tileRows"] == 3 and t["epsilon"] == np.float32(1e-6)
    status, block_dim, t, _, _ = tiling_driver([4097, 64], "float16", cores=20)
    assert status == 0 and block_dim == 20 and t["formerNum"] == 4097 % 20


@pytest.mark.parametrize("dtype,limit", [("float32", 9360), ("float16", 8512), ("bfloat16", 8512)])
def test_tiling_refuses_a_row_that_does_not_fit_and_says_the_limit(tiling_driver, dtype, limit):
    status, _, _, _, err = tiling_driver([2, limit], dtype)
    assert status == 0
    status, _, _, _, err = tiling_driver([2, limit + 100], dtype)
    assert status != 0
    assert f"D = {limit + 100} {dtype} elements" in err and f"D can be at most {limit} for {dtype}" in err
    assert "rms_norm_test" in err  # the node is named


@pytest.mark.parametrize("x_shape,gamma_shape,message", [
    ([4, 16], [15], "gamma must have shape [16], the last dim of x"),
    ([4, 16], [4, 16], "gamma must have shape [16]"),
    ([4, 0], [0], "the last dim of x is 0"),
    ([], [1], "x is a scalar"),
])
def test_tiling_refuses_bad_shapes(tiling_driver, x_shape, gamma_shape, message):
    status, _, _, _, err = tiling_driver(x_shape, gamma_shape=gamma_shape)
    assert status != 0 and message in err


# The kernel in the simulator, as a CANN user's CPU-debug driver runs it: GmAlloc the tensors,
# ICPU_RUN_KF the entry with the tiling the real tiling function wrote. Inputs come from opkit's
# own case generator; outputs are compared with the golden under the spec's precision profile.
KERNEL_DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "tikicpulib.h"
#include "rms_norm.cpp"

static std::vector<unsigned char> Read(const char* path)
{
    std::vector<unsigned char> v;
    FILE* f = std::fopen(path, "rb");
    for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) {
        v.push_back(static_cast<unsigned char>(c));
    }
    std::fclose(f);
    return v;
}

static uint8_t* Gm(const std::vector<unsigned char>& v, size_t bytes)
{
    bytes = v.size() > bytes ? v.size() : bytes;
    auto* p = static_cast<uint8_t*>(AscendC::GmAlloc(bytes > 0 ? bytes : 1));
    if (!v.empty()) {
        std::memcpy(p, v.data(), v.size());
    }
    return p;
}

static void Write(const char* path, const uint8_t* p, size_t bytes)
{
    FILE* f = std::fopen(path, "wb");
    std::fwrite(p, 1, bytes, f);
    std::fclose(f);
}

// usage: kernel_driver TILING X GAMMA Y RSTD Y_BYTES RSTD_BYTES
int main(int argc, char** argv)
{
    const std::vector<unsigned char> t = Read(argv[1]);
    uint32_t blockDim = 0;
    std::memcpy(&blockDim, t.data(), 4);
    const std::vector<unsigned char> tilingBytes(t.begin() + 8, t.end());
    const size_t yBytes = std::strtoull(argv[6], nullptr, 10);
    const size_t rstdBytes = std::strtoull(argv[7], nullptr, 10);
    uint8_t* x = Gm(Read(argv[2]), yBytes);
    uint8_t* gamma = Gm(Read(argv[3]), 0);
    uint8_t* y = Gm({}, yBytes);
    uint8_t* rstd = Gm({}, rstdBytes);
    uint8_t* workspace = Gm({}, 16u << 20);
    uint8_t* tiling = Gm(tilingBytes, tilingBytes.size());
    AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
    ICPU_RUN_KF(rms_norm, blockDim, x, gamma, y, rstd, workspace, tiling);
    Write(argv[4], y, yBytes);
    Write(argv[5], rstd, rstdBytes);
    return 0;
}
"""


@pytest.fixture(scope="module")
def kernel_drivers():
    """dtype -> the CPU-debug driver of the instance's kernel for that dtype column (cached by content)."""
    if shutil.which("g++") is None or not (SIM_INCLUDE / "tikicpulib.h").is_file():
        pytest.skip("needs g++ and the simulator's tikicpulib.h")
    driver = program.write_source(KERNEL_DRIVER, "rms_norm_kernel_driver")
    plans = {}
    for dtype, ctype in CTYPES.items():
        defines = [f"DTYPE_X={ctype}", f"DTYPE_GAMMA={ctype}", f"DTYPE_Y={ctype}", "DTYPE_RSTD=float"]
        plans[dtype] = program.plan_program([driver], chip=CHIP, opt="-O1", include_dirs=[INSTANCE / "op_kernel"],
                                            defines=defines, name=f"rms_norm_run_{ctype}")
    built = program.build_programs(list(plans.values()), jobs=1)
    return {dtype: p.exe for dtype, p in zip(plans, built, strict=True)}


def instance_runs():
    spec = load(INSTANCE)
    for case in spec.cases:
        if "full" in case.tags:
            continue
        for column in case.columns:
            yield pytest.param(case.name, column, id=f"{case.name}-{spec.column_label(column)}")


@pytest.mark.parametrize("case_name,column", list(instance_runs()))
def test_instance_cases_pass_in_the_simulator(kernel_drivers, tiling_driver, tmp_path, case_name, column):
    from opkit.run.inputs import make_inputs
    from opkit.verify.compare import compare
    from opkit.verify.golden import run_golden

    spec = load(INSTANCE)
    case = next(c for c in spec.cases if c.name == case_name)
    dtype = spec.inputs[0].dtypes[column]
    exe = kernel_drivers[dtype]

    inputs = make_inputs(spec, case, column)
    x, gamma = inputs["x"], inputs["gamma"]
    epsilon = case.attrs.get("epsilon", 1e-6)
    status, block_dim, _, tiling_bytes, err = tiling_driver(list(x.shape), dtype, epsilon=epsilon)
    assert status == 0, err
    tiling_bin = tmp_path / "tiling.bin"
    tiling_bin.write_bytes(struct.pack("<II", block_dim, 0) + tiling_bytes)
    for name, arr in (("x", x), ("gamma", gamma)):
        (tmp_path / f"{name}.bin").write_bytes(np.ascontiguousarray(arr).tobytes())
    rows = x.size // x.shape[-1]
    y_bytes, rstd_bytes = x.nbytes, rows * 4
    args = [str(exe), str(tiling_bin), str(tmp_path / "x.bin"), str(tmp_path / "gamma.bin"), str(tmp_path / "y.bin"),
            str(tmp_path / "rstd.bin"), str(y_bytes), str(rstd_bytes)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "error" not in r.stderr and "warning" not in r.stderr, r.stderr[-3000:]

    golden = run_golden(spec, case, inputs)
    y = np.frombuffer((tmp_path / "y.bin").read_bytes(), dtype=x.dtype).reshape(x.shape)
    rstd = np.frombuffer((tmp_path / "rstd.bin").read_bytes(), dtype=np.float32).reshape(golden["rstd"].shape)
    for name, actual in (("y", y), ("rstd", rstd)):
        out_dtype = spec.outputs[0 if name == "y" else 1].dtypes[column]
        result = compare(name, actual, golden[name], out_dtype, spec.precision.get("profile", "mixed"))
        assert result.passed, (name, result)
