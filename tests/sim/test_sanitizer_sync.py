"""The software SyncAll(gmWorkspace, ubWorkspace, usedCores) with its documented workspace rules, and same-pipe
ordering: each broken variant ends the run with one diagnostic at the call's line, the clean kernels synchronise."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "sync_checks_harness.cpp"


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def run(exe, scenario: str, env: dict[str, str] | None = None):
    return subprocess.run([str(exe), scenario], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env} if env else None)


def values(r, key: str) -> list[int]:
    assert r.returncode == 0, r.stderr
    m = re.search(rf"^{key} (.*)$", r.stdout, re.M)
    assert m, r.stdout
    return [int(v) for v in m.group(1).split()]


@pytest.mark.parametrize("scenario, y, slots", [
    ("soft_ok", [10, 10, 10, 10], [1, 1, 1, 1]),          # every block sees every block's value
    ("soft_twice_ok", [30, 30, 30, 30], [4, 4, 4, 4]),    # four calls: each slot counts its core's calls
    ("soft_subset_ok", [3, 3, 0, 0], [1, 1, 0, 0]),       # usedCores 2: blocks 2 and 3 stay out
])
def test_software_syncall_synchronises_the_taking_part_cores(exe, scenario, y, slots):
    r = run(exe, scenario)
    assert values(r, "y") == y
    assert values(r, "slots") == slots   # the GM workspace holds what the chip's flags leave there
    assert "warning" not in r.stderr, r.stderr


def test_workspaces_sized_for_the_used_cores_only_are_a_warning(exe):
    """The chip touches usedCores slots; the documentation asks GetBlockNum() * 32 bytes: the run goes on."""
    r = run(exe, "soft_subset_small")
    assert values(r, "y") == [3, 3, 0, 0]
    assert "SyncAll: gmWorkspace holds 64 bytes, less than the GetBlockNum() * 32 = 128 bytes" in r.stderr, r.stderr
    assert "SyncAll: ubWorkspace holds 64 bytes, less than the GetBlockNum() * 32 = 128 bytes" in r.stderr, r.stderr
    assert "error" not in r.stderr, r.stderr


SOFT_ERRORS = {
    "soft_used_over": [r"AIV block \d/4: SyncAll: usedCores 5 is outside \[0, 4\]", r"4 AIV cores",
                       r"GetBlockNum\(\) \* GetTaskRatio\(\)"],
    "soft_beyond": [r"AIV block ([23])/4: SyncAll: block \1 calls SyncAll\(gmWorkspace, ubWorkspace, usedCores = 2\)",
                    r"synchronises blocks 0 to 1 only", r"GetBlockIdx\(\) < usedCores"],
    "soft_mismatch": [r"SyncAll: usedCores [23] here, but block [01] called SyncAll\(gmWorkspace, ubWorkspace\) for [23] cores",
                      r"the same count"],
    # whichever comes last names it: the returning block, or the last block to arrive
    "soft_missing": [r"SyncAll: deadlock: block(\(s\))? 2 (of the 4 cores this software SyncAll synchronises )?returned "
                     r"without calling (it|the software SyncAll)", r"poll the GM workspace forever"],
    "soft_not_zeroed": [r"AIV block 2/4: SyncAll: the GM workspace slot of block 2 \(bytes \[64, 68\)\) holds 7 before "
                        r"its first SyncAll, not 0", r"zero-initialised"],
    "soft_gm_small": [r"gmWorkspace holds 64 bytes, but 4 taking-part cores use a 32-byte slot each \(128 bytes\)"],
    "soft_ub_small": [r"ubWorkspace holds 32 bytes, but the poll reads 4 slots of 32 bytes \(128 bytes\)"],
}


@pytest.mark.parametrize("scenario", list(SOFT_ERRORS))
def test_software_syncall_misuse(exe, scenario):
    r = run(exe, scenario)
    assert r.returncode == 3, r.stderr
    for pat in SOFT_ERRORS[scenario]:
        assert re.search(pat, r.stderr), (pat, r.stderr)
    assert f"sync_checks_harness.cpp:{marked_line(SRC, 'soft_sync')}" in r.stderr, r.stderr
    assert r.stderr.count("opkit-sim: error:") == 1, r.stderr


# Same-pipe ordering (the DataCopy overview's multi-instruction rule, the PipeBarrier page): two transfers of one
# MTE pipe whose destinations overlap need PipeBarrier<PIPE_MTE2>/<PIPE_MTE3> between them.
ORDER_ERRORS = {
    "order_mte2": [r"DataCopy: same-pipe ordering: writes UB bytes \[768, 1024\) that an earlier transfer on pipe MTE2 "
                   r"\(DataCopy at .*sync_checks_harness.cpp:\d+\)", r"no PipeBarrier<PIPE_MTE2> in between"],
    "order_mte3": [r"DataCopy: same-pipe ordering: writes GM bytes \[896, 1024\) of the allocation that an earlier "
                   r"store on pipe MTE3 \(DataCopy at .*sync_checks_harness.cpp:\d+\)", r"PipeBarrier<PIPE_MTE3>"],
    "order_mte3_pad": [r"DataCopyPad: same-pipe ordering: writes GM bytes \[768, 1024\)", r"PipeBarrier<PIPE_MTE3>"],
}


@pytest.mark.parametrize("scenario", list(ORDER_ERRORS))
def test_overlapping_transfers_of_one_pipe_need_a_barrier(exe, scenario):
    r = run(exe, scenario)
    assert r.returncode == 3, r.stderr
    for pat in ORDER_ERRORS[scenario]:
        assert re.search(pat, r.stderr), (pat, r.stderr)
    assert f"sync_checks_harness.cpp:{marked_line(SRC, scenario)}" in r.stderr, r.stderr


@pytest.mark.parametrize("scenario, ysum, y0", [
    ("order_mte2_ok", 59232, [0, 1, 319]),        # the second load landed last: UB [192, 320) holds x[256, 384)
    ("order_mte3_ok", 123152, [0, 1, 287]),       # the second store landed last
    ("order_mte3_pad_ok", 59232, [0, 1, 319]),
])
def test_the_barrier_orders_overlapping_transfers(exe, scenario, ysum, y0):
    r = run(exe, scenario)
    assert values(r, "ysum") == [ysum] and values(r, "y0") == y0
    assert "warning" not in r.stderr, r.stderr


def test_dependent_vector_instructions_are_ordered_without_a_barrier(exe):
    """On 910B the compiler inserts PIPE_V barriers itself (--cce-auto-sync, on by default; 950: the hardware):
    a vector instruction reading the previous one's result sees it, and nothing is reported."""
    r = run(exe, "order_v_dependent_ok")
    x = [float(i) for i in range(512)]
    d = [(x[i] + x[256 + i]) * x[i] + 1.0 for i in range(256)]
    assert values(r, "ysum") == [int(2 * sum(d))]
    assert values(r, "y0") == [int(d[0]), int(d[1]), int(d[255])]
    assert r.stderr == "", r.stderr


def test_the_ordering_check_can_be_left_out_for_measurements(exe):
    """OPKIT_SIM_CHECKS_OFF=order (benchmarks/sim_speed.py --checks) leaves the same-pipe check out, nothing else."""
    assert run(exe, "order_mte3", {"OPKIT_SIM_CHECKS_OFF": "order"}).returncode == 0
    assert run(exe, "order_mte3", {"OPKIT_SIM_CHECKS_OFF": "overlap,uaf"}).returncode == 3
    assert run(exe, "soft_used_over", {"OPKIT_SIM_CHECKS_OFF": "order,overlap,uaf"}).returncode == 3
