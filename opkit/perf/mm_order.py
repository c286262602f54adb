"""The order in which the model lets an AIC serve its AIVs' Matmul jobs (the MIX server, "KFC").

In a MIX launch each AIC runs the cube work its AIV clients post (``mm_post`` on the AIV, ``mm_run`` ...
``mm_done`` on the AIC; opkit/sim/include/adv_api/matmul/matmul_server.h). The simulator runs one host
thread per core, so when two clients have a job pending, which one the AIC served first depends on
how the host scheduled the threads: the data is the same either way, but the AIC's trace is not, and
a replay of it in trace order would give a different modelled time from run to run.

:func:`canonical_job_order` makes the order a property of the kernel instead: the AIC serves its
clients in turn, each turn one *unit* of a client's work — one job, or the jobs from one that leaves a
tile in L0C (``Iterate``: it leases the server) to the one that reads it out (``GetTensorC``), which
the server never interleaves with another client's. Turn ``k`` of AIV 0 comes before turn ``k`` of AIV 1,
then turn ``k + 1`` of AIV 0, and so on; a client with no turn left is skipped; each client's own jobs
keep the order it posted them. Turns restart after every ``SyncAll`` of the clients: a job posted after
a client's n-th SyncAll is served after every job posted before anyone's n-th (a barrier orders the posts on
either side of it, so serving a later job first would make the AIC wait for a post the barrier holds back,
while a client behind the barrier waits for a job the AIC has not served: the replay's deadlock).
Symmetric clients (the usual SPMD split of rows between the two AIVs) post their turns at about the same
modelled time, so this is the first-come order the chip's server follows; for strongly asymmetric
clients it is an estimate (docs/perf.md §1, "Matmul server").

The reorder moves whole job segments of the AIC's event list (from a job's ``mm_run`` up to the next
``mm_run``); what the AIC does before its first job and after its last one stays in place. Jobs whose
post was not traced (the trace storage ran out) keep their trace order, after the others.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, TypeVar

import numpy as np

from .trace_store import KIND, TraceStore, as_store

_UNKNOWN = float("inf")
T = TypeVar("T", dict, TraceStore)


def _clients(store: TraceStore) -> dict[tuple[int, int], tuple[int, int]]:
    """(AIC block, job id) -> (index of the posting core in the trace, the SyncAlls that core passed before)."""
    posts: dict[tuple[int, int], tuple[int, int]] = {}
    kind, records = store.kind, store.records
    for ci, c in enumerate(store.cores):
        if c.core_type == "AIC":
            continue
        epoch = 0
        for r in c.rec[store.where(ci, "sync_all", "mm_post")].tolist():
            if kind[r] == KIND["sync_all"]:
                epoch += 1
            else:
                ev = records[r]
                posts[(int(ev["aic"]), int(ev["job"]))] = (ci, epoch)
    return posts


def _units(jobs: list[dict[str, Any]], runs: list[int], end: int) -> list[tuple[int, int, int]]:
    """The AIC's job segments grouped into turns: (first event, end event, job id of the first job); ``jobs``:
    the ``mm_run`` event at each of ``runs``."""
    units: list[tuple[int, int, int]] = []
    in_lease = False
    for j, at in enumerate(runs):
        stop = runs[j + 1] if j + 1 < len(runs) else end
        lease = int(jobs[j].get("lease", 0))
        if in_lease:
            first, _, job = units[-1]
            units[-1] = (first, stop, job)
        else:
            units.append((at, stop, int(jobs[j]["job"])))
        if lease > 0:
            in_lease = True
        elif lease < 0:
            in_lease = False
    return units


def _core_order(store: TraceStore, ci: int, posts: dict[tuple[int, int], tuple[int, int]]) -> np.ndarray | None:
    """The served-in-turn order of AIC ``ci``'s events (a permutation), or None when it is the trace's."""
    c = store.cores[ci]
    runs = store.where(ci, "mm_run").tolist()
    if len(runs) < 2:
        return None
    done = [i for i in store.where(ci, "mm_done").tolist() if i > runs[-1]]
    end = done[0] + 1 if done else len(c)
    units = _units([store.records[int(c.rec[i])] for i in runs], runs, end)
    turn: dict[tuple[int, int], int] = defaultdict(int)
    keyed = []
    for u, (first, stop, job) in enumerate(units):
        who = posts.get((c.block, job))
        if who is None:
            keyed.append(((_UNKNOWN, u, 0), first, stop))
            continue
        client, epoch = who
        keyed.append(((epoch, turn[who], client), first, stop))
        turn[who] += 1
    order = sorted(range(len(keyed)), key=lambda i: keyed[i][0])
    if order == list(range(len(keyed))):
        return None
    parts = [np.arange(runs[0])] + [np.arange(keyed[i][1], keyed[i][2]) for i in order] + [np.arange(end, len(c))]
    return np.concatenate(parts)


def canonical_job_order(trace: T) -> T:
    """Reorder every AIC's Matmul job segments of ``trace`` (a store, or a trace dict) into the served-in-turn order
    (module docstring).

    Changes ``trace`` in place (and returns it); a trace without Matmul jobs is left as it is. Idempotent."""
    store = as_store(trace)
    posts = _clients(store)
    if not posts:
        return trace
    for ci, c in enumerate(store.cores):
        if c.core_type != "AIC":
            continue
        order = _core_order(store, ci, posts)
        if order is None:
            continue
        if isinstance(trace, TraceStore):
            c.reorder(order)
        else:
            events = trace["cores"][ci]["events"]
            trace["cores"][ci]["events"] = [events[i] for i in order.tolist()]
    return trace


__all__ = ["canonical_job_order"]
