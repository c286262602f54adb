"""The softmax family's trace record carries its row count, and the model prices the per-row steps by it (the SoftMax
calls of the mix template's instance ops/examples/matmul_softmax, from a trace-only run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opkit.perf.costs import chip_params, op_cost
from opkit.run.inputs import make_inputs
from opkit.run.sim_runner import SimRunner
from opkit.spec import load

pytestmark = pytest.mark.slow
PKG = Path(__file__).resolve().parents[1] / "ops" / "examples" / "matmul_softmax"
CHIP = "ascend910b2"


def test_softmax_records_rows_and_the_model_prices_the_per_row_steps_by_them(tmp_path) -> None:
    spec = load(PKG)
    case = spec.cases[0]
    out = SimRunner(trace_dir=tmp_path).run(spec, case, 0, CHIP, make_inputs(spec, case, 0), trace_only=True)
    trace = json.loads(Path(out.info["trace_file"]).read_text())
    recs = [e for c in trace["cores"] for e in c["events"] if e.get("api") == "SoftMax"]
    assert recs
    p = chip_params(CHIP)
    for e in recs:
        rows = e["rows"]
        assert rows > 0 and e["bytes"] % (4 * rows) == 0 and not e.get("update")  # SoftMax has no update form
        # the per-row steps cost by rows: less than the same record priced without its row count
        assert op_cost(e, "AIV", p).fixed < op_cost({k: v for k, v in e.items() if k != "rows"}, "AIV", p).fixed
