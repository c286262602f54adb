"""The L2 term of the performance model: which GM read bytes of a launch are L2 hits, and which GM write
bytes the L2 absorbs.

The simulator records the GM range of every GM read and write (the trace event's ``gm`` field:
address, run length, run stride, runs, groups, group stride;
``opkit/sim/include/impl/opkit/sim_trace.h``). :func:`classify` cuts the ranges into the chip's L2
lines and replays them through a least-recently-used, write-back cache of the chip's L2 size:

* the first touch of a line by this launch is a read miss (the launch starts with a cold L2 for its
  inputs: the model does not know what an earlier launch left there);
* a later read hits while the line is resident (read or written before): always when the launch's
  whole footprint fits the L2, else while fewer than ``l2_size`` bytes of other lines were touched
  since (LRU, fully associative: est);
* a write makes its line resident and the bytes it writes dirty (write-allocate, write-back; dirty
  bytes kept in ``SECTOR_BYTES`` sectors). The bytes a write makes dirty are charged to HBM - the
  write-back they will cost once - and the bytes it writes that are dirty already while the line is
  resident are absorbed by the L2: a buffer a kernel writes again and again (a workspace) costs HBM
  once, not at every write; bytes written once cost what they did without the write term, whether a
  line is written whole or in parts by several writes;
* the cores run concurrently, so their accesses are merged in order of progress (event ``i`` of a
  core of ``n`` events at ``i / n``), not core after core.

The result is a fraction per access event - of a read, its lines that hit; of a write, its lines' share
of sectors the L2 absorbs - which :func:`opkit.perf.costs.op_cost` turns into bytes at the core's L2 read or write
rate and bytes at the shared HBM bandwidth. Traces without GM ranges (recorded before the simulator
wrote them) fall back to the byte-count rule :func:`opkit.perf.model.l2_hit_fraction`. Sources and
limits: ``docs/perf.md`` §1 "L2".
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .costs import PIPES, ChipParams
from .trace_store import KIND, TraceStore, as_store

# The L2 line of the 2201 chips (910B, 910_93): 512 B (D-soc; npu_perf_model.md §1.2). The chip
# table has no per-chip line size yet; every modelled chip uses this one.
LINE_BYTES = 512
SECTOR_BYTES = 32  # the grain of a line's dirty bytes: a write charges HBM for the sectors it makes dirty
_CHUNK_RUNS = 1 << 18  # the runs cut into lines at a time (bounds the memory of a large launch)


@dataclass(frozen=True, eq=False)
class L2Hits:
    """L2 fractions of a launch's GM accesses: per core, the indices of its classified read and write events
    (ascending) and their fractions (a read's lines that hit, a write's lines the L2 absorbs)."""

    events: list[np.ndarray] = field(default_factory=list)
    fractions: list[np.ndarray] = field(default_factory=list)
    hit_fraction: float = 0.0  # of all read bytes
    footprint_bytes: int = 0  # distinct L2 lines read, in bytes
    read_bytes: int = 0
    by_address: bool = True  # False: the byte-count fallback (no GM ranges in the trace)
    absorbed_fraction: float = 0.0  # of the write bytes with a GM range
    write_bytes: int = 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, L2Hits):
            return NotImplemented
        return (self.hit_fraction, self.footprint_bytes, self.read_bytes, self.by_address, len(self.events),
                self.absorbed_fraction, self.write_bytes) == \
            (other.hit_fraction, other.footprint_bytes, other.read_bytes, other.by_address, len(other.events),
             other.absorbed_fraction, other.write_bytes) and \
            all(np.array_equal(a, b) for a, b in zip(self.events + self.fractions, other.events + other.fractions,
                                                        strict=True))

    __hash__ = None  # type: ignore[assignment]

    def of(self, core: int, event: int, default: float = 0.0) -> float:
        """The hit fraction of event ``event`` of core ``core`` (``default`` when it is not a classified read)."""
        if core >= len(self.events):
            return default
        at = int(np.searchsorted(self.events[core], event))
        return float(self.fractions[core][at]) if at < len(self.events[core]) and self.events[core][at] == event \
            else default

    def core(self, ci: int, n: int, default: float = 0.0) -> np.ndarray:
        """The hit fraction of each of core ``ci``'s ``n`` events (``default`` where it is not a classified read)."""
        out = np.full(n, default)
        if ci < len(self.events):
            out[self.events[ci]] = self.fractions[ci]
        return out


_WRITE_PIPES = (PIPES.index("MTE3"), PIPES.index("FIX"))


