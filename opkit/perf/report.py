"""Terminal rendering of modelled figures: ``opkit perf``'s report and the fused-vs-unfused table."""

from __future__ import annotations

from typing import Any

from opkit.verify.report import fusion_rows_table as fusion_table

from .apis import unknown_warning
from .costs import PIPES
from .model import LABEL


def mb(n: Any) -> str:
    return "-" if n is None else f"{n / 1e6:,.2f} MB"


def us(t: Any) -> str:
    return "-" if t is None else f"{t:,.2f} us"


def pct(x: Any) -> str:
    return "-" if x is None else f"{x:.0%}"


def core_table(cores: list[Any], clock_mhz: float) -> Any:
    """Per-core makespan and per-pipe busy time (µs, modelled)."""
    from rich.table import Table

    used = [q for q in PIPES if any(c.busy.get(q, 0.0) > 0 for c in cores)]
    t = Table(title="per core: makespan and busy time of each pipe, us (modelled)")
    for col in ("core", "total", *used):
        t.add_column(col, justify="left" if col == "core" else "right")
    groups: list[tuple[str, int, int, list[str]]] = []  # consecutive cores with equal figures share a row
    for c in cores:
        vals = [f"{c.cycles / clock_mhz:.2f}", *[f"{c.busy.get(q, 0.0) / clock_mhz:.2f}" for q in used]]
        if groups and groups[-1][0] == c.core_type and groups[-1][3] == vals and groups[-1][2] == c.block - 1:
            groups[-1] = (c.core_type, groups[-1][1], c.block, vals)
        else:
            groups.append((c.core_type, c.block, c.block, vals))
    for ctype, lo, hi, vals in groups:
        t.add_row(f"{ctype} {lo}" + (f"-{hi}" if hi != lo else ""), *vals)
    return t


def summary_lines(perf: dict[str, Any]) -> list[str]:
    """The headline figures of one modelled run."""
    lines = [
        f"modelled time      {us(perf.get('modelled_us'))}  = steady state {us(perf.get('steady_us'))} "
        f"+ kernel start-up {us(perf.get('startup_us'))}",
    ]
    bound = perf.get("bound_us")
    if bound is not None:
        lines.append(f"roofline bound     {us(bound)} ({perf.get('bound_by')}-bound)")
        lines.append(f"efficiency         {pct(perf.get('efficiency'))} with start-up, "
                     f"{pct(perf.get('efficiency_steady'))} in steady state (bound / time)")
        if perf.get("bound_launch_us") not in (None, bound):
            lines.append(f"launch efficiency  {pct(perf.get('efficiency_launch'))} (compute peak of the cores "
                         f"launched: bound {us(perf.get('bound_launch_us'))})")
    else:
        lines.append("roofline bound     - (golden.py has no flops / hbm_bytes hooks)")
    lines.append(f"GM traffic         {mb(perf.get('gm_bytes'))} moved by the kernel's copies; "
                 f"{mb(perf.get('hbm_bytes'))} compulsory (golden.py hbm_bytes)")
    if perf.get("l2_hit"):
        how = (f"by address: {mb(perf.get('l2_footprint_bytes'))} distinct GM bytes read"
               if perf.get("l2_by_address") else "re-reads of data read before, counted in bytes")
        lines.append(f"L2 hits            {pct(perf['l2_hit'])} of the GM read bytes ({how}; docs/perf.md §1)")
    if perf.get("l2_write_absorbed"):
        lines.append(f"L2 writes          {pct(perf['l2_write_absorbed'])} of the GM write bytes absorbed "
                     "(lines written again while dirty; docs/perf.md §1)")
    busy = perf.get("per_pipe_busy_us") or {}
    if busy:
        lines.append("busiest core/pipe  " + ", ".join(f"{q} {v:,.2f} us" for q, v in busy.items()))
    by_api = perf.get("slowest_core_by_api_us") or {}
    if by_api:
        top = list(by_api.items())[:8]
        lines.append("slowest core, busy time by instruction: " + ", ".join(f"{k} {v:,.2f} us" for k, v in top))
    if perf.get("unknown_apis"):
        lines.append("warning: " + unknown_warning(list(perf["unknown_apis"])))
    if perf.get("events_dropped"):
        lines.append(dropped_warning(int(perf["events_dropped"]), perf.get("dropped_cores") or {}))
    return lines


def dropped_warning(n: int, cores: dict[str, float]) -> str:
    """The one warning line of a trace that dropped events: how many, on which cores, how much of their work."""
    names = list(cores)
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    worst = max(cores.values(), default=0.0)
    where = f" on {len(names)} core(s) ({shown}; up to {worst:.0%} of a core's instructions not replayed)" \
        if names else ""
    return (f"warning: {n:,} trace events were not recorded{where}: the modelled time is a lower bound. The "
            "simulator keeps 100,000 events a core plus a launch-wide pool of a quarter of the available memory "
            "(about 1 KiB an event); set OPKIT_SIM_TRACE_EVENTS=N for a pool of N events (docs/perf.md)")


def render(report: Any) -> list[Any]:
    """``opkit perf``'s output for one :class:`opkit.perf.case.PerfReport` (rich renderables and text)."""
    from rich.markup import escape

    perf = report.perf
    head = (f"[bold]{escape(report.op)}::{escape(report.case)}[/] " + escape(f"[{report.dtype}@{report.chip}]") + " "
            f"block_dim={report.info.get('block_dim', '-')}, tiling_key={report.info.get('tiling_key', '-')}")
    out: list[Any] = [head, *[escape(s) for s in summary_lines(perf)]]
    if report.info.get("trace_only"):
        out.insert(1, "trace-only run: control flow and data movement without arithmetic (no outputs were computed)")
    clock = perf.get("clock_mhz")
    if report.cores and clock:
        out.append(core_table(report.cores, clock))
    if perf.get("fusion"):
        out.append(fusion_table([(report.case, perf["fusion"])]))
    if report.timeline is not None:
        out.append(f"timeline: {escape(str(report.timeline))} (open in https://ui.perfetto.dev)")
    out.append(f"all times, bounds and efficiencies are {LABEL} for {report.chip} from the simulator's trace, "
               "not measured on an NPU")
    return out


__all__ = ["core_table", "dropped_warning", "fusion_table", "render", "summary_lines"]
