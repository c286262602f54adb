"""Replay the ranks of a multi-rank (MC2) run: each rank's cores, the slices of its collectives on the links.

Every rank's trace is replayed as a single-rank trace is (:mod:`opkit.perf.replay`), with three more
events from the device-side HCCL (``adv_api/hccl/hccl.h``):

* ``hccl_prepare`` names a collective (handle, kind, reduce op, bytes of one slice, repeat, dtype, the send and
  receive buffers of its first slice);
* ``hccl_commit`` releases one slice: a task after every pipe of its core (the data the slice sends
  was written by what precedes it in program order);
* ``hccl_wait`` and ``hccl_finalize`` (with ``sync``) stall their core until the slice has landed (all
  the rank's slices for Finalize): a scalar task every later instruction of the core waits for.

The Matmul API's MIX server jobs are edges of the one-device replay too (an AIV that commits a tile
after a synchronous ``IterateAll`` commits it when its AIC has computed it).

A slice's collective starts when the last rank committed it and the link finished the slice before
it (HCCL's AICPU server runs one task at a time, in the order they become ready); it lasts
:func:`opkit.perf.comm.collective_us` of one slice. Landing times and commit times depend on each
other (a Wait delays the commits after it), so the ranks are replayed again with the landing times
of the previous round until they no longer change; they only grow, so this ends. Ranks whose traces
are identical are replayed once.

Figures (all modelled, microseconds): ``compute_us``, the slowest rank with every slice landed at
once (no communication); ``comm_us``, the unfused equivalent of the run's collectives, one after the
other, as a matmul-then-collective chain would run them: the prepares of one kind, reduce op, dtype and
communicator whose receive buffers lie in one output buffer (contiguous or strided slices of it, as a cut
into tiles prepares them) are one collective of their summed bytes (:func:`serial_collectives`), each other
prepare one collective of its own, all unsliced; ``serial_us`` = compute + communication; ``fused_us``,
the end of the overlapped replay (the last core or the last slice); ``saving`` = 1 - fused / serial.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opkit.errors import OpkitError

from .comm import LinkModel, buffer_bytes, collective_us, link_model
from .costs import ChipParams, chip_params
from .l2 import L2Hits
from .model import ModelResult, model_trace
from .replay import _Builder
from .trace_store import TraceStore, as_store

LANDING = "HCCL slice landed"  # the name of the pseudo-tasks that hold a Wait until its slice lands
_MAX_ROUNDS = 64


@dataclass(frozen=True)
class Collective:
    """One prepared collective (the same on every rank)."""

    handle: int
    kind: str
    dtype: str
    slice_bytes: int  # count * sizeof(dtype) of one slice, as the prepare call gave it
    repeat: int
    where: str  # file:line of the prepare call
    op: str = ""  # the reduce op (AllReduce, ReduceScatter), else ""
    ranks: int = 0  # the communicator's rank count
    recv: int | None = None  # slice 0's receive buffer as the trace records it: allocation << 40 | offset

    def buffer_bytes(self, ranks: int, slices: int = 1) -> float:
        return buffer_bytes(self.kind, float(self.slice_bytes) * slices, ranks)


@dataclass(frozen=True)
class SerialCollective:
    """One collective of the serial baseline: one prepare, or several merged (:func:`serial_collectives`)."""

    kind: str
    op: str
    dtype: str
    bytes: int  # one rank's bytes as the prepare calls count them (slice bytes x repeat, summed)
    handles: tuple[int, ...]

    def buffer_bytes(self, ranks: int) -> float:
        return buffer_bytes(self.kind, float(self.bytes), ranks)


def serial_collectives(colls: list[Collective]) -> list[SerialCollective]:
    """The unfused equivalent of a run's collectives: prepares of the same kind, reduce op, dtype and communicator
    whose receive buffers are in one GM allocation (the output buffer, in contiguous or strided slices) merge into
    one collective of their summed bytes, in the order of their first prepare; a prepare whose trace names no
    receive buffer (traces written before it did) stays one collective of its own."""
    groups: dict[tuple[Any, ...], list[Collective]] = {}
    for c in colls:
        key = ("handle", c.handle) if c.recv is None else (c.kind, c.op, c.dtype, c.ranks, c.recv >> 40)
        groups.setdefault(key, []).append(c)
    return [SerialCollective(g[0].kind, g[0].op, g[0].dtype, sum(c.slice_bytes * c.repeat for c in g),
                             tuple(c.handle for c in g)) for g in groups.values()]


@dataclass(frozen=True)
class SliceTime:
    handle: int
    slice: int
    ready_us: float  # the last rank's commit
    start_us: float
    end_us: float


@dataclass
class RanksResult:
    chip: str
    ranks: int
    link: LinkModel
    compute_us: float
    comm_us: float
    fused_us: float
    collectives: list[Collective]
    slices: list[SliceTime]
    per_rank: list[ModelResult] = field(repr=False)  # the overlapped replay of each rank
    rounds: int = 1
    startup_us: float = 0.0
    serial: list[SerialCollective] = field(default_factory=list)  # what comm_us counts

    @property
    def serial_us(self) -> float:
        return self.compute_us + self.comm_us

    @property
    def saving(self) -> float:
        return 1.0 - self.fused_us / self.serial_us if self.serial_us > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        link_busy = sum(s.end_us - s.start_us for s in self.slices)
        return {
            "label": "modelled", "chip": self.chip, "ranks": self.ranks,
            "compute_us": self.compute_us, "comm_us": self.comm_us, "serial_us": self.serial_us,
            "fused_us": self.fused_us, "saving": self.saving,
            "perfect_overlap_us": max(self.compute_us, self.comm_us) if self.comm_us else self.compute_us,
            "sliced_comm_us": link_busy, "exposed_comm_us": max(0.0, self.fused_us - self.compute_us),
            "startup_us": self.startup_us, "rounds": self.rounds, "link": self.link.as_dict(),
            "collectives": [{"handle": c.handle, "kind": c.kind, "dtype": c.dtype, "slice_bytes": c.slice_bytes,
                             "repeat": c.repeat, "at": c.where,
                             "unsliced_us": collective_us(c.kind, c.buffer_bytes(self.ranks, c.repeat), self.ranks,
                                                          self.link),
                             "slice_us": collective_us(c.kind, c.buffer_bytes(self.ranks), self.ranks, self.link)}
                            for c in self.collectives],
            "serial_collectives": [{"kind": c.kind, "op": c.op, "dtype": c.dtype, "bytes": c.bytes,
                                    "handles": list(c.handles),
                                    "us": collective_us(c.kind, c.buffer_bytes(self.ranks), self.ranks, self.link)}
                                   for c in self.serial],
            "slices": [{"handle": s.handle, "slice": s.slice, "ready_us": s.ready_us, "start_us": s.start_us,
                        "end_us": s.end_us} for s in self.slices],
            "per_rank_us": [r.modelled_us for r in self.per_rank],
        }


class _HcclBuilder(_Builder):
    """The replay's graph builder plus the HCCL events (module docstring)."""

    def __init__(self, trace: dict[str, Any] | TraceStore, p: ChipParams, l2_hit: float | L2Hits,
                 land: dict[tuple[int, int], float]) -> None:
        super().__init__(trace, p, l2_hit)
        self.land = land  # (handle, slice) -> cycles
        self.commits: dict[tuple[int, int], int] = {}  # (handle, slice) -> task

    def _hold(self, cycles: float, what: str) -> int:
        return self.new(-1, "", cycles, [], name=f"{LANDING} {what}")

    def other(self, ev: dict[str, Any]) -> None:
        kind = ev.get("ev")
        if kind == "hccl_commit":
            h, i = int(ev["handle"]), int(ev["slice"])
            self.commits[(h, i)] = self.new(self.ci, "", self.p.sync_cycles, list(self.last),
                                            name=f"Hccl::Commit #{h}.{i}")
        elif kind == "hccl_wait":
            h, i = int(ev["handle"]), int(ev["slice"])
            hold = self._hold(self.land.get((h, i), 0.0), f"#{h}.{i}")
            self.link(hold, self.on("S", self.p.sync_cycles, [hold], name=f"Hccl::Wait #{h}.{i}"), "hccl")
        elif kind == "hccl_finalize" and ev.get("sync", True):
            end = max(self.land.values(), default=0.0)
            hold = self._hold(end, "(all)")
            self.link(hold, self.on("S", self.p.sync_cycles, [hold], name="Hccl::Finalize"), "hccl")