def _accesses(store: TraceStore) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Every GM read (MTE2) and write (MTE3, FIX) event with a GM range, in the merged order of progress (event
    ``ei`` of a core of ``n`` events at ``(ei + 0.5) / n``; ties by core, then event): its core, its event index,
    its bytes, its range and whether it writes; and the bytes of the MTE2 events without a range."""
    op = store.kind == KIND["op"]
    mte2 = op & (store.pipe == PIPES.index("MTE2"))
    access = mte2 | (op & np.isin(store.pipe, _WRITE_PIPES))
    nbytes = store.nbytes
    cols: list[tuple[np.ndarray, ...]] = []
    bare = 0
    for ci, c in enumerate(store.cores):
        ei = np.nonzero(access[c.rec])[0]
        b, g, w = nbytes[c.rec[ei]], c.gm[ei], ~mte2[c.rec[ei]]
        bare += int(b[(g < 0) & ~w].sum())
        ei, b, w, rows = ei[g >= 0], b[g >= 0], w[g >= 0], c.ranges[g[g >= 0]]
        ok = (b > 0) & (rows[:, 1] > 0) & (rows[:, 3] > 0) & (rows[:, 4] > 0)
        ei, b, w, rows = ei[ok], b[ok], w[ok], rows[ok]
        cols.append(((ei + 0.5) / max(1, len(c)), np.full(len(ei), ci), ei, b, rows, w))
    if not cols:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z.reshape(0, 6), z.astype(bool), bare
    prog, core, ev, size, rows, write = (np.concatenate([c[k] for c in cols]) for k in range(6))
    order = np.lexsort((ev, core, prog))
    return core[order], ev[order], size[order], rows[order], write[order], bare


def _event_lines(rows: np.ndarray, line: int) -> Iterator[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
    """The distinct L2 lines of each event, a chunk of events (about ``_CHUNK_RUNS`` runs, each event whole) at a
    time: ``(lo, hi, event index, line, sectors)`` for events ``lo`` to ``hi - 1``, in event order, lines ascending;
    ``sectors``: the bit mask of the line's ``SECTOR_BYTES`` sectors the event touches."""
    runs_all = rows[:, 3] * rows[:, 4]
    ends = np.cumsum(runs_all)
    lo = 0
    while lo < len(rows):
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + _CHUNK_RUNS, side="right")))
        addr, blen, stride, count, nd, nds = (rows[lo:hi, i] for i in range(6))
        runs = runs_all[lo:hi]
        ev = np.repeat(np.arange(lo, hi), runs)
        k = np.arange(int(runs.sum())) - np.repeat(np.cumsum(runs) - runs, runs)  # run number within its event
        r = k % np.repeat(count, runs)
        g = k // np.repeat(count, runs)
        start = np.repeat(addr, runs) + g * np.repeat(nds, runs) + r * np.repeat(stride, runs)
        end = start + np.repeat(blen, runs)
        first = start // line
        span = (end - 1) // line - first + 1
        ev2 = np.repeat(ev, span)
        j = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
        ln = np.repeat(first, span) + j
        # the sectors of the line the run covers
        a = np.maximum(np.repeat(start, span), ln * line) - ln * line
        b = np.minimum(np.repeat(end, span), (ln + 1) * line) - 1 - ln * line
        sec = (np.left_shift(1, b // SECTOR_BYTES + 1) - 1) ^ (np.left_shift(1, a // SECTOR_BYTES) - 1)
        o = np.lexsort((ln, ev2))
        ev2, ln, sec = ev2[o], ln[o], sec[o]
        keep = np.ones(len(ln), dtype=bool)  # one touch per line and event, its sectors merged
        keep[1:] = (ev2[1:] != ev2[:-1]) | (ln[1:] != ln[:-1])
        at = np.nonzero(keep)[0]
        yield lo, hi, ev2[keep], ln[keep], np.bitwise_or.reduceat(sec, at) if len(at) else sec
        lo = hi


def _new(lines: np.ndarray, known: set[int]) -> np.ndarray:
    """Which of ``lines`` are not in ``known``."""
    return np.fromiter((x not in known for x in lines.tolist()), dtype=bool, count=len(lines))


def _absorbed(sectors: int, dirty: int) -> float:
    """The fraction of a write's ``sectors`` (bit mask) already in the line's ``dirty`` ones."""
    return (sectors & dirty).bit_count() / sectors.bit_count() if sectors else 1.0


class _Resident:
    """Hits when every line stays resident (the footprint fits): a read after any earlier touch of its line; a write
    for the share of its sectors an earlier write made dirty. Fed the touches in order, a chunk at a time."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.dirty: dict[int, int] = {}  # line -> its dirty sectors

    def hits(self, lines: np.ndarray, writes: np.ndarray, sectors: np.ndarray) -> np.ndarray:
        hit = np.ones(len(lines))
        u, first = np.unique(lines, return_index=True)
        new = _new(u, self.seen)
        hit[first[new]] = 0.0
        self.seen.update(u[new].tolist())
        if writes.any():
            w = np.nonzero(writes)[0]
            dirty = self.dirty
            for i, ln, sec in zip(w.tolist(), lines[w].tolist(), sectors[w].tolist(), strict=True):
                d = dirty.get(ln, 0)
                hit[i] = _absorbed(sec, d)
                dirty[ln] = d | sec
        return hit


class _Lru:
    """Hits of an LRU, write-back cache of ``capacity`` lines: a read while its line is resident; a write for the
    share of its sectors that are dirty in the resident line. Fed the touches in order, a chunk at a time."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.lru: OrderedDict[int, int] = OrderedDict()  # line -> its dirty sectors

    def hits(self, lines: np.ndarray, writes: np.ndarray, sectors: np.ndarray) -> np.ndarray:
        hit = np.zeros(len(lines))
        lru, capacity = self.lru, self.capacity
        for i, (ln, w, sec) in enumerate(zip(lines.tolist(), writes.tolist(), sectors.tolist(), strict=True)):
            dirty = lru.get(ln)
            if dirty is not None:
                lru.move_to_end(ln)
                hit[i] = _absorbed(sec, dirty) if w else 1.0
                if w:
                    lru[ln] = dirty | sec
            else:
                lru[ln] = sec if w else 0
                if len(lru) > capacity:
                    lru.popitem(last=False)
        return hit


def classify(trace: dict[str, Any] | TraceStore, p: ChipParams) -> L2Hits | None:
    """The L2 fraction of every GM read and write of ``trace`` (a store, or a trace dict) on chip ``p`` (module
    docstring); None when the trace records no GM ranges (the caller falls back to the byte-count rule) or the chip
    has no L2 figures. The accesses are cut into lines a chunk at a time, twice: once for the footprint (whether it
    fits), once through the cache."""
    if p.l2_bytes <= 0 or p.l2_read <= 0:
        return None
    store = as_store(trace)
    core, event, size, arr, write, bare = _accesses(store)
    if not len(core):
        return None
    touched: set[int] = set()
    read: set[int] = set()
    for _, _, ev, lines, _ in _event_lines(arr, LINE_BYTES):
        touched.update(np.unique(lines).tolist())
        read.update(np.unique(lines[~write[ev]]).tolist())
    capacity = int(p.l2_bytes // LINE_BYTES)
    cache: _Resident | _Lru = _Resident() if len(touched) <= capacity else _Lru(capacity)
    read_footprint = len(read)
    del touched, read
    n_lines = np.zeros(len(arr), dtype=np.int64)
    n_hits = np.zeros(len(arr))
    for lo, hi, ev, lines, sectors in _event_lines(arr, LINE_BYTES):
        hit = cache.hits(lines, write[ev], sectors)
        n_lines[lo:hi] = np.bincount(ev - lo, minlength=hi - lo)
        n_hits[lo:hi] = np.bincount(ev - lo, weights=hit, minlength=hi - lo)
    del cache
    f = np.divide(n_hits, n_lines, out=np.zeros(len(arr)), where=n_lines > 0)
    by_core = np.lexsort((event, core))
    cut = np.searchsorted(core[by_core], np.arange(len(store.cores) + 1))
    events = [event[by_core[cut[ci]:cut[ci + 1]]] for ci in range(len(store.cores))]
    fractions = [f[by_core[cut[ci]:cut[ci + 1]]] for ci in range(len(store.cores))]
    fr, sr = f[~write], size[~write]
    hit_bytes = float(np.cumsum(fr * sr)[-1]) if len(fr) else 0.0  # summed in the merged order
    total = bare + int(sr.sum())
    fw, sw = f[write], size[write]
    wtotal = int(sw.sum())
    absorbed = float(np.cumsum(fw * sw)[-1]) / wtotal if wtotal else 0.0
    return L2Hits(events, fractions, hit_bytes / total if total else 0.0, read_footprint * LINE_BYTES, total,
                  absorbed_fraction=absorbed, write_bytes=wtotal)


__all__ = ["LINE_BYTES", "L2Hits", "classify"]
