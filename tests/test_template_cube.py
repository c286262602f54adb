"""The `cube` template: what `opkit new --template cube` writes, and that it builds and verifies."""

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
    load_golden,
    opdef_lists,
    own_files,
    package_files,
    syntax_check,
)

from opkit.scaffold.new import new_package
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]
INSTANCE = ROOT / "ops" / "examples" / "matmul_bias_act"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def default_pkg(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("default")
    return new_package("matmul_bias_act", family="examples", template="cube", cwd=root).path


def test_instance_is_exactly_what_the_template_renders(default_pkg):
    assert own_files(INSTANCE) == own_files(default_pkg)
    for rel in sorted(own_files(default_pkg)):
        assert (INSTANCE / rel).read_bytes() == (default_pkg / rel).read_bytes(), (
            f"ops/examples/matmul_bias_act/{rel} differs from what "
            "`opkit new matmul_bias_act --template cube --family examples` writes; regenerate it")


def test_instance_spec_loads():
    spec = load(INSTANCE)
    assert (spec.name, spec.op_type, spec.family, spec.kernel) == ("matmul_bias_act", "MatmulBiasAct", "examples", "cube")
    names = {c.name: c for c in spec.cases}
    assert names["odd_shapes"].shapes == {"x": [77, 200], "w": [200, 130], "bias": [130]}
    assert names["large_k"].shapes["x"] == [256, 8192]


def test_file_set_and_clean_text(default_pkg):
    assert own_files(default_pkg) == package_files("matmul_bias_act")
    assert_rendered_text_clean(default_pkg)


def test_opdef_entry_and_tiling(default_pkg):
    spec = load(default_pkg)
    def_cpp = (default_pkg / "op_host/matmul_bias_act_def.cpp").read_text()
    for name, want in (("x", ["ge::DT_FLOAT16", "ge::DT_BF16"]), ("w", ["ge::DT_FLOAT16", "ge::DT_BF16"]),
                       ("bias", ["ge::DT_FLOAT", "ge::DT_FLOAT"])):
        assert opdef_lists(def_cpp, "Input", name)[1] == want
    assert opdef_lists(def_cpp, "Output", "y")[1] == ["ge::DT_FLOAT16", "ge::DT_BF16"]
    assert 'this->Attr("relu").AttrType(OPTIONAL).Bool(true);' in def_cpp
    assert [p.name for p in spec.inputs] == ["x", "w", "bias"]
    cpp = (default_pkg / "op_kernel/matmul_bias_act.cpp").read_text()
    assert entry_params(cpp, "matmul_bias_act") == ["x", "w", "bias", "y", "workspace", "tiling"]
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);" in cpp
    tiling = (default_pkg / "op_host/matmul_bias_act_tiling.cpp").read_text()
    for api in ("GetCoreNumAic()", "CoreMemType::L1", "CoreMemType::L0_A", "CoreMemType::L0_B", "CoreMemType::L0_C",
                "SetBlockDim", "GetLibApiWorkSpaceSize()"):
        assert api in tiling, api


def test_kernel_uses_the_cube_instructions(default_pkg):
    h = (default_pkg / "op_kernel/matmul_bias_act.h").read_text()
    for needle in ("Nd2NzParams(", "LoadData(", "LoadData2DParams bRow(0, nBlocks, kcBlocks, 0, 0, true, 0)", "Mmad(c, a2, b2, bias, mmad)",
                   "mmad.cmatrixInitVal = false", "Fixpipe(", "QuantMode_t::F322BF16", "TQue<TPosition::CO1, 1>",
                   "TQue<TPosition::C2, 1>"):
        assert needle in h, needle
    assert "Matmul<" not in h  # the low-level path, not the high-level API


def test_golden_numerics(default_pkg):
    g = load_golden(default_pkg)
    rng = np.random.default_rng(1)
    x, w, b = rng.normal(size=(5, 7)), rng.normal(size=(7, 3)), rng.normal(size=3)
    lin = x @ w + b
    np.testing.assert_allclose(g.matmul_bias_act(x, w, b, relu=False)["y"], lin)
    np.testing.assert_allclose(g.matmul_bias_act(x, w, b)["y"], np.maximum(lin, 0))
    assert g.flops({"x": [5, 7], "w": [7, 3], "bias": [3]}, {}, {}) == 2 * 5 * 3 * 7 + 2 * 5 * 3


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("column", [0, 1], ids=["float16", "bfloat16"])
def test_kernel_compiles_against_the_simulator(default_pkg, column):
    """The kernel as the build compiles it (the chip's simulator flags, the package's include folders, the column's
    dtype macros), syntax only."""
    r = syntax_check(default_pkg, default_pkg / "op_kernel/matmul_bias_act.cpp", CHIP, column)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
def test_build_and_verify_fp16_and_bf16(cli, tmp_path):
    """Acceptance: `opkit new mm --template cube`, `opkit build`, `opkit verify` pass in fp16 and bf16 under
    the mixed profile, the odd shapes (77 x 200 @ 200 x 130) and K = 8192 included."""
    pkg = new_package("mm", template="cube", directory="mm", cwd=tmp_path).path
    code, out, err = cli("build", "--soc", CHIP, cwd=pkg)
    assert code == 0, out + err
    assert "built 2" in out and "op.yaml matches the OpDef" in out
    code, out, err = cli("verify", "--soc", CHIP, "--profile", "mixed", "--out", tmp_path / "v", cwd=pkg)
    assert code == 0, out + err
    res = json.loads((tmp_path / "v" / "results.json").read_text())
    rows = res["cases"]
    seen = {(r["case"], r["dtype"]) for r in rows if r["status"] == "pass"}
    for case in ("smoke", "odd_shapes", "multi_core", "linear", "tiny", "large_k"):
        for col in ("float16-float32", "bfloat16-float32"):
            assert (case, col) in seen, (case, col, sorted(seen))
    assert all(r["status"] == "pass" for r in rows)
    assert re.search(r"12 passed, 0 failed", out)


@pytest.mark.slow
def test_wrong_fractal_layout_fails_verify(cli, tmp_path):
    """The same kernel with w's fractals loaded untransposed: it runs, and verify reports wrong numbers."""
    pkg = tmp_path / "mm_bad"
    shutil.copytree(INSTANCE, pkg)
    h = pkg / "op_kernel/matmul_bias_act.h"
    text = h.read_text()
    assert "kcBlocks, 0, 0, true, 0);  // true: transpose each fractal" in text
    h.write_text(text.replace("kcBlocks, 0, 0, true, 0);  // true: transpose each fractal", "kcBlocks, 0, 0, false, 0);"))
    code, out, err = cli("verify", "--soc", CHIP, "-k", "smoke", "--dtype", "float16", "--out", tmp_path / "v", cwd=pkg)
    assert code == 1, out + err
    res = json.loads((tmp_path / "v" / "results.json").read_text())
    assert [r["status"] for r in res["cases"]] == ["fail"]
