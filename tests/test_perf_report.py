"""Perfetto timeline, fused-vs-unfused arithmetic and `perf_case` on hand-written traces (all modelled).

The toy chip is the one of test_perf_model.py: 1000 MHz (1 cycle = 0.001 µs), no fixed costs,
GM copies at 10 B/cycle per core, vector 1 cycle per repeat, start-up 5 µs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_perf_model import core, flag, op, pipeline, toy, trace

from opkit.errors import OpkitError, UsageError
from opkit.perf import unfused as uf
from opkit.perf.case import perf_case
from opkit.perf.model import evaluate, model_trace
from opkit.perf.timeline import check_path, timeline, write_timeline
from opkit.run.types import RunOutput

ROOT = Path(__file__).resolve().parents[1]


# --- timeline -------------------------------------------------------------------------------------

def test_timeline_is_valid_trace_event_json() -> None:
    # Core 0: 3 tiles double-buffered (MTE2 100, V 100, MTE3 100 cycles each); core 1: MTE2, flag, V.
    ev1 = [op("MTE2", 1000), flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V"),
           op("V", 200, 50, api="Relu")]
    tr = trace(core(pipeline(3, 2, 1000, 100, 1000), 0), core(ev1, 1))
    res = model_trace(tr, toy(), keep_graph=True)
    doc = json.loads(json.dumps(timeline(res, tr, {"op": "hand"})))  # plain JSON, no NaN
    events = doc["traceEvents"]
    assert doc["otherData"]["label"] == "modelled" and doc["otherData"]["op"] == "hand"
    names = {(e["pid"], e["args"]["name"]) for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert {(0, "AIV 0"), (1, "AIV 1")} <= names
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    xs = [e for e in events if e["ph"] == "X"]
    for e in xs:  # every complete event has numbers, sits on a named thread of a named process
        assert isinstance(e["ts"], float) and isinstance(e["dur"], float) and e["dur"] >= 0
        assert (e["pid"], e["tid"]) in threads
    # the copies of core 0 are on its MTE2 thread, at 0-0.1 and 0.1-0.2 µs (10 B/cycle); the third
    # waits for tile 0's compute to free buffer 0: 0.2-0.3 µs
    mte2 = sorted((e["ts"], e["dur"]) for e in xs if e["pid"] == 0 and threads[(0, e["tid"])] == "MTE2"
                  and e["name"] == "DataCopy")
    assert mte2 == [(pytest.approx(0.0), pytest.approx(0.1)), (pytest.approx(0.1), pytest.approx(0.1)),
                    (pytest.approx(0.2), pytest.approx(0.1))]
    # core 1's Relu starts when its copy ends: 0.1 µs, lasts 0.05 µs
    relu = [e for e in xs if e["pid"] == 1 and e["name"] == "Relu"]
    assert [(e["ts"], e["dur"]) for e in relu] == [(pytest.approx(0.1), pytest.approx(0.05))]
    # flows: one s and one f per id; the WaitFlag edge of core 1 goes from MTE2 to V
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    assert starts and set(starts) == set(ends)
    assert all(ends[k]["bp"] == "e" and ends[k]["ts"] >= starts[k]["ts"] for k in starts)
    flag_edges = [(threads[(s["pid"], s["tid"])], threads[(ends[k]["pid"], ends[k]["tid"])])
                  for k, s in starts.items() if s["name"] == "flag"]
    assert flag_edges == [("MTE2", "V")]
    assert {s["name"] for s in starts.values()} == {"flag", "queue", "buffer"}


def test_timeline_needs_the_graph_and_a_writable_path(tmp_path: Path) -> None:
    tr = trace(core([op("MTE2", 1000)]))
    with pytest.raises(ValueError):
        timeline(model_trace(tr, toy()), tr)
    with pytest.raises(UsageError, match="is a folder"):
        check_path(tmp_path)
    with pytest.raises(UsageError, match="does not exist"):
        check_path(tmp_path / "missing" / "t.json")
    existing = tmp_path / "t.json"
    existing.write_text("{}")
    with pytest.raises(UsageError, match="--force"):
        check_path(existing)
    check_path(existing, force=True)
    out = write_timeline(existing, model_trace(tr, toy(), keep_graph=True), tr)
    assert json.loads(out.read_text())["traceEvents"]


def test_by_instruction_breakdown_of_the_slowest_core() -> None:
    # core 0: MTE2 1000 B (100 cycles) then Add 30 repeats (30) ; core 1: Relu 10 -> core 0 is slowest
    ev = [op("MTE2", 1000), flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V"),
          op("V", 100, 30, api="Add")]
    r = model_trace(trace(core(ev, 0), core([op("V", 100, 10, api="Relu")], 1)), toy())
    assert r.slowest_core == 0
    assert r.slowest_by_api_us == {"MTE2 DataCopy": pytest.approx(0.1), "V Add": pytest.approx(0.03)}


# --- fused against unfused -------------------------------------------------------------------------

STEPS = [  # x (own) -> a -> b -> y (own); c written by step 1, read by step 3
    {"op": "one", "reads": {"x": 1000}, "writes": {"a": 400, "c": 100}, "flops": 0},
    {"op": "two", "reads": {"a": 400}, "writes": {"b": 300}, "flops": 2560},
    {"op": "three", "reads": {"b": 300, "c": 100}, "writes": {"y": 1000}, "flops": 0},
]


def test_unfused_chain_arithmetic() -> None:
    steps = uf.check_steps(STEPS)
    # alive: step 0 {a, c} = 500; step 1 {a, b, c} = 800; step 2 {b, c} = 400
    assert uf.peak_intermediate_bytes(steps, ["x", "y"]) == 800
    # toy chip, HBM 100 B/cycle, 2 AIV: step 0 1500 B -> 15 cycles; step 1: 700 B -> 7 cycles, 2560
    # flops / (2 x 128) = 10 cycles -> vector-bound 10; step 2: 1400 B -> 14 cycles. Each + 5 µs.
    chain = uf.model_chain(steps, toy(hbm=100.0), ["x", "y"])
    assert [r["bound_by"] for r in chain["steps"]] == ["hbm", "vector", "hbm"]
    assert [r["modelled_us"] for r in chain["steps"]] == [pytest.approx(5.015), pytest.approx(5.010),
                                                         pytest.approx(5.014)]
    assert chain["launches"] == 3 and chain["hbm_bytes"] == 3600
    assert chain["modelled_us"] == pytest.approx(15.039)
    cmp = uf.compare({"hbm_bytes": 2000, "extra_peak_bytes": 0, "modelled_us": 5.02}, chain)
    assert cmp["label"] == "modelled" and cmp["fused"]["launches"] == 1
    assert cmp["hbm_ratio"] == pytest.approx(1.8) and cmp["speedup"] == pytest.approx(15.039 / 5.02)


@pytest.mark.parametrize("bad, msg", [
    ([], "non-empty list"),
    ([{"reads": {}, "writes": {}}], "'op' name"),
    ([{"op": "a", "reads": {"x": -1}, "writes": {}}], "'reads' must map"),
    ([{"op": "a", "reads": {}, "writes": [1]}], "'writes' must map"),
    ([{"op": "a", "reads": {}, "writes": {}, "flops": "many"}], "'flops'"),
])
def test_unfused_chain_is_checked(bad: Any, msg: str) -> None:
    with pytest.raises(OpkitError, match=msg):
        uf.check_steps(bad, "golden.py:unfused_chain")


# --- perf_case with a runner that returns a hand-written trace ---------------------------------------

class TraceRunner:
    """Stands in for the simulator: writes a fixed trace and returns zero outputs."""

    def __init__(self, tmp: Path, tr: dict[str, Any]) -> None:
        self.file = tmp / "run.trace.json"
        self.file.write_text(json.dumps(tr))

    def run(self, spec: Any, case: Any, column: int, chip: str, inputs: dict[str, Any]) -> RunOutput:
        shape = case.shapes["x"]
        out = {o.name: np.zeros(shape, np.float16) for o in spec.outputs}
        return RunOutput(out, {"block_dim": 1, "trace_file": str(self.file),
                               "workspace_bytes": 16 * 1024 * 1024 + 4096})


def test_perf_case_models_fused_and_unfused(tmp_path: Path) -> None:
    from opkit.spec import load

    spec = load(ROOT / "ops" / "posembedding" / "interleave_rope")
    tr = trace(core([op("MTE2", 4700)]))
    tl = tmp_path / "tl.json"
    rep = perf_case(spec, "smoke", soc_name="ascend910b2", timeline=tl, runner=TraceRunner(tmp_path, tr))
    p = rep.perf
    # 116 fixed + 4700 / 47 = 216 cycles at 1800 MHz (socs.yaml)
    assert p["label"] == "modelled" and p["steady_us"] == pytest.approx(216 / 1800)
    assert p["efficiency_steady"] == pytest.approx(p["bound_us"] / p["steady_us"])
    n = 1 * 2 * 8 * 64 * 2
    assert p["hbm_bytes"] == 2 * n + 2 * 8 * 64 * 2 and p["gm_bytes"] == 4700
    f = p["fusion"]
    assert f["unfused"]["launches"] == 5 and f["unfused"]["hbm_bytes"] == 11 * n + 2 * 8 * 64 * 2
    assert f["fused"]["extra_peak_bytes"] == 4096  # the workspace beyond the system's 16 MiB
    assert f["unfused"]["extra_peak_bytes"] == 3 * n
    assert json.loads(tl.read_text())["otherData"]["case"] == "smoke"
    # the verify path gives the same record
    perf, _ = evaluate(tr, "ascend910b2", hbm_bytes=p["hbm_bytes"])
    assert perf["modelled_us"] == pytest.approx(p["modelled_us"])


def test_calibration_anchors_name_runnable_cases() -> None:
    # every anchor of benchmarks/perf_calibration.py is either pending (with a reason) or names a
    # package, a case of it and a chip opkit knows
    import importlib.util
    import sys

    from opkit import soc
    from opkit.perf.costs import PIPES
    from opkit.spec import load

    path = ROOT / "benchmarks" / "perf_calibration.py"
    mod_spec = importlib.util.spec_from_file_location("_perf_calibration", path)
    assert mod_spec is not None and mod_spec.loader is not None
    mod = importlib.util.module_from_spec(mod_spec)
    sys.modules[mod_spec.name] = mod  # dataclasses look their module up
    try:
        mod_spec.loader.exec_module(mod)
    finally:
        del sys.modules[mod_spec.name]
    assert mod.ANCHORS
    for a in mod.ANCHORS:
        assert a.published_us > 0 and a.source
        soc.chip(a.chip)
        if a.pending:
            assert a.package is None
            continue
        spec = load(ROOT / a.package)
        spec.case(a.case)
        spec.target(a.chip)
        assert a.metric == "time" or a.metric in PIPES  # a Task Duration or one pipe's busy time
    # the large-matmul anchor (A-MM) is runnable: its Task Duration and its MTE2 figures
    mm = [a for a in mod.ANCHORS if a.name.startswith("A-MM") and not a.pending]
    assert {a.metric for a in mm} == {"time", "MTE2"}
    assert {a.package for a in mm} == {"benchmarks/kernels/matmul_custom"}
