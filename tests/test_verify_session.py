"""`opkit verify` over packages (opkit.verify.session): progress run by run, build notices, reports,
exit status — with a stand-in for the simulator runner."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from opkit.build.toolchain import BuildError
from opkit.numerics import np_dtype
from opkit.run import sim_runner
from opkit.run.types import RunOutput
from opkit.spec import load
from opkit.verify import session
from opkit.verify.pipeline import Selection
from opkit.verify.session import VerifyOptions, verify_packages

ROOT = Path(__file__).resolve().parents[1]
AXPY = ROOT / "ops" / "examples" / "axpy_relu"


class FakeSimRunner:
    """Builds nothing (says it compiles), runs z = relu(x + alpha*y) in float32."""

    broken_build = False
    broken_dirs: set[Path] = set()  # packages whose build fails
    batches: list[list] = []  # every prebuild call's harnesses, in order

    def __init__(self, **kwargs):
        self.built = []

    def prebuild(self, wanted, progress=None):
        FakeSimRunner.batches.append([(spec.dir, chip, column) for spec, chip, column in wanted])
        if self.broken_build or any(spec.dir in self.broken_dirs for spec, _, _ in wanted):
            raise BuildError("op_kernel/axpy_relu.h:3: error: 'Reluu' was not declared")
        if progress:
            progress(f"compiling {len(wanted)} unit(s) with 1 job(s)")
        self.built += wanted

    def artifact(self, spec, chip, column):
        return type("A", (), {"exe": Path("/nonexistent")})()

    def run(self, spec, case, column, chip, inputs):
        x, y = inputs["x"].astype(np.float32), inputs["y"].astype(np.float32)
        z = np.maximum(x + np.float32(case.attrs["alpha"]) * y, np.float32(0))
        if case.name == "tiny":
            z[0] += 1  # one wrong element
        return RunOutput({"z": z.astype(np_dtype(spec.outputs[0].dtypes[column]))})


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(sim_runner, "SimRunner", FakeSimRunner)  # what opkit.backends.runner("sim") makes
    monkeypatch.setattr(session.opdef_check, "check", lambda spec, exe: None)
    FakeSimRunner.broken_build = False
    FakeSimRunner.broken_dirs = set()
    FakeSimRunner.batches = []
    return FakeSimRunner


def test_progress_counts_runs_and_notices_say_what_compiles(fake, tmp_path):
    seen, notes = [], []
    opts = VerifyOptions(Selection(keyword="*t*"), out_dir=tmp_path / "v", junit=tmp_path / "r.xml")
    outcome = verify_packages([load(AXPY)], opts, lambda r, done, total: seen.append((r.case, done, total)),
                              notes.append)
    total = len(outcome.results)
    assert [d for _, d, _ in seen] == list(range(1, total + 1)) and {t for *_, t in seen} == {total}
    assert notes == ["compiling 3 unit(s) with 1 job(s)"]
    assert not outcome.ok  # 'tiny' fails
    doc = json.loads(outcome.json_path.read_text())
    assert doc["summary"]["fail"] == 3 and doc["summary"]["pass"] == total - 3
    assert len(outcome.csv_paths) == 3 and outcome.junit.is_file()


def test_a_package_that_does_not_build_counts_all_its_runs(fake, tmp_path):
    fake.broken_build = True
    seen = []
    outcome = verify_packages([load(AXPY)], VerifyOptions(Selection(keyword="tiny"), out_dir=tmp_path),
                              lambda r, done, total: seen.append((r.status, done, total)))
    assert seen == [("error", 3, 3)] and "Reluu" in outcome.results[0].message and not outcome.ok


def test_several_packages_build_in_one_batch_and_a_broken_one_is_its_own_record(fake, tmp_path):
    import shutil

    good, bad = (shutil.copytree(AXPY, tmp_path / d / "axpy_relu", ignore=shutil.ignore_patterns(".opkit"))
                 for d in ("good", "bad"))
    fake.broken_dirs = {bad}
    outcome = verify_packages([load(good), load(bad)], VerifyOptions(Selection(keyword="smoke"), out_dir=tmp_path / "v"))
    first = fake.batches[0]  # both packages' harnesses in one batch, before either package's own build
    assert {d for d, _, _ in first} == {good, bad} and len(first) == 6
    assert [b[0][0] for b in fake.batches[1:]] == [good, bad]  # then each package's own (its OpDef, its errors)
    statuses = [(r.op, r.status) for r in outcome.results]
    assert statuses.count(("axpy_relu", "pass")) == 3 and statuses.count(("axpy_relu", "error")) == 1
    assert "Reluu" in next(r.message for r in outcome.results if r.status == "error")


def test_cli_exit_code_and_table(fake, cli, tmp_path):
    code, out, _ = cli("verify", AXPY, "-k", "tiny", "--out", tmp_path / "v")
    assert code == 1  # any failure
    assert "[1/3] FAIL axpy_relu::tiny" in out and "compiling 3 unit(s)" in out
    assert "thresholds: mixed (float16): rtol=0.000976562" in out
    code, out, _ = cli("verify", AXPY, "-k", "smoke", "--dtype", "float32", "--out", tmp_path / "v")
    assert code == 0 and "[1/1] pass axpy_relu::smoke[float32@ascend910b2]" in out
