"""MatmulAllReduce on 8 x 910B2, M=4096, N=8192, K=4096 fp16: the model checks and the overlap's modelled saving.

    python benchmarks/mc2_perf.py [--json FILE] [--tolerance 0.15] [--timeout SECONDS] [--no-example]

Published anchor (Ascend C best practices, MC2 MatmulAllReduce chapter; anchors.md): 888 us of matmul and
1025 us of AllReduce run one after the other (1913 us); tiling-tuned fusion saved 34 %, perfect overlap
would save 46 %. The script prints, all modelled (trace-only runs, docs/perf.md §9):

1. the model check of the matmul: ops/examples/matmul_bias_act on the same shape, and beside it the compute of
   ops/mc2/matmul_all_reduce's ``full_anchor`` case (every slice landed at once: its cube matmul, Fixpipe
   rounding each piece into the AllReduce's send buffer), the kernel's own figure;
2. a plain AllReduce of the 64 MiB fp16 output per rank on 8 ranks (opkit.perf.comm);
3. the fused run of ``full_anchor``: compute, communication, serial sum, fused time, saving (goal >= 40 %), and
   the saving against the plain serial baseline (matmul_bias_act, then a plain AllReduce) when 1 ran;
4. a cross-check of the link model against A-MC2 (K=3072: the sliced AllReduce of {512, 4 x 896} rows plus
   the first tile's matmul against the 1262 us measured fused);
5. the wall time of ``opkit verify ops/mc2`` (every non-``full`` case at its world sizes), run once to build and
   once warm (``--skip-verify`` leaves it out; measured, not modelled);
6. the most any cut can save under the link model (``best_cut``): the fused time of the best cut of M into slices
   of any sizes (multiples of 16 rows), each slice one AllReduce of the link model committed when its rows are
   computed, the slices one after the other on the link, with the compute spread evenly over the rows (no
   rounds of pieces, no per-tile cost: a lower bound for a kernel of that compute) - for the package's compute,
   the plain matmul's and the cube roofline of the shape.

The L2 term's footprint is the case's compulsory bytes (x1 + x2 + y per rank): the package's golden.py has
no ``hbm_bytes`` hook (``--golden-hbm`` uses the hook instead; without one the model counts no L2 hits).
Exit status 1 when a model check (1, 2) is off the published figure by more than the tolerance.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHIP = "ascend910b2"
M, N, K = 4096, 8192, 4096
PUBLISHED = {"matmul_us": 888.0, "allreduce_us": 1025.0, "saving": 0.34, "ceiling": 0.46}
A_MC2 = {"matmul_us": 803.0, "allreduce_us": 1071.0, "fused_us": 1262.0, "rows": [512, 896, 896, 896, 896]}


# one rank's compulsory GM bytes (x1, x2 read once, y written once), the L2 term's footprint: ops/mc2's
# golden.py has no hbm_bytes hook, without which the model counts no L2 hits (docs/perf.md §1, "L2")
HBM_BYTES = 2 * (M * K + K * N + M * N)


def fused_anchor(timeout_s: float, hbm_bytes: float | None) -> dict:
    from opkit.perf.comm_case import perf_ranks
    from opkit.run.userdata import select_case
    from opkit.spec import load

    spec = load(ROOT / "ops" / "mc2" / "matmul_all_reduce")
    case, column = select_case(spec, "full_anchor", None)
    rep = perf_ranks(spec, case, column, CHIP, timeout_s=timeout_s, trace_only=True, hbm_bytes=hbm_bytes)
    out = dict(rep.perf)
    out["tiling"] = rep.info
    return out


def example_matmul(timeout_s: float) -> tuple[float, int]:
    """matmul_bias_act's modelled time on the shape and the trace events the simulator did not record (a
    figure with dropped events is a lower bound, not a model check: before the trace pool, 710,912 dropped
    events made this kernel's 1302 us look like 1000 us)."""
    from opkit.perf.case import perf_run
    from opkit.spec import Case, load

    spec = load(ROOT / "ops" / "examples" / "matmul_bias_act")
    case = Case("mc2_anchor_matmul", {"x": [M, K], "w": [K, N], "bias": [N]}, (0,), {"relu": False}, seed=1)
    perf = perf_run(spec, case, 0, soc_name=CHIP, timeout_s=timeout_s, trace_only=True).perf
    return float(perf["modelled_us"]), int(perf.get("events_dropped") or 0)


