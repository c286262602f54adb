"""Verify reports: the terminal table, results.json, worst-element CSVs and JUnit XML."""

from __future__ import annotations

import csv
import io
import json
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opkit import writes
from opkit.verify.compare import HookResult, OutputResult
from opkit.verify.shard import job_id

PASS, FAIL, ERROR, SKIP = "pass", "fail", "error", "skip"


@dataclass
class CaseResult:
    op: str
    case: str
    dtype: str  # the dtype column's label, e.g. "float16"
    soc: str
    shapes: dict[str, Any]
    profile: str
    status: str  # pass | fail | error | skip
    message: str = ""
    outputs: list[OutputResult] = field(default_factory=list)
    seconds: float = 0.0
    perf: dict[str, Any] = field(default_factory=dict)  # modelled figures, when computed
    trace: str | None = None  # the simulator's per-core, per-pipe trace of the run (JSON file)
    compare: HookResult | None = None  # what the package's comparison hook decided
    warnings: list[str] = field(default_factory=list)  # the simulator's warnings during the run
    order: int | None = None  # the run's place in the whole selection (the order of an unsharded run)

    @property
    def id(self) -> str:
        return job_id(self.op, self.case, self.dtype, self.soc)

    @property
    def worst_rel(self) -> float:
        return max((o.max_rel_err for o in self.outputs), default=0.0)

    @property
    def mean_rel(self) -> float:
        return max((o.mean_rel_err for o in self.outputs), default=0.0)

    @property
    def matched(self) -> float:
        return min((o.matched_ratio for o in self.outputs), default=1.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "op": self.op, "case": self.case, "dtype": self.dtype, "soc": self.soc,
            "shapes": self.shapes, "profile": self.profile, "status": self.status, "message": self.message,
            "seconds": round(self.seconds, 4), "perf": self.perf, "trace": self.trace,
            "outputs": [o.to_dict() for o in self.outputs],
            "compare": self.compare.to_dict() if self.compare else None,
            "warnings": self.warnings, "order": self.order,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseResult:
        """A run read back from results.json (``opkit report merge``)."""
        r = cls(d["op"], d["case"], d["dtype"], d["soc"], d["shapes"], d["profile"], d["status"], d["message"],
                seconds=float(d["seconds"]), perf=d["perf"], trace=d["trace"], warnings=list(d["warnings"]),
                order=d.get("order"))
        r.outputs = [OutputResult.from_dict(o) for o in d["outputs"]]
        r.compare = HookResult.from_dict(d["compare"]) if d.get("compare") else None
        return r


def _finite(x: float) -> Any:
    return x if math.isfinite(x) else str(x)


def _clean(obj: Any) -> Any:
    """JSON has no NaN or Inf: write them as strings."""
    if isinstance(obj, float):
        return _finite(obj)
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


# results.json's layout version: raised when a field changes meaning or goes away (adding one keeps it).
# The layout: opkit/verify/results.schema.json, docs/results.md.
SCHEMA_VERSION = 1


def schema_path() -> Path:
    return Path(__file__).with_name("results.schema.json")


def summary_of(statuses: list[str]) -> dict[str, int]:
    return {s: sum(st == s for st in statuses) for s in (PASS, FAIL, ERROR, SKIP)}


def results_doc(cases: list[dict[str, Any]], meta: dict[str, Any] | None = None,
                selection: dict[str, Any] | None = None) -> dict[str, Any]:
    """results.json's content from its runs' records (CaseResult.to_dict())."""
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "opkit": meta or {},
                           "summary": summary_of([c["status"] for c in cases])}
    if selection is not None:
        doc["selection"] = selection
    doc["cases"] = cases
    return doc


def write_doc(doc: dict[str, Any], path: Path, force: bool = False, what: str = "--out") -> None:
    writes.write_text(path, json.dumps(_clean(doc), indent=2, allow_nan=False) + "\n", force, what)


def write_json(results: list[CaseResult], path: Path, meta: dict[str, Any] | None = None,
               force: bool = False, selection: dict[str, Any] | None = None) -> None:
    write_doc(results_doc([r.to_dict() for r in results], meta, selection), path, force)


