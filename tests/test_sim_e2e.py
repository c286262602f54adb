"""End to end on a machine with only a C++ compiler: opkit new -> build -> verify -> run.

These tests compile real harnesses (host code, kernel and simulator), so they share one package
per module and select few cases.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from opkit.scaffold.new import new_package

pytestmark = pytest.mark.slow
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("e2e")
    return new_package("demo", directory="D", cwd=root).path


def test_build_then_nothing_to_rebuild(cli, demo):
    code, out, err = cli("build", "--soc", CHIP, cwd=demo)
    assert code == 0, out + err
    assert "built 3, up to date 0" in out and "op.yaml matches the OpDef" in out
    code, out, err = cli("build", "--soc", CHIP, cwd=demo)
    assert code == 0 and "built 0, up to date 3" in out


def test_verify_passes_and_writes_reports(cli, demo, tmp_path):
    junit = tmp_path / "r.xml"
    code, out, err = cli("verify", "-k", "*t*", "--junit", junit, "--out", tmp_path / "v", cwd=demo)
    assert code == 0, out + err
    doc = json.loads((tmp_path / "v" / "results.json").read_text())
    names = {(c["case"], c["dtype"]) for c in doc["cases"]}
    assert {("odd_tail", "float16"), ("odd_tail", "bfloat16"), ("tiny", "float32"), ("multi_dim", "bfloat16")} <= names
    assert doc["summary"]["pass"] == len(doc["cases"]) and doc["summary"]["fail"] == 0
    assert junit.read_text().count("<testcase") == len(doc["cases"])
    n = len(doc["cases"])
    assert f"[1/{n}] pass demo::" in out and f"[{n}/{n}] pass demo::" in out  # progress, run by run
    assert "thresholds: mixed (float16): rtol=0.000976562, atol=0.000976562" in out  # under the table
    trace = json.loads(Path(doc["cases"][0]["trace"]).read_text())
    pipes = {p for core in trace["cores"] for p in core["pipes"]}
    assert {"MTE2", "V", "MTE3"} <= pipes and trace["blocks"] == len(trace["cores"])


def test_run_on_a_case_and_on_user_data(cli, demo, tmp_path):
    code, out, err = cli("run", "demo", "--case", "tiny", "--dtype", "float32", "--out", tmp_path / "t.npz",
                         cwd=demo.parent)
    assert code == 0, out + err
    data = np.load(tmp_path / "t.npz")
    assert np.allclose(data["z"], np.maximum(data["x"] + 2.0 * data["y"], 0), rtol=1e-6)
    x = np.linspace(-3, 3, 1000).astype(ml_dtypes.bfloat16)
    y = np.linspace(2, -2, 1000).astype(ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", x=x.view(np.uint16), y=y.view(np.uint16))
    code, out, err = cli("run", str(demo), "--inputs", tmp_path / "in.npz", "--attr", "alpha=0.5",
                         "--out", tmp_path / "o.npz")
    assert code == 0, out + err
    z = np.load(tmp_path / "o.npz")["z"].view(ml_dtypes.bfloat16).astype(np.float64)
    want = np.maximum(x.astype(np.float64) + 0.5 * y.astype(np.float64), 0).astype(ml_dtypes.bfloat16)
    assert np.array_equal(z, want.astype(np.float64))
    code, _, err = cli("run", str(demo), "--inputs", tmp_path / "in.npz", "--out", tmp_path / "o.npz")
    assert code == 0, err  # opkit wrote o.npz and nobody changed it: replaced
    (tmp_path / "o.npz").write_bytes(b"someone else's")
    code, _, err = cli("run", str(demo), "--inputs", tmp_path / "in.npz", "--out", tmp_path / "o.npz")
    assert code == 2 and "was not written by opkit" in err and "--force" in err
    code, _, err = cli("run", str(demo), "--inputs", tmp_path / "in.npz", "--attr", "beta=1", "--out",
                       tmp_path / "o2.npz")
    assert code == 2 and "has no attr 'beta'" in err


def test_op_yaml_that_disagrees_with_the_opdef_is_an_error_with_a_diff(cli, demo, tmp_path):
    pkg = tmp_path / "demo"
    shutil.copytree(demo, pkg)
    spec = pkg / "op.yaml"
    spec.write_text(spec.read_text().replace("default: 1.0", "default: 2.0"))
    code, out, err = cli("verify", "-k", "tiny", "--dtype", "float32", "--out", tmp_path / "v", cwd=pkg)
    assert code == 1
    assert "op.yaml and the OpDef registered in op_host/ disagree" in out
    assert "- attr alpha.default: 2.0" in out and "+ attr alpha.default: 1.0" in out


def test_compiler_errors_point_at_the_users_file(cli, demo, tmp_path):
    pkg = tmp_path / "demo"
    shutil.copytree(demo, pkg)
    header = pkg / "op_kernel" / "demo.h"
    lines = header.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "Relu(" in line)
    lines[at] = lines[at].replace("Relu(", "Reluu(")
    header.write_text("\n".join(lines) + "\n")
    code, out, err = cli("verify", "-k", "tiny", "--dtype", "float32", "--out", tmp_path / "v", cwd=pkg)
    assert code == 1
    assert f"op_kernel/demo.h:{at + 1}:" in out and "Reluu" in out


def test_generic_package_builds_and_says_compute_not_implemented(cli, tmp_path):
    spec_file = tmp_path / "s.yaml"
    spec_file.write_text("""
name: my_gate
family: custom
socs: [ascend910b]
kernel: vector
inputs: [{name: a, dtypes: [float32]}, {name: g, dtypes: [float32], param: optional}]
outputs: [{name: b, dtypes: [float32]}]
attrs: [{name: axis, type: int, default: -1}]
golden: golden.py:my_gate
cases: [{name: smoke, shapes: {a: [64, 3]}}]
""")
    pkg = new_package(spec_file=spec_file, directory="out", cwd=tmp_path).path
    code, out, err = cli("build", cwd=pkg)
    assert code == 0, out + err
    code, out, err = cli("verify", "--out", tmp_path / "v", cwd=pkg)
    assert code == 1
    assert "compute not implemented: op_kernel/my_gate.h:" in out and "golden.py:" in out


def test_verify_perf_models_each_run(cli, demo, tmp_path):
    code, out, err = cli("verify", "-k", "odd_tail", "--dtype", "float16", "--perf", "--out", tmp_path / "v", cwd=demo)
    assert code == 0, out + err
    assert "modelled" in out
    (case,) = json.loads((tmp_path / "v" / "results.json").read_text())["cases"]
    perf = case["perf"]
    assert perf["label"] == "modelled" and perf["chip"] == CHIP
    assert perf["modelled_us"] > perf["steady_us"] > 0 and perf["bound_us"] > 0
    assert 0 < perf["efficiency"] < perf["efficiency_steady"] <= 1.0
    assert perf["unknown_apis"] == []  # every API the kernel traced is in the cost table
