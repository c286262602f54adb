"""Wall time of everyday CLI commands, run as subprocesses the way a user runs them.

    python benchmarks/cli.py [--runs N] [--opkit "CMD"]

Times ``opkit --help``, ``opkit new bench_op --dir <tmp>`` and ``opkit list <tmp>``: the median
and the spread (min..max) of N runs each (default 5). ``opkit`` is the installed command when it
is on PATH, else ``python -m opkit`` with this interpreter. A command that fails is reported with
its error and skipped; the others still run. Figures are measurements of this machine, not
assertions.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def opkit_command(override: str | None = None) -> tuple[list[str], str]:
    """The argv prefix that runs opkit, and a label saying which one it is."""
    if override:
        return shlex.split(override), "--opkit"
    exe = shutil.which("opkit")
    if exe:
        return [exe], f"installed command {exe}"
    return [sys.executable, "-m", "opkit"], f"{sys.executable} -m opkit (no opkit on PATH)"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # `python -m opkit` from a checkout: make the package importable without installing it.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("NO_COLOR", "1")
    return env


def time_once(argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - start, proc


def _why(proc: subprocess.CompletedProcess[str]) -> str:
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return f"exit code {proc.returncode}" + (f": {text[-1]}" if text else "")


def bench(label: str, make_argv, runs: int, prepare=None) -> dict[str, object]:
    """Run one command ``runs`` times; ``prepare(i)`` gives a fresh working dir per run."""
    times: list[float] = []
    for i in range(runs):
        cwd = prepare(i) if prepare else Path.cwd()
        argv = make_argv(i)
        try:
            elapsed, proc = time_once(argv, cwd)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"command": label, "error": str(exc)}
        if proc.returncode != 0:
            return {"command": label, "error": _why(proc)}
        times.append(elapsed)
    return {"command": label, "runs": runs, "median_s": statistics.median(times), "min_s": min(times),
            "max_s": max(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", "-n", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--opkit", default=None, help="command that runs opkit (default: opkit on PATH, "
                                                      "else python -m opkit)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    base, which = opkit_command(args.opkit)
    print(f"opkit: {which}; {args.runs} run(s) per command; python {sys.version.split()[0]}")
    if base[1:] == ["-m", "opkit"] and not (ROOT / "opkit" / "__main__.py").is_file():
        print("note: opkit/__main__.py does not exist yet, so `python -m opkit` cannot run; the commands below "
              "are reported as failed and skipped")
    results = []
    with tempfile.TemporaryDirectory(prefix="opkit-bench-") as tmp_s:
        tmp = Path(tmp_s)
        results.append(bench("opkit --help", lambda i: [*base, "--help"], args.runs))

        def fresh(i: int) -> Path:
            d = tmp / f"new{i}"
            d.mkdir()
            return d

        results.append(bench("opkit new bench_op --dir <tmp>",
                             lambda i: [*base, "new", "bench_op", "--dir", str(tmp / f"new{i}")], args.runs,
                             prepare=fresh))
        listed = tmp / "new0"
        if (listed / "bench_op" / "op.yaml").is_file():
            results.append(bench("opkit list <tmp>", lambda i: [*base, "list", str(listed)], args.runs))
        else:
            results.append({"command": "opkit list <tmp>", "error": "skipped: `opkit new` made no package to list"})
    width = max(len(str(r["command"])) for r in results)
    failed = 0
    for r in results:
        name = str(r["command"]).ljust(width)
        if "error" in r:
            failed += 1
            print(f"{name}  FAILED  {r['error']}")
        else:
            print(f"{name}  median {r['median_s']:.3f} s  (min {r['min_s']:.3f}, max {r['max_s']:.3f}, "
                  f"{r['runs']} runs)")
    return 1 if failed == len(results) else 0


if __name__ == "__main__":
    sys.exit(main())