def write_worst_csv(result: CaseResult, directory: Path, force: bool = False) -> Path | None:
    """The worst mismatching elements of a failed case, one CSV per case; None when there are none."""
    rows = [(o, m) for o in result.outputs for m in o.worst]
    if not rows:
        return None
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in f"{result.op}.{result.case}.{result.dtype}"
                   f".{result.soc}")
    path = directory / f"{safe}.csv"
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow(["output", "index", "actual", "golden", "abs_err", "rel_err", "thresholds"])
    for o, m in rows:
        w.writerow([o.name, "[" + ",".join(map(str, m.index)) + "]", repr(m.actual), repr(m.golden),
                    repr(m.abs_err), repr(m.rel_err), _thresholds_text(o)])
    writes.write_text(path, f.getvalue(), force, "--out")
    return path


def write_junit(results: list[CaseResult], path: Path, suite: str = "opkit.verify", force: bool = False) -> None:
    """JUnit XML: one testsuite per op, one testcase per case × dtype × SoC."""
    root = ET.Element("testsuites", name=suite)
    by_op: dict[str, list[CaseResult]] = {}
    for r in results:
        by_op.setdefault(r.op, []).append(r)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for op, rs in by_op.items():
        counts = {"tests": len(rs), "failures": sum(r.status == FAIL for r in rs),
                  "errors": sum(r.status == ERROR for r in rs), "skipped": sum(r.status == SKIP for r in rs),
                  "time": sum(r.seconds for r in rs)}
        for k in total:
            total[k] += counts[k]
        ts = ET.SubElement(root, "testsuite", name=op, **{k: (f"{v:.3f}" if k == "time" else str(v))
                                                        for k, v in counts.items()})
        for r in rs:
            tc = ET.SubElement(ts, "testcase", classname=f"{suite}.{op}", name=f"{r.case}[{r.dtype}@{r.soc}]",
                               time=f"{r.seconds:.3f}")
            detail = "\n".join(f"{o.name}: {o.reason} (profile {o.thresholds.get('profile', r.profile)}: "
                               f"{o.thresholds})" for o in r.outputs)
            if r.compare:
                detail += f"\n{', '.join(r.compare.outputs)} by {r.compare.function}: {r.compare.summary} " \
                          f"{r.compare.counts} {r.compare.thresholds}"
            if r.status == FAIL:
                ET.SubElement(tc, "failure", message=r.message[:500], type="precision").text = detail or r.message
            elif r.status == ERROR:
                ET.SubElement(tc, "error", message=r.message[:500], type="error").text = r.message
            elif r.status == SKIP:
                ET.SubElement(tc, "skipped", message=r.message[:500])
            if r.status == PASS:
                ET.SubElement(tc, "system-out").text = detail
    for k, v in total.items():
        root.set(k, f"{v:.3f}" if k == "time" else str(v))
    ET.indent(root)
    writes.write_text(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n", force, "--junit")


def table(results: list[CaseResult], title: str = "opkit verify") -> Any:
    """A rich table of the results (one row per case × dtype × SoC); the op and perf columns only when
    they say something."""
    from rich.table import Table

    many_ops = len({r.op for r in results}) > 1
    has_perf = any(r.perf.get("modelled_us") is not None for r in results)
    has_hook = any(r.compare is not None for r in results)
    has_nonfinite = any(o.nonfinite_mismatches for r in results for o in r.outputs)
    t = Table(title=title)
    cols = [("op", "left")] if many_ops else []
    cols += [("case", "left"), ("dtype", "left"), ("shape", "left"), ("profile", "left"),
             ("max rel err", "right"), ("mean rel err", "right"), ("matched", "right")]
    cols += [("NaN/Inf diff", "right")] if has_nonfinite else []
    cols += [("hook", "left")] if has_hook else []
    cols += [("verdict", "left")]
    if has_perf:
        cols += [("modelled time", "right"), ("bound", "right"), ("efficiency", "right"),
                 ("steady-state eff.", "right")]
    for col, just in cols:
        t.add_column(col, justify=just, overflow="fold")
    style = {PASS: "[green]pass[/]", FAIL: "[red]FAIL[/]", ERROR: "[red]ERROR[/]", SKIP: "[yellow]skip[/]"}
    for r in results:
        first = next(iter(r.shapes.values()), None)
        shape = "x".join(map(str, first)) if isinstance(first, list) and all(isinstance(v, int) for v in first) \
            else "-"
        has = bool(r.outputs) and r.status in (PASS, FAIL)
        row = [r.op] if many_ops else []
        row += [r.case, r.dtype, shape, r.profile, f"{r.worst_rel:.3g}" if has else "-",
                f"{r.mean_rel:.3g}" if has else "-", f"{r.matched:.2%}" if has else "-"]
        if has_nonfinite:
            row.append(str(sum(o.nonfinite_mismatches for o in r.outputs)) if has else "-")
        if has_hook:
            row.append(r.compare.summary if r.compare else "-")
        row.append(style.get(r.status, r.status))
        if has_perf:
            perf_t, bound = r.perf.get("modelled_us"), r.perf.get("bound_us")
            eff, eff_s = r.perf.get("efficiency"), r.perf.get("efficiency_steady")
            row += [f"{perf_t:.2f} us" if perf_t is not None else "-",
                    f"{bound:.2f} us" if bound else "-",
                    f"{eff:.0%}" if eff is not None else "-", f"{eff_s:.0%}" if eff_s is not None else "-"]
        t.add_row(*row)
    return t


def _thresholds_text(o: OutputResult) -> str:
    """``mixed (bfloat16): rtol=0.0078125, ...``: the profile and thresholds an output was judged by."""
    th = dict(o.thresholds)
    name = th.pop("profile", "")
    return f"{name} ({o.dtype}): " + (", ".join(f"{k}={_fmt(v)}" for k, v in th.items()) or "defaults")


def thresholds_lines(results: list[CaseResult]) -> list[str]:
    """One line per distinct profile and thresholds applied (and per comparison hook), for under the table."""
    lines: list[str] = []
    for r in results:
        for o in r.outputs:
            line = _thresholds_text(o)
            if line not in lines:
                lines.append(line)
        if r.compare:
            c = r.compare
            line = f"{c.function} ({', '.join(c.outputs)}): " + ", ".join(
                f"{k}={_fmt(v)}" for k, v in {**c.thresholds, **c.options}.items())
            if line not in lines:
                lines.append(line)
    return lines


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _mb(n: Any) -> str:
    return "-" if n is None else f"{n / 1e6:,.2f} MB"


def _us(t: Any) -> str:
    return "-" if t is None else f"{t:,.2f} us"


def fusion_rows_table(rows: list[tuple[str, dict[str, Any]]], title: str = "fused vs unfused (modelled)") -> Any:
    """A rich table: per (name, fusion record) the fused and unfused HBM bytes, extra peak memory,
    launches and modelled time."""
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=title)
    for col, just in (("case", "left"), ("variant", "left"), ("launches", "right"), ("HBM bytes", "right"),
                      ("extra peak memory", "right"), ("modelled time", "right")):
        t.add_column(col, justify=just, overflow="fold")
    for name, f in rows:
        for variant in ("fused", "unfused"):
            d = f[variant]
            t.add_row(escape(name) if variant == "fused" else "", variant, str(d.get("launches", "-")),
                      _mb(d.get("hbm_bytes")), _mb(d.get("extra_peak_bytes")), _us(d.get("modelled_us")))
        ratio, speed = f.get("hbm_ratio"), f.get("speedup")
        t.add_row("", "unfused / fused", "", f"{ratio:.2f}x" if ratio else "-", "",
                  f"{speed:.2f}x" if speed else "-", end_section=True)
    return t


def unknown_api_lines(results: list[CaseResult]) -> list[str]:
    """With --perf: one line per run whose trace holds records the performance model's API cost table does
    not know (``perf.unknown_apis``; priced by the pipe's fallback, docs/perf.md)."""
    return [f"{r.id}: traced API(s) not in the performance model's API cost table, priced by the pipe's fallback "
            f"(docs/perf.md, API cost table): {', '.join(r.perf['unknown_apis'])}"
            for r in results if r.perf.get("unknown_apis")]


def fusion_table(results: list[CaseResult]) -> Any | None:
    """Fused against unfused (modelled) for the results whose golden describes the unfused chain; None if
    there is none."""
    rows = [(f"{r.case} [{r.dtype}@{r.soc}]", r.perf["fusion"]) for r in results if r.perf.get("fusion")]
    return fusion_rows_table(rows) if rows else None
