"""FlashAttentionScore: modelled figures of the kernel, fused against unfused, and simulated run time.

    python benchmarks/fa_perf.py [--skip-model] [--small] [--skip-fusion] [--skip-run] [--verify-time] [--soc CHIP]

1. Model figures (trace-only runs, ``opkit perf --trace-only``) on 910B2, fp16, B = 1, N = 32, D = 128,
   S1 = S2 = 8192, non-causal (case ``s8192_n32``) and causal (``s8192_n32_causal``, counting only the
   unmasked work): modelled time, TFLOPS, % of the cube peak, the roofline bound, the busy time of each
   pipe on the busiest core and the slowest core's time by instruction - what limits the kernel (each
   case: 4-10 minutes on this machine, about 5 GB peak). With ``--small`` the same figures of
   ``s2048_n32`` and ``s2048_n32_causal`` instead (S1 = S2 = 2048, same N, D and dtype: about 30 s each;
   the shapes the kernel's variants are compared on).
2. Fused against unfused for BSH, B = 4, S = 1024, H = 1024, N = 16 (case ``bsh_b4_s1024``): HBM
   bytes, extra peak memory and modelled time of the kernel against golden.py's ``unfused_chain``.
3. Simulated run time of the S = 1024 causal case (``s1024_causal``, a full run with every check)
   against the float64 golden's time on the same inputs, with the largest error of attention_out.
4. With ``--timeline TRACE.json``: a text timeline of the first AIC and its two AIVs from the
   Chrome trace ``opkit perf --trace`` writes (one row per pipe, one character per time slot: the
   initial of the instruction that covers most of the slot, ``.`` idle), over ``--window`` us; with
   ``--svg OUT.svg`` also the same window as a picture (``opkit.perf.svg_timeline``, docs/perf.md §8).
5. With ``--verify-time``: wall time of ``opkit verify`` over the package's default (non-full) cases,
   warm (built).
6. With ``--ops-transformer CHECKOUT``: the model check. ops-transformer's own FlashAttentionScore, adopted
   unmodified (``opkit adopt``, its C++ untouched) into ``--ot-work`` (kept: its float16 kernel unit takes about
   an hour and 12 GB to compile here, once), trace-only on the measurements' shape (BNSD, B = N = 1, D = 128, fp16,
   S = 1024 ... 32768; ``--small``: up to 8192) against torch_npu's measured times on a 910B2 (pto-isa's
   FlashAttention README: the check is S = 8192 within 20 %), then this package's kernel against it on the same
   model (S = 2048 and 8192 with N = 32, and the one-head S = 8192 beside the best published kernel's time).

All performance figures are modelled by opkit's performance model from simulator traces, not
measured on an NPU; the run times are wall times of this machine.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PKG = ROOT / "ops" / "attention" / "flash_attention_score"
MODEL_CASES = ("s8192_n32", "s8192_n32_causal")
SMALL_CASES = ("s2048_n32", "s2048_n32_causal")
FUSION_CASE = "bsh_b4_s1024"
RUN_CASE = "s1024_causal"


def cube_peak_tflops(chip: str, dtype: str = "float16") -> float:
    from opkit.perf.costs import chip_params

    p = chip_params(chip)
    return p.aic_cores * 2.0 * p.cube_macs_per_cycle[dtype] * p.clock_mhz * 1e6 / 1e12


def dropped_note(n: int, cores: dict[str, float]) -> str:
    """What a trace that dropped events leaves out: how many, on how many cores, the worst core's share."""
    worst = max(cores.items(), key=lambda kv: kv[1], default=("", 0.0))
    return (f"{n:,} trace events past the simulator's trace storage were not recorded, on {len(cores)} cores "
            f"(worst: {worst[0]}, {worst[1]:.0%} of its instructions not replayed): the time is a lower bound")


_MODELLED: dict[tuple[Path, str, str], tuple[dict, float]] = {}


def modelled(spec, name: str, chip: str, timeout: float) -> tuple[dict, float]:
    """The trace-only perf figures of one case and the seconds its run and model took (each case modelled once a
    run: the model check and the model figures share this package's S = 8192 case)."""
    from opkit.perf.case import perf_case

    key = (spec.dir, name, chip)
    if key not in _MODELLED:
        t0 = time.perf_counter()
        perf = perf_case(spec, name, soc_name=chip, trace_only=True, timeout_s=timeout).perf
        _MODELLED[key] = (perf, time.perf_counter() - t0)
    return _MODELLED[key]


