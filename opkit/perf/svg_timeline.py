"""An SVG picture of the timeline ``opkit perf --trace`` writes (every time in it is modelled).

Reads the Chrome trace-event JSON of :mod:`opkit.perf.timeline` (one rank) or
:mod:`opkit.perf.comm_report` (every rank, plus a ``rank R HCCL`` process per rank) and draws one row
per (core, pipe) of the chosen cores: a box per instruction, coloured by its API (``DataCopy``,
``Mmad``, ...) or by its pipe, a time axis in microseconds and a legend. Defaults: the first AIC and
its two AIVs (``AIC 0``, ``AIV 0``, ``AIV 1``; the first AIV alone for a vector-only kernel); for a
multi-rank trace rank 0's and every rank's HCCL track. The scalar pipe and the ``sync`` thread are left
out unless asked for. Boxes of one colour closer than half a pixel are merged, so the file stays small
at any trace length; the output depends only on the trace and the options (no dates, no random ids).

    python -m opkit.perf.svg_timeline TRACE.json -o out.svg [--window A:B] [--cores "AIC 0,AIV 0"]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from opkit.errors import OpkitError, UsageError

DEFAULT_PIPES = ("M", "MTE1", "MTE2", "MTE3", "FIX", "V", "hccl", "link")
PIPE_ORDER = ("link", "hccl", "M", "MTE1", "MTE2", "FIX", "V", "MTE3", "S", "sync")
# fixed colours of the common APIs and pipes, the rest from PALETTE in order of their names
API_COLOURS = {
    "Mmad": "#d62728", "LoadData": "#ff9896", "Fixpipe": "#9467bd", "DataCopy": "#1f77b4",
    "DataCopyPad": "#aec7e8", "SoftmaxFlashV2": "#2ca02c", "Cast": "#98df8a", "Muls": "#bcbd22",
    "Mul": "#dbdb8d", "Add": "#17becf", "Adds": "#9edae5", "Select": "#8c564b", "SelectWithBytesMask": "#c49c94",
    "AllReduce": "#ff7f0e", "AllGather": "#ffbb78", "ReduceScatter": "#e377c2", "AlltoAll": "#f7b6d2",
    "Duplicate": "#7f7f7f", "Commit": "#000000", "Wait": "#e7298a", "Finalize": "#666666",
}
PIPE_COLOURS = {"hccl": "#000000", "M": "#d62728", "MTE1": "#ff9896", "MTE2": "#1f77b4", "MTE3": "#aec7e8",
                "FIX": "#9467bd", "V": "#2ca02c", "S": "#7f7f7f", "sync": "#c7c7c7", "link": "#ff7f0e"}
PALETTE = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252", "#bd9e39", "#ad494a",
           "#a55194", "#6b6ecf", "#b5cf6b", "#e7ba52", "#d6616b", "#ce6dbd", "#9c9ede", "#cedb9c", "#e7cb94")

LABEL_W_MIN = 112  # px for the row labels, at least
ROW_H = 14
ROW_GAP = 3
GROUP_GAP = 8


@dataclass
class Row:
    core: str  # process name ("AIC 0", "rank 1 HCCL")
    pipe: str  # thread name ("MTE2", "link")
    boxes: list[tuple[float, float, str, str]] = field(default_factory=list)  # (start us, end us, api, name)


def load_trace(path: Path) -> dict[str, Any]:
    """The trace document at ``path``; a missing, unreadable or non-trace file ends in one UsageError."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such trace file; write one with `opkit perf OP --case C --trace {path}`")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not JSON (line {exc.lineno}: {exc.msg}); give the file `opkit perf --trace` "
                         "wrote") from None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise UsageError(f"{path}: not a Chrome trace-event file (no traceEvents list); give the file "
                         "`opkit perf --trace` wrote")
    return doc if isinstance(doc, dict) else {"traceEvents": events}


