"""Calibration of the performance model against published measurements (npu_perf_model §4.4 anchors).

    python benchmarks/perf_calibration.py [--only SUBSTRING] [--json FILE] [--tolerance 0.15] [--full-run]

Each anchor names a kernel package, one of its cases, the chip it was measured on and the published
figure: the kernel's time (Task Duration) or, with ``metric``, one pipe's busy time (``MTE2``).
The script runs the case on opkit's simulator (building it as needed), replays the trace on the
chip's numbers (``opkit.perf.case.perf_case``, the library behind ``opkit perf``) and prints
anchor, published, modelled and error. Published per-pipe busy times, where the source gives them,
are printed beside the modelled ones. An anchor whose kernel cannot run yet carries ``pending`` (the
reason) and is listed without a figure; adding an anchor is one entry of ``ANCHORS``.

Modelled figures are estimates of the model, not measurements. Exit status 1 when a runnable
anchor is off by more than the tolerance.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ADD = "benchmarks/kernels/add_custom"
MM = "benchmarks/kernels/matmul_custom"
A_ADD = ("mirror-cann/asc-devkit examples/01_simd_cpp_api/05_best_practices/00_vector_compute/"
         "add_high_performance/README.md (Atlas A2, 8192 x 8192 half, 48 AIV, 1.85 GHz)")
A_MM = ("mirror-cann/asc-devkit docs/zh/guide/算子实践参考/优秀实践/Matmul性能调优案例/"
        "Matmul算子优化Tiling策略.md (4096 x 5120 x 4096 fp16, 20-core A2)")


@dataclass(frozen=True)
class Anchor:
    name: str
    published_us: float
    source: str
    chip: str
    package: str | None = None  # relative to the repository root
    case: str | None = None
    published_pipes_us: dict[str, float] = field(default_factory=dict)  # busy time per pipe, where published
    pending: str | None = None  # why the anchor cannot be modelled yet
    metric: str = "time"  # what the published figure is: "time" (Task Duration) or a pipe's busy time ("MTE2")


ANCHORS = [
    Anchor("A-add case 2: 48 cores, 8 KB copies", 306.58, A_ADD + ", Case 2", "ascend910b1", ADD,
           "case2_8k_copies", {"MTE2": 215.485, "MTE3": 54.33, "V": 15.885}),
    Anchor("A-add case 3: 48 cores, 32 KB copies", 268.5, A_ADD + ", Case 3", "ascend910b1", ADD,
           "case3_32k_copies", {"MTE2": 184.369, "MTE3": 57.354, "V": 12.845}),
    Anchor("A-add case 4: double buffer", 264.02, A_ADD + ", Case 4", "ascend910b1", ADD,
           "case4_double_buffer", {"MTE2": 250.528, "MTE3": 84.988, "V": 12.846}),
    Anchor("A-MM 20 cores, base block 64x64x256", 2532.0, A_MM + ", 20 cores, [64, 64, 256]", "ascend910b3", MM,
           "base_64x64x256", {"MTE2": 2452.0}),
    Anchor("A-MM MTE2, base block 128x256x64", 808.0, A_MM + ", [128, 256, 64], aic_mte2_time", "ascend910b3", MM,
           "base_128x256x64", metric="MTE2"),
    Anchor("A-MM MTE2, large packet (CFG_MDL)", 591.0, A_MM + ", [128, 256, 64] with CFG_MDL, aic_mte2_time",
           "ascend910b3", MM, "large_packet", metric="MTE2"),
]


def model(anchor: Anchor, timeout_s: float, trace_only: bool = True) -> dict:
    from opkit.perf.case import perf_case
    from opkit.spec import load

    assert anchor.package and anchor.case
    spec = load(ROOT / anchor.package)
    rep = perf_case(spec, anchor.case, soc_name=anchor.chip, timeout_s=timeout_s, trace_only=trace_only)
    return rep.perf


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only anchors whose name contains this")
    ap.add_argument("--json", type=Path, help="also write the table as JSON")
    ap.add_argument("--tolerance", type=float, default=0.15, help="allowed relative error (default 0.15)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per simulator run")
    ap.add_argument("--full-run", action="store_true",
                    help="compute the data too (default: trace-only runs; the calibration kernels' control flow "
                         "does not depend on their data, so the trace is the same)")
    args = ap.parse_args(argv)
    from opkit.errors import OpkitError

    rows = []
    worst = 0.0
    print(f"{'anchor':44} {'chip':12} {'published':>11} {'modelled':>11} {'error':>8}  pipes published / modelled (us)")
    for a in ANCHORS:
        if args.only and args.only not in a.name:
            continue
        row: dict = {"anchor": a.name, "chip": a.chip, "published_us": a.published_us, "source": a.source}
        if a.pending:
            row["pending"] = a.pending
            print(f"{a.name:44} {a.chip:12} {a.published_us:>9.2f}us {'pending':>11} {'':>8}  {a.pending}")
            rows.append(row)
            continue
        t0 = time.perf_counter()
        try:
            perf = model(a, args.timeout, trace_only=not args.full_run)
        except OpkitError as exc:
            row["error_message"] = exc.message
            worst = float("inf")
            print(f"{a.name:44} {a.chip:12} {a.published_us:>9.2f}us {'error':>11}  {exc.message}")
            rows.append(row)
            continue
        busy = perf.get("per_pipe_busy_us", {})
        modelled = perf["modelled_us"] if a.metric == "time" else busy.get(a.metric, 0.0)
        err = modelled / a.published_us - 1.0
        worst = max(worst, abs(err))
        pipes = ", ".join(f"{q} {v:.1f}/{busy.get(q, 0.0):.1f}" for q, v in a.published_pipes_us.items())
        row.update({"metric": a.metric, "modelled": modelled, "modelled_us": perf["modelled_us"],
                    "steady_us": perf["steady_us"], "error": err, "l2_hit": perf.get("l2_hit"),
                    "modelled_pipes_us": busy, "published_pipes_us": a.published_pipes_us,
                    "seconds": time.perf_counter() - t0, "label": perf["label"]})
        rows.append(row)
        what = "" if a.metric == "time" else f"  ({a.metric} busy; modelled time {perf['modelled_us']:.1f} us)"
        print(f"{a.name:44} {a.chip:12} {a.published_us:>9.2f}us {modelled:>9.2f}us {err:>+7.1%}  {pipes}{what}")
    print("modelled figures are estimates of opkit's performance model, not measurements; "
          f"tolerance {args.tolerance:.0%}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 1 if worst > args.tolerance else 0


if __name__ == "__main__":
    sys.exit(main())