def model_figures(spec, chip: str, timeout: float, cases: tuple[str, ...] = MODEL_CASES) -> None:
    peak = cube_peak_tflops(chip)
    print(f"## Model figures ({chip}, fp16; cube peak {peak:.1f} TFLOPS) - modelled\n")
    print("| case | modelled time | TFLOPS | % of cube peak | roofline bound | busiest pipes (V / MTE2 / MTE3 / M) |")
    print("|---|---:|---:|---:|---:|---|")
    notes = []
    for name in cases:
        p, secs = modelled(spec, name, chip, timeout)
        tflops = p["flops"] / (p["modelled_us"] * 1e-6) / 1e12
        busy = p.get("per_pipe_busy_us", {})
        pipes = " / ".join(f"{busy.get(q, 0.0):,.0f}" for q in ("V", "MTE2", "MTE3", "M"))
        print(f"| {name} | {p['modelled_us']:,.1f} us | {tflops:.1f} | {tflops / peak:.1%} | "
              f"{p['bound_us']:,.1f} us ({p['bound_by']}) | {pipes} us |")
        top = list((p.get("slowest_core_by_api_us") or {}).items())[:6]
        dropped = p.get("events_dropped") or 0
        notes.append(f"{name}: slowest core {p.get('slowest_core')}, busy by instruction: "
                     + ", ".join(f"{k} {v:,.0f} us" for k, v in top)
                     + (f"; {dropped_note(dropped, p.get('dropped_cores') or {})}" if dropped else "")
                     + f" (trace-only run: {secs:.0f} s)")
    print()
    for n in notes:
        print(f"- {n}")
    print()


def fusion_figures(spec, chip: str, timeout: float) -> None:
    from opkit.perf.case import perf_case

    rep = perf_case(spec, FUSION_CASE, soc_name=chip, trace_only=True, timeout_s=timeout)
    f = rep.perf.get("fusion")
    print(f"## Fused against unfused ({FUSION_CASE}: BSH, B = 4, S = 1024, H = 1024, N = 16, fp16) - modelled\n")
    if not f:
        print("golden.py has no unfused_chain\n")
        return
    print("| variant | launches | HBM bytes | extra peak memory | modelled time |")
    print("|---|---:|---:|---:|---:|")
    for v in ("fused", "unfused"):
        d = f[v]
        extra = d.get("extra_peak_bytes")
        print(f"| {v} | {d['launches']} | {(d.get('hbm_bytes') or 0) / 1e6:,.1f} MB | "
              f"{'-' if extra is None else f'{extra / 1e6:,.1f} MB'} | {d['modelled_us']:,.1f} us |")
    ratio, speed = f.get("hbm_ratio"), f.get("speedup")
    print(f"| unfused / fused | | {'-' if ratio is None else f'{ratio:.1f}x'} | | "
          f"{'-' if speed is None else f'{speed:.2f}x'} |\n")
    steps = f["unfused"].get("steps", [])
    parts = [f"{s['op']} {s['modelled_us']:,.1f} us ({s['bound_by']})" for s in steps]
    print("unfused steps: " + ", ".join(parts) + "\n")


def run_time(spec, chip: str) -> None:
    from opkit.run.inputs import make_inputs
    from opkit.run.sim_runner import SimRunner
    from opkit.run.userdata import select_case
    from opkit.verify.golden import custom_generators, run_golden

    case, column = select_case(spec, RUN_CASE, None)
    inputs = make_inputs(spec, case, column, custom_generators(spec))
    runner = SimRunner()
    runner.artifact(spec, chip, column)
    t0 = time.perf_counter()
    out = runner.run(spec, case, column, chip, inputs)
    sim = time.perf_counter() - t0
    t0 = time.perf_counter()
    gold = run_golden(spec, case, inputs)
    golden_s = time.perf_counter() - t0
    err = float(np.max(np.abs(out.outputs["attention_out"].astype(np.float64) - gold["attention_out"])))
    print(f"## Simulated run time ({RUN_CASE}: B = N = 1, S1 = S2 = 1024, D = 128, causal, fp16; this machine)\n")
    print("| simulated run (every check on) | float64 golden | ratio | max abs error of attention_out |")
    print("|---:|---:|---:|---:|")
    print(f"| {sim:.2f} s | {golden_s:.2f} s | {sim / golden_s:.1f}x | {err:.2e} |\n")


