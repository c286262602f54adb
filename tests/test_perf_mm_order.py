"""The model's serving order of the Matmul MIX server (opkit.perf.mm_order): an AIC's jobs in turns of its
clients, whatever order the simulator's threads ran them in, so a MIX kernel models the same time on every run."""

from __future__ import annotations

import copy

from opkit.perf.mm_order import canonical_job_order
from opkit.perf.model import evaluate

CHIP = "ascend910b2"
MMAD = {"ev": "op", "pipe": "M", "api": "Mmad", "dtype": "float16", "bytes": 64 * 4096, "repeats": 64}
VEC = {"ev": "op", "pipe": "V", "api": "Exp", "dtype": "float32", "bytes": 256, "repeats": 64}


def job(j: int, n: int, lease: int = 0) -> list[dict]:
    return [{"ev": "mm_run", "job": j, "lease": lease}, *[{**MMAD, "tag": j}] * n, {"ev": "mm_done", "job": j}]


def client(block: int, jobs: list[int], vec: int) -> dict:
    """An AIV that posts each job, waits for it, then does some vector work."""
    ev: list[dict] = []
    for j in jobs:
        ev += [{"ev": "mm_post", "aic": 0, "job": j}, {"ev": "mm_wait", "aic": 0, "job": j}, *[VEC] * vec]
    return {"block": block, "core_type": "AIV", "events": ev}


def trace(aic_events: list[dict], aiv0: list[int], aiv1: list[int], vec: tuple[int, int] = (50, 50)) -> dict:
    return {"cores": [{"block": 0, "core_type": "AIC", "events": aic_events},
                      client(0, aiv0, vec[0]), client(1, aiv1, vec[1])]}


def job_ids(t: dict) -> list[int]:
    return [e["job"] for e in t["cores"][0]["events"] if e.get("ev") == "mm_run"]


def test_two_host_orders_of_the_same_jobs_model_the_same_time():
    # AIV 0 posted jobs 1, 3, 5 and AIV 1 jobs 2, 4, 6 in one run; in another run the threads raced
    # differently: AIV 0 got 1, 2, 5 and AIV 1 got 3, 4, 6, and the AIC served 1 2 5 3 4 6
    a = trace(job(1, 30) + job(2, 30) + job(3, 30) + job(4, 30) + job(5, 30) + job(6, 30), [1, 3, 5], [2, 4, 6])
    b = trace(job(1, 30) + job(2, 30) + job(5, 30) + job(3, 30) + job(4, 30) + job(6, 30), [1, 2, 5], [3, 4, 6])
    assert job_ids(canonical_job_order(copy.deepcopy(a))) == [1, 2, 3, 4, 5, 6]
    assert job_ids(canonical_job_order(copy.deepcopy(b))) == [1, 3, 2, 4, 5, 6]  # turn k of AIV 0, then of AIV 1
    ta, tb = evaluate(copy.deepcopy(a), CHIP)[0], evaluate(copy.deepcopy(b), CHIP)[0]
    assert ta["modelled_us"] == tb["modelled_us"]
    # without the reorder the two traces would model differently: the check can fail
    from opkit.perf.model import model_trace
    assert model_trace(a, CHIP).steady_us != model_trace(b, CHIP).steady_us


def test_a_leased_tile_keeps_its_jobs_together_and_each_client_keeps_its_order():
    # AIV 1's Iterate (job 2, lease) ... GetTensorC (job 3, release) must stay adjacent
    ev = job(2, 5, lease=1) + job(3, 5, lease=-1) + job(1, 5) + job(4, 5) + job(5, 5)
    t = canonical_job_order(trace(ev, [1, 4, 5], [2, 3]))
    assert job_ids(t) == [1, 2, 3, 4, 5]
    # the events of each job travel with it
    tags = [e["tag"] for e in t["cores"][0]["events"] if e.get("ev") == "op"]
    assert tags == [1] * 5 + [2] * 5 + [3] * 5 + [4] * 5 + [5] * 5


def test_head_tail_and_unknown_jobs_stay_where_they_belong():
    head = [{**VEC, "tag": "head"}]
    tail = [{**VEC, "tag": "tail"}]
    ev = head + job(9, 2) + job(2, 2) + job(1, 2) + tail
    t = canonical_job_order(trace(ev, [1], [2]))  # job 9's post was not traced (dropped)
    evs = t["cores"][0]["events"]
    assert evs[0]["tag"] == "head" and evs[-1]["tag"] == "tail"
    assert job_ids(t) == [1, 2, 9]


def test_idempotent_and_a_trace_without_jobs_is_untouched():
    t = trace(job(2, 3) + job(1, 3), [1], [2])
    once = canonical_job_order(copy.deepcopy(t))
    assert canonical_job_order(copy.deepcopy(once)) == once
    plain = {"cores": [{"block": 0, "core_type": "AIV", "events": [VEC] * 4}]}
    assert canonical_job_order(copy.deepcopy(plain)) == plain


def test_jobs_posted_after_a_syncall_are_served_after_every_job_posted_before_it():
    # AIV 0 posts jobs 1, 2, 3, AIV 1 job 4, then both SyncAll<true>, then jobs 5 (AIV 0) and 6 (AIV 1). In turns
    # alone job 6 (AIV 1's second) would come before job 3 (AIV 0's third): the AIC would wait for a post that
    # the barrier holds back until job 3 is done, a cycle the replay cannot run
    sync = {"ev": "sync_all", "all_cores": False}

    def barred(block: int, before: list[int], after: list[int]) -> dict:
        ev: list[dict] = []
        for j in before + [None] + after:
            if j is None:
                ev.append(sync)
                continue
            ev += [{"ev": "mm_post", "aic": 0, "job": j}, {"ev": "mm_wait", "aic": 0, "job": j}, *[VEC] * 20]
        return {"block": block, "core_type": "AIV", "events": ev}

    aic = job(1, 10) + job(4, 10) + job(2, 10) + job(3, 10) + job(6, 10) + job(5, 10)
    t = {"cores": [{"block": 0, "core_type": "AIC", "events": aic}, barred(0, [1, 2, 3], [5]), barred(1, [4], [6])]}
    assert job_ids(canonical_job_order(copy.deepcopy(t))) == [1, 4, 2, 3, 5, 6]
    out = evaluate(copy.deepcopy(t), CHIP)[0]  # replays (the turn order alone left 3 jobs never ready)
    assert out["modelled_us"] > 0