def _collectives(trace: dict[str, Any], rank: int) -> list[Collective]:
    found: dict[int, Collective] = {}
    for c in trace.get("cores", []):
        for ev in c.get("events", []):
            if ev.get("ev") == "hccl_prepare":
                h = int(ev["handle"])
                found[h] = Collective(h, str(ev["kind"]), str(ev.get("dtype", "")), int(ev["bytes"]),
                                      int(ev["repeat"]), f"{ev.get('file', '?')}:{ev.get('line', '?')}",
                                      str(ev.get("op", "")), int(ev.get("ranks", 0)),
                                      None if ev.get("recv") is None else int(ev["recv"]))
    if sorted(found) != list(range(len(found))):
        raise OpkitError(f"rank {rank}'s trace names HCCL handles {sorted(found)}: some prepare events are missing "
                         "(a trace cut short: events_dropped)")
    return [found[h] for h in range(len(found))]


def _check(traces: list[dict[str, Any]]) -> list[Collective]:
    ranks = len(traces)
    for r, t in enumerate(traces):
        if (int(t.get("rank", r)), int(t.get("rank_dim", ranks))) != (r, ranks):
            raise OpkitError(f"trace {r} is rank {t.get('rank')} of {t.get('rank_dim')}, not rank {r} of {ranks}: "
                             "give one trace per rank, in rank order, from one run")
        if any(int(c.get("events_dropped", 0)) for c in t.get("cores", [])):
            raise OpkitError(f"rank {r}'s trace dropped events (the per-core cap): its HCCL events cannot be matched; "
                             "model a smaller case")
    colls = _collectives(traces[0], 0)
    for r, t in enumerate(traces[1:], 1):
        other = _collectives(t, r)
        shape = [(c.kind, c.slice_bytes, c.repeat) for c in colls]
        if [(c.kind, c.slice_bytes, c.repeat) for c in other] != shape:
            raise OpkitError(f"rank {r} prepared other collectives than rank 0 ({other} against {colls}): the ranks "
                             "of one run prepare the same sequence")
    return colls


