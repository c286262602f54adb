"""`opkit verify --workers 2` against `--workers 1` over the packages of ops/: wall time of each, same results.

The harnesses are built first (`opkit build`, not timed), so both runs time the cases alone: inputs,
golden, kernel on the simulator, comparison and the reports. The two results.json files must be equal
once their timing fields (``seconds``) and trace paths are removed; the script fails otherwise.

    python benchmarks/verify_workers.py [--ops DIR] [--workers N] [-j N] [-- extra verify options]

Prints the figures; the machine's core count bounds what more workers can give.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def comparable(path: Path) -> dict:
    doc = json.loads(path.read_text())
    for c in doc["cases"]:
        c.pop("seconds", None)
        c.pop("trace", None)
    return doc


def opkit(*args: str, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "opkit", *args], cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=Path, default=ROOT / "ops", help="folder of packages (default: ops/)")
    ap.add_argument("--workers", type=int, default=2, help="workers of the parallel run (default 2)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="compile jobs of the untimed build (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, alternated; the best and the median are "
                    "printed (default 3)")
    ap.add_argument("extra", nargs="*", help="more `opkit verify` options (after --)")
    args = ap.parse_args()
    from opkit.discover import packages_under

    cwd = args.ops.resolve().parent
    packages = [str(p) for p in packages_under(args.ops.resolve())]
    if not packages:
        print(f"no packages under {args.ops}")
        return 1
    t, r = opkit("build", *packages, "-j", str(args.jobs), cwd=cwd)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        return 1
    print(f"build (not timed below): {t:.1f} s")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="opkit-bench-workers-") as tmp:
        times: dict[int, list[float]] = {1: [], args.workers: []}
        docs: dict[int, dict] = {}
        for k in range(args.repeat):
            for n in (1, args.workers):
                out = Path(tmp) / f"w{n}-{k}"
                t, r = opkit("verify", *packages, "--workers", str(n), "--no-trace", "--out", str(out),
                             *args.extra, cwd=cwd)
                if r.returncode not in (0, 1) or not (out / "results.json").is_file():
                    print(r.stdout[-3000:] + r.stderr[-3000:])
                    return 1
                times[n].append(t)
                doc = comparable(out / "results.json")
                assert docs.setdefault(n, doc) == doc, "two runs with the same --workers differ"
        one, many = docs[1], docs[args.workers]
        print(f"machine: {cores} core(s), load average {os.getloadavg()[0]:.1f}; {len(one['cases'])} runs over "
              f"{len(one['selection']['packages'])} packages ({one['summary']['pass']} passed, "
              f"{one['summary']['fail']} failed, {one['summary']['error']} errors)")
        for n in (1, args.workers):
            ts = sorted(times[n])
            print(f"--workers {n}: best {ts[0]:.1f} s, median {ts[len(ts) // 2]:.1f} s wall "
                  f"({', '.join(f'{t:.1f}' for t in times[n])})")
        print(f"speed-up (best against best): {min(times[1]) / min(times[args.workers]):.2f}x")
        same = one == many
        print("results equal (timing fields and trace paths aside): " + ("yes" if same else "NO"))
        assert same, "the parallel run's results.json differs from the serial one's"
    return 0


if __name__ == "__main__":
    sys.exit(main())
