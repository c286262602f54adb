"""Device-side HCCL on emulated ranks (tests/sim/cpp/hccl_harness.cpp): R devices as threads of one process, each
kernel committing one slice per computed tile; the collectives' results on every rank against NumPy, and each broken
kernel ending in its one diagnostic at the marked line (never in a hang)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "hccl_harness.cpp"
KINDS = {"allreduce": 0, "allgather": 1, "reducescatter": 2, "alltoall": 3}
DTYPES = {"int32": (2, np.int32), "fp16": (3, np.float16), "fp32": (4, np.float32), "bf16": (11, np.uint16)}
OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def run(exe, tmp_path, scenario="ok", R=2, kind="allreduce", dtype="fp32", op="sum", T=3, cnt=16, env=None):
    args = [str(exe), str(tmp_path), scenario, str(R), str(KINDS[kind]), str(DTYPES[dtype][0]), str(OPS[op]), str(T), str(cnt)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def rank_x(r: int, n: int, dtype: str) -> np.ndarray:
    j = np.arange(n)
    v = ((j * 7 + r * 3) % 11 - 5) / 4
    return v * 4 if dtype == "int32" else v


def read_y(path, dtype: str) -> np.ndarray:
    raw = np.fromfile(path, DTYPES[dtype][1])
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.astype(np.float64)


def expected(kind: str, op: str, R: int, T: int, cnt: int, dtype: str) -> list[np.ndarray]:
    parts = 1 if kind == "allreduce" else R
    xs = [rank_x(r, parts * T * cnt, dtype) for r in range(R)]
    red = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op]
    if kind == "allreduce":
        return [red(np.stack(xs), axis=0)] * R
    blocks = [x.reshape(R, T * cnt) for x in xs]  # [destination or source block][slices]
    if kind == "allgather":  # rank p's first block lands at p * T * cnt on every rank
        return [np.concatenate([blocks[p][0] for p in range(R)])] * R
    if kind == "reducescatter":  # rank p receives the reduction of every rank's block p
        return [red(np.stack([blocks[r][p] for r in range(R)]), axis=0) for p in range(R)]
    return [np.concatenate([blocks[src][dst] for src in range(R)]) for dst in range(R)]  # alltoall


@pytest.mark.parametrize("R", [2, 4, 8])
@pytest.mark.parametrize("kind", list(KINDS))
def test_collectives_move_every_slice_to_every_rank(exe, tmp_path, R, kind):
    r = run(exe, tmp_path, R=R, kind=kind)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    want = expected(kind, "sum", R, 3, 16, "fp32")
    for rank in range(R):
        np.testing.assert_array_equal(read_y(tmp_path / f"y{rank}.bin", "fp32"), want[rank], err_msg=f"rank {rank}")


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "int32"])
@pytest.mark.parametrize("op", list(OPS))
def test_reduce_ops_in_the_documented_dtypes(exe, tmp_path, dtype, op):
    r = run(exe, tmp_path, R=4, kind="allreduce", dtype=dtype, op=op, T=2, cnt=32)
    assert r.returncode == 0, r.stderr
    want = expected("allreduce", op, 4, 2, 32, dtype)[0]
    if dtype == "fp16":
        want = want.astype(np.float16).astype(np.float64)
    for rank in range(4):
        np.testing.assert_array_equal(read_y(tmp_path / f"y{rank}.bin", dtype), want, err_msg=f"rank {rank} {op}")


def test_reduce_scatter_max_lands_each_block_on_its_rank(exe, tmp_path):
    r = run(exe, tmp_path, R=4, kind="reducescatter", op="max", T=2, cnt=8)
    assert r.returncode == 0, r.stderr
    want = expected("reducescatter", "max", 4, 2, 8, "fp32")
    assert not np.array_equal(want[0], want[1])
    for rank in range(4):
        np.testing.assert_array_equal(read_y(tmp_path / f"y{rank}.bin", "fp32"), want[rank])


BROKEN = {
    "wait_before_commit": ("wait_before_commit", r"rank \d: kernel 'hccl_tiles' AIV block 0/2: Hccl::Wait: Wait on handle 0, "
                           r"AllReduce #0 \(16 fp32, sum, repeat 3\), with no slice committed"),
    "commit_beyond": ("commit_beyond", r"Hccl::Commit: Commit beyond the repeat count: handle 0, AllReduce #0 .* already "
                      r"committed 3 time"),
    "missing_commit": ("finalize", r"rank 1: kernel 'hccl_tiles' AIV block 0/2: Hccl::Finalize: Finalize with work outstanding: "
                       r"handle 0, AllReduce #0 .* committed 2 of its 3 slice\(s\) \(a missing Commit\)"),
    "repeat_mismatch": (None, r"mismatched collective sequences across ranks: collective #0 is AllReduce #0 \(16 fp32, sum, "
                        r"repeat [34]\) on rank [01] but AllReduce #0 \(16 fp32, sum, repeat [34]\) on rank [01]"),
    "sequence_mismatch": (None, r"mismatched collective sequences across ranks: collective #0 is (AllGather|AllReduce) #0"),
    "rank_skips": ("wait", r"rank 0: kernel 'hccl_tiles' AIV block 0/2: Hccl::Wait: deadlock: slice 0 of AllReduce #0 .* can "
                   r"never move.*rank 1: prepared only 0 collective\(s\), returned"),
    "no_finalize": ("allreduce", r"Hccl::Finalize: rank \d: the kernel returned with 1 prepared collective\(s\) and no Finalize"),
    "second_core_commits": ("second_core_commits", r"AIV block 1/2: Hccl::Commit: only one core per rank writes HCCL messages"),
    "not_initialised": ("not_initialised_call", r"Hccl::GetRankDim: the Hccl object was not initialised"),
    "bad_context": ("bad_context", r"Hccl::Init: context 0x[0-9a-f]+ is not an HCCL context"),
    "cc_wrong_task": ("allreduce", r"Hccl::AllReduce: the Mc2CcTiling set by SetCcTiling is for HcclCMDType 6, not "
                      r"AllReduce \(2\)"),
    "cc_not_filled": ("set_cc_tiling", r"Hccl::SetCcTiling: 0x[0-9a-f]+ does not hold an Mc2CcTiling filled by "
                      r"Mc2CcTilingConfig::GetTiling"),
    "foreign_buffer": ("allreduce", r"rank 1: .*Hccl::AllReduce: recvBuf 0x[0-9a-f]+ is GM of rank 0's device"),
}


@pytest.mark.parametrize("scenario", list(BROKEN))
def test_broken_kernels_end_in_their_diagnostic(exe, tmp_path, scenario):
    mark, pattern = BROKEN[scenario]
    r = run(exe, tmp_path, scenario=scenario)
    assert r.returncode == 3, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith("opkit-sim: error: "), r.stderr
    assert re.search(pattern, lines[0]), r.stderr
    if mark is not None:
        assert f"hccl_harness.cpp:{marked_line(SRC, mark)}" in r.stderr


@pytest.mark.parametrize("kind", list(KINDS))
def test_host_tiling_of_each_task_through_initv2_and_setcctiling(exe, tmp_path, kind):
    r = run(exe, tmp_path, scenario="cc_ok", R=4, kind=kind)
    assert r.returncode == 0, r.stderr
    want = expected(kind, "sum", 4, 3, 16, "fp32")
    for rank in range(4):
        np.testing.assert_array_equal(read_y(tmp_path / f"y{rank}.bin", "fp32"), want[rank])


def test_window_overflow_names_the_window(exe, tmp_path):
    import os
    env = dict(os.environ, HCCL_BUFFSIZE="1")
    r = run(exe, tmp_path, R=2, kind="allgather", T=1, cnt=160 * 1024, env=env)  # 2 x 640 KiB through a 1 MiB window
    assert r.returncode == 3
    assert re.search(r"Hccl::AllGather: window overflow: one slice of AllGather #0 .* moves 1310720 bytes through the HCCL "
                     r"window of 1048576 bytes \(HCCL_BUFFSIZE\)", r.stderr), r.stderr
    assert f"hccl_harness.cpp:{marked_line(SRC, 'allgather')}" in r.stderr
    ok = run(exe, tmp_path, R=2, kind="allgather", T=2, cnt=64 * 1024, env=env)  # the same data in smaller slices
    assert ok.returncode == 0, ok.stderr


def test_trace_only_runs_every_rank_and_writes_a_trace_per_rank(exe, tmp_path):
    import json
    import os
    env = dict(os.environ, OPKIT_SIM_TRACE=str(tmp_path / "t.json"))
    r = run(exe, tmp_path, R=4, kind="allreduce", env=env)
    assert r.returncode == 0, r.stderr
    for rank in range(4):
        t = json.loads((tmp_path / f"t.rank{rank}.json").read_text())
        assert (t["rank"], t["rank_dim"], t["kernel"]) == (rank, 4, "hccl_tiles")
        assert len(t["cores"]) == 2
