"""The pytest plugin: op.yaml cases as test items (-k, -x, --junitxml)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import fresh_copy

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def run_pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=cwd,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    return fresh_copy(ROOT / "ops" / "examples" / "axpy_relu", tmp_path_factory.mktemp("plugin") / "axpy_relu")


def test_cases_are_items_with_junit(pkg, tmp_path):
    r = run_pytest(str(pkg), "--collect-only", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smoke[float16@ascend910b2]" in r.stdout and "large[float16@ascend910b2]" in r.stdout
    junit = tmp_path / "r.xml"
    r = run_pytest(str(pkg), "-k", "tiny and float32", f"--junitxml={junit}", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout
    (case,) = ET.parse(junit).getroot().iter("testcase")
    assert case.get("name") == "tiny[float32@ascend910b2]"


def test_failures_and_spec_errors(pkg, tmp_path):
    broken = tmp_path / "broken"
    fresh_copy(pkg, broken)
    golden = broken / "golden.py"
    golden.write_text(golden.read_text().replace("np.maximum(x + float(alpha) * y, 0.0)",
                                                 "np.maximum(x + float(alpha) * y, 0.0) + 1.0"))
    r = run_pytest(str(broken), "-k", "tiny", "-x", cwd=tmp_path)
    assert r.returncode == 1
    assert "1 failed" in r.stdout and "z: " in r.stdout and "of finite elements match" in r.stdout
    (broken / "op.yaml").write_text((broken / "op.yaml").read_text().replace("kernel: vector", "kernel: vectr"))
    r = run_pytest(str(broken), cwd=tmp_path)
    assert r.returncode == 1 and "is not a kernel type" in r.stdout


def test_cases_run_under_pytest_xdist(pkg, tmp_path):
    # Two workers share one package: each builds (or finds) the harnesses and runs its share of items.
    pytest.importorskip("xdist")
    junit = tmp_path / "x.xml"
    r = run_pytest(str(pkg), "-n", "2", "-k", "tiny", f"--junitxml={junit}", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 passed" in r.stdout
    names = sorted(c.get("name") for c in ET.parse(junit).getroot().iter("testcase"))
    assert names == [f"tiny[{d}@ascend910b2]" for d in ("bfloat16", "float16", "float32")]
