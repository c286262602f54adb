"""Interface drift caught before compiling: the kernel entry's GM parameters and the host code's
input/output indices against op.yaml (item 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostile import hostile_package

from opkit.build.toolchain import BuildError
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]


def _drop_input_y(pkg: Path) -> None:
    """Remove input y from op.yaml only (the kernel and host code still use it)."""
    text = (pkg / "op.yaml").read_text()
    text = text.replace("  - {name: y, dtypes: [float16, bfloat16, float32], format: ND, shape: [...N]}\n", "")
    text = re.sub(r", y: \[[^\]]*\]", "", text)
    text = text.replace(", y: {uniform: [-2, 2]}", "").replace(", y: [huge, tiny]", "")
    (pkg / "op.yaml").write_text(text)
    (pkg / "golden.py").write_text("def axpy_relu(x, alpha=1.0):\n    return {'z': x}\n")


def test_every_shipped_package_matches_its_interface():
    from opkit.build import interface_check

    for yaml in sorted((ROOT / "ops").rglob("op.yaml")):
        spec = load(yaml.parent)
        assert interface_check.check_entry(spec) == [] and interface_check.check_host(spec) == [], yaml


def test_an_input_removed_from_op_yaml_but_not_from_the_kernel_is_named(tmp_path):
    from opkit.build import interface_check

    pkg = hostile_package(tmp_path)
    _drop_input_y(pkg)
    spec = load(pkg)
    (problem,) = interface_check.check_entry(spec)
    assert f"{pkg / 'op_kernel' / 'axpy_relu.cpp'}:8: op.yaml declares 1 input (x) and 1 output (z)" in problem
    assert "takes 4 GM parameters (x, z, workspace, tiling); it takes 5: (x, y, z, workspace, tiling)" in problem
    host = interface_check.check_host(spec)
    assert any(f"{pkg / 'op_host' / 'axpy_relu_tiling.cpp'}:47: GetInputShape(1) reads input index 1, but op.yaml "
               "declares 1 input (0: x)" in p for p in host), host


def test_the_build_refuses_before_compiling(tmp_path, cli):
    from opkit.build import sim_backend

    pkg = hostile_package(tmp_path)
    cpp = pkg / "op_kernel" / "axpy_relu.cpp"
    cpp.write_text(cpp.read_text().replace("GM_ADDR y, GM_ADDR z", "GM_ADDR y, GM_ADDR bias, GM_ADDR z"))
    spec = load(pkg)
    with pytest.raises(BuildError, match=r"op.yaml declares 2 inputs \(x, y\) and 1 output \(z\), so the kernel "
                                         r"entry axpy_relu takes 5 GM parameters .* it takes 6: \(x, y, bias, z, "):
        sim_backend.plan(spec, "ascend910b2", 0)
    code, out, err = cli("build", pkg, cwd=tmp_path)
    assert code == 1 and "it takes 6" in err and "Traceback" not in out + err
    assert not (pkg / ".opkit" / "sim" / "obj").exists()  # nothing was compiled


def test_named_index_constants_are_resolved(tmp_path):
    from opkit.build import interface_check

    pkg = hostile_package(tmp_path)
    tiling = pkg / "op_host" / "axpy_relu_tiling.cpp"
    text = tiling.read_text().replace("GetInputShape(1)", "GetInputShape(Y_INDEX)")
    tiling.write_text("static constexpr size_t Y_INDEX = 3;  // out of range\n" + text)
    (problem,) = interface_check.check_host(load(pkg))
    assert "GetInputShape(Y_INDEX) (Y_INDEX = 3) reads input index 3" in problem


@pytest.mark.slow
def test_a_host_read_of_an_undeclared_index_is_a_warning_not_a_refusal(tmp_path, cli):
    # ops-transformer's moe_token_permute_grad reads GetInputTensor(2) on a branch its two-input OpDef never
    # takes: the build says so and goes on; a run that reaches such a read fails with what the tiling logged.
    pkg = hostile_package(tmp_path)
    tiling = pkg / "op_host" / "axpy_relu_tiling.cpp"
    text = tiling.read_text()
    anchor = "GetInputShape(1)"
    assert anchor in text
    tiling.write_text(text.replace(anchor, "GetInputShape(context->GetInputShape(7) == nullptr ? 1 : 1)", 1))
    code, out, err = cli("build", pkg, "--soc", "ascend910b2", "-j", "1", cwd=tmp_path)
    assert code == 0, out + err
    assert "warning:" in out and "reads input index 7" in out
