"""A non-editable install works from any directory: templates, schema and SoC data ship in the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (whl,) = out.glob("opkit_ascend-*.whl")
    return whl


def test_wheel_carries_runtime_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("opkit/_templates/vector/cookiecutter.json", "opkit/_templates/vector/op.yaml.j2",
                   "opkit/spec/op.schema.json", "opkit/data/socs.yaml", "opkit/sim/include/kernel_operator.h",
                   "opkit/sim/include/register/op_def_registry.h", "opkit/sim/host/harness_main.cpp"):
        assert needed in names, needed
    assert any(n.startswith("opkit/_templates/vector/{{cookiecutter.op_name}}/") for n in names)
    assert not any("__pycache__" in n for n in names)


def test_installed_wheel_runs_from_another_directory(wheel, tmp_path):
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                        str(wheel)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}

    def opkit(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "opkit", *args], cwd=work, env=env, capture_output=True,
                              text=True)

    where = subprocess.run([sys.executable, "-c", "import opkit; print(opkit.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True).stdout
    assert where.startswith(str(target)), where
    r = opkit("new", "my_op", "--dir", "D")
    assert r.returncode == 0, r.stderr
    assert (work / "D" / "my_op" / "op.yaml").is_file()
    r = opkit("spec", "check", "D/my_op")
    assert r.returncode == 0, r.stderr
    r = opkit("list", "D")
    assert r.returncode == 0 and "my_op" in r.stdout, r.stderr
    script = target / "bin" / "opkit"
    assert script.is_file()
    # the simulator ships too: the new package builds and verifies from the installed wheel
    r = opkit("verify", "D/my_op", "-k", "tiny", "--dtype", "float32", "--no-trace")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 0 failed, 0 errors" in r.stdout
