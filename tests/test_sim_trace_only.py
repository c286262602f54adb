"""Trace-only runs: the same trace as a full run, no arithmetic, no results; structural checks stay.

These tests compile real harnesses (the template ops of ops/examples, copied so that their build
artifacts stay out of the repository), so they use one dtype column each.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.run.inputs import make_inputs
from opkit.run.sim_runner import KernelError, SimRunner
from opkit.spec import Case, load

pytestmark = pytest.mark.slow
CHIP = "ascend910b2"
EXAMPLES = Path(__file__).resolve().parents[1] / "ops" / "examples"


def _copy(name: str, dest: Path) -> Path:
    return fresh_copy(EXAMPLES / name, dest / name)


@pytest.fixture(scope="module")
def packages(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("trace_only")
    return {n: _copy(n, root) for n in ("axpy_relu", "rms_norm")}


def _case(spec, name: str) -> Case:
    return next(c for c in spec.cases if c.name == name)


def _core_records(trace: dict) -> list:
    """What the performance model reads, per core: pipes, instruction classes and ordered events."""
    return [(c["block"], c["core_type"], c["pipes"], c["instructions"], c["events_dropped"], c["events"])
            for c in trace["cores"]]


@pytest.mark.parametrize("op, case_name", [("axpy_relu", "odd_tail"), ("axpy_relu", "smoke"),
                                           ("rms_norm", "odd_d"), ("rms_norm", "many_short_rows")])
def test_trace_only_gives_the_trace_of_the_full_run(packages, tmp_path, op, case_name):
    spec = load(packages[op])
    case = _case(spec, case_name)
    inputs = make_inputs(spec, case, 0)
    full = SimRunner(trace_dir=tmp_path / "full").run(spec, case, 0, CHIP, inputs)
    only = SimRunner(trace_dir=tmp_path / "only").run(spec, case, 0, CHIP, inputs, trace_only=True)
    assert full.outputs and not only.outputs
    assert only.info["trace_only"] is True and "trace_only" not in full.info
    assert only.info["block_dim"] == full.info["block_dim"] and only.info["tiling_key"] == full.info["tiling_key"]
    assert set(only.info["output_shapes"]) == {o.name for o in spec.outputs}
    t_full = json.loads(Path(full.info["trace_file"]).read_text())
    t_only = json.loads(Path(only.info["trace_file"]).read_text())
    assert t_full["trace_only"] is False and t_only["trace_only"] is True
    assert (t_only["kernel"], t_only["blocks"]) == (t_full["kernel"], t_full["blocks"])
    a, b = _core_records(t_full), _core_records(t_only)
    assert len(a) == len(b) == t_full["blocks"]
    for ca, cb in zip(a, b, strict=True):
        assert ca == cb
    # the trace is not empty: data moves with bytes, vector instructions with repeats, sync edges
    evs = [json.loads(e) if isinstance(e, str) else e for e in t_only["cores"][0]["events"]]
    kinds = {e["ev"] for e in evs}
    assert {"op", "enque", "deque"} <= kinds, kinds
    assert any(e["ev"] == "op" and e["pipe"] == "MTE2" and e["bytes"] > 0 for e in evs)
    assert any(e["ev"] == "op" and e["pipe"] == "V" and e["repeats"] > 0 for e in evs)


def test_trace_only_of_a_large_shape(packages):
    spec = load(packages["axpy_relu"])
    n = (1 << 23) + 7  # 8M + 7 float16 elements: a ragged tail on the last core
    case = Case("big", {"x": [n], "y": [n]}, (0,), {"alpha": 0.5}, seed=1)
    x = np.zeros(n, np.float16)
    run = SimRunner().run(spec, case, 0, CHIP, {"x": x, "y": x}, trace_only=True)
    assert run.outputs == {} and run.info["output_shapes"] == {"z": [n]}
    trace_file = Path(run.info["trace_file"])
    assert trace_file.parent == spec.dir / ".opkit" / "traces"  # no trace_dir: the package's own folder
    trace = json.loads(trace_file.read_text())
    moved_in = sum(c["pipes"].get("MTE2", {}).get("bytes", 0) for c in trace["cores"])
    moved_out = sum(c["pipes"].get("MTE3", {}).get("bytes", 0) for c in trace["cores"])
    assert moved_in == 2 * 2 * n and moved_out == 2 * n
    assert trace["blocks"] == run.info["block_dim"] > 1


def test_structural_error_is_caught_in_trace_only_mode(packages, tmp_path):
    """A kernel whose UB use grows with the case: over capacity in both modes, same diagnostic."""
    pkg = tmp_path / "axpy_relu"
    fresh_copy(packages["axpy_relu"], pkg)
    src = pkg / "op_kernel" / "axpy_relu.h"
    text = src.read_text()
    old = "pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(T));"
    assert old in text
    src.write_text(text.replace(old, "pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, 64 * tileLength_ * sizeof(T));"))
    spec = load(pkg)
    case = _case(spec, "odd_tail")
    inputs = make_inputs(spec, case, 0)
    msgs = []
    for trace_only in (False, True):
        with pytest.raises(KernelError) as ei:
            SimRunner().run(spec, case, 0, CHIP, inputs, trace_only=trace_only)
        msgs.append(str(ei.value))
    assert "UB capacity exceeded" in msgs[1] and "axpy_relu.h:" in msgs[1]
    # Only the label differs — and which block reports first, since the blocks are threads.
    same = [re.sub(r"block \d+/", "block N/", m.split(": ", 1)[1]) for m in msgs]
    assert same[0] == same[1]
