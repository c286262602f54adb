"""The simulator's trace storage: every core's own events, then a launch-wide pool; what is past both is
counted, and the performance model says how much of each core it did not replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import fresh_copy

from opkit.perf.model import dropped_cores, model_trace
from opkit.perf.report import dropped_warning
from opkit.run.inputs import make_inputs
from opkit.run.sim_runner import SimRunner
from opkit.spec import load

CHIP = "ascend910b2"
AXPY = Path(__file__).resolve().parents[1] / "ops" / "examples" / "axpy_relu"


@pytest.fixture(scope="module")
def axpy(tmp_path_factory) -> Path:
    return fresh_copy(AXPY, tmp_path_factory.mktemp("pool") / "axpy_relu")


def _trace(pkg: Path, tmp: Path, monkeypatch, core: str | None, pool: str | None) -> dict:
    for name, v in (("OPKIT_SIM_TRACE_CORE_EVENTS", core), ("OPKIT_SIM_TRACE_EVENTS", pool)):
        if v is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, v)
    spec = load(pkg)
    case = next(c for c in spec.cases if c.name == "odd_tail")
    out = SimRunner(trace_dir=tmp).run(spec, case, 0, CHIP, make_inputs(spec, case, 0), trace_only=True)
    return json.loads(Path(out.info["trace_file"]).read_text())


@pytest.mark.slow
def test_cores_keep_their_share_then_draw_on_the_pool(axpy, tmp_path, monkeypatch) -> None:
    full = _trace(axpy, tmp_path / "a", monkeypatch, None, None)
    n = [len(c["events"]) for c in full["cores"]]
    assert all(not c["events_dropped"] for c in full["cores"]) and min(n) > 4
    # 3 a core and no pool: each core keeps its first 3 events and counts the rest
    cut = _trace(axpy, tmp_path / "b", monkeypatch, "3", "0")
    for c, f in zip(cut["cores"], full["cores"], strict=True):
        assert c["events"] == f["events"][:3]
        assert c["events_dropped"] == len(f["events"]) - 3
        assert c["pipes"] == f["pipes"]  # the pipe totals count every instruction
    # a pool of 5: five more events over all cores
    pooled = _trace(axpy, tmp_path / "c", monkeypatch, "3", "5")
    kept = [len(c["events"]) for c in pooled["cores"]]
    assert sum(kept) == 3 * len(kept) + 5
    assert sum(c["events_dropped"] for c in pooled["cores"]) == sum(n) - sum(kept)
    # no per-core share, a pool large enough for everything: the full trace
    whole = _trace(axpy, tmp_path / "d", monkeypatch, "0", str(sum(n)))
    assert [c["events"] for c in whole["cores"]] == [c["events"] for c in full["cores"]]
    # the model sees what was cut: dropped events, on which cores, and the share not replayed
    r = model_trace(cut, CHIP)
    assert r.events_dropped == sum(n) - 3 * len(n)
    assert set(r.dropped_cores) == {f"AIV {c['block']}" for c in cut["cores"]}
    assert all(0.0 < v < 1.0 for v in r.dropped_cores.values())
    assert model_trace(full, CHIP).dropped_cores == {}


def test_dropped_share_counts_the_pipe_totals() -> None:
    op = {"ev": "op", "pipe": "V", "api": "Adds", "dtype": "float32", "bytes": 256, "repeats": 1}
    cores = [{"block": 0, "core_type": "AIC", "pipes": {"V": {"instrs": 8}}, "events_dropped": 6,
              "events": [op, {"ev": "set_flag"}, op]},
             {"block": 0, "core_type": "AIV", "pipes": {"V": {"instrs": 2}}, "events_dropped": 0, "events": [op, op]}]
    assert dropped_cores(cores) == {"AIC 0": pytest.approx(0.75)}


def test_the_dropped_warning_names_the_cores_and_the_knob() -> None:
    w = dropped_warning(1234567, {f"AIC {i}": 0.5 + i / 100 for i in range(6)})
    assert "1,234,567 trace events were not recorded on 6 core(s)" in w
    assert "AIC 0, AIC 1, AIC 2, AIC 3 and 2 more" in w and "up to 55%" in w
    assert "lower bound" in w and "OPKIT_SIM_TRACE_EVENTS" in w