# one character per instruction in the text timeline (others: their initial)
GLYPHS = {"Max": "m", "Sub": "-", "Exp": "e", "BlockReduceMax": "r", "BlockReduceSum": "r", "Brcb": "r",
          "SoftmaxFlashV2": "S", "Select": "s", "SelectWithBytesMask": "b", "Mul": "x", "Muls": "x", "Add": "+",
          "Adds": "+", "Cast": "c", "CompareScalar": "<", "Duplicate": "u", "DataCopy": "D", "DataCopyPad": "P",
          "LoadData": "L", "Mmad": "M", "Fixpipe": "F", "DropOut": "o", "ArithProgression": "i", "Abs": "q",
          "Sqrt": "q", "Div": "/"}


def text_timeline(path: Path, window: tuple[float | None, float | None] | None, width: int = 100) -> str:
    """Rows "core pipe |....|" of the first AIC and its AIVs from a Chrome trace-event JSON."""
    import json

    data = json.loads(Path(path).read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    procs, threads = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    wanted = [pid for pid, n in procs.items() if n in ("AIC 0", "AIV 0", "AIV 1")]
    spans = [e for e in events if e.get("ph") == "X" and e.get("pid") in wanted and e.get("dur", 0) > 0]
    if not spans:
        return "(no events of AIC 0 / AIV 0 / AIV 1 in the trace)"
    lo, hi = window or (None, None)  # either side may be open
    lo = min(e["ts"] for e in spans) if lo is None else lo
    hi = max(e["ts"] + e["dur"] for e in spans) if hi is None else hi
    slot = (hi - lo) / width
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    for e in spans:
        key = (procs[e["pid"]], threads.get((e["pid"], e["tid"]), str(e["tid"])))
        name = str(e.get("name", "?"))
        if key[1] in ("S", "sync") or name.startswith(("SetFlag", "WaitFlag", "PipeBarrier")):
            continue
        name = name.split()[0]
        cells = rows.setdefault(key, [{} for _ in range(width)])
        a, b = max(e["ts"], lo), min(e["ts"] + e["dur"], hi)
        i = int((a - lo) / slot) if b > a else width
        while i < width and lo + i * slot < b:
            c0, c1 = lo + i * slot, lo + (i + 1) * slot
            cells[i][name] = cells[i].get(name, 0.0) + min(b, c1) - max(a, c0)
            i += 1
    out = [f"modelled timeline {lo:,.1f} .. {hi:,.1f} us, {slot:.2f} us per character (the instruction that covers "
           "most of the slot, . idle)"]
    order = {"AIC 0": 0, "AIV 0": 1, "AIV 1": 2}
    for (core, pipe), cells in sorted(rows.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1])):
        line = "".join(GLYPHS.get(top := max(c, key=c.get), top[0]) if c else "." for c in cells)
        out.append(f"{core:>5} {pipe:<4} |{line}|")
    names = sorted({n for cells in rows.values() for c in cells for n in c})
    out.append("legend: " + ", ".join(f"{GLYPHS.get(n, n[0])} {n}" for n in names))
    return "\n".join(out)


# Measured on a 910B2, fp16, D = 128, one head (B = N = 1), S1 = S2 = S, non-causal: torch_npu's FlashAttention
# (the CANN kernel ops-transformer ships) and the best published hand-written kernel; hw-native-sys/pto-isa,
# kernels/manual/common/flash_atten/README.md, "910B2 Multi-Core Comparison" (its TFLOPS = S * S * 128 * 4 / time).
MEASURED_TORCH_NPU_US = {1024: 58.461, 2048: 70.801, 4096: 118.302, 8192: 353.147, 16384: 1118.462, 32768: 3646.173}
MEASURED_BEST_US = {8192: 292.626, 32768: 3262.645}
CHECK_S = 8192  # the check: ops-transformer's kernel within 20 % of torch_npu's measured time at this S
SMALL_ANCHOR_S = (1024, 2048, 4096, 8192)


def case_name(s: int, n: int, causal: bool = False) -> str:
    return f"s{s}_n{n}" + ("_causal" if causal else "")