def replay_ranks(traces: list[dict[str, Any]], chip: str, *, l2_hit: list[float | L2Hits] | None = None,
                 keep_graph: bool = False) -> RanksResult:
    """The overlapped replay of one multi-rank run (``traces[r]``: rank r's trace); see the module docstring."""
    if not traces:
        raise OpkitError("a multi-rank replay needs the trace of at least one rank")
    p = chip_params(chip)
    link = link_model(chip)
    ranks = len(traces)
    colls = _check(traces)
    hits = l2_hit or [0.0] * ranks
    slice_us = {c.handle: collective_us(c.kind, c.buffer_bytes(ranks), ranks, link) for c in colls}
    # ranks with identical traces (and L2 figures) are replayed once
    reps: list[tuple[Any, float, list[int]]] = []
    for r, t in enumerate(traces):
        cores = t.get("cores", [])
        for c0, h0, members in reps:
            if h0 == hits[r] and (c0 is cores or c0 == cores):
                members.append(r)
                break
        else:
            reps.append((cores, hits[r], [r]))
    groups = [members for _, _, members in reps]
    stores = {m[0]: as_store(traces[m[0]]) for m in groups}  # converted once for every round

    def round_(land: dict[tuple[int, int], float], graph: bool) -> tuple[list[ModelResult], dict]:
        results: list[ModelResult | None] = [None] * ranks
        commits: dict[tuple[int, int], float] = {}
        for members in groups:
            r0 = members[0]
            made: list[_HcclBuilder] = []

            def make(tr: TraceStore, pp: ChipParams, hit: float, made: list[_HcclBuilder] = made) -> _HcclBuilder:
                made.append(_HcclBuilder(tr, pp, hit, land))
                return made[-1]

            res = model_trace(stores[r0], p, keep_graph=True, l2_hit=hits[r0], builder=make)
            ends = res.graph.end.tolist() if res.graph is not None else []
            for key, ti in made[0].commits.items():
                commits[key] = max(commits.get(key, 0.0), p.us(ends[ti]))
            if not graph:
                res = _without_graph(res)
            for r in members:
                results[r] = res
        return [x for x in results if x is not None], commits

    def schedule(commits: dict[tuple[int, int], float]) -> list[SliceTime]:
        ready = []
        for c in colls:
            for i in range(c.repeat):
                if (c.handle, i) not in commits:
                    raise OpkitError(f"slice {i} of HCCL handle {c.handle} ({c.kind} at {c.where}) is never committed "
                                     "in the trace: the run did not complete")
                ready.append((commits[(c.handle, i)], c.handle, i))
        out, free = [], 0.0
        for t_ready, h, i in sorted(ready):
            start = max(t_ready, free)
            free = start + slice_us[h]
            out.append(SliceTime(h, i, t_ready, start, free))
        return out

    land: dict[tuple[int, int], float] = {}
    results, commits = round_(land, False)
    compute = max(r.steady_us for r in results)
    slices = schedule(commits)
    rounds = 1
    while True:
        new = {(s.handle, s.slice): s.end_us * p.clock_mhz for s in slices}
        if rounds > 1 and all(abs(new[k] - land.get(k, 0.0)) <= 1e-6 * max(1.0, new[k]) for k in new):
            break
        if rounds >= _MAX_ROUNDS:
            raise OpkitError(f"the multi-rank replay did not settle in {_MAX_ROUNDS} rounds (commits waiting for "
                             "slices in a long chain); a model of this kernel needs fewer dependent slices")
        land = new
        results, commits = round_(land, keep_graph)
        slices = schedule(commits)
        rounds += 1
    end = max([r.steady_us for r in results] + [s.end_us for s in slices])
    serial = serial_collectives(colls)
    comm = sum(collective_us(c.kind, c.buffer_bytes(ranks), ranks, link) for c in serial)
    return RanksResult(p.name, ranks, link, compute + p.startup_us, comm, end + p.startup_us, colls, slices,
                       results, rounds, p.startup_us, serial)


def _without_graph(res: ModelResult) -> ModelResult:
    from dataclasses import replace

    return replace(res, graph=None)


__all__ = ["LANDING", "Collective", "RanksResult", "SerialCollective", "SliceTime", "replay_ranks",
           "serial_collectives"]
