"""A multi-rank run modelled: ``opkit perf``'s text, its JSON record and the timeline of every rank.

The timeline puts each rank's cores in processes of their own (``rank 2 AIV 5``, the pipes as threads,
as :mod:`opkit.perf.timeline` does for one rank) and adds one ``rank 2 HCCL`` process per rank whose
``link`` thread shows every slice of every collective from its start to its landing, with a flow from
the rank's Commit to the slice and from the slice to each Wait that waited for it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opkit.errors import UsageError

from .comm_replay import LANDING, RanksResult
from .model import LABEL
from .timeline import timeline

_RANK_PIDS = 1000  # pid = rank * _RANK_PIDS + the single-rank timeline's pid


def _pct(x: float) -> str:
    """A share as a percentage, without the "-0.0%" a rounding leaves when fused and serial agree."""
    return f"{(x if abs(x) >= 5e-4 else 0.0):.1%}"


def _us(t: float) -> str:
    return f"{t:,.2f} us"


def summary_lines(res: RanksResult) -> list[str]:
    """The headline figures of a modelled multi-rank run."""
    d = res.as_dict()
    link = res.link
    lines = [
        f"{res.ranks} ranks on {res.chip}: {link.topology} of {link.family}, {link.link_gbps:g} GB/s per "
        f"{'peer link' if link.topology == 'mesh' else 'ring'}, step latency {link.alpha_us:g}"
        + (f"-{link.alpha_large_us:g}" if link.alpha_large_us > link.alpha_us else "")
        + f" us, AICPU launch {link.launch_us:g} us per task",
        f"compute            {_us(res.compute_us)}  (slowest rank, every slice landed at once)",
        f"communication      {_us(res.comm_us)}  (the unfused equivalent, after the compute: "
        f"{_serial_what(d['serial_collectives'])})",
        f"serial sum         {_us(res.serial_us)}  = compute + communication",
        f"perfect overlap    {_us(d['perfect_overlap_us'])}  = max(compute, communication)",
        f"fused (modelled)   {_us(res.fused_us)}  overlapped replay of the slices; exposed communication "
        f"{_us(d['exposed_comm_us'])}",
        f"saving             {_pct(res.saving)} against compute then communication"
        + (f" (perfect overlap: {1 - d['perfect_overlap_us'] / res.serial_us:.1%})" if res.serial_us else ""),
        f"link busy          {_us(d['sliced_comm_us'])} over {len(res.slices)} slice(s)",
    ]
    for c in d["collectives"]:
        lines.append(f"  {c['kind']} #{c['handle']} ({c['dtype']}): {c['repeat']} slice(s) of {c['slice_bytes']:,} "
                     f"bytes per rank, {_us(c['slice_us'])} each, {_us(c['unsliced_us'])} unsliced  [{c['at']}]")
    for c in d["serial_collectives"]:
        if len(c["handles"]) > 1:
            lines.append(f"  serial: {_name(c)} of {c['bytes']:,} bytes per rank, {_us(c['us'])}: "
                         + ", ".join(f"#{h}" for h in c["handles"]) + " over one output buffer as one collective")
    return lines


def _name(c: dict[str, Any]) -> str:
    return f"{c['kind']} ({', '.join(x for x in (c['op'], c['dtype']) if x)})"


def _serial_what(d: list[dict[str, Any]]) -> str:
    """What the serial's communication counts (``as_dict()["serial_collectives"]``), in a few words."""
    if not d:
        return "no collectives"
    merged = sum(len(c["handles"]) for c in d)
    parts = ", ".join(f"{c['kind']} {c['bytes'] / 2**20:.4g} MiB" for c in d)
    what = f"{len(d)} collective(s), {parts} per rank"
    return what + (f", from {merged} prepared" if merged > len(d) else "") + ", unsliced"


def render(report: Any) -> list[Any]:
    """``opkit perf``'s output for a multi-rank :class:`opkit.perf.case.PerfReport` (``report.ranks`` set)."""
    from rich.markup import escape

    from .report import core_table

    res: RanksResult = report.ranks
    head = (f"[bold]{escape(report.op)}::{escape(report.case)}[/] " + escape(f"[{report.dtype}@{report.chip}]") +
            f" {res.ranks} ranks, block_dim={report.info.get('block_dim', '-')}, "
            f"tiling_key={report.info.get('tiling_key', '-')}")
    out: list[Any] = [head]
    if report.info.get("trace_only"):
        out.append("trace-only run: control flow and data movement without arithmetic (no outputs were computed)")
    out.extend(escape(s) for s in summary_lines(res))
    slowest = max(range(len(res.per_rank)), key=lambda r: res.per_rank[r].modelled_us)
    rank = res.per_rank[slowest]
    if rank.cores and rank.clock_mhz:
        table = core_table(rank.cores, rank.clock_mhz)
        table.title = f"rank {slowest} (the slowest), overlapped: " + str(table.title)
        out.append(table)
    if report.timeline is not None:
        out.append(f"timeline: {escape(str(report.timeline))} (open in https://ui.perfetto.dev)")
    out.append(f"all times are {LABEL} for {report.chip} from the simulator's traces and the link model "
               "(docs/perf.md §9), not measured on NPUs")
    return out


