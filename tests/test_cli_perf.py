"""`opkit perf`: user errors end in one clear message; a real run prints the modelled figures and
writes a valid timeline (figures are modelled; nothing here asserts a time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ADD = ROOT / "benchmarks" / "kernels" / "add_custom"
ROPE = ROOT / "ops" / "posembedding" / "interleave_rope"


def _clean_error(code: int, out: str, err: str, text: str) -> None:
    assert code != 0
    assert text in err, err
    assert "Traceback" not in out + err


def test_unknown_op(cli, tmp_path: Path) -> None:
    _clean_error(*cli("perf", "no_such_op", "--case", "smoke", cwd=tmp_path), "no_such_op")


def test_unknown_case(cli) -> None:
    _clean_error(*cli("perf", str(ROPE), "--case", "nope"), "has no case 'nope'")


def test_unknown_dtype(cli) -> None:
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--dtype", "int8"), "--dtype int8")


def test_unknown_soc(cli) -> None:
    code, out, err = cli("perf", str(ROPE), "--case", "smoke", "--soc", "ascend999")
    _clean_error(code, out, err, "ascend999")


def test_bad_trace_paths(cli, tmp_path: Path) -> None:
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--trace", str(tmp_path)), "is a folder")
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--trace", str(tmp_path / "no" / "t.json")),
                 "does not exist")
    existing = tmp_path / "t.json"
    existing.write_text("mine")
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--trace", str(existing)), "--force")
    assert existing.read_text() == "mine"


@pytest.mark.slow
def test_perf_run_and_timeline(cli, tmp_path: Path) -> None:
    tl = tmp_path / "timeline.json"
    code, out, err = cli("perf", str(ADD), "--case", "smoke_db", "--trace", str(tl))
    assert code == 0, err
    for text in ("modelled time", "steady state", "roofline bound", "efficiency", "MTE2", "timeline:",
                 "not measured"):
        assert text in out
    doc = json.loads(tl.read_text())
    procs = [e for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
    assert len(procs) >= 2 and doc["otherData"]["label"] == "modelled"
    assert any(e["ph"] == "X" and e["name"] == "Add" for e in doc["traceEvents"])


def test_trace_only_models_the_same_time(cli) -> None:
    # add_custom's control flow does not depend on its data: the trace-only run has the same trace,
    # so the same modelled figures, and says that it computed nothing.
    from opkit.perf.case import perf_case
    from opkit.spec import load

    spec = load(ADD)
    full = perf_case(spec, "smoke_db")
    fast = perf_case(spec, "smoke_db", trace_only=True)
    assert fast.info.get("trace_only") is True and not full.info.get("trace_only")
    assert fast.perf["modelled_us"] == pytest.approx(full.perf["modelled_us"], rel=1e-9)
    code, out, err = cli("perf", str(ADD), "--case", "smoke_db", "--trace-only")
    assert code == 0, err
    assert "trace-only run" in out and "modelled time" in out
