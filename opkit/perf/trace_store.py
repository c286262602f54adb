"""A simulator trace held as columns: every distinct event once, each core's events as indices into them.

The simulator's trace file (``write_trace`` in opkit/sim/include/kernel_launch.h) is one JSON document: a header
line ending in ``"cores":[``, then one line per core (``{"block":..,"core_type":..,"pipes":..,"instructions":..,
"events_dropped":..,"events":[{..},{..}]}``), then ``]}``. A launch records tens of millions of events, most of them
the same few hundred instructions again (the same API, dtype, bytes and repeats), so :class:`TraceStore` keeps each
distinct event once (``records``, without its GM range) and, per core (:class:`CoreEvents`), the record of every
event, in order, plus the GM ranges of the events that have one. :func:`load_trace` reads the file core by core
(never the whole file as text or all events as dicts); :func:`as_store` turns a trace given as a dict (tests,
callers that write traces by hand) into a store through the same path.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .costs import PIPES

# event kinds the model reads, as codes of the records' ``kind`` column (-1: any other kind)
KINDS = ("op", "set_flag", "wait_flag", "enque", "deque", "alloc", "free", "barrier", "sync_all", "cross_set",
         "cross_wait", "mm_post", "mm_wait", "mm_run", "mm_done")
KIND = {k: i for i, k in enumerate(KINDS)}
_PIPE = {q: i for i, q in enumerate(PIPES)}
_CORES_OPEN = b'"cores":['
_EVENTS_OPEN = b',"events":['


@dataclass(eq=False)
class CoreEvents:
    """One core of a trace: its object without the events (``info``), and its events as columns."""

    info: dict[str, Any]
    rec: np.ndarray  # int32, per event: its record in TraceStore.records
    gm: np.ndarray  # int32, per event: its row of `ranges`, -1 without a GM range
    ranges: np.ndarray  # int64 (rows, 6): address, run length, run stride, runs, groups, group stride

    def __len__(self) -> int:
        return len(self.rec)

    @property
    def block(self) -> int:
        return int(self.info.get("block", 0))

    @property
    def core_type(self) -> str:
        return str(self.info.get("core_type", "AIV"))

    @property
    def events_dropped(self) -> int:
        return int(self.info.get("events_dropped", 0))

    def reorder(self, order: np.ndarray) -> None:
        """Put the events in ``order`` (a permutation of their indices)."""
        self.rec = self.rec[order]
        self.gm = self.gm[order]


class TraceStore:
    """A trace's header, its distinct events (``records``) and each core's events (module docstring)."""

    def __init__(self, head: dict[str, Any] | None = None) -> None:
        self.head: dict[str, Any] = dict(head or {})
        self.cores: list[CoreEvents] = []
        self.records: list[dict[str, Any]] = []
        self._ids: dict[Any, int] = {}
        self._text_ids: dict[bytes, int] = {}  # an event's text (without its GM range) -> its record
        self._kind = array("b")
        self._pipe = array("b")
        self._bytes = array("q")
        self._cols: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.cores)

    def record_id(self, ev: dict[str, Any]) -> int:
        """The index of the record of event ``ev`` (its fields but ``gm``; added when new)."""
        try:
            key: Any = tuple(ev.items()) if "gm" not in ev else tuple(kv for kv in ev.items() if kv[0] != "gm")
            r = self._ids.get(key)
        except TypeError:  # a field that is a list or an object: the record's canonical text
            key = json.dumps({k: v for k, v in ev.items() if k != "gm"}, sort_keys=True)
            r = self._ids.get(key)
        if r is None:
            r = self._ids[key] = len(self.records)
            rec = {k: v for k, v in ev.items() if k != "gm"}
            self.records.append(rec)
            kind = KIND.get(str(rec.get("ev")), -1)
            self._kind.append(kind)
            self._pipe.append(_PIPE.get(str(rec.get("pipe")), -1) if kind == 0 else -1)
            try:
                nbytes = int(rec.get("bytes", 0)) if kind == 0 else 0
            except (TypeError, ValueError):
                nbytes = 0
            self._bytes.append(nbytes)
            self._cols = None
        return r

    def add_core(self, core: dict[str, Any], events: Iterable[dict[str, Any]] | None = None) -> CoreEvents:
        """Add a core: its object (``events``, when not given apart, taken from it; the object is not changed)."""
        info = {k: v for k, v in core.items() if k != "events"}
        rec, gmi, ranges = array("i"), array("i"), array("q")
        record_id, ids = self.record_id, self._ids
        rec_add, gm_add = rec.append, gmi.append
        for ev in core.get("events", ()) if events is None else events:
            if "gm" in ev:
                g = ev["gm"]
                if isinstance(g, list) and len(g) == 6:
                    gm_add(len(ranges) // 6)
                    try:
                        ranges.extend(g)
                    except TypeError:
                        ranges.extend(int(v) for v in g)
                else:
                    gm_add(-1)
                rec_add(record_id(ev))
                continue
            try:
                r = ids.get(tuple(ev.items()))
            except TypeError:
                r = None
            rec_add(record_id(ev) if r is None else r)
            gm_add(-1)
        ce = CoreEvents(info, np.array(rec, dtype=np.int32), np.array(gmi, dtype=np.int32),
                        np.array(ranges, dtype=np.int64).reshape(-1, 6))
        self.cores.append(ce)
        return ce

    def add_core_text(self, core: dict[str, Any], events: bytes) -> CoreEvents:
        """Add a core whose events are the JSON text of their list as the simulator writes it (``[{..},{..}]``, no
        spaces): each distinct event text is parsed once. Raises ValueError for text in another layout (the caller
        then parses it as JSON and uses :meth:`add_core`, whose records these are)."""
        body = events.strip()
        if body[:1] != b"[" or body[-1:] != b"]":
            raise ValueError("not a JSON list")
        body = body[1:-1]
        if body and (body[:1] != b"{" or body[-1:] != b"}"):
            raise ValueError("not a list of objects")
        pieces = body[1:-1].split(b"},{") if body else []
        memo = self._text_ids
        ids = [memo.get(t, -1) for t in pieces]
        gm = np.full(len(pieces), -1, dtype=np.int32)
        ranges = array("q")
        for i in [i for i, r in enumerate(ids) if r < 0]:  # a first occurrence, or a GM read
            text = pieces[i]
            head, sep, rest = text.partition(b',"gm":[')
            if sep:
                nums, _, tail = rest.partition(b"]")
                vals = nums.split(b",")
                if len(vals) == 6:
                    gm[i] = len(ranges) // 6
                    ranges.extend(int(v) for v in vals)
                text = head + tail
            r = memo.get(text)
            if r is None:
                ev = json.loads(b"{" + text + b"}")
                if not isinstance(ev, dict) or "gm" in ev:
                    raise ValueError("an event that is not one flat object")
                r = memo[text] = self.record_id(ev)
            ids[i] = r
        ce = CoreEvents(info=dict(core), rec=np.array(ids, dtype=np.int32), gm=gm,
                        ranges=np.array(ranges, dtype=np.int64).reshape(-1, 6))
        ce.info.pop("events", None)
        self.cores.append(ce)
        return ce

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._cols is None:
            self._cols = (np.array(self._kind, dtype=np.int8), np.array(self._pipe, dtype=np.int8),
                          np.array(self._bytes, dtype=np.int64))
        return self._cols

    @property
    def kind(self) -> np.ndarray:
        """Per record: its code in :data:`KINDS` (-1: another kind)."""
        return self._columns()[0]

    @property
    def pipe(self) -> np.ndarray:
        """Per record: an ``op``'s pipe as an index into :data:`opkit.perf.costs.PIPES` (-1: not an op, or none)."""
        return self._columns()[1]

    @property
    def nbytes(self) -> np.ndarray:
        """Per record: an ``op``'s bytes (0 for other events)."""
        return self._columns()[2]

    def counts(self, ci: int) -> np.ndarray:
        """How many of core ``ci``'s events are of each record."""
        return np.bincount(self.cores[ci].rec, minlength=len(self.records))

    def where(self, ci: int, *kinds: str) -> np.ndarray:
        """The indices of core ``ci``'s events of the given kinds, in order."""
        codes = np.zeros(len(KINDS) + 1, dtype=bool)
        for k in kinds:
            codes[KIND[k]] = True
        return np.nonzero(codes[self.kind[self.cores[ci].rec]])[0]

    def event(self, ci: int, ei: int) -> dict[str, Any]:
        """Event ``ei`` of core ``ci`` as the trace wrote it (a new dict)."""
        ce = self.cores[ci]
        ev = dict(self.records[int(ce.rec[ei])])
        g = int(ce.gm[ei])
        if g >= 0:
            ev["gm"] = ce.ranges[g].tolist()
        return ev

    def events(self, ci: int) -> list[dict[str, Any]]:
        """Every event of core ``ci`` as the trace wrote it."""
        return [self.event(ci, ei) for ei in range(len(self.cores[ci]))]


