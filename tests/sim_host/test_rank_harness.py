"""The multi-rank harness (`harness run-ranks R0.json ... R{n-1}.json`) through a test operator
(tests/sim_host/cpp/rank_sum_op.cpp: y = the all-reduced sum of 2 * x, one Commit per computed slice): every rank
has its own inputs and outputs, the world size is the number of requests, and a mistake on one rank ends the run
with its diagnostic."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sim_host_util import CHIP, CPP, HARNESS_MAIN, OPS, OPT, chip_request, kernel_unit, write_request

from opkit.build import program
from opkit.build.program import Source


@pytest.fixture(scope="module")
def harness() -> Path:
    srcs = [Source(CPP / "rank_sum_op.cpp"), kernel_unit(OPS / "rank_sum"), Source(HARNESS_MAIN)]
    plan = program.plan_program(srcs, chip=CHIP, opt=OPT, deps=[CPP / "rank_sum_tiling.h"], name="rank_sum")
    return program.build_programs([plan])[0].exe


def _requests(tmp: Path, xs: list[np.ndarray], fail: int = 0, trace: bool = False) -> list[Path]:
    out = []
    for r, x in enumerate(xs):
        x.tofile(tmp / f"x{r}.bin")
        req = {
            "op_type": "RankSum",
            "chip": chip_request(),
            "inputs": [{"name": "x", "dtype": "float32", "format": "ND", "shape": list(x.shape),
                        "file": str(tmp / f"x{r}.bin")}],
            "outputs": [{"name": "y", "dtype": "float32", "format": "ND", "file": str(tmp / f"y{r}.bin")}],
            "attrs": [{"name": "group", "type": "string", "value": "world"}, {"name": "fail", "type": "int", "value": fail}],
            "trace": str(tmp / f"trace{r}.json") if trace else None,
        }
        out.append(write_request(tmp / f"req{r}.json", req))
    return out


def _run(harness: Path, reqs: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(harness), "run-ranks", *map(str, reqs)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("R", [2, 4, 8])
def test_every_rank_gets_the_sum_over_all_ranks(harness, tmp_path, R):
    rng = np.random.default_rng(R)
    xs = [rng.integers(-8, 8, size=(8, 16)).astype(np.float32) / 4 for _ in range(R)]
    r = _run(harness, _requests(tmp_path, xs, trace=True))
    assert r.returncode == 0, r.stderr
    want = 2 * np.sum(np.stack(xs), axis=0)
    for rank in range(R):
        y = np.fromfile(tmp_path / f"y{rank}.bin", np.float32).reshape(8, 16)
        np.testing.assert_array_equal(y, want, err_msg=f"rank {rank}")
        res = json.loads((tmp_path / f"req{rank}.json.result.json").read_text())
        assert res["block_dim"] == 2
        tr = json.loads((tmp_path / f"trace{rank}.json").read_text())
        assert (tr["rank"], tr["rank_dim"]) == (rank, R)


def test_ranks_disagreeing_on_the_repeat_count_end_in_the_diagnostic(harness, tmp_path):
    xs = [np.ones((4, 8), np.float32)] * 2
    r = _run(harness, _requests(tmp_path, xs, fail=1))
    assert r.returncode == 3
    first = r.stderr.splitlines()[0]
    assert first.startswith("opkit-sim: error: rank "), r.stderr
    assert "Hccl::AllReduce: mismatched collective sequences across ranks" in first, r.stderr
    assert "repeat 4" in first and "repeat 3" in first
    assert "rank_sum/op_kernel/rank_sum.cpp" in r.stderr


def test_describe_names_the_hccl_group(harness):
    d = json.loads(subprocess.run([str(harness), "describe"], capture_output=True, text=True, timeout=60).stdout)
    assert [op["hccl_groups"] for op in d["ops"]] == [["group"]]


def test_every_rank_output_is_poisoned_and_the_collective_counts_as_its_writer(harness, tmp_path):
    """y is written by the AllReduce alone: poisoned before the launch on every rank, then landed by the
    collective, it is fully written (the clean run above, with poisoning on by default, passes with it too)."""
    xs = [np.full((4, 8), float(r + 1), np.float32) for r in range(2)]
    r = _run(harness, _requests(tmp_path, xs))
    assert r.returncode == 0, r.stderr
    for rank in range(2):
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"y{rank}.bin", np.float32), np.full(32, 6.0, np.float32))


def test_a_slice_the_collective_never_lands_is_an_unwritten_output(harness, tmp_path):
    xs = [np.ones((4, 8), np.float32)] * 2
    r = _run(harness, _requests(tmp_path, xs, fail=2))
    assert r.returncode == 3, r.stderr
    assert "opkit-sim: error: unwritten output: kernel of RankSum on rank " in r.stderr, r.stderr
    assert "32 of the 128 bytes of output 'y' were never written: bytes [96, 128) (elements [24, 32))" in r.stderr
    assert r.stderr.count("opkit-sim: error:") == 1, r.stderr


def test_a_read_of_the_receive_buffer_before_the_collective_lands_is_an_uninitialised_read(harness, tmp_path):
    xs = [np.ones((4, 8), np.float32)] * 2
    r = _run(harness, _requests(tmp_path, xs, fail=3))
    assert r.returncode == 3, r.stderr
    assert "GlobalTensor::GetValue: uninitialised read: GM read of 4 bytes at byte offset 0 of 'output y'" in r.stderr
    assert "rank_sum/op_kernel/rank_sum.cpp" in r.stderr


def test_a_core_rewriting_what_the_collective_landed_is_no_overlap(harness, tmp_path):
    xs = [np.full((4, 8), float(r + 1), np.float32) for r in range(2)]
    r = _run(harness, _requests(tmp_path, xs, fail=4))
    assert r.returncode == 0, r.stderr
    for rank in range(2):
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"y{rank}.bin", np.float32), np.full(32, 6.0, np.float32))