def ot_cases(shapes: tuple[tuple[int, int, bool], ...]) -> str:
    """op.yaml cases of the adopted kernel: BNSD, B = 1, N heads, D = 128, fp16, per (S, N, causal); causal is
    sparse_mode 2 with the compressed 2048 x 2048 mask (trace-only runs: its values do not steer the kernel)."""
    lines = ["cases:"]
    for s, n, causal in shapes:
        mask = ", atten_mask: [2048, 2048]" if causal else ""
        lines += [f"- name: {case_name(s, n, causal)}",
                  f"  shapes: {{query: [1, {n}, {s}, 128], key: [1, {n}, {s}, 128], value: [1, {n}, {s}, 128]{mask}}}",
                  f"  attrs: {{scale_value: 0.0883883, head_num: {n}, input_layout: BNSD"
                  + (", sparse_mode: 2}" if causal else "}"),
                  "  dtype: 0"]
    return "\n".join(lines) + "\n"


def adopt_ops_transformer(checkout: Path, work: Path, shapes: tuple[tuple[int, int, bool], ...]):
    """ops-transformer's flash_attention_score adopted into ``work`` (once; later runs reuse its build). Its
    golden.py stays adopt's skeleton: the runs are trace-only, and the work counted is this package's golden's."""
    from opkit.errors import UsageError
    from opkit.scaffold.adopt import adopt
    from opkit.spec import load
    from opkit.spec.yamlio import dump

    src = checkout / "attention" / "flash_attention_score"
    if not (src / "op_host").is_dir():
        raise UsageError(f"{checkout}: not an ops-transformer checkout (no attention/flash_attention_score/op_host)")
    pkg = work / "flash_attention_score"
    if not (pkg / "op.yaml").is_file():
        adopt(src, directory=pkg, include_dirs=[checkout / "common" / "include",
                                                checkout / "common" / "include" / "kernel"])
    text = (pkg / "op.yaml").read_text(encoding="utf-8")
    head = text[:text.index("cases:")]
    if re.search(r"^attrs: \[\]$", head, re.M):
        # ops-transformer's OpDef (flash_attention_score_def.cpp) registers no attrs; its tiling reads them by
        # index in the order of l0op's OP_ATTR (op_api/flash_attention_score.cpp), which is this package's order
        ours = yaml.safe_load((PKG / "op.yaml").read_text(encoding="utf-8"))["attrs"]
        head = re.sub(r"^attrs: \[\]\n", lambda _: dump({"attrs": ours}), head, flags=re.M)
    (pkg / "op.yaml").write_text(head + ot_cases(shapes), encoding="utf-8")
    return load(pkg)


def flops_1head(s: int) -> float:
    return 4.0 * s * s * 128  # two matmuls of S x S x 128, as the measurements count them


def model_check(checkout: Path, work: Path, chip: str, timeout: float, small: bool) -> None:
    """ops-transformer's kernel on the model against its measured times (one head, the measurements' shape), then
    against this package's kernel on the same model (the issue's 32 heads)."""
    from opkit.errors import OpkitError
    from opkit.spec import load

    anchors = SMALL_ANCHOR_S if small else tuple(MEASURED_TORCH_NPU_US)
    versus = ((2048, 32, False), (2048, 32, True)) if small else \
        ((2048, 32, False), (2048, 32, True), (8192, 32, False), (8192, 32, True), (8192, 1, False))
    ot = adopt_ops_transformer(checkout, work, tuple(dict.fromkeys([(s, 1, False) for s in anchors] + list(versus))))
    ours = load(PKG)
    peak = cube_peak_tflops(chip)
    print(f"## Model check: ops-transformer's FlashAttentionScore, unmodified, against torch_npu's measured times "
          f"({chip}, fp16, BNSD, B = N = 1, D = 128) - modelled vs measured\n")
    print("| S | modelled | measured (torch_npu) | model / measured - 1 |")
    print("|---:|---:|---:|---:|")
    errors = {}
    for s in anchors:
        try:
            theirs, _ = modelled(ot, case_name(s, 1), chip, timeout)
        except OpkitError as exc:  # a check of the simulator's stopped the kernel: say which, go on
            first = exc.message.splitlines()[0]
            print(f"| {s} | did not run: {first} | {MEASURED_TORCH_NPU_US[s]:,.1f} us | |")
            continue
        errors[s] = theirs["modelled_us"] / MEASURED_TORCH_NPU_US[s] - 1
        print(f"| {s} | {theirs['modelled_us']:,.1f} us ({flops_1head(s) / theirs['modelled_us'] / 1e6:.1f} TFLOPS) | "
              f"{MEASURED_TORCH_NPU_US[s]:,.1f} us ({flops_1head(s) / MEASURED_TORCH_NPU_US[s] / 1e6:.1f}) | "
              f"{errors[s]:+.1%} |")
    print()
    if CHECK_S in errors:
        err = errors[CHECK_S]
        print(f"- the check (S = {CHECK_S}): {err:+.1%} in time, {'within' if abs(err) <= 0.20 else 'outside'} 20 %\n")
    else:
        print(f"- the check (S = {CHECK_S}) could not be made: the kernel did not run\n")
    print(f"## This package's kernel against ops-transformer's on the same model ({chip}, fp16, BNSD) - modelled\n")
    print("| case | ops-transformer | TFLOPS | this package | TFLOPS | ours / theirs |")
    print("|---|---:|---:|---:|---:|---:|")
    notes = []
    for s, n, causal in versus:
        name = case_name(s, n, causal)
        (theirs, _), (mine, _) = modelled(ot, name, chip, timeout), modelled(ours, name, chip, timeout)
        # the same shapes: the work is this package's golden's flops for both
        t_ot = mine["flops"] / (theirs["modelled_us"] * 1e-6) / 1e12
        t_us = mine["flops"] / (mine["modelled_us"] * 1e-6) / 1e12
        print(f"| {name} | {theirs['modelled_us']:,.1f} us | {t_ot:.1f} ({t_ot / peak:.1%}) | "
              f"{mine['modelled_us']:,.1f} us | {t_us:.1f} ({t_us / peak:.1%}) | {t_us / t_ot:.2f}x |")
        if n == 1 and s in MEASURED_BEST_US:
            notes.append(f"- {name}: the best published kernel measured {MEASURED_BEST_US[s]:,.1f} us "
                         f"({flops_1head(s) / MEASURED_BEST_US[s] / 1e6:.1f} TFLOPS) on the chip")
    print()
    for line in notes:
        print(line)
    print()