def best_cut(compute_us: float, startup_us: float, link, unit: int = 16) -> tuple[float, list[int]]:
    """The least fused time (us, with the start-up) of a cut of M into slices of multiples of ``unit`` rows, and its
    rows: slice [j, k) leaves when rows [0, k) are computed (``compute_us`` spread evenly over M) and the slice
    before it has landed, and takes one AllReduce of its bytes on 8 ranks. The time a prefix of k units is done
    with depends only on when the previous slice landed, so the least landing time per prefix is the optimum
    (a dynamic programme over the prefixes)."""
    from opkit.perf.comm import collective_us

    units = M // unit
    per_unit = (compute_us - startup_us) / units
    comm = [0.0] + [collective_us("AllReduce", r * unit * N * 2, 8, link) for r in range(1, units + 1)]
    best = [0.0] + [float("inf")] * units
    prev = [0] * (units + 1)
    for k in range(1, units + 1):
        for j in range(k):
            t = max(per_unit * k, best[j]) + comm[k - j]
            if t < best[k]:
                best[k], prev[k] = t, j
    rows, k = [], units
    while k:
        rows.append((k - prev[k]) * unit)
        k = prev[k]
    return best[units] + startup_us, rows[::-1]


def err(got: float, want: float) -> str:
    return f"{got / want - 1:+.1%}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    ap.add_argument("--tolerance", type=float, default=0.15, help="allowed relative error of the model checks")
    ap.add_argument("--timeout", type=float, default=3000.0, help="seconds per simulator run")
    ap.add_argument("--no-example", action="store_true", help="skip the matmul_bias_act run")
    ap.add_argument("--skip-verify", action="store_true", help="do not time opkit verify ops/mc2")
    ap.add_argument("--golden-hbm", action="store_true", help="take the L2 footprint from golden.py's hbm_bytes "
                    "hook (none today: no L2 hits) instead of the case's compulsory bytes")
    args = ap.parse_args(argv)

    from opkit.perf.comm import collective_us, link_model

    link = link_model(CHIP)
    t0 = time.perf_counter()
    fused = fused_anchor(args.timeout, None if args.golden_hbm else HBM_BYTES)
    wall = time.perf_counter() - t0
    ar = collective_us("AllReduce", M * N * 2, 8, link)
    example, example_dropped = (None, 0) if args.no_example else example_matmul(args.timeout)
    from opkit.perf.costs import chip_params

    params = chip_params(CHIP)
    startup = params.startup_us
    roofline = 2.0 * M * N * K / (params.aic_cores * 2.0 * params.cube_macs_per_cycle["float16"] * params.clock_mhz
                                  ) + startup
    bounds = {}
    for name, compute in (("package", fused["compute_us"]), ("plain matmul", example), ("cube roofline", roofline)):
        if compute is not None:
            t, cut = best_cut(compute, startup, link)
            bounds[name] = {"compute_us": compute, "fused_us": t, "rows": cut, "saving_own": 1 - t / (compute + ar),
                            "saving_plain": None if example is None else 1 - t / (example + ar),
                            "saving_published": 1 - t / (PUBLISHED["matmul_us"] + PUBLISHED["allreduce_us"])}
    rows = A_MC2["rows"]
    sliced = sum(collective_us("AllReduce", r * N * 2, 8, link) for r in rows)
    first_tile = A_MC2["matmul_us"] * rows[0] / sum(rows)

    fig = {
        "label": "modelled", "chip": CHIP, "ranks": 8, "shape": {"M": M, "N": N, "K": K, "dtype": "float16"},
        "published": PUBLISHED, "l2_footprint_bytes": None if args.golden_hbm else HBM_BYTES,
        "matmul_us": fused["compute_us"], "matmul_example_us": example,
        "matmul_example_events_dropped": example_dropped,
        "allreduce_us": ar, "unsliced_comm_us": fused["comm_us"],
        "serial_us": fused["serial_us"], "fused_us": fused["fused_us"], "saving": fused["saving"],
        # the serial baselines with one plain AllReduce: the replay's communication is already the unfused
        # equivalent (the prepares into y merged into one AllReduce of the output, docs/perf.md §9), so the first
        # equals its serial; kept as a cross-check
        "one_allreduce_serial_us": fused["compute_us"] + ar,
        "one_allreduce_saving": 1 - fused["fused_us"] / (fused["compute_us"] + ar),
        "plain_serial_us": None if example is None else example + ar,
        "plain_saving": None if example is None else 1 - fused["fused_us"] / (example + ar),
        "perfect_overlap_saving": 1 - fused["perfect_overlap_us"] / fused["serial_us"],
        "slices": [(c["kind"], c["slice_bytes"], c["repeat"]) for c in fused["collectives"]],
        "a_mc2": {"sliced_comm_us": sliced, "first_tile_us": first_tile, "fused_estimate_us": sliced + first_tile,
                  "published_fused_us": A_MC2["fused_us"]},
        "best_cut": bounds,
        "verify_wall_s": None,
        "wall_s": wall,
    }
    # the model checks: a plain matmul kernel of the shape and a plain AllReduce (the model's two halves);
    # the MC2 package's own compute (its matmul plus its vector epilogue) is the kernel's figure, not a check
    checks = [("plain AllReduce, 64 MiB fp16 x 8 ranks", ar, PUBLISHED["allreduce_us"])]
    if example is not None:
        checks.insert(0, ("matmul alone (ops/examples/matmul_bias_act)", example, PUBLISHED["matmul_us"]))
    print(f"MatmulAllReduce M={M} N={N} K={K} fp16, 8 x {CHIP} (all figures modelled; trace-only runs)")
    print("L2 footprint: " + ("golden.py's hbm_bytes hook" if args.golden_hbm else
                              f"x1 + x2 + y = {HBM_BYTES / 2**20:.0f} MiB per rank (golden.py has no hbm_bytes hook)"))
    print(f"{'check':44} {'modelled':>12} {'published':>12} {'error':>8}")
    bad = 0
    for name, got, want in checks:
        off = abs(got / want - 1) > args.tolerance
        bad += off
        print(f"{name:44} {got:>9.1f} us {want:>9.1f} us {err(got, want):>8}{'  OFF' if off else ''}")
    if example_dropped:
        bad += 1
        print(f"  matmul_bias_act's trace dropped {example_dropped} events: its figure is a lower bound, not a check "
              "(OPKIT_SIM_TRACE_EVENTS, docs/perf.md §1 events_dropped)")
    print(f"{'MC2 package compute (cube into send buffer)':44} {fig['matmul_us']:>9.1f} us {888.0:>9.1f} us "
          f"{err(fig['matmul_us'], 888.0):>8}  (the kernel's figure)")
    print(f"fused run: {len(fused['slices'])} slice(s) of " +
          ", ".join(f"{k} {b / 2**20:.2f} MiB x {r}" for k, b, r in fig["slices"]))
    print(f"  compute {fig['matmul_us']:.1f} us + communication {fig['unsliced_comm_us']:.1f} us = serial "
          f"{fig['serial_us']:.1f} us (communication: " +
          ", ".join(f"{c['kind']} {c['bytes'] / 2**20:.4g} MiB of {len(c['handles'])} prepare(s)"
                    for c in fused.get("serial_collectives", [])) + ")")
    print(f"  fused {fig['fused_us']:.1f} us: saving {fig['saving']:.1%} (goal >= 40 %; published 34 % measured, "
          f"perfect overlap here {fig['perfect_overlap_saving']:.1%}, published ceiling 46 %)")
    print(f"  against compute + one plain AllReduce ({fig['one_allreduce_serial_us']:.1f} us serial): saving "
          f"{fig['one_allreduce_saving']:.1%}")
    if example is not None:
        print(f"  against matmul_bias_act + plain AllReduce ({fig['plain_serial_us']:.1f} us serial): saving "
              f"{fig['plain_saving']:.1%}")
    print(f"A-MC2 cross-check (K=3072, rows {rows}): sliced AllReduce {sliced:.1f} us + first tile {first_tile:.1f} us "
          f"= {sliced + first_tile:.1f} us against {A_MC2['fused_us']:.0f} us measured fused "
          f"({err(sliced + first_tile, A_MC2['fused_us'])})")
    print("the best any cut does under the link model (compute spread evenly over the rows, slices one after the "
          "other on the link):")
    for name, b in bounds.items():
        against = (f", {b['saving_plain']:.1%} against matmul_bias_act + AllReduce" if b["saving_plain"] is not None
                   else "")
        print(f"  {name:14} compute {b['compute_us']:7.1f} us: fused {b['fused_us']:7.1f} us in {len(b['rows'])} "
              "slices "
              f"({', '.join(map(str, b['rows']))} rows); saving {b['saving_own']:.1%} against its own serial{against}, "
              f"{b['saving_published']:.1%} against the published 1913 us")
    print(f"(8-rank trace-only run and replay: {wall:.0f} s wall)")
    if not args.skip_verify:
        from verify_wall import verify_wall

        first, warm, code, last = verify_wall(ROOT / "ops" / "mc2")
        fig["verify_wall_s"] = {"first": first, "warm": warm, "exit_status": code, "summary": last}
        print(f"opkit verify ops/mc2 (non-full cases at their world sizes, -j 1): {warm:.1f} s warm "
              f"({first:.1f} s first "
              f"run; goal <= 90 s), exit status {code}: {last}")
        bad += code != 0
    if args.json:
        args.json.write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
