"""The `mix` template: what `opkit new --template mix` writes, and that it builds and verifies."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    assert_rendered_text_clean,
    entry_params,
    fresh_copy,
    load_golden,
    opdef_lists,
    own_files,
    package_files,
    syntax_check,
)

from opkit.paths import template_names
from opkit.scaffold.new import new_package
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]
INSTANCE = ROOT / "ops" / "examples" / "matmul_softmax"
CHIP = "ascend910b2"
CASES = ("smoke", "odd_shapes", "multi_core", "wide_rows", "tiny", "peaked", "special_values")


@pytest.fixture(scope="module")
def default_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("default")
    return new_package("matmul_softmax", family="examples", template="mix", cwd=root).path


def test_mix_is_a_template():
    assert "mix" in template_names()


def test_instance_is_exactly_what_the_template_renders(default_pkg):
    assert own_files(INSTANCE) == own_files(default_pkg)
    for rel in sorted(own_files(default_pkg)):
        assert (INSTANCE / rel).read_bytes() == (default_pkg / rel).read_bytes(), (
            f"ops/examples/matmul_softmax/{rel} differs from what "
            "`opkit new matmul_softmax --template mix --family examples` writes; regenerate it")


def test_instance_spec_loads():
    spec = load(INSTANCE)
    assert (spec.name, spec.op_type, spec.family, spec.kernel) == ("matmul_softmax", "MatmulSoftmax", "examples", "mix")
    names = {c.name: c for c in spec.cases}
    assert set(CASES) | {"large"} == set(names)
    assert names["odd_shapes"].shapes == {"x": [77, 200], "w": [200, 130]}
    assert "full" in names["large"].tags and not any("full" in names[c].tags for c in CASES)
    assert spec.dims["N"].max == 12200


def test_file_set_and_clean_text(default_pkg):
    assert own_files(default_pkg) == package_files("matmul_softmax")
    assert_rendered_text_clean(default_pkg)


def test_opdef_entry_and_tiling(default_pkg):
    def_cpp = (default_pkg / "op_host/matmul_softmax_def.cpp").read_text()
    for name in ("x", "w"):
        assert opdef_lists(def_cpp, "Input", name)[1] == ["ge::DT_FLOAT16", "ge::DT_BF16"]
    assert opdef_lists(def_cpp, "Output", "y")[1] == ["ge::DT_FLOAT16", "ge::DT_BF16"]
    cpp = (default_pkg / "op_kernel/matmul_softmax.cpp").read_text()
    assert entry_params(cpp, "matmul_softmax") == ["x", "w", "y", "workspace", "tiling"]
    # The kernel chooses its own launch: a mix kernel of one cube core and two vector cores per block.
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in cpp
    assert "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.mmTiling);" in cpp
    assert cpp.index("REGIST_MATMUL_OBJ") < cpp.index("op.Init(")  # before any InitBuffer
    assert "GetUserWorkspace(workspace)" in cpp
    tiling = (default_pkg / "op_host/matmul_softmax_tiling.cpp").read_text()
    for api in ("GetCoreNumAic()", "GetCoreNumAiv()", "CoreMemType::UB", "matmul_tiling::MultiCoreMatmulTiling",
                "SetSingleShape(", "GetTiling(tiling->mmTiling)", "GetSoftMaxMaxTmpSize(", "GetSoftMaxMinTmpSize(",
                "SoftMaxTilingFunc(", "SetBlockDim", "GetLibApiWorkSpaceSize() + M * stride * ACC_BYTES"):
        assert api in tiling, api
    data = (default_pkg / "op_kernel/matmul_softmax_tiling_data.h").read_text()
    assert "AscendC::tiling::TCubeTiling mmTiling;" in data and "AscendC::tiling::SoftMaxTiling smTiling;" in data


def test_kernel_uses_the_matmul_and_softmax_apis(default_pkg):
    h = (default_pkg / "op_kernel/matmul_softmax.h").read_text()
    for needle in ('#include "lib/matmul_intf.h"', "Matmul<AType, BType, CType, BiasType> mm;",
                   "MatmulType<TPosition::GM, CubeFormat::ND, float>", "GetSubBlockIdx()", "GetTaskRation()",
                   "mm.SetOrgShape(t_.M, t_.N, t_.K, t_.K, t_.rowStride)", "mm.SetTail(blockRows_, t_.N, t_.K)",
                   "CrossCoreSetFlag<1, PIPE_MTE3>(LOGITS_READY)", "CrossCoreWaitFlag(LOGITS_READY)",
                   "mm.IterateAll(", "mm.End();", "SoftMax<float>(in, in, tmp, t_.smTiling, shape)",
                   "SoftMaxShapeInfo shape{n, t_.rowStride, n, t_.N}", "RoundMode::CAST_RINT", "DataCopyPad(",
                   "TBuf<TPosition::VECCALC> tmpBuf_"):
        assert needle in h, needle
    assert "Mmad(" not in h and "Fixpipe(" not in h  # the high-level API, not the cube instructions


def test_golden_numerics(default_pkg):
    g = load_golden(default_pkg)
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(5, 7)), rng.normal(size=(7, 3))
    z = x @ w
    want = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    got = g.matmul_softmax(x, w)["y"]
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    # The row max goes first: logits of 1000 do not overflow.
    np.testing.assert_allclose(g.matmul_softmax(np.array([[1000.0, 999.0]]), np.eye(2))["y"],
                               [[1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))]])
    assert g.flops({"x": [5, 7], "w": [7, 3]}, {}, {}) == 2 * 5 * 3 * 7 + 5 * 5 * 3
    assert g.hbm_bytes({"x": [5, 7], "w": [7, 3]}, {"x": "float16", "w": "float16", "y": "float16"}, {}) == 2 * (35 + 21 + 15)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("column", [0, 1], ids=["float16", "bfloat16"])
def test_kernel_compiles_against_the_simulator(default_pkg, column):
    """The kernel as the build compiles it (the chip's simulator flags, the package's include folders, the column's
    dtype macros), syntax only."""
    r = syntax_check(default_pkg, default_pkg / "op_kernel/matmul_softmax.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
def test_build_and_verify_fp16_and_bf16(cli, tmp_path):
    """Acceptance: `opkit new x --template mix`, `opkit build`, `opkit verify` pass in fp16 and bf16 under the mixed
    profile: tails in M, N and K, many cores, rows several matmul blocks wide, an empty vector core, large logits, NaN and infinities."""
    pkg = new_package("x", template="mix", directory="x", cwd=tmp_path).path
    code, out, err = cli("build", "--soc", CHIP, "-j", "1", cwd=pkg)
    assert code == 0, out + err
    assert "built 2" in out and "op.yaml matches the OpDef" in out
    code, out, err = cli("verify", "--soc", CHIP, "--out", tmp_path / "v", cwd=pkg)
    assert code == 0, out + err
    rows = json.loads((tmp_path / "v" / "results.json").read_text())["cases"]
    seen = {(r["case"], r["dtype"]) for r in rows if r["status"] == "pass"}
    for case in CASES:
        for col in ("float16", "bfloat16"):
            assert (case, col) in seen, (case, col, sorted(seen))
    assert all(r["status"] == "pass" for r in rows)
    assert not any(r.get("warnings") for r in rows), [r["warnings"] for r in rows if r.get("warnings")]
    assert re.search(r"14 passed, 0 failed", out)
    # --sweep: M, K and N of the smoke case over 2^k and 2^k - 1, N up to 8192 (op.yaml's dims allow 12200)
    code, out, err = cli("verify", "--soc", CHIP, "--sweep", "--out", tmp_path / "s", cwd=pkg)
    assert code == 0, out + err
    rows = json.loads((tmp_path / "s" / "results.json").read_text())["cases"]
    swept = {r["case"] for r in rows if r["status"] == "pass" and r["case"].startswith("sweep_")}
    assert {"sweep_smoke_M=1", "sweep_smoke_M=127", "sweep_smoke_K=1", "sweep_smoke_N=7", "sweep_smoke_N=8192"} <= swept
    assert all(r["status"] == "pass" for r in rows)


@pytest.mark.slow
def test_tiling_splits_rows_over_both_vector_cores(cli, tmp_path):
    """700 rows: 16 per vector core, 32 per block, so 22 blocks (cube cores, 44 vector cores); the Matmul of one
    block is [32, 48] x [48, 40] and the softmax holds all 16 rows of a vector core at once."""
    code, out, err = cli("tiling", str(INSTANCE), "--case", "multi_core", "--soc", CHIP, "--dtype", "float16", "--json")
    assert code == 0, out + err
    t = json.loads(out)
    f = t["fields"]
    assert t["block_dim"] == 22
    assert (f["M"], f["N"], f["K"]) == (700, 40, 48)
    assert f["rowsPerCore"] == 16 and f["rowStride"] == 48 and f["rowsPerChunk"] == 16
    mm = f["mmTiling"]
    assert (mm["usedCoreNum"], mm["singleCoreM"], mm["singleCoreN"], mm["singleCoreK"]) == (22, 32, 40, 48)
    assert f["smTiling"]["srcM"] == 16 and f["smTiling"]["srcK"] == 48
    assert t["workspace_sizes"][0] >= 700 * 48 * 4


@pytest.mark.slow
def test_softmax_over_the_padding_fails_verify(cli, tmp_path):
    """The same kernel with the SoftMax reducing over the padded row (oriSrcK = rowStride instead of N): it runs,
    and verify reports wrong numbers on a row whose N is not a multiple of 16."""
    pkg = tmp_path / "mm_bad"
    fresh_copy(INSTANCE, pkg)
    h = pkg / "op_kernel/matmul_softmax.h"
    text = h.read_text()
    assert "SoftMaxShapeInfo shape{n, t_.rowStride, n, t_.N};" in text
    h.write_text(text.replace("SoftMaxShapeInfo shape{n, t_.rowStride, n, t_.N};",
                              "SoftMaxShapeInfo shape{n, t_.rowStride, n, t_.rowStride};"))
    code, out, err = cli("verify", "--soc", CHIP, "-k", "odd_shapes", "--dtype", "float16", "--out", tmp_path / "v",
                         cwd=pkg)
    assert code == 1, out + err
    res = json.loads((tmp_path / "v" / "results.json").read_text())
    assert [r["status"] for r in res["cases"]] == ["fail"]


@pytest.mark.slow
def test_rows_too_wide_for_ub_are_refused(cli, tmp_path):
    """The documented limit: a row of N fp32 logits and its softmax scratch must fit UB. op.yaml's dims say N <= 12200,
    so a wider case is refused with the spec's message; with the limit lifted, N = 12200 still tiles (one row per
    softmax step) and N = 12600 is refused by the tiling itself instead of launching a kernel that overflows UB."""
    pkg = tmp_path / "wide"
    fresh_copy(INSTANCE, pkg)
    spec = pkg / "op.yaml"
    spec.write_text(spec.read_text().replace(
        "precision: {profile: mixed}",
        "  - {name: widest, shapes: {x: [4, 16], w: [16, 12200]}}\n"
        "  - {name: too_wide, shapes: {x: [4, 16], w: [16, 12600]}}\n"
        "precision: {profile: mixed}"))
    code, out, err = cli("tiling", "--case", "too_wide", "--soc", CHIP, "--dtype", "float16", cwd=pkg)
    assert code == 2 and "N = 12600 is outside [1, 12200] (op.yaml dims.N)" in err, out + err
    text = spec.read_text()
    assert "N: {min: 1, max: 12200," in text
    spec.write_text(text.replace("N: {min: 1, max: 12200,", "N: {min: 1,"))
    code, out, err = cli("tiling", "--case", "widest", "--soc", CHIP, "--dtype", "float16", "--json", cwd=pkg)
    assert code == 0, out + err
    assert json.loads(out)["fields"]["rowsPerChunk"] == 1
    code, out, err = cli("tiling", "--case", "too_wide", "--soc", CHIP, "--dtype", "float16", cwd=pkg)
    assert code != 0
    assert "TilingMatmulSoftmax: tiling of MatmulSoftmax on ascend910b2 returned ge::GRAPH_FAILED" in out + err
    assert "Traceback" not in out + err
