"""The softmax family's trace record carries its row count and form, and the model prices the per-row steps by it
(FlashAttentionScore's SoftmaxFlashV2 calls, from a trace-only run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opkit.perf.costs import chip_params, op_cost
from opkit.run.inputs import make_inputs
from opkit.run.sim_runner import SimRunner
from opkit.spec import load

pytestmark = pytest.mark.slow
PKG = Path(__file__).resolve().parents[1] / "ops" / "attention" / "flash_attention_score"
CHIP = "ascend910b2"


def test_softmaxflashv2_records_rows_and_the_update_form(tmp_path) -> None:
    spec = load(PKG)
    case = next(c for c in spec.cases if c.name == "bnsd_smoke")  # S1 = S2 = 128, 64-row blocks in two halves
    out = SimRunner(trace_dir=tmp_path).run(spec, case, 0, CHIP, make_inputs(spec, case, 0), trace_only=True)
    trace = json.loads(Path(out.info["trace_file"]).read_text())
    recs = [e for c in trace["cores"] for e in c["events"] if e.get("api") == "SoftmaxFlashV2"]
    assert recs
    p = chip_params(CHIP)
    for e in recs:
        rows, cols = e["rows"], e["bytes"] // 4 // e["rows"]
        assert e["update"] == 1 and rows * cols * 4 == e["bytes"] and cols >= 128
        # the per-row steps cost by rows: less than the same record priced without its row count
        assert op_cost(e, "AIV", p).fixed < op_cost({k: v for k, v in e.items() if k != "rows"}, "AIV", p).fixed
