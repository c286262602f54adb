"""A Chrome trace-event / Perfetto timeline of a modelled run (every time in it is modelled).

One process per core (``AIV 3``, ``AIC 0``), one thread per pipe (S, V, M, MTE1, MTE2, MTE3, FIX,
plus ``sync`` for the drains and cross-core flags that belong to no pipe); every replayed task is
a complete (``X``) event with ``ts``/``dur`` in microseconds; the ordering edges the replay honoured
(SetFlag -> WaitFlag, EnQue -> DeQue, FreeTensor -> AllocTensor, cross-core flags, SyncAll) are
flow events (``s``/``f`` pairs). Open the file in https://ui.perfetto.dev or chrome://tracing.
The format: "Trace Event Format" (Google, the document linked from the Catapult project).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opkit.errors import UsageError

from .costs import PIPES
from .model import LABEL, ModelResult
from .trace_store import TraceStore, as_store

_THREADS = (*PIPES, "sync")


def check_path(path: Path, force: bool = False) -> None:
    """Refuse a timeline path that cannot be written, before any run (a clear error, no traceback)."""
    if path.is_dir():
        raise UsageError(f"--trace {path}: is a folder; give a file name such as {path / 'timeline.json'}")
    if path.exists() and not force:
        raise UsageError(f"--trace {path}: exists; pass --force to replace it")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"--trace {path}: folder {parent} does not exist")


def timeline(result: ModelResult, trace: dict[str, Any] | TraceStore,
             meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The trace-event document of a replay made with ``keep_graph=True``."""
    graph = result.graph
    if graph is None:
        raise ValueError("timeline() needs a ModelResult replayed with keep_graph=True")
    clock = result.clock_mhz
    cores = [c.info for c in as_store(trace).cores]
    n = len(cores)
    events: list[dict[str, Any]] = []
    for ci, c in enumerate(cores):
        events.append({"ph": "M", "name": "process_name", "pid": ci,
                       "args": {"name": f"{c.get('core_type', 'AIV')} {c.get('block', ci)}"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": ci, "args": {"sort_index": ci}})
        for ti, th in enumerate(_THREADS):
            events.append({"ph": "M", "name": "thread_name", "pid": ci, "tid": ti, "args": {"name": th}})
    events.append({"ph": "M", "name": "process_name", "pid": n, "args": {"name": "chip (SyncAll)"}})
    events.append({"ph": "M", "name": "thread_name", "pid": n, "tid": 0, "args": {"name": "SyncAll"}})

    core, start, end = graph.core.tolist(), graph.start.tolist(), graph.end.tolist()
    spec = graph.spec.tolist()
    # per spec: thread, category, name and GM bytes
    specs = []
    for q, nm, kl, gm in zip(graph.spec_pipe.tolist(), graph.spec_name.tolist(), graph.spec_klass.tolist(),
                             graph.spec_gm.tolist(), strict=True):
        pipe = PIPES[q] if q >= 0 else ""
        specs.append((q if q >= 0 else len(PIPES), pipe or "sync",
                      graph.text[nm] or graph.text[kl] or ("drain" if not pipe else pipe), gm))

    def where(i: int) -> tuple[int, int]:
        return (n, 0) if core[i] < 0 else (core[i], specs[spec[i]][0])

    for i in range(len(core)):
        pid, tid = where(i)
        _, cat, name, gm = specs[spec[i]]
        args: dict[str, Any] = {"task": i}
        if gm:
            args["gm_bytes"] = int(gm)
        events.append({"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid,
                       "ts": start[i] / clock, "dur": (end[i] - start[i]) / clock, "args": args})
    for k, (src, dst, kind) in enumerate(graph.edges):
        spid, stid = where(src)
        dpid, dtid = where(dst)
        events.append({"ph": "s", "id": k, "name": kind, "cat": "sync", "pid": spid, "tid": stid,
                       "ts": start[src] / clock})
        events.append({"ph": "f", "bp": "e", "id": k, "name": kind, "cat": "sync", "pid": dpid, "tid": dtid,
                       "ts": start[dst] / clock})
    other = {"label": LABEL, "chip": result.chip, "time_unit": "us (modelled)",
             "steady_us": result.steady_us, "startup_us": result.startup_us}
    other.update(meta or {})
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}


def write_timeline(path: Path, result: ModelResult, trace: dict[str, Any] | TraceStore,
                   meta: dict[str, Any] | None = None) -> Path:
    """Write the timeline JSON to ``path`` (see :func:`timeline`)."""
    doc = timeline(result, trace, meta)
    try:
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace {path}: cannot be written ({exc.strerror or exc})") from None
    return path


__all__ = ["check_path", "timeline", "write_timeline"]
