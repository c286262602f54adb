"""Replay a simulator trace: dependency graph of every core's instructions, then a timed run.

Graph (per core, from the events in program order):

* every pipe executes its instructions in order (an edge from the previous task on the pipe);
* the scalar unit issues everything: a task also waits for the last scalar task before it
  (a ``wait_flag`` into S, or a ``cross_wait``, therefore stalls everything issued later);
* ``set_flag(from, to, id)`` is a task on ``from``; the matching ``wait_flag`` is a task on ``to``
  that waits for it (FIFO per (from, to, id));
* ``enque(buf, from, to)`` is a task on ``from``, the next ``deque(buf)`` a task on ``to`` that
  waits for it; ``free(buf)`` is a task on the consumer pipe and the next ``alloc(buf)`` a task
  on the producer pipe that waits for it (the buffer's pipes are those of its ``enque``);
* ``barrier`` of one pipe adds nothing (pipes are in order already) but the vector pipeline's latency
  (``vector_drain``) on PIPE_V; ``barrier`` of PIPE_ALL and ``sync_all`` drain every pipe; ``sync_all``
  also joins the participating cores;
* a ``set_flag`` or ``enque`` from V costs the vector pipeline's latency too (the consumer waits for the
  last result to land); back-to-back vector instructions overlap it;
* ``cross_set`` waits for every pipe of its core (the trace does not record the pipe argument)
  and releases the matching ``cross_wait`` on the target core(s);
* the Matmul API's MIX server (the cube work an AIV client posts to its AIC): ``mm_post`` and
  ``mm_wait`` on the AIV, ``mm_run`` / ``mm_done`` on the AIC; the job starts on the AIC after its
  post, and the client's wait returns after the job is done (keyed by (AIC block, job id));
* the unit flag of an Mmad or a Fixpipe (the event's ``unit``, 2 or 3; the Matmul API's Norm and IBShare
  templates set it): the hardware hands L0C between them 512 B at a time, with no event, so each is
  replayed in ``UNIT_PIECES`` pieces on its pipe: piece j of a Fixpipe after piece j of the Mmad with
  flag 3 before it (the tile's last K step), piece j of the next Mmad after piece j of that Fixpipe. The
  Fixpipe of a tile then overlaps its last Mmad, and the next tile's Mmads overlap the Fixpipe, up to a
  piece.

Timed run: a task starts when all its predecessors have finished. Its ``fixed`` cycles occupy
its pipe; its ``gm_bytes`` then flow at up to its per-pipe cap, while every flow in flight (all
pipes, all cores) shares the HBM bandwidth max-min fairly (a fluid model). The part of a GM read
served by L2 (``l2_hit``, per read from :mod:`opkit.perf.l2`) is in its fixed cycles, at the core's
L2 read rate.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

import numpy as np

from .costs import PIPES, ChipParams, op_cost
from .engine import timed_run
from .l2 import L2Hits
from .task_graph import PIPE_INDEX, Graph, GraphBuilder, Task
from .trace_store import KIND, KINDS, CoreEvents, TraceStore, as_store

_BARRIER_PIPES = {0: "S", 1: "V", 2: "M", 3: "MTE1", 4: "MTE2", 5: "MTE3", 6: "ALL", 10: "FIX"}
_S = PIPE_INDEX["S"]
_M, _FIX = PIPE_INDEX["M"], PIPE_INDEX["FIX"]
# The pieces an Mmad or a Fixpipe with the unit flag is replayed in: the hardware hands L0C between them 512 B at a
# time, so the Fixpipe reads the first blocks while the Mmad writes the last ones (module docstring).
UNIT_PIECES = 4


def _core_ids(cores: list[CoreEvents]) -> tuple[dict[tuple[str, int], int], int]:
    ids = {(c.core_type, int(c.info.get("block", i))): i for i, c in enumerate(cores)}
    n_aic = sum(1 for c in cores if c.info.get("core_type") == "AIC")
    n_aiv = len(cores) - n_aic
    ratio = n_aiv // n_aic if n_aic and n_aiv else 1
    return ids, max(ratio, 1)


class _Builder:
    """Builds the task graph core by core; cross-core edges are resolved at the end."""

    def __init__(self, trace: dict[str, Any] | TraceStore, p: ChipParams, l2_hit: float | L2Hits = 0.0) -> None:
        self.p = p
        self.l2_hit = l2_hit
        self.store = as_store(trace)
        self.cores: list[CoreEvents] = self.store.cores
        self.ids, self.ratio = _core_ids(self.cores)
        self.n_aic = sum(1 for c in self.cores if c.info.get("core_type") == "AIC")
        self.g = GraphBuilder()
        self.unknown: set[str] = set()
        self.joins: dict[tuple[bool, int], int] = {}
        # cross-core flags: tokens[(core, flag, sub)] = set tasks; round_sets[(type, flag)][k]
        self.tokens: dict[tuple[int, int, int], deque[int]] = defaultdict(deque)
        self.round_sets: dict[tuple[str, int], list[list[int]]] = defaultdict(list)
        self.round_count: dict[tuple[int, int], int] = defaultdict(int)
        self.waits: list[tuple[int, int, int]] = []  # (task, core, flag)
        # Matmul MIX server jobs, keyed (AIC block, job id): the AIV's post and the AIC's end of the job
        self.mm_posts: dict[tuple[int, int], int] = {}
        self.mm_dones: dict[tuple[int, int], int] = {}
        self.mm_runs: list[tuple[int, tuple[int, int]]] = []
        self.mm_waits: list[tuple[int, tuple[int, int]]] = []
        # an instruction's (spec, pipe index) by (core type, record, L2 hit); a sync event's spec by (record, pipe)
        self._op_specs: dict[tuple[str, int, float], tuple[int, int]] = {}
        self._sync_specs: dict[tuple[int, int], int] = {}
        # the unit flag (2 or 3) of the records that have one; the spec of one piece of a spec (UNIT_PIECES)
        self._unit = {r: int(ev["unit"]) for r, ev in enumerate(self.store.records) if ev.get("unit") in (2, 3)}
        self._pieces: dict[int, int] = {}
        # per core: the pieces of the last Mmad with unit flag 3 (for its Fixpipe) and of the last Fixpipe with the
        # unit flag (for the next Mmad)
        self.unit_mmad: list[int] | None = None
        self.unit_fix: list[int] | None = None
        # per-core state
        self.ci = 0
        self.last: list[int] = [-1] * len(PIPES)  # each pipe's last task, by pipe index

    def new(self, core: int, pipe: str, fixed: float, deps: list[int], gm_bytes: float = 0.0, cap: float = 0.0,
            klass: str = "", name: str = "") -> int:
        """A new task of ``core`` (-1: chip-wide) on ``pipe`` ("": none) after ``deps`` (negative ones ignored)."""
        return self.g.add(core, self.g.spec_of(pipe, fixed, gm_bytes, cap, klass, name), deps)

    def link(self, src: int, dst: int, kind: str) -> None:
        """Remember an ordering edge between pipes or cores (for timelines)."""
        self.g.link(src, dst, kind)

    def on(self, pipe: str, fixed: float, extra: list[int], **kw: Any) -> int:
        """A task on ``pipe``: after the pipe's previous task and the last scalar task."""
        return self._on(PIPE_INDEX[pipe], self.g.spec_of(pipe, fixed, **kw), extra)

    def _on(self, q: int, spec: int, extra: list[int] | tuple[int, ...] = ()) -> int:
        last = self.last
        t = self.g.add(self.ci, spec, (last[q], last[_S], *extra) if q != _S else (last[q], *extra))
        last[q] = t
        return t

    def _sync(self, r: int, pipe: str, fixed: float, name: Any, drains: bool = False) -> int:
        """The spec of sync event ``r`` on ``pipe`` (``name()`` its name, made once). One that ``drains`` the
        vector pipeline (``fixed`` includes ``vector_drain``) has the class ``drain`` and no name of its own, so
        that the slowest core's busy time by instruction lists them together ("V drain")."""
        q = PIPE_INDEX[pipe]
        s = self._sync_specs.get((r, q))
        if s is None:
            s = self._sync_specs[(r, q)] = self.g.spec_of(pipe, fixed, klass="drain" if drains else "",
                                                          name="" if drains else name())
        return s

    def _flag_sync(self, r: int, pipe: str, name: Any) -> int:
        """The spec of a SetFlag or EnQue on ``pipe``: from V it waits for the vector pipeline to drain first."""
        drains = pipe == "V" and self.p.vector_drain > 0
        return self._sync(r, pipe, self.p.sync_cycles + (self.p.vector_drain if drains else 0.0), name, drains)

    def drain(self, fixed: float = 0.0) -> int:
        """A task after every pipe's last task; every pipe's next task waits for it."""
        t = self.new(self.ci, "", fixed, list(self.last))
        self.last[:] = [t] * len(PIPES)
        return t

    def _instructions(self, ci: int, ctype: str, kinds: np.ndarray) -> tuple[list[int], list[int]]:
        """Per event of core ``ci``: an instruction's spec and pipe index (-1 for other events and for instructions
        of no modelled pipe), each distinct (record, L2 hit) priced once (:func:`opkit.perf.costs.op_cost`)."""
        c, p, hits = self.cores[ci], self.p, self.l2_hit
        n = len(c)
        spec = np.full(n, -1, dtype=np.int64)
        pipe = np.full(n, -1, dtype=np.int64)
        ops = np.nonzero(kinds == KIND["op"])[0]
        if not len(ops):
            return spec.tolist(), pipe.tolist()
        if isinstance(hits, L2Hits):
            h = hits.core(ci, n)[ops]
        else:  # one fraction for every GM read (the byte-count rule); writes are not absorbed without addresses
            h = np.where(self.store.pipe[c.rec[ops]] == PIPE_INDEX["MTE2"], float(hits), 0.0)
        hv, hi = np.unique(h, return_inverse=True)
        keys, inv = np.unique(c.rec[ops].astype(np.int64) * len(hv) + hi.reshape(-1), return_inverse=True)
        got = np.empty((len(keys), 2), dtype=np.int64)
        for j, k in enumerate(keys.tolist()):
            r, hit = divmod(k, len(hv))
            key = (ctype, r, float(hv[hit]))
            sq = self._op_specs.get(key)
            if sq is None:
                ev = self.store.records[r]
                cost = op_cost(ev, ctype, p, key[2])
                if cost.unknown:
                    self.unknown.add(cost.unknown)
                name = str(ev.get("pipe"))
                sq = self._op_specs[key] = (self.g.spec_of(name, cost.fixed, cost.gm_bytes, cost.cap, cost.klass,
                                                           str(ev.get("api", ""))), PIPE_INDEX[name]) \
                    if name in PIPE_INDEX else (-1, -1)
            got[j] = sq
        spec[ops] = got[inv.reshape(-1), 0]
        pipe[ops] = got[inv.reshape(-1), 1]
        return spec.tolist(), pipe.tolist()

    def core(self, ci: int) -> None:
        st, c = self.store, self.cores[ci]
        records, sync = st.records, self.p.sync_cycles
        self.ci = ci
        self.last = last = [-1] * len(PIPES)
        ctype = c.core_type
        block = int(c.info.get("block", ci))
        bufpipes: dict[int, tuple[str, str]] = {}
        for r in c.rec[st.where(ci, "enque")].tolist():
            ev = records[r]
            bufpipes.setdefault(int(ev["buf"]), (str(ev["from"]), str(ev["to"])))
        flags: dict[tuple[str, str, int], deque[int]] = defaultdict(deque)
        enq: dict[int, deque[int]] = defaultdict(deque)
        freed: dict[int, int] = {}
        sync_k: dict[bool, int] = defaultdict(int)
        kinds = st.kind[c.rec]
        specs, pipes = self._instructions(ci, ctype, kinds)
        g = self.g
        add_core, add_spec, add_src, add_dst = g.core.append, g.spec.append, g.dep_src.append, g.dep_dst.append
        op, s_pipe = KIND["op"], _S
        units = self._unit
        self.unit_mmad = self.unit_fix = None
        for k, r, s, q in zip(kinds.tolist(), c.rec.tolist(), specs, pipes, strict=True):
            if k == op:  # an instruction: after its pipe's last task and the last scalar task (inline: the most)
                if s < 0:
                    continue
                if units and r in units:
                    self._unit_op(q, s, units[r])
                    continue
                t = len(g.core)
                add_core(ci)
                add_spec(s)
                d = last[q]
                if d >= 0:
                    add_src(d)
                    add_dst(t)
                if q != s_pipe and last[s_pipe] >= 0:
                    add_src(last[s_pipe])
                    add_dst(t)
                last[q] = t
                continue
            ev = records[r]
            kind = KINDS[k] if k >= 0 else ""
            if kind == "set_flag":
                key = (str(ev["from"]), str(ev["to"]), int(ev.get("id", 0)))
                flags[key].append(self._on(PIPE_INDEX[key[0]], self._flag_sync(
                    r, key[0], lambda key=key: f"SetFlag {key[0]}->{key[1]} #{key[2]}")))
            elif kind == "wait_flag":
                key = (str(ev["from"]), str(ev["to"]), int(ev.get("id", 0)))
                src = flags[key].popleft() if flags[key] else -1
                spec = self._sync(r, key[1], sync, lambda key=key: f"WaitFlag {key[0]}->{key[1]} #{key[2]}")
                self.link(src, self._on(PIPE_INDEX[key[1]], spec, (src,)), "flag")
            elif kind == "enque":
                pipe = str(ev["from"])
                enq[int(ev["buf"])].append(self._on(PIPE_INDEX[pipe], self._flag_sync(
                    r, pipe, lambda ev=ev: f"EnQue buf{ev['buf']}")))
            elif kind == "deque":
                b = int(ev["buf"])
                if b in bufpipes:
                    src = enq[b].popleft() if enq[b] else -1
                    spec = self._sync(r, bufpipes[b][1], sync, lambda b=b: f"DeQue buf{b}")
                    self.link(src, self._on(PIPE_INDEX[bufpipes[b][1]], spec, (src,)), "queue")
            elif kind == "alloc":
                b = int(ev["buf"])
                if b in bufpipes:
                    src = freed.get(b, -1)
                    spec = self._sync(r, bufpipes[b][0], 0.0, lambda b=b: f"AllocTensor buf{b}")
                    self.link(src, self._on(PIPE_INDEX[bufpipes[b][0]], spec, (src,)), "buffer")
            elif kind == "free":
                b = int(ev["buf"])
                if b in bufpipes:
                    freed[b] = self._on(PIPE_INDEX[bufpipes[b][1]],
                                        self._sync(r, bufpipes[b][1], 0.0, lambda b=b: f"FreeTensor buf{b}"))
            elif kind == "barrier":
                bp = _BARRIER_PIPES.get(int(ev.get("pipe", -1)))
                if bp == "ALL":
                    self.drain(sync + self.p.vector_drain)
                elif bp == "V" and self.p.vector_drain > 0:
                    self._on(PIPE_INDEX["V"], self._sync(r, "V", self.p.vector_drain, lambda: "PipeBarrier<PIPE_V>",
                                                         drains=True))
            elif kind == "sync_all":
                all_cores = bool(ev.get("all_cores", False))
                if not all_cores and ctype == "AIC":
                    continue  # SyncAll<true> is a barrier of the AIV cores only
                key2 = (all_cores, sync_k[all_cores])
                sync_k[all_cores] += 1
                arrive = self.drain()
                if key2 not in self.joins:
                    self.joins[key2] = self.new(-1, "", sync, [], name="SyncAll")
                g.dep(arrive, self.joins[key2])
                self.link(arrive, self.joins[key2], "sync_all")
                last[:] = [self.joins[key2]] * len(PIPES)
            elif kind == "cross_set":
                self._cross_set(ctype, block, ev)
            elif kind == "cross_wait":
                self.waits.append((self.on("S", sync, [], name=f"CrossCoreWaitFlag #{ev.get('flag', 0)}"), ci,
                                   int(ev.get("flag", 0))))
            elif kind in ("mm_post", "mm_wait", "mm_run", "mm_done"):
                self._matmul_job(kind, ev)
            else:
                self.other(ev)

    def _unit_op(self, q: int, s: int, unit: int) -> None:
        """An Mmad or a Fixpipe with the unit flag, in UNIT_PIECES pieces on its pipe: piece j of an Mmad after piece j
        of the Fixpipe that read L0C before it (the first Mmad after that Fixpipe); piece j of a Fixpipe after piece j
        of the Mmad with unit flag 3 (the tile's last K step)."""
        ps = self._pieces.get(s)
        if ps is None:
            g = self.g
            n = UNIT_PIECES
            ps = self._pieces[s] = g.spec_of(PIPES[g.spec_pipe[s]], g.spec_fixed[s] / n, g.spec_gm[s] / n,
                                             g.spec_cap[s], g.text[g.spec_klass[s]], g.text[g.spec_name[s]])
        before = self.unit_fix if q == _M else self.unit_mmad if q == _FIX else None
        pieces = [self._on(q, ps, (before[j],) if before else ()) for j in range(UNIT_PIECES)]
        if q == _M:
            self.unit_fix = None
            if unit == 3:
                self.unit_mmad = pieces
        elif q == _FIX:
            self.unit_mmad = None
            self.unit_fix = pieces

    def other(self, ev: dict[str, Any]) -> None:
        """An event this replay does not model (a subclass may: opkit.perf.comm_replay's HCCL events)."""

    def _matmul_job(self, kind: str, ev: dict[str, Any]) -> None:
        job = int(ev["job"])
        if kind in ("mm_post", "mm_wait"):
            key = (int(ev["aic"]), job)
            if kind == "mm_post":
                self.mm_posts[key] = self.on("S", self.p.sync_cycles, [], name=f"Matmul post #{job}")
            else:
                self.mm_waits.append((self.on("S", self.p.sync_cycles, [], name=f"Matmul wait #{job}"), key))
            return
        key = (int(self.cores[self.ci].info.get("block", self.ci)), job)
        if kind == "mm_run":
            self.mm_runs.append((self.on("S", self.p.sync_cycles, [], name=f"Matmul job #{job}"), key))
        else:
            self.mm_dones[key] = self.new(self.ci, "", self.p.sync_cycles, list(self.last),
                                          name=f"Matmul job #{job} done")

    def _cross_set(self, ctype: str, block: int, ev: dict[str, Any]) -> None:
        mode, flag = int(ev.get("mode", 0)), int(ev.get("flag", 0))
        pipe = str(ev.get("pipe", ""))
        last, ids, ratio, ci = self.last, self.ids, self.ratio, self.ci
        t = self.new(ci, "", self.p.sync_cycles, [last[PIPE_INDEX[pipe]]] if pipe in PIPE_INDEX else list(last),
                     name=f"CrossCoreSetFlag #{flag}")
        if mode == 0:
            k = self.round_count[(ci, flag)]
            self.round_count[(ci, flag)] += 1
            lst = self.round_sets[(ctype, flag)]
            while len(lst) <= k:
                lst.append([])
            lst[k].append(t)
        elif mode == 1 and ctype == "AIV":
            core_id, sub = divmod(block, ratio)
            for s in range(ratio):
                if s != sub and ("AIV", core_id * ratio + s) in ids:
                    self.tokens[(ids[("AIV", core_id * ratio + s)], flag, 0)].append(t)
        elif ctype == "AIC":
            for s in range(ratio):
                if ("AIV", block * ratio + s) in ids:
                    self.tokens[(ids[("AIV", block * ratio + s)], flag, 0)].append(t)
        else:
            core_id, sub = divmod(block, ratio)
            if ("AIC", core_id) in ids:
                self.tokens[(ids[("AIC", core_id)], flag, sub)].append(t)

    def resolve_waits(self) -> None:
        """Cross-core waits: pending sets aimed at this core first, else the next mode-0 round."""
        mix = 0 < self.n_aic < len(self.cores)
        round_used: dict[tuple[int, int], int] = defaultdict(int)
        for t, ci, flag in self.waits:
            ctype = self.cores[ci].core_type
            subs = self.ratio if ctype == "AIC" and mix else 1
            if all(self.tokens[(ci, flag, s)] for s in range(subs)):
                for s in range(subs):
                    src = self.tokens[(ci, flag, s)].popleft()
                    self.g.dep(src, t)
                    self.link(src, t, "cross")
                continue
            k = round_used[(ci, flag)]
            round_used[(ci, flag)] += 1
            lst = self.round_sets.get((ctype, flag), [])
            if k < len(lst):
                for src in lst[k]:
                    self.g.dep(src, t)
                    self.link(src, t, "cross")
        for task, key in self.mm_runs:
            if key in self.mm_posts:
                self.g.dep(self.mm_posts[key], task)
                self.link(self.mm_posts[key], task, "matmul")
        for task, key in self.mm_waits:
            if key in self.mm_dones:
                self.g.dep(self.mm_dones[key], task)
                self.link(self.mm_dones[key], task, "matmul")


def build_graph(trace: dict[str, Any] | TraceStore, p: ChipParams, l2_hit: float | L2Hits = 0.0,
                builder: Any = None) -> Graph:
    """Dependency graph of all cores of a trace (a store, or a trace dict; see module docstring); ``l2_hit``: one hit
    fraction for every GM read (see ``op_cost``) or each read's own (:func:`opkit.perf.l2.classify`).
    ``builder``: a callable ``(trace, p, l2_hit)`` returning the builder (a subclass of this module's)."""
    b = (builder or _Builder)(as_store(trace), p, l2_hit)
    for ci in range(len(b.cores)):
        b.core(ci)
    b.resolve_waits()
    return b.g.graph(len(b.cores), b.unknown)


def run(graph: Graph, hbm_bytes_per_cycle: float) -> None:
    """Time every task of ``graph`` (sets ``graph.start`` and ``graph.end``, in cycles; the timed run of the module
    docstring, done by :mod:`opkit.perf.engine`)."""
    graph.start, graph.end = timed_run(graph.spec, graph.spec_fixed, graph.spec_gm, graph.spec_cap, graph.dep_src,
                                       graph.dep_dst, hbm_bytes_per_cycle)


__all__ = ["Graph", "Task", "build_graph", "run"]
