"""Simulator speed: build times of the template op, a 16M-element fp16 run against its NumPy golden,
and emulated vector throughput.

    python benchmarks/sim_speed.py [--elements N] [--repeat R]

1. Build time of the `vector` template's op (a fresh `opkit new` package): cold (empty package
   cache; harness objects shared across packages are removed too) and warm (nothing changed).
2. The op's kernel on one float16 case of N elements (default 16M = 2^24, the template's `large`
   case): wall time of the simulated run (inputs written, harness process, outputs read) against
   the time of the float64 NumPy golden on the same data, best of R runs; and the time of a
   trace-only run of the same case (its trace written, no arithmetic, no outputs).
3. Emulated vector throughput: input + output bytes moved per second of simulated run, and element
   operations (Muls, Add, Relu and two Casts per element) per second.
4. GEMM on the cube (SIZE^3 fp16, default 1024): one emulated core's hand-written cube kernel
   (benchmarks/sim_gemm.py), and the Matmul high-level API against the hand-written matmul_custom kernel
   on the same shape and base block, beside NumPy float32 matmul in the same run: CPU time per emulated
   core and wall time of a multi-block launch (benchmarks/sim_matmul_api.py).

5. With --checks (only this figure): the cost of each sanitizer check on the case of 2., as the simulated
   run's CPU time (the harness process) with the check on against all of them off (OPKIT_SIM_POISON=off
   for the poisoned outputs, OPKIT_SIM_CHECKS_OFF for same-pipe ordering, cross-core overlap and use after
   free; the overlap check rides on the poisoned outputs' shadow, so its figure is against poisoning
   alone), best of R runs.

Figures are measurements of this machine (2 cores here, shared), not assertions.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from opkit.build import sim_backend  # noqa: E402
from opkit.build.cache import shared_dir  # noqa: E402
from opkit.build.toolchain import find_compiler  # noqa: E402
from opkit.run.inputs import make_inputs  # noqa: E402
from opkit.run.sim_runner import SimRunner  # noqa: E402
from opkit.scaffold.new import new_package  # noqa: E402
from opkit.spec import Case, load  # noqa: E402
from opkit.verify.golden import run_golden  # noqa: E402

CHIP = "ascend910b2"


def build_times(pkg: Path) -> tuple[float, float, int]:
    spec = load(pkg)
    shutil.rmtree(pkg / ".opkit", ignore_errors=True)
    shutil.rmtree(shared_dir() / "sim-obj", ignore_errors=True)
    t0 = time.perf_counter()
    arts = sim_backend.artifacts_for(spec, [CHIP])
    sim_backend.build(arts)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()  # warm: everything a rebuild does (load the spec, hash the inputs, find nothing to do)
    arts = sim_backend.artifacts_for(load(pkg), [CHIP])
    sim_backend.build(arts)
    warm = time.perf_counter() - t0
    assert not any(a.built for a in arts)
    return cold, warm, len(arts)


def run_times(pkg: Path, n: int, repeat: int) -> dict[str, float]:
    spec = load(pkg)
    case = Case("bench", {"x": [n], "y": [n]}, (0,), {"alpha": 0.75}, seed=1)
    inputs = make_inputs(spec, case, 0)
    runner = SimRunner()
    runner.artifact(spec, CHIP, 0)
    sim = []
    only = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = runner.run(spec, case, 0, CHIP, inputs)
        sim.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        traced = runner.run(spec, case, 0, CHIP, inputs, trace_only=True)
        only.append(time.perf_counter() - t0)
        Path(traced.info["trace_file"]).unlink()
    gold = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        g = run_golden(spec, case, inputs)
        gold.append(time.perf_counter() - t0)
    z = out.outputs["z"].astype(np.float64)
    worst = float(np.max(np.abs(z - g["z"])))
    return {"sim": min(sim), "trace_only": min(only), "golden": min(gold), "worst_abs_err": worst,
            "block_dim": out.info.get("block_dim", 0)}


# (label, OPKIT_SIM_POISON, OPKIT_SIM_CHECKS_OFF, the row it is measured against)
CHECK_ROWS = [
    ("none", "off", "order,overlap,uaf", None),
    ("unwritten outputs / uninitialised reads (poison)", None, "order,overlap,uaf", "none"),
    ("cross-core write overlap", None, "order,uaf", "unwritten outputs / uninitialised reads (poison)"),
    ("use after free", "off", "order,overlap", "none"),
    ("same-pipe ordering", "off", "overlap,uaf", "none"),
    ("all checks (the default)", None, None, "none"),
]


def check_costs(pkg: Path, n: int, repeat: int) -> dict[str, float]:
    """Best-of-``repeat`` CPU time of the simulated run (the harness process, every emulated core's thread) of
    the case of :func:`run_times` under each row of CHECK_ROWS; CPU time rather than wall time, since other
    processes on a shared machine stretch the latter (the rows interleave in every round all the same)."""
    spec = load(pkg)
    case = Case("bench", {"x": [n], "y": [n]}, (0,), {"alpha": 0.75}, seed=1)
    inputs = make_inputs(spec, case, 0)
    runner = SimRunner()
    runner.artifact(spec, CHIP, 0)
    saved = {k: os.environ.get(k) for k in ("OPKIT_SIM_POISON", "OPKIT_SIM_CHECKS_OFF")}
    best: dict[str, float] = {}
    try:
        for _ in range(repeat):
            for label, poison, off, _base in CHECK_ROWS:
                for k, v in (("OPKIT_SIM_POISON", poison), ("OPKIT_SIM_CHECKS_OFF", off)):
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                runner.run(spec, case, 0, CHIP, inputs)
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)  # the harness process, all its threads
                best[label] = min(best.get(label, float("inf")), cpu)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return best


def print_check_costs(pkg: Path, n: int, repeat: int) -> None:
    best = check_costs(pkg, n, repeat)
    print(f"check costs on the float16 case of {n} elements (CPU time of the simulated run, best of {repeat}):")
    for label, _poison, _off, base in CHECK_ROWS:
        if base is None:
            print(f"  {label}: {best[label]:.3f} s")
        else:
            print(f"  {label}: {best[label]:.3f} s, {100 * (best[label] / best[base] - 1):+.1f} % against {base} "
                  f"({best[base]:.3f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elements", type=int, default=1 << 24)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gemm-size", type=int, default=1024, help="M = N = K of the GEMM figure (0: skip it)")
    ap.add_argument("--gemm-blocks", type=int, default=4, help="blocks of the multi-core Matmul-API GEMM launch")
    ap.add_argument("--checks", action="store_true", help="only the cost of each sanitizer check (figure 5)")
    args = ap.parse_args()
    if args.checks:
        with tempfile.TemporaryDirectory(prefix="opkit-bench-") as tmp:
            print_check_costs(new_package("bench_op", directory=".", cwd=tmp).path, args.elements, args.repeat)
        return
    cc = find_compiler()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; compiler {cc.label}; "
          f"extra flags {' '.join(cc.features) or 'none'}")
    with tempfile.TemporaryDirectory(prefix="opkit-bench-") as tmp:
        pkg = new_package("bench_op", directory=".", cwd=tmp).path
        cold, warm, n_art = build_times(pkg)
        print(f"build of the vector template op ({n_art} harnesses, {CHIP}): cold {cold:.1f} s, warm {warm:.3f} s")
        r = run_times(pkg, args.elements, args.repeat)
        n = args.elements
        print(f"float16 case of {n} elements on {r['block_dim']} emulated vector cores: simulated run "
              f"{r['sim']:.3f} s, float64 NumPy golden {r['golden']:.3f} s, ratio {r['sim'] / r['golden']:.2f}x "
              f"(worst |error| {r['worst_abs_err']:.3g}); trace-only run {r['trace_only']:.3f} s, ratio "
              f"{r['trace_only'] / r['golden']:.2f}x")
        moved = 3 * 2 * n
        print(f"emulated vector throughput: {moved / r['sim'] / 1e9:.2f} GB/s of GM traffic, "
              f"{6 * n / r['sim'] / 1e9:.2f} G element-ops/s (Cast x2, Muls, Add, Relu, Cast per element)")
    if args.gemm_size:
        gemm_figures(args.gemm_size, args.repeat)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import sim_matmul_api

        sim_matmul_api.report(args.gemm_size, args.gemm_blocks, args.repeat)


def gemm_figures(size: int, repeat: int) -> None:
    """The cube side: simulated GEMM throughput of one emulated core, and the cube template's verify time
    (the measurements live in benchmarks/sim_gemm.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sim_gemm

    with tempfile.TemporaryDirectory(prefix="opkit-bench-gemm-") as d:
        r = sim_gemm.gemm_rate(sim_gemm.build_gemm(Path(d)), size, repeat)
    print(f"GEMM {size}x{size}x{size} fp16 on one emulated cube core (CPU time, best of {repeat}): whole kernel "
          f"{r['flops'] / r['kernel_s'] / 1e9:.1f} GFLOP/s, Mmad alone {r['flops'] / r['mmad_s'] / 1e9:.1f} GFLOP/s, "
          f"MAC loop alone {r['flops'] / r['loop_s'] / 1e9:.1f} GFLOP/s")
    cold, warm = sim_gemm.verify_times()
    print(f"opkit verify of a fresh cube-template package: {cold:.1f} s with the build, {warm:.1f} s cached")


if __name__ == "__main__":
    main()
