"""A package whose golden.py misbehaves, and a stand-in for the simulator, for the robustness tests.

``hostile_package`` copies ops/examples/axpy_relu (z = relu(x + alpha*y)) and replaces its golden.py;
``FakeSim`` replaces ``opkit.verify.session.SimRunner`` so `opkit verify` runs without compiling: it
computes what the kernel computes (float32, one rounding).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from helpers import fresh_copy

from opkit.numerics import np_dtype
from opkit.run.types import RunOutput

ROOT = Path(__file__).resolve().parents[1]
AXPY = ROOT / "ops" / "examples" / "axpy_relu"

GOOD = """
import numpy as np


def axpy_relu(x, y, alpha=1.0):
    return {"z": np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}
"""


def hostile_package(where: Path, golden: str = GOOD, name: str = "axpy_relu") -> Path:
    """A copy of axpy_relu under ``where`` with ``golden`` as its golden.py (dedented)."""
    pkg = where / name
    fresh_copy(AXPY, pkg)
    (pkg / "golden.py").write_text(textwrap.dedent(golden).lstrip("\n"), encoding="utf-8")
    return pkg


def golden_line(pkg: Path, needle: str) -> int:
    """The line of golden.py holding ``needle``."""
    for n, line in enumerate((pkg / "golden.py").read_text().splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in golden.py")


class FakeSim:
    """Stands in for SimRunner in `opkit verify`: no build, the kernel's arithmetic in NumPy."""

    runs: list[tuple[str, str]] = []

    def __init__(self, timeout_s: float = 300.0, trace_dir: Path | None = None, jobs: int | None = None):
        self.timeout_s = timeout_s

    def prebuild(self, wanted, notice=None) -> None:
        pass

    def artifact(self, spec, chip, column):
        return SimpleNamespace(exe=Path("/nonexistent"))

    def run(self, spec, case, column, chip, inputs, trace_only: bool = False):
        FakeSim.runs.append((case.name, chip))
        x = inputs["x"].astype(np.float32)
        y = inputs["y"].astype(np.float32)
        z = np.maximum(x + np.float32(case.attrs["alpha"]) * y, np.float32(0))
        return RunOutput({"z": z.astype(np_dtype(spec.outputs[0].dtypes[column]))}, {"block_dim": 1})


def install_fake_sim(monkeypatch) -> type[FakeSim]:
    import opkit.run.sim_runner
    import opkit.verify.session as session

    FakeSim.runs = []
    monkeypatch.setattr(session, "SimRunner", FakeSim)
    monkeypatch.setattr(session.opdef_check, "check", lambda spec, exe: None)
    monkeypatch.setattr(opkit.run.sim_runner, "SimRunner", FakeSim)
    return FakeSim
