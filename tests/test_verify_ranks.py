"""Multi-rank (MC2) cases: op.yaml's world_size, per-rank inputs, the golden across ranks and every rank's outputs
compared (opkit.verify.pipeline with stand-in runners; the simulator's own multi-rank runs are in test_sim_ranks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.errors import SpecError
from opkit.run.inputs import make_rank_inputs
from opkit.run.types import RunOutput
from opkit.spec import load, load_string
from opkit.verify.pipeline import Selection, verify_spec

PKG = Path(__file__).parent / "fixtures" / "mc2" / "rank_sum"


class NumpyRanks:
    """The rank_sum kernel's arithmetic per rank (float32); ``bad_rank`` gets one element wrong."""

    def __init__(self, bad_rank: int | None = None):
        self.bad_rank = bad_rank
        self.calls: list[int] = []

    def run(self, spec, case, column, chip, inputs):  # pragma: no cover - a multi-rank case never runs here
        raise AssertionError("a multi-rank case ran on one device")

    def run_ranks(self, spec, case, column, chip, inputs, trace_only=False):
        self.calls.append(len(inputs))
        total = 2 * np.sum([i["x"] for i in inputs], axis=0, dtype=np.float32)
        outs = []
        for r in range(len(inputs)):
            y = total.copy()
            if r == self.bad_rank:
                y.reshape(-1)[:] += 1.0
            outs.append(RunOutput({"y": y}, {"block_dim": 2, **({"warnings": ["odd"]} if r == 1 else {})}))
        return outs


@pytest.fixture()
def pkg(tmp_path) -> Path:
    return fresh_copy(PKG, tmp_path / "rank_sum")


def test_a_list_of_world_sizes_makes_one_case_each(pkg):
    spec = load(pkg)
    assert [(c.name, c.world_size) for c in spec.cases] == [("smoke.r2", 2), ("smoke.r4", 4), ("smoke.r8", 8),
                                                             ("odd", 2)]
    assert spec.multi_rank


def test_every_rank_draws_its_own_inputs(pkg):
    spec = load(pkg)
    ins = make_rank_inputs(spec, spec.case("smoke.r4"), 0)
    assert len(ins) == 4
    assert all(not np.array_equal(ins[0]["x"], i["x"]) for i in ins[1:])
    again = make_rank_inputs(spec, spec.case("smoke.r4"), 0)
    assert all(np.array_equal(a["x"], b["x"]) for a, b in zip(ins, again, strict=True))  # seeded


def test_every_rank_is_compared_and_a_mismatch_names_its_rank(pkg):
    spec = load(pkg)
    runner = NumpyRanks(bad_rank=2)
    results = verify_spec(spec, runner, Selection())
    assert runner.calls == [2, 4, 8, 2]
    by = {r.case: r for r in results}
    assert by["smoke.r2"].status == "pass" and by["odd"].status == "pass"
    assert [o.name for o in by["smoke.r2"].outputs] == ["y[rank 0]", "y[rank 1]"]
    assert by["smoke.r2"].warnings == ["rank 1: odd"]
    for name in ("smoke.r4", "smoke.r8"):
        r = by[name]
        assert r.status == "fail"
        assert r.message.startswith("y[rank 2]: "), r.message
        assert [o.name for o in r.outputs if not o.passed] == ["y[rank 2]"]


def test_a_golden_returning_one_result_for_all_ranks_is_its_error(pkg):
    (pkg / "golden.py").write_text("import numpy as np\n\ndef rank_sum(x, group='world'):\n"
                                   "    return {'y': 2 * np.sum(x, axis=0)}\n")
    (r, *_) = verify_spec(load(pkg), NumpyRanks(), Selection(keyword="smoke.r2"))
    assert r.status == "error"
    assert "must return a list of 2 results on the 2-rank case 'smoke.r2'" in r.message
    assert "it returned a dict" in r.message


def test_a_one_device_runner_refuses_a_multi_rank_case(pkg):
    class OneDevice:
        def run(self, spec, case, column, chip, inputs):  # pragma: no cover
            raise AssertionError

    (r,) = verify_spec(load(pkg), OneDevice(), Selection(keyword="odd"))
    assert r.status == "error" and "runs on 2 ranks, and this runner runs one device" in r.message


MC2 = """
name: rs
op_type: Rs
family: mc2
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float32], format: ND}
outputs:
  - {name: y, dtypes: [float32], format: ND}
attrs:
  - {name: group, type: string, default: world}
golden: golden.py:rs
cases:
"""


@pytest.mark.parametrize("case, message", [
    ("  - {name: a, shapes: {x: [4]}}", "case 'a' gives no world_size: an mc2 (multi-rank) operator's case names"),
    ("  - {name: a, shapes: {x: [4]}, world_size: 0}", "world_size"),
    ("  - {name: a, shapes: {x: [4]}, world_size: [2, 2]}", "world_size"),
    ("  - {name: a, shapes: {x: [4]}, world_size: []}", "world_size"),
    ("  - {name: a, shapes: {x: [4]}, world_size: [2, 4]}\n  - {name: a.r4, shapes: {x: [4]}, world_size: 4}",
     "case 'a' at world size 4 is named 'a.r4', which another case already uses"),
])
def test_world_size_problems_are_named(case, message):
    with pytest.raises(SpecError) as exc:
        load_string(MC2 + case + "\n")
    assert message in str(exc.value), str(exc.value)
    assert "op.yaml:" in str(exc.value)


def test_a_one_device_family_may_leave_the_world_size_out():
    spec = load_string(MC2.replace("family: mc2", "family: examples") + "  - {name: a, shapes: {x: [4]}}\n")
    assert spec.cases[0].world_size is None and not spec.multi_rank