def ranks_timeline(res: RanksResult, traces: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> dict:
    """One trace-event document for all ranks (module docstring); needs a replay made with ``keep_graph``."""
    events: list[dict[str, Any]] = []
    flow = 0
    waits: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    commits: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    for r, (mr, tr) in enumerate(zip(res.per_rank, traces, strict=True)):
        base = r * _RANK_PIDS
        doc = timeline(mr, tr)
        for ev in doc["traceEvents"]:
            if ev.get("name", "").startswith(LANDING):
                continue  # the pseudo-tasks holding a Wait: the HCCL track shows the slice instead
            e = dict(ev)
            e["pid"] = base + int(e.get("pid", 0))
            if e.get("ph") in ("s", "f"):
                e["id"] = f"r{r}.{e['id']}"
            if e.get("ph") == "M" and e.get("name") == "process_name":
                e["args"] = {"name": f"rank {r} {e['args']['name']}"}
            if e.get("ph") == "M" and e.get("name") == "process_sort_index":
                e["args"] = {"sort_index": base + int(e["args"]["sort_index"])}
            if e.get("ph") == "X" and str(e.get("name", "")).startswith(("Hccl::Wait #", "Hccl::Commit #")):
                h, i = (int(x) for x in str(e["name"]).split("#", 1)[1].split("."))
                bucket = waits if e["name"].startswith("Hccl::Wait") else commits
                bucket.setdefault((h, i), []).append((e["pid"], e["tid"], float(e["ts"])))
            events.append(e)
        hpid = base + _RANK_PIDS - 1
        events.append({"ph": "M", "name": "process_name", "pid": hpid, "args": {"name": f"rank {r} HCCL"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": hpid, "args": {"sort_index": hpid}})
        events.append({"ph": "M", "name": "thread_name", "pid": hpid, "tid": 0, "args": {"name": "link"}})
    kinds = {c.handle: c for c in res.collectives}
    for s in res.slices:
        c = kinds[s.handle]
        name = f"{c.kind} #{s.handle}.{s.slice}"
        for r in range(res.ranks):
            hpid = r * _RANK_PIDS + _RANK_PIDS - 1
            events.append({"ph": "X", "name": name, "cat": "hccl", "pid": hpid, "tid": 0, "ts": s.start_us,
                           "dur": s.end_us - s.start_us,
                           "args": {"ready_us": s.ready_us, "slice_bytes": c.slice_bytes, "ranks": res.ranks}})
            for pid, tid, ts in commits.get((s.handle, s.slice), []):
                if pid // _RANK_PIDS != r:
                    continue
                events.append({"ph": "s", "id": f"c{flow}", "name": "commit", "cat": "hccl", "pid": pid, "tid": tid,
                               "ts": ts})
                events.append({"ph": "f", "bp": "e", "id": f"c{flow}", "name": "commit", "cat": "hccl", "pid": hpid,
                               "tid": 0, "ts": s.start_us})
                flow += 1
            for pid, tid, ts in waits.get((s.handle, s.slice), []):
                if pid // _RANK_PIDS != r:
                    continue
                events.append({"ph": "s", "id": f"c{flow}", "name": "landed", "cat": "hccl", "pid": hpid, "tid": 0,
                               "ts": s.end_us})
                events.append({"ph": "f", "bp": "e", "id": f"c{flow}", "name": "landed", "cat": "hccl", "pid": pid,
                               "tid": tid, "ts": max(ts, s.end_us)})
                flow += 1
    other = {"label": LABEL, "chip": res.chip, "ranks": res.ranks, "time_unit": "us (modelled)",
             **{k: v for k, v in res.as_dict().items() if k.endswith("_us") or k == "saving"}}
    other.update(meta or {})
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}


def write_json(path: Path, doc: dict[str, Any], what: str) -> Path:
    try:
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot be written ({exc.strerror or exc})") from None
    return path


__all__ = ["ranks_timeline", "render", "summary_lines", "write_json"]