def parse_window(text: str | None) -> tuple[float | None, float | None] | None:
    """``"A:B"`` (µs; either side may be empty) -> (A, B); a malformed window ends in a UsageError."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*([-+0-9.eE]*)\s*:\s*([-+0-9.eE]*)\s*", text)
    try:
        if not m:
            raise ValueError
        lo = float(m.group(1)) if m.group(1) else None
        hi = float(m.group(2)) if m.group(2) else None
    except ValueError:
        raise UsageError(f"window {text!r}: give START:END in us of modelled time, e.g. 0:50 or 20: "
                         "(either side may be left out)") from None
    if lo is not None and hi is not None and hi <= lo:
        raise UsageError(f"window {text!r}: END must be after START")
    return lo, hi


def _api(name: str, pipe: str) -> str:
    if pipe == "link":
        return name.split(" #")[0].split()[0]
    if pipe == "hccl":
        return name.split("::", 1)[1].split(" #")[0].split("<")[0]
    word = name.split()[0] if name.split() else "?"
    return word.split("<")[0].split("(")[0]


def _default_cores(names: list[str]) -> list[str]:
    ranks = sorted({int(m.group(1)) for n in names if (m := re.match(r"rank (\d+) ", n))})
    prefix = f"rank {ranks[0]} " if ranks else ""
    own = [n[len(prefix):] for n in names if n.startswith(prefix)]
    if "AIC 0" in own:
        cores = ["AIC 0"] + [a for a in ("AIV 0", "AIV 1") if a in own]
    else:
        aivs = sorted((n for n in own if n.startswith("AIV ")), key=lambda n: int(n.split()[1]))
        cores = aivs[:1]
    chosen = [prefix + c for c in cores]
    if ranks:
        chosen += [f"rank {r} HCCL" for r in ranks if f"rank {r} HCCL" in names]
    return chosen


def collect_rows(doc: dict[str, Any], cores: list[str] | None = None,
                 pipes: tuple[str, ...] | None = None) -> list[Row]:
    """The rows of the chosen cores (process names) and pipes (thread names), boxes sorted by start."""
    events = doc.get("traceEvents", [])
    procs: dict[Any, str] = {}
    threads: dict[tuple[Any, Any], str] = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "M":
            continue
        if e.get("name") == "process_name":
            procs[e.get("pid")] = str(e.get("args", {}).get("name", e.get("pid")))
        elif e.get("name") == "thread_name":
            threads[(e.get("pid"), e.get("tid"))] = str(e.get("args", {}).get("name", e.get("tid")))
    names = sorted(set(procs.values()))
    if cores is None:
        cores = _default_cores(names)
        if not cores:
            raise UsageError("the trace names no AIC or AIV core; give the file `opkit perf --trace` wrote")
    else:
        unknown = [c for c in cores if c not in names]
        if unknown:
            raise UsageError(f"cores {', '.join(unknown)}: not in the trace; it has {', '.join(names)}")
    pipes = tuple(pipes) if pipes else DEFAULT_PIPES
    rows: dict[tuple[str, str], Row] = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        core = procs.get(e.get("pid"))
        if core not in cores:
            continue
        name = str(e.get("name", "?"))
        pipe = threads.get((e.get("pid"), e.get("tid")), str(e.get("tid")))
        if name.startswith("Hccl::"):
            pipe = "hccl"  # the device-side HCCL calls of the core (Commit, Wait, Finalize), drawn as marks
        if pipe not in pipes or name.startswith(("SetFlag", "WaitFlag", "PipeBarrier")):
            continue
        try:
            ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
        except (KeyError, TypeError, ValueError):
            continue
        if dur <= 0 and pipe != "hccl":
            continue
        row = rows.setdefault((core, pipe), Row(core, pipe))
        row.boxes.append((ts, ts + max(dur, 0.0), _api(name, pipe), name))
    order = {c: i for i, c in enumerate(cores)}
    porder = {p: i for i, p in enumerate(PIPE_ORDER)}
    out = sorted(rows.values(), key=lambda r: (order[r.core], porder.get(r.pipe, 99), r.pipe))
    for r in out:
        r.boxes.sort()
    return out


def _nice_step(span: float, target: int = 10) -> float:
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _fmt(x: float) -> str:
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _colours(keys: list[str], by: str) -> dict[str, str]:
    fixed = PIPE_COLOURS if by == "pipe" else API_COLOURS
    out: dict[str, str] = {}
    spare = iter(PALETTE * (1 + len(keys) // len(PALETTE)))
    for k in sorted(keys):
        out[k] = fixed[k] if k in fixed else next(spare)
    return out


def render_svg(doc: dict[str, Any], *, window: tuple[float | None, float | None] | None = None,
               cores: list[str] | None = None, pipes: tuple[str, ...] | None = None, color_by: str = "api",
               width: int = 1000, title: str | None = None) -> str:
    """The SVG text of the trace document ``doc`` (module docstring)."""
    if color_by not in ("api", "pipe"):
        raise UsageError(f"colour by {color_by!r}: give api or pipe")
    if width < 300:
        raise UsageError(f"width {width}: give at least 300 px")
    rows = collect_rows(doc, cores, pipes)
    if not rows:
        raise UsageError("the trace holds no instruction on the chosen cores and pipes")
    t0 = min(b[0] for r in rows for b in r.boxes)
    t1 = max(b[1] for r in rows for b in r.boxes)
    lo, hi = window or (None, None)
    lo = t0 if lo is None else lo
    hi = t1 if hi is None else hi
    if hi <= lo:
        raise UsageError(f"window {_fmt(lo)}:{_fmt(hi)} us is empty: END must be after START (the trace spans "
                         f"{_fmt(t0)}:{_fmt(t1)} us)")
    clipped: list[Row] = []
    for r in rows:
        boxes = [(max(a, lo), min(b, hi), api, n) for a, b, api, n in r.boxes
                 if (b > lo and a < hi) or (a == b and lo <= a <= hi)]
        if boxes:
            clipped.append(Row(r.core, r.pipe, boxes))
    if not clipped:
        raise UsageError(f"window {_fmt(lo)}:{_fmt(hi)} us holds no instruction of the chosen rows (they span "
                         f"{_fmt(t0)}:{_fmt(t1)} us)")
    longest = max(len(f"{r.core} {r.pipe}") for r in clipped)
    label_w = round(max(LABEL_W_MIN, 6.2 * longest + 10))  # the longest label fits
    plot_w = width - label_w - 16
    scale = plot_w / (hi - lo)

    def x(t: float) -> float:
        return label_w + (t - lo) * scale

    keys = sorted({(b[2] if color_by == "api" else r.pipe) for r in clipped for b in r.boxes})
    colour = _colours(keys, color_by)
    other = doc.get("otherData", {}) if isinstance(doc.get("otherData"), dict) else {}
    if title is None:
        what = "::".join(str(other[k]) for k in ("op", "case") if other.get(k))
        extra = [str(other[k]) for k in ("dtype", "chip") if other.get(k)]
        if other.get("ranks"):
            extra.append(f"{other['ranks']} ranks")
        title = (what or "timeline") + (f" [{', '.join(extra)}]" if extra else "") + ", modelled"
    y = 34
    parts: list[str] = []
    prev_core = None
    for r in clipped:
        if prev_core is not None and r.core != prev_core:
            y += GROUP_GAP
        prev_core = r.core
        parts.append(f'<text x="{label_w - 6}" y="{y + ROW_H - 3}" text-anchor="end" class="l">'
                     f'{escape(r.core)} {escape(r.pipe)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{plot_w}" height="{ROW_H}" class="bg"/>')
        merged: list[list[Any]] = []  # [x0, x1, key, count, first name]
        for a, b, api, name in r.boxes:
            key = api if color_by == "api" else r.pipe
            xa, xb = x(a), x(b)
            if merged and merged[-1][2] == key and xa <= merged[-1][1] + 0.5 and r.pipe != "link":
                merged[-1][1] = max(merged[-1][1], xb)
                merged[-1][3] += 1
                continue
            merged.append([xa, xb, key, 1, name])
        for xa, xb, key, count, name in merged:
            w = max(xb - xa, 2.0 if r.pipe == "hccl" else 0.4)
            tip = name if count == 1 else f"{key} x{count}"
            edge = ' stroke="#fff" stroke-width="1"' if r.pipe == "link" else ""
            parts.append(f'<rect x="{xa:.1f}" y="{y}" width="{w:.1f}" height="{ROW_H}" fill="{colour[key]}"{edge}>'
                         f'<title>{escape(tip)}</title></rect>')
            if r.pipe == "link" and w > 7 * len(name) + 8:  # a slice wide enough carries its name
                parts.append(f'<text x="{xa + w / 2:.1f}" y="{y + ROW_H - 3}" text-anchor="middle" class="s">'
                             f'{escape(name)}</text>')
        y += ROW_H + ROW_GAP
    # time axis
    axis_y = y + 2
    parts.append(f'<line x1="{label_w}" y1="{axis_y}" x2="{label_w + plot_w}" y2="{axis_y}" class="ax"/>')
    step = _nice_step(hi - lo)
    tick = math.ceil(lo / step) * step
    while tick <= hi + step * 1e-9:
        tx = x(tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{axis_y}" x2="{tx:.1f}" y2="{axis_y + 4}" class="ax"/>')
        parts.append(f'<text x="{tx:.1f}" y="{axis_y + 15}" text-anchor="middle" class="t">{_fmt(tick)}</text>')
        tick += step
    parts.append(f'<text x="{label_w - 6}" y="{axis_y + 15}" text-anchor="end" class="t">us (modelled)</text>')
    # legend, wrapped to the width
    ly = axis_y + 34
    lx = label_w
    for k in keys:
        w = 18 + 7 * len(k) + 14
        if lx + w > width - 8:
            lx, ly = label_w, ly + 16
        parts.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour[k]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{ly}" class="l">{escape(k)}</text>')
        lx += w
    height = ly + 12
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        "<style>.l{font-size:11px;fill:#222}.t{font-size:10px;fill:#444}.bg{fill:#f4f4f4}"
        ".s{font-size:10px;fill:#fff}.ax{stroke:#444;stroke-width:1}.h{font-size:13px;font-weight:bold;fill:#111}</style>",
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="8" y="18" class="h">{escape(title)}</text>',
        f'<text x="{width - 8}" y="18" text-anchor="end" class="t">{_fmt(lo)} .. {_fmt(hi)} us of modelled time'
        f'{", coloured by " + color_by}</text>',
    ]
    return "\n".join(head + parts + ["</svg>"]) + "\n"


def write_svg(trace_path: Path, out: Path, *, window: tuple[float | None, float | None] | None = None,
              cores: list[str] | None = None, pipes: tuple[str, ...] | None = None, color_by: str = "api",
              width: int = 1000, what: str = "--svg") -> Path:
    """Render the trace file ``trace_path`` to the SVG file ``out``; errors as UsageError."""
    text = render_svg(load_trace(trace_path), window=window, cores=cores, pipes=pipes, color_by=color_by,
                      width=width)
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{what} {out}: cannot be written ({exc.strerror or exc})") from None
    return Path(out)


def split_list(text: str | None) -> list[str] | None:
    """``"AIC 0, AIV 0"`` -> ["AIC 0", "AIV 0"] (None stays None)."""
    if text is None:
        return None
    items = [s.strip() for s in text.split(",") if s.strip()]
    if not items:
        raise UsageError(f"{text!r}: give a comma-separated list of names")
    return items


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m opkit.perf.svg_timeline",
                                 description="Draw the timeline `opkit perf --trace` wrote as an SVG picture.")
    ap.add_argument("trace", type=Path, help="the Chrome trace-event JSON of `opkit perf --trace`")
    ap.add_argument("-o", "--output", type=Path, required=True, help="the SVG file to write")
    ap.add_argument("--window", metavar="A:B", help="start:end in us of modelled time (either may be empty)")
    ap.add_argument("--cores", metavar="LIST", help='comma-separated process names, e.g. "AIC 0,AIV 0,AIV 1" or '
                    '"rank 0 AIC 0,rank 1 HCCL" (default: the first AIC and its AIVs, every rank\'s HCCL)')
    ap.add_argument("--pipes", metavar="LIST", help=f"comma-separated pipes (default: {','.join(DEFAULT_PIPES)})")
    ap.add_argument("--color-by", choices=("api", "pipe"), default="api")
    ap.add_argument("--width", type=int, default=1000, help="picture width in px (default 1000)")
    args = ap.parse_args(argv)
    try:
        pipes = split_list(args.pipes)
        write_svg(args.trace, args.output, window=parse_window(args.window), cores=split_list(args.cores),
                  pipes=tuple(pipes) if pipes else None, color_by=args.color_by, width=args.width, what="-o")
    except OpkitError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    print(f"wrote {args.output}")
    return 0


__all__ = ["collect_rows", "load_trace", "parse_window", "render_svg", "split_list", "write_svg"]

if __name__ == "__main__":
    sys.exit(main())
