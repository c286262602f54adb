"""The device-side HCCL's trace events (hccl_prepare / hccl_commit / hccl_wait / hccl_finalize) in every rank's
trace, with and without arithmetic, through the multi-rank test package (tests/fixtures/mc2/rank_sum: four
slices of an all-reduce, one Commit per computed slice, the lead core waiting for all four then Finalize)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.run.sim_runner import SimRunner
from opkit.spec import load

pytestmark = pytest.mark.slow
PKG = Path(__file__).parent / "fixtures" / "mc2" / "rank_sum"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    return fresh_copy(PKG, tmp_path_factory.mktemp("mc2") / "rank_sum")


def _hccl_events(trace: dict) -> list[list[dict]]:
    return [[e for e in c["events"] if str(e.get("ev", "")).startswith("hccl_")] for c in trace["cores"]]


@pytest.mark.parametrize("trace_only", [False, True])
def test_every_rank_records_prepare_commits_waits_and_finalize(pkg, tmp_path, trace_only):
    spec = load(pkg)
    R = 4
    xs = [{"x": np.ones((8, 16), np.float32)} for _ in range(R)]
    outs = SimRunner(jobs=1, trace_dir=tmp_path).run_ranks(spec, spec.cases[0], 0, CHIP, xs, trace_only=trace_only)
    for r, o in enumerate(outs):
        trace = json.loads(Path(o.info["trace_file"]).read_text())
        lead, other = _hccl_events(trace)  # block 0 writes the messages and waits; block 1 only computes
        assert other == []
        kinds = [e["ev"] for e in lead]
        assert kinds == ["hccl_prepare"] + ["hccl_commit"] * 4 + ["hccl_wait"] * 4 + ["hccl_finalize"], r
        prep = lead[0]
        # 128 elements over 4 slices: 32 fp32 = 128 bytes per slice
        assert {k: prep[k] for k in ("handle", "kind", "op", "dtype", "count", "bytes", "repeat", "ranks")} == {
            "handle": 0, "kind": "AllReduce", "op": "sum", "dtype": "fp32", "count": 32, "bytes": 128, "repeat": 4,
            "ranks": R}
        assert [e["slice"] for e in lead[1:5]] == [0, 1, 2, 3]
        assert [e["slice"] for e in lead[5:9]] == [0, 1, 2, 3]
        assert all(e["handle"] == 0 for e in lead[1:9])
        assert lead[-1]["sync"] is True
        src = (pkg / "op_kernel" / "rank_sum.cpp").read_text().splitlines()
        for e, call in zip(lead, ["AllReduce"] + ["Commit"] * 4 + ["Wait"] * 4 + ["Finalize"], strict=True):
            assert e["file"].endswith("rank_sum.cpp")
            assert f"hccl.{call}(" in src[e["line"] - 1], (e, src[e["line"] - 1])
        # the cores' other events are recorded too (the cross-core barrier before each Commit)
        assert sum(1 for ev in trace["cores"][0]["events"] if ev["ev"] == "sync_all") == 4
