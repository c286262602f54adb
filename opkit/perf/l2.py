"""The L2 term of the performance model: which GM read bytes of a launch are L2 hits.

The simulator records the GM range of every GM read (the trace event's ``gm`` field: address,
run length, run stride, runs, groups, group stride; ``opkit/sim/include/impl/opkit/sim_trace.h``).
:func:`classify` cuts the ranges into the chip's L2 lines and replays them through a
least-recently-used cache of the chip's L2 size:

* the first touch of a line by this launch is a miss (the launch starts with a cold L2 for its
  inputs: the model does not know what an earlier launch left there);
* a later touch hits while the line is resident: always when the launch's whole read footprint
  fits the L2, else while fewer than ``l2_size`` bytes of other lines were touched since (LRU,
  fully associative: est);
* the cores run concurrently, so their reads are merged in order of progress (event ``i`` of a
  core of ``n`` events at ``i / n``), not core after core.

The result is a hit fraction per read event, which :func:`opkit.perf.costs.op_cost` turns into
bytes at the core's L2 read rate (hits) and bytes at the shared HBM bandwidth (misses). Traces
without GM ranges (recorded before the simulator wrote them) fall back to the byte-count rule
:func:`opkit.perf.model.l2_hit_fraction`. Sources and limits: ``docs/perf.md`` §1 "L2".
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .costs import ChipParams

# The L2 line of the 2201 chips (910B, 910_93): 512 B (D-soc; npu_perf_model.md §1.2). The chip
# table has no per-chip line size yet; every modelled chip uses this one.
LINE_BYTES = 512


@dataclass(frozen=True)
class L2Hits:
    """Hit fractions of a launch's GM reads, per read event (``(core index, event index)``)."""

    per_event: dict[tuple[int, int], float] = field(default_factory=dict)
    hit_fraction: float = 0.0  # of all read bytes
    footprint_bytes: int = 0  # distinct L2 lines read, in bytes
    read_bytes: int = 0
    by_address: bool = True  # False: the byte-count fallback (no GM ranges in the trace)

    def of(self, core: int, event: int, default: float = 0.0) -> float:
        return self.per_event.get((core, event), default)


def _ranges(trace: dict[str, Any]) -> tuple[list[tuple[float, int, int, int]], list[list[int]], int]:
    """(order key, core, event, bytes) of every read event with a GM range, their ranges, and the
    bytes of MTE2 events without one."""
    keys: list[tuple[float, int, int, int]] = []
    rows: list[list[int]] = []
    bare = 0
    for ci, c in enumerate(trace.get("cores", [])):
        events = c.get("events", [])
        n = max(1, len(events))
        for ei, ev in enumerate(events):
            if ev.get("ev") != "op" or ev.get("pipe") != "MTE2":
                continue
            g = ev.get("gm")
            nbytes = int(ev.get("bytes", 0))
            if not isinstance(g, list) or len(g) != 6:
                bare += nbytes
                continue
            if nbytes <= 0 or int(g[1]) <= 0 or int(g[3]) <= 0 or int(g[4]) <= 0:
                continue
            keys.append(((ei + 0.5) / n, ci, ei, nbytes))
            rows.append([int(v) for v in g])
    return keys, rows, bare


def _event_lines(rows: np.ndarray, line: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct L2 lines of each event: (event index, line) pairs in event order, lines sorted."""
    addr, blen, stride, count, nd, nds = (rows[:, i] for i in range(6))
    runs = count * nd
    ev = np.repeat(np.arange(len(rows)), runs)
    k = np.arange(int(runs.sum())) - np.repeat(np.cumsum(runs) - runs, runs)  # run number within its event
    r = k % np.repeat(count, runs)
    g = k // np.repeat(count, runs)
    start = np.repeat(addr, runs) + g * np.repeat(nds, runs) + r * np.repeat(stride, runs)
    first = start // line
    last = (start + np.repeat(blen, runs) - 1) // line
    span = last - first + 1
    ev2 = np.repeat(ev, span)
    j = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
    lines = np.repeat(first, span) + j
    pairs = np.unique(np.stack([ev2, lines], axis=1), axis=0)  # sorted by event, then line; one touch per line
    return pairs[:, 0], pairs[:, 1]


def classify(trace: dict[str, Any], p: ChipParams) -> L2Hits | None:
    """Hit fraction of every GM read of ``trace`` on chip ``p``; None when the trace records no GM
    ranges (the caller falls back to the byte-count rule) or the chip has no L2 figures."""
    if p.l2_bytes <= 0 or p.l2_read <= 0:
        return None
    keys, rows, bare = _ranges(trace)
    if not keys:
        return None
    order = sorted(range(len(keys)), key=lambda i: keys[i][:3])
    arr = np.array([rows[i] for i in order], dtype=np.int64)
    ev, lines = _event_lines(arr, LINE_BYTES)
    # first touches: a line's first (event, line) pair in the merged order
    _, first_idx = np.unique(lines, return_index=True)
    footprint = len(first_idx)
    capacity = int(p.l2_bytes // LINE_BYTES)
    if footprint <= capacity:  # everything read stays resident: every touch after the first hits
        hit = np.ones(len(lines), dtype=bool)
        hit[first_idx] = False
    else:
        hit = np.zeros(len(lines), dtype=bool)
        lru: OrderedDict[int, None] = OrderedDict()
        for i, ln in enumerate(lines.tolist()):
            if ln in lru:
                lru.move_to_end(ln)
                hit[i] = True
            else:
                lru[ln] = None
                if len(lru) > capacity:
                    lru.popitem(last=False)
    n_lines = np.bincount(ev, minlength=len(arr))
    n_hits = np.bincount(ev, weights=hit, minlength=len(arr))
    per_event: dict[tuple[int, int], float] = {}
    hit_bytes = 0.0
    total = bare
    for pos, i in enumerate(order):
        _, ci, ei, nbytes = keys[i]
        f = float(n_hits[pos] / n_lines[pos]) if n_lines[pos] else 0.0
        per_event[(ci, ei)] = f
        hit_bytes += f * nbytes
        total += nbytes
    return L2Hits(per_event, hit_bytes / total if total else 0.0, footprint * LINE_BYTES, total)


__all__ = ["LINE_BYTES", "L2Hits", "classify"]