def as_store(trace: dict[str, Any] | TraceStore) -> TraceStore:
    """``trace`` as a store: a store as it is; a trace dict (the file's document) converted, the dict unchanged."""
    if isinstance(trace, TraceStore):
        return trace
    store = TraceStore({k: v for k, v in trace.items() if k != "cores"})
    for c in trace.get("cores", []):
        store.add_core(c)
    return store


def load_trace(path: str | Path) -> TraceStore:
    """The trace file at ``path`` as a store, read one core (one line) at a time. A file in another layout
    (one JSON document however it is split into lines) is parsed whole. Raises OSError or ValueError."""
    with open(path, "rb") as f:
        first = f.readline().rstrip()
        if not first.endswith(_CORES_OPEN):
            f.seek(0)
            return as_store(json.load(f))
        try:
            return _stream(f, first)
        except ValueError:  # not one core a line after all: the whole document
            f.seek(0)
            return as_store(json.load(f))


def _stream(f: Any, first: bytes) -> TraceStore:
    head = first[:-len(_CORES_OPEN)].rstrip().rstrip(b",")
    store = TraceStore(json.loads(head + b"}"))
    for line in f:
        line = line.strip()
        if line == b"]}":
            return store
        line = line.rstrip(b",")
        _add_core_line(store, line)
        del line
    raise ValueError("the trace ends before its list of cores does")


def _add_core_line(store: TraceStore, line: bytes) -> None:
    """One core's line: its events as text (:meth:`TraceStore.add_core_text`), else the line parsed as JSON."""
    at = line.find(_EVENTS_OPEN)
    if at > 0 and line.endswith(b"]}"):
        try:
            info = json.loads(line[:at] + b"}")
            if isinstance(info, dict) and "events" not in info:
                store.add_core_text(info, line[at + len(_EVENTS_OPEN) - 1:-1])
                return
        except ValueError:
            pass
    core = json.loads(line)
    if not isinstance(core, dict):
        raise ValueError("a line of the list of cores is not one core")
    store.add_core(core, core.pop("events", []))


__all__ = ["KIND", "KINDS", "CoreEvents", "TraceStore", "as_store", "load_trace"]
