"""Multi-rank runs through the runner (SimRunner.run_ranks, `harness run-ranks`): a package of family mc2
(tests/fixtures/mc2/rank_sum: y = the all-reduced sum of 2 * x) built unmodified, one mapping of inputs per rank,
every rank's outputs read back, one trace per rank."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.run.sim_runner import KernelError, SimRunner
from opkit.spec import load

pytestmark = pytest.mark.slow
PKG = Path(__file__).parent / "fixtures" / "mc2" / "rank_sum"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    return fresh_copy(PKG, tmp_path_factory.mktemp("mc2") / "rank_sum")


@pytest.mark.parametrize("R", [2, 4, 8])
def test_every_rank_gets_the_all_reduced_result(pkg, tmp_path, R):
    spec = load(pkg)
    case = spec.cases[0]
    rng = np.random.default_rng(R)
    xs = [(rng.integers(-8, 8, size=(8, 16)) / 4).astype(np.float32) for _ in range(R)]
    outs = SimRunner(jobs=1, trace_dir=tmp_path).run_ranks(spec, case, 0, CHIP, [{"x": x} for x in xs])
    assert len(outs) == R
    want = 2 * np.sum(np.stack(xs).astype(np.float64), axis=0)
    for r, o in enumerate(outs):
        np.testing.assert_array_equal(o.outputs["y"], want, err_msg=f"rank {r}")
        trace = json.loads(Path(o.info["trace_file"]).read_text())
        assert (trace["rank"], trace["rank_dim"]) == (r, R)
        assert o.info["trace_file"].endswith(f".rank{r}.trace.json")


def test_trace_only_covers_the_ranks(pkg, tmp_path):
    spec = load(pkg)
    xs = [{"x": np.ones((8, 16), np.float32)} for _ in range(4)]
    outs = SimRunner(jobs=1, trace_dir=tmp_path).run_ranks(spec, spec.cases[0], 0, CHIP, xs, trace_only=True)
    assert [o.outputs for o in outs] == [{}] * 4
    assert all(o.info["trace_only"] and Path(o.info["trace_file"]).is_file() for o in outs)


def test_a_rank_with_a_wrong_shape_fails_with_its_diagnostic(pkg):
    spec = load(pkg)
    xs = [{"x": np.ones((8, 16), np.float32)}, {"x": np.ones((4, 16), np.float32)}]  # a different count per slice
    with pytest.raises(KernelError, match=r"2 ranks\].*mismatched collective sequences across ranks"):
        SimRunner(jobs=1).run_ranks(spec, spec.cases[0], 0, CHIP, xs)


def test_the_python_api_takes_one_mapping_per_rank(pkg):
    import opkit.ops

    op = opkit.ops.load(pkg, chip=CHIP, jobs=1)
    xs = [np.full((4, 8), r + 1, np.float32) for r in range(4)]
    ys = op([{"x": x} for x in xs])
    assert len(ys) == 4
    for y in ys:
        np.testing.assert_array_equal(y, np.full((4, 8), 2 * (1 + 2 + 3 + 4), np.float32))
    assert [i["block_dim"] for i in op.last_info["ranks"]] == [2] * 4


def test_a_one_device_run_of_an_hccl_operator_is_refused(pkg):
    from opkit.errors import UsageError

    spec = load(pkg)
    with pytest.raises(UsageError, match=r"declares the HCCL group 'group' .*give the case a world_size"):
        SimRunner(jobs=1).run(spec, spec.cases[0], 0, CHIP, {"x": np.ones((8, 16), np.float32)})


def test_opkit_verify_runs_every_rank_of_every_world_size(pkg, tmp_path):
    from opkit.verify.pipeline import Selection, verify_spec

    results = verify_spec(load(pkg), SimRunner(jobs=1), Selection())
    assert [(r.case, r.status) for r in results] == [("smoke.r2", "pass"), ("smoke.r4", "pass"),
                                                    ("smoke.r8", "pass"), ("odd", "pass")]
    assert [o.name for o in results[1].outputs] == [f"y[rank {r}]" for r in range(4)]
