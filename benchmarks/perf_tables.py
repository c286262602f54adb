"""Modelled performance tables of operator packages, as Markdown (the figures quoted in the READMEs).

    python benchmarks/perf_tables.py OP [--case NAME] [--dtype D] [--shape NAME=D0,D1,...] [--soc CHIP]

OP is a package path or an op name under ./ops. Without ``--case``, every ``perf:`` entry of
op.yaml is run (its case on its chip); with ``--case``, that case, optionally with its input
shapes replaced by ``--shape`` (repeatable: ``--shape x=4096,256``). Each case runs on opkit's
simulator and is modelled by ``opkit.perf.case.perf_run`` (what ``opkit perf`` uses). Two tables are
printed: time, roofline bound and efficiency (with and without the kernel start-up), with the
busiest pipes of the slowest core; and fused against unfused (HBM bytes, extra peak memory,
modelled time). All figures are modelled, not measured.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _shape_overrides(items: list[str]) -> dict[str, list[int]]:
    out = {}
    for item in items:
        name, _, dims = item.partition("=")
        out[name.strip()] = [int(d) for d in dims.split(",") if d.strip()]
    return out


def main(argv: list[str] | None = None) -> int:
    from opkit.discover import resolve_ops
    from opkit.errors import OpkitError
    from opkit.perf.case import perf_run
    from opkit.run.userdata import select_case
    from opkit.spec import load

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op")
    ap.add_argument("--case")
    ap.add_argument("--dtype")
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--soc")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args(argv)

    try:
        (pkg,) = resolve_ops([args.op], Path.cwd())
        spec = load(pkg)
        jobs = [(args.case, args.soc)] if args.case else [(p.case, args.soc or p.soc) for p in spec.perf]
        reports = []
        for name, chip in jobs:
            case, column = select_case(spec, name, args.dtype)
            if args.case and args.shape:
                shapes = dict(case.shapes) | _shape_overrides(args.shape)
                case = dataclasses.replace(case, name=f"{case.name} ({', '.join(args.shape)})", shapes=shapes)
            t0 = time.perf_counter()
            rep = perf_run(spec, case, column, soc_name=chip, timeout_s=args.timeout)
            print(f"ran {spec.name}::{case.name} [{rep.dtype}@{rep.chip}] in {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr)
            reports.append((case, rep))
    except OpkitError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1

    print("| case | dtype | first input | modelled time | steady state | roofline bound | efficiency | "
          "steady-state efficiency | busiest core per pipe: V / MTE2 / MTE3 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{x:.0%}"

    for case, rep in reports:
        p = rep.perf
        busy = p.get("per_pipe_busy_us", {})
        bound = "-" if p.get("bound_us") is None else f"{p['bound_us']:.1f} us ({p['bound_by']})"
        first = next(iter(case.shapes.values()), [])
        print(f"| {case.name} | {rep.dtype} | {list(first)} | {p['modelled_us']:.1f} us | "
              f"{p['steady_us']:.1f} us | {bound} | {pct(p.get('efficiency'))} | {pct(p.get('efficiency_steady'))} | "
              + " / ".join(f"{busy.get(q, 0.0):.1f}" for q in ("V", "MTE2", "MTE3")) + " us |")
    print()
    print("| case | variant | launches | HBM bytes | extra peak memory | modelled time |")
    print("|---|---|---:|---:|---:|---:|")
    for case, rep in reports:
        f = rep.perf.get("fusion")
        if not f:
            continue
        for v in ("fused", "unfused"):
            d = f[v]
            extra = d.get("extra_peak_bytes")
            print(f"| {case.name} | {v} | {d['launches']} | {(d.get('hbm_bytes') or 0) / 1e6:.2f} MB | "
                  f"{'-' if extra is None else f'{extra / 1e6:.2f} MB'} | {d['modelled_us']:.1f} us |")
        ratio, speed = f.get("hbm_ratio"), f.get("speedup")
        print(f"| {case.name} | unfused / fused | | {'-' if ratio is None else f'{ratio:.2f}x'} | | "
              f"{'-' if speed is None else f'{speed:.2f}x'} |")
    for case, rep in reports:
        top = list((rep.perf.get("slowest_core_by_api_us") or {}).items())[:6]
        print(f"\n{case.name}: slowest core busy by instruction: " + ", ".join(f"{k} {v:.2f} us" for k, v in top))
    print("\nAll figures are modelled by opkit's performance model from simulator traces, not measured.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
