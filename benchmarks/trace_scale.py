"""How a large simulator trace scales: events recorded, wall time and peak memory of the run and of each model phase.

    python benchmarks/trace_scale.py [CASE] [--package DIR] [--trace FILE] [--keep-trace FILE] [--timeout S]

Runs CASE (default ``s2048_n32``) of the package (default ops/attention/flash_attention_score) trace-only
on the simulator, as ``opkit perf --trace-only`` does, then replays the trace phase by phase: load (the trace
file read), mm_order (the Matmul jobs' served-in-turn order), l2 (the L2 hit of every GM read), build (the task
graph) and run (the timed replay). Prints the events recorded and dropped, the wall time of the simulator run
and of each phase, and the peak resident memory of each process: the simulator's (``RUSAGE_CHILDREN`` of a
child that only runs it, the harness built beforehand) and the model's (``RUSAGE_SELF`` of this process).
``--trace FILE`` models a trace written before instead of running the simulator; ``--keep-trace FILE`` keeps
the run's trace. Figures are measurements of this machine, not assertions; the modelled time is the model's.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "ops" / "attention" / "flash_attention_score"


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.0f} MiB"


def _rss_now_kib() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (resource.getpagesize() // 1024)
    except OSError:
        return 0


def simulate(pkg: Path, case_name: str, out: Path, timeout: float) -> dict[str, Any]:
    """Run the case trace-only in this process's child (the harness built beforehand); the run's facts."""
    from opkit.run.inputs import make_inputs
    from opkit.run.sim_runner import SimRunner
    from opkit.run.userdata import select_case
    from opkit.spec import load
    from opkit.verify.golden import custom_generators

    spec = load(pkg)
    case, column = select_case(spec, case_name, None)
    chip, _ = spec.target(spec.socs[0].key)
    runner = SimRunner(timeout_s=timeout, trace_dir=out.parent)
    runner.artifact(spec, chip, column)
    inputs = make_inputs(spec, case, column, custom_generators(spec))
    t0 = time.perf_counter()
    res = runner.run(spec, case, column, chip, inputs, trace_only=True)
    wall = time.perf_counter() - t0
    shutil.move(res.info["trace_file"], out)
    return {"wall_s": wall, "peak_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "chip": chip}


def build_first(pkg: Path, case_name: str) -> str:
    """Build the case's harness (so that the measured child only runs it); the chip."""
    from opkit.run.sim_runner import SimRunner
    from opkit.run.userdata import select_case
    from opkit.spec import load

    spec = load(pkg)
    _, column = select_case(spec, case_name, None)
    chip, _ = spec.target(spec.socs[0].key)
    SimRunner().artifact(spec, chip, column)
    return chip


def model(pkg: Path, case_name: str, chip: str, trace_file: Path) -> dict[str, Any]:
    """Replay the trace phase by phase: each phase's wall time, the events and the modelled figures."""
    from opkit.perf.case import read_trace
    from opkit.perf.costs import chip_params
    from opkit.perf.mm_order import canonical_job_order
    from opkit.perf.model import golden_costs, l2_hits
    from opkit.perf.replay import build_graph, run
    from opkit.run.userdata import select_case
    from opkit.spec import load
    from opkit.verify.golden import user_module

    spec = load(pkg)
    case, column = select_case(spec, case_name, None)
    _, hbm = golden_costs(user_module(spec), dict(case.shapes), spec.column(column), case.attrs)
    p = chip_params(chip)
    phases: dict[str, float] = {}
    rss: dict[str, int] = {}
    peak: dict[str, int] = {}

    def timed(name: str, fn: Any, *args: Any) -> Any:
        t0 = time.perf_counter()
        out = fn(*args)
        phases[name] = time.perf_counter() - t0
        rss[name] = _rss_now_kib()
        peak[name] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return out

    trace = timed("load", read_trace, trace_file)
    cores = trace.cores
    recorded = sum(len(c) for c in cores)
    dropped = sum(c.events_dropped for c in cores)
    timed("mm_order", canonical_job_order, trace)
    hits = timed("l2", l2_hits, trace, p, hbm)
    graph = timed("build", build_graph, trace, p, hits)
    timed("run", run, graph, p.hbm_bytes_per_cycle)
    ends = graph.end[graph.core >= 0]
    span = float(ends.max()) if len(ends) else 0.0
    steady = p.us(span)
    return {"recorded": recorded, "dropped": dropped, "cores": len(cores), "tasks": len(graph),
            "phases": phases, "rss_after_kib": rss, "peak_after_kib": peak, "steady_us": steady,
            "modelled_us": steady + p.startup_us, "startup_us": p.startup_us,
            "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", nargs="?", default="s2048_n32")
    ap.add_argument("--package", type=Path, default=PKG)
    ap.add_argument("--trace", type=Path, help="model this trace file instead of running the simulator")
    ap.add_argument("--keep-trace", type=Path, help="keep the run's trace file here")
    ap.add_argument("--timeout", type=float, default=7200.0, help="seconds the simulator run may take")
    ap.add_argument("--simulate-to", type=Path, help=argparse.SUPPRESS)  # the child that runs the simulator
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if a.simulate_to is not None:
        print(json.dumps(simulate(a.package, a.case, a.simulate_to, a.timeout)))
        return 0
    with tempfile.TemporaryDirectory(prefix="opkit-trace-scale-") as tmp:
        sim: dict[str, Any] | None = None
        if a.trace is not None:
            trace_file = a.trace
            from opkit.spec import load

            chip, _ = load(a.package).target(load(a.package).socs[0].key)
        else:
            chip = build_first(a.package, a.case)
            trace_file = a.keep_trace or Path(tmp) / "trace.json"
            r = subprocess.run([sys.executable, __file__, a.case, "--package", str(a.package), "--timeout",
                                str(a.timeout), "--simulate-to", str(trace_file)], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stdout + r.stderr, file=sys.stderr)
                return 1
            sim = json.loads(r.stdout.strip().splitlines()[-1])
        size = trace_file.stat().st_size
        m = model(a.package, a.case, chip, trace_file)
    print(f"case {a.case} ({a.package.name}, {chip}): {m['cores']} cores, trace file {size / 2**20:,.0f} MiB")
    print(f"events recorded {m['recorded']:,}, dropped {m['dropped']:,}; tasks {m['tasks']:,}")
    if sim is not None:
        print(f"simulator run: {sim['wall_s']:,.1f} s, peak RSS {_mib(sim['peak_kib'])}")
    total = sum(m["phases"].values())
    print(f"model: {total:,.1f} s, peak RSS {_mib(m['peak_kib'])}")
    for name, s in m["phases"].items():
        print(f"  {name:<8} {s:8.1f} s   RSS after {_mib(m['rss_after_kib'][name])}, peak so far "
              f"{_mib(m['peak_after_kib'][name])}")
    print(f"modelled time {m['modelled_us']:.2f} us = steady state {m['steady_us']:.2f} us + kernel start-up "
          f"{m['startup_us']:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