def verify_time() -> None:
    from verify_wall import verify_wall

    _, wall, _, last = verify_wall(PKG)
    print(f"## opkit verify over the default cases, warm: {wall:.1f} s ({last})\n")


def main(argv: list[str] | None = None) -> int:
    from opkit.errors import OpkitError
    from opkit.spec import load

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", default="ascend910b2")
    ap.add_argument("--skip-model", action="store_true")
    ap.add_argument("--small", action="store_true", help="model figures of s2048_n32 instead of the S = 8192 cases")
    ap.add_argument("--skip-fusion", action="store_true")
    ap.add_argument("--skip-run", action="store_true")
    ap.add_argument("--verify-time", action="store_true")
    ap.add_argument("--timeline", type=Path, help="print a text timeline of this `opkit perf --trace` JSON and stop")
    ap.add_argument("--window", help="START:END of the timeline, us of modelled time")
    ap.add_argument("--svg", type=Path, help="with --timeline: also draw the window as an SVG picture")
    ap.add_argument("--timeout", type=float, default=3600.0)
    ap.add_argument("--ops-transformer", type=Path, metavar="CHECKOUT",
                    help="the model check: ops-transformer's FlashAttentionScore from this checkout (see 6.)")
    ap.add_argument("--ot-work", type=Path, default=ROOT / ".opkit-bench" / "ot_fa",
                    help="where --ops-transformer adopts the kernel (kept for its build)")
    args = ap.parse_args(argv)
    if args.svg and not args.timeline:
        ap.error("--svg draws the --timeline TRACE.json: give --timeline too")
    if args.timeline:
        from opkit.perf.svg_timeline import load_trace, parse_window, write_svg

        try:
            window = parse_window(args.window)
            load_trace(args.timeline)
            if args.svg:
                write_svg(args.timeline, args.svg, window=window, what="--svg")
        except OpkitError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            return 1
        print(text_timeline(args.timeline, window))
        if args.svg:
            print(f"picture: {args.svg}")
        return 0
    try:
        spec = load(PKG)
        if args.ops_transformer:
            model_check(args.ops_transformer.resolve(), args.ot_work.resolve(), args.soc, args.timeout, args.small)
        if not args.skip_model:
            model_figures(spec, args.soc, args.timeout, SMALL_CASES if args.small else MODEL_CASES)
        if not args.skip_fusion:
            fusion_figures(spec, args.soc, args.timeout)
        if not args.skip_run:
            run_time(spec, args.soc)
        if args.verify_time:
            verify_time()
    except OpkitError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print("All performance figures are modelled by opkit's performance model from simulator traces, not measured.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
