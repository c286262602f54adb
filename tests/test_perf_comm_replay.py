"""The overlap replay of a multi-rank run (opkit.perf.comm_replay) on hand-written traces: a slice starts when the
last rank committed it and the link is free, a Wait stalls its core until the slice lands, the fused time is the
replay's end; compute, communication, serial and saving as documented (docs/perf.md §9)."""

from __future__ import annotations

from typing import Any

import pytest

from opkit.errors import OpkitError
from opkit.perf.comm import collective_us, link_model
from opkit.perf.comm_replay import LANDING, replay_ranks
from opkit.perf.costs import chip_params
from opkit.perf.model import model_trace

CHIP = "ascend910b2"
MIB = 1 << 20


def work(repeats: int) -> dict[str, Any]:
    return {"ev": "op", "pipe": "V", "api": "Add", "dtype": "float16", "bytes": repeats * 256, "repeats": repeats}


def prepare(repeat: int, nbytes: int = 4 * MIB, kind: str = "AllReduce", handle: int = 0) -> dict[str, Any]:
    return {"ev": "hccl_prepare", "handle": handle, "kind": kind, "op": "sum", "dtype": "fp16", "count": nbytes // 2,
            "stride": nbytes // 2, "bytes": nbytes, "repeat": repeat, "ranks": 2, "file": "k.cpp", "line": 3}


def commit(i: int, h: int = 0) -> dict[str, Any]:
    return {"ev": "hccl_commit", "handle": h, "slice": i, "file": "k.cpp", "line": 9}


def wait(i: int, h: int = 0) -> dict[str, Any]:
    return {"ev": "hccl_wait", "handle": h, "slice": i, "file": "k.cpp", "line": 12}


def rank_trace(rank: int, ranks: int, events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kernel": "hand", "soc": CHIP, "rank": rank, "rank_dim": ranks,
            "cores": [{"block": 0, "core_type": "AIV", "events": events}]}


def tiles_then_waits(tiles: int, repeats: int, finalize_sync: bool = True) -> list[dict[str, Any]]:
    ev: list[dict[str, Any]] = [prepare(tiles)]
    for i in range(tiles):
        ev += [work(repeats), commit(i)]
    ev += [wait(i) for i in range(tiles)]
    return ev + [{"ev": "hccl_finalize", "sync": finalize_sync}]


def compute_only(events: list[dict[str, Any]]) -> float:
    plain = [e for e in events if not e["ev"].startswith("hccl_")]
    return model_trace(rank_trace(0, 1, plain), CHIP).modelled_us


def test_slices_overlap_the_compute_of_the_next_tiles():
    ev = tiles_then_waits(4, 250000)  # a tile of compute about as long as a slice on the link
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    link = link_model(CHIP)
    p = chip_params(CHIP)
    tile_us = (compute_only(ev) - p.startup_us) / 4
    one = collective_us("AllReduce", 4 * MIB, 2, link)
    assert res.compute_us == pytest.approx(compute_only(ev), abs=0.01)  # + the Waits' sync cycles
    assert res.comm_us == pytest.approx(collective_us("AllReduce", 16 * MIB, 2, link))
    assert [s.slice for s in res.slices] == [0, 1, 2, 3]
    free = 0.0
    for i, s in enumerate(res.slices):
        assert s.ready_us == pytest.approx((i + 1) * tile_us, rel=1e-3)  # committed right after its tile
        assert s.start_us == pytest.approx(max(s.ready_us, free))  # and after the slice before it
        assert s.end_us - s.start_us == pytest.approx(one)
        free = s.end_us
    # the waits come after the last slice: the fused time is its landing (+ the kernel start-up)
    assert res.fused_us == pytest.approx(res.slices[-1].end_us + p.startup_us, rel=1e-6)
    assert res.fused_us < res.serial_us == pytest.approx(res.compute_us + res.comm_us)
    assert res.saving == pytest.approx(1 - res.fused_us / res.serial_us)
    assert 0 < res.saving <= 1 - max(res.compute_us, res.comm_us) / res.serial_us + 1e-9  # below perfect overlap
    d = res.as_dict()
    assert d["label"] == "modelled" and d["ranks"] == 2
    assert d["exposed_comm_us"] == pytest.approx(res.fused_us - res.compute_us)
    assert d["collectives"][0]["slice_us"] == pytest.approx(one)


def test_a_slice_waits_for_the_last_rank_to_commit_it():
    fast, slow = tiles_then_waits(3, 20000), tiles_then_waits(3, 60000)
    res = replay_ranks([rank_trace(0, 2, fast), rank_trace(1, 2, slow)], CHIP)
    p = chip_params(CHIP)
    slow_tile = (compute_only(slow) - p.startup_us) / 3
    assert [s.ready_us for s in res.slices] == pytest.approx([slow_tile * (i + 1) for i in range(3)], rel=1e-3)
    assert res.compute_us == pytest.approx(compute_only(slow), abs=0.01)
    # the fast rank's core waits for the slices too: both ranks end when the last slice lands
    assert res.per_rank[0].steady_us == pytest.approx(res.per_rank[1].steady_us, rel=1e-6)


def test_a_wait_stalls_its_core_until_the_slice_lands():
    # commit slice 0, wait for it, then compute tile 1 and commit slice 1: tile 1 cannot start before slice 0 lands
    ev = [prepare(2), work(20000), commit(0), wait(0), work(20000), commit(1), wait(1),
          {"ev": "hccl_finalize", "sync": True}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP, keep_graph=True)
    s0, s1 = res.slices
    assert s1.ready_us >= s0.end_us  # the second commit came after the first landing
    assert res.rounds >= 3  # landing times fed back into the commits
    p = chip_params(CHIP)
    graph = res.per_rank[0].graph
    assert graph is not None
    work_tasks = [t for t in graph.tasks if t.pipe == "V"]
    assert p.us(work_tasks[1].start) == pytest.approx(s0.end_us, abs=0.01)  # + the Wait's sync cycles
    assert not any(t.core >= 0 and t.name.startswith(LANDING) for t in graph.tasks)
    tile = (compute_only(ev) - p.startup_us) / 2
    assert res.fused_us == pytest.approx(p.startup_us + 2 * tile + (s0.end_us - s0.start_us) * 2, rel=1e-3)
    assert res.saving < 0.01  # nothing overlaps: the serial chain with per-slice overheads


def test_without_a_wait_the_run_ends_with_the_last_core_or_the_last_slice():
    ev = tiles_then_waits(2, 400000, finalize_sync=False)
    ev = [e for e in ev if e["ev"] != "hccl_wait"]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    assert res.fused_us == pytest.approx(res.slices[-1].end_us + chip_params(CHIP).startup_us)
    ev = [prepare(1, nbytes=4096), commit(0), work(400000), {"ev": "hccl_finalize", "sync": False}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    assert res.fused_us == pytest.approx(res.compute_us, abs=0.01)  # the tiny slice hides under the compute
    assert res.saving > 0


def test_several_collectives_share_the_link_in_the_order_they_become_ready():
    ev = [prepare(1, kind="AllGather", handle=0), prepare(1, kind="ReduceScatter", handle=1), work(20000), commit(0, 1),
          work(20000), commit(0, 0), wait(0, 0), wait(0, 1), {"ev": "hccl_finalize", "sync": True}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    assert [s.handle for s in res.slices] == [1, 0]
    link = link_model(CHIP)
    assert res.comm_us == pytest.approx(collective_us("AllGather", 8 * MIB, 2, link)
                                        + collective_us("ReduceScatter", 8 * MIB, 2, link))


def test_traces_that_do_not_make_one_run_are_refused():
    ev = tiles_then_waits(2, 1000)
    with pytest.raises(OpkitError, match="trace 1 is rank 0 of 2, not rank 1 of 2"):
        replay_ranks([rank_trace(0, 2, ev), rank_trace(0, 2, ev)], CHIP)
    other = tiles_then_waits(3, 1000)
    with pytest.raises(OpkitError, match="rank 1 prepared other collectives than rank 0"):
        replay_ranks([rank_trace(0, 2, ev), rank_trace(1, 2, other)], CHIP)
    short = [e for e in ev if not (e["ev"] == "hccl_commit" and e["slice"] == 1)]
    with pytest.raises(OpkitError, match=r"slice 1 of HCCL handle 0 \(AllReduce at k.cpp:3\) is never committed"):
        replay_ranks([rank_trace(0, 2, short), rank_trace(1, 2, short)], CHIP)
    cut = rank_trace(1, 2, ev)
    cut["cores"][0]["events_dropped"] = 5
    with pytest.raises(OpkitError, match="rank 1's trace dropped events"):
        replay_ranks([rank_trace(0, 2, ev), cut], CHIP)
    with pytest.raises(OpkitError, match="no model of the links"):
        replay_ranks([rank_trace(0, 1, ev)], "ascend310p3")


def test_one_rank_has_no_communication():
    ev = tiles_then_waits(2, 1000)
    res = replay_ranks([rank_trace(0, 1, ev)], CHIP)
    assert res.comm_us == 0.0
    assert res.fused_us == pytest.approx(res.compute_us, abs=0.01)


def test_an_aiv_commits_after_the_cube_work_its_matmul_job_did():
    # a MIX kernel: the AIV posts a Matmul job to its AIC, waits for it (synchronous IterateAll), then commits
    mmad = {"ev": "op", "pipe": "M", "api": "Mmad", "dtype": "float16", "bytes": 64 * 4096, "repeats": 64}
    aic = {"block": 0, "core_type": "AIC", "events": [{"ev": "mm_run", "job": 1}, *[mmad] * 2000,
                                                        {"ev": "mm_done", "job": 1}]}
    aiv = {"block": 0, "core_type": "AIV", "events": [prepare(1), {"ev": "mm_post", "aic": 0, "job": 1},
                                                        {"ev": "mm_wait", "aic": 0, "job": 1}, commit(0), wait(0),
                                                        {"ev": "hccl_finalize", "sync": True}]}
    traces = [{"kernel": "hand", "soc": CHIP, "rank": r, "rank_dim": 2, "cores": [aic, aiv]} for r in range(2)]
    res = replay_ranks(traces, CHIP)
    cube_us = model_trace({"cores": [{"block": 0, "core_type": "AIC", "events": [mmad] * 2000}]}, CHIP).steady_us
    assert res.slices[0].ready_us == pytest.approx(cube_us, abs=0.01)
    unlinked = [{**aiv, "events": [e for e in aiv["events"] if not e["ev"].startswith("mm_")]}]
    res = replay_ranks([{**t, "cores": [aic, *unlinked]} for t in traces], CHIP)
    assert res.slices[0].ready_us < 0.01  # without the job's edges the commit would not wait for the cube


def on(ev: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**ev, **fields}


def buf(alloc: int, offset: int = 0) -> int:
    return alloc << 40 | offset  # a GM address as the trace records it (trace_gm_addr)


def test_the_serial_merges_the_prepares_over_one_output_buffer():
    # a cut into a ramp: two AllReduces of one tile each, then one of 2 strided slices, all into buffer 3, and an
    # AllReduce of the same size into another buffer (its own collective in the unfused chain too)
    mib = [1, 2, 4]
    ev = [on(prepare(1, nbytes=mib[0] * MIB, handle=0), recv=buf(3), send=buf(2)),
          on(prepare(1, nbytes=mib[1] * MIB, handle=1), recv=buf(3, MIB), send=buf(2, MIB)),
          on(prepare(2, nbytes=mib[2] * MIB, handle=2), recv=buf(3, 3 * MIB), send=buf(2, 3 * MIB)),
          on(prepare(1, nbytes=MIB, handle=3), recv=buf(5), send=buf(4))]
    for h, n in enumerate([1, 1, 2, 1]):
        for i in range(n):
            ev += [work(1000), commit(i, h)]
    ev += [{"ev": "hccl_finalize", "sync": True}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    link = link_model(CHIP)
    merged = (1 + 2 + 2 * 4) * MIB
    assert [(c.kind, c.op, c.dtype, c.bytes, c.handles) for c in res.serial] == [
        ("AllReduce", "sum", "fp16", merged, (0, 1, 2)), ("AllReduce", "sum", "fp16", MIB, (3,))]
    assert res.comm_us == pytest.approx(collective_us("AllReduce", merged, 2, link)
                                        + collective_us("AllReduce", MIB, 2, link))
    # one launch and two step latencies fewer per merged prepare than the prepares summed one by one
    one_by_one = sum(collective_us("AllReduce", c.slice_bytes * c.repeat, 2, link) for c in res.collectives)
    assert res.comm_us < one_by_one
    d = res.as_dict()
    assert [c["handles"] for c in d["serial_collectives"]] == [[0, 1, 2], [3]]
    assert d["serial_collectives"][0]["us"] == pytest.approx(collective_us("AllReduce", merged, 2, link))


@pytest.mark.parametrize("other", [{"op": "max"}, {"dtype": "bf16"}, {"kind": "AllGather"}, {"recv": buf(4)}])
def test_prepares_of_another_kind_op_dtype_or_buffer_stay_apart(other):
    ev = [on(prepare(1, handle=0), recv=buf(3)), on(prepare(1, handle=1), **{"recv": buf(3, 4 * MIB), **other}),
          work(1000), commit(0, 0), commit(0, 1), {"ev": "hccl_finalize", "sync": True}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    assert [c.handles for c in res.serial] == [(0,), (1,)]


def test_prepares_without_a_receive_buffer_are_counted_one_by_one():
    # traces written before the prepare event named its buffers
    ev = [prepare(1, handle=0), prepare(1, handle=1), work(1000), commit(0, 0), commit(0, 1),
          {"ev": "hccl_finalize", "sync": True}]
    res = replay_ranks([rank_trace(r, 2, ev) for r in range(2)], CHIP)
    assert [c.handles for c in res.serial] == [(0,), (1,)]
    assert res.comm_us == pytest.approx(2 * collective_us("AllReduce", 4 * MIB, 2, link_model(CHIP)))
