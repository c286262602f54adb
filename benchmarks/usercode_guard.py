"""What running golden.py guarded costs per call (opkit.verify.usercode), against calling it in-process.

    python benchmarks/usercode_guard.py [--calls N]

Four figures, each the median of 5 rounds of N calls (default 300): a trivial call (the fixed cost of the
pipe round trip), a golden over 2048 float64 elements (a smoke case), over 100003 elements (the odd_tail
case of axpy_relu) and over 2^20 elements (arguments and result travel pickled through the pipe), plus the
one-off start of a worker (a Python process importing NumPy and golden.py). Figures are measurements of
this machine, not assertions.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from opkit.verify import usercode

GOLDEN = '''
import numpy as np


def nothing():
    return 0


def axpy_relu(x, y, alpha=1.0):
    return {"z": np.maximum(x + alpha * y, 0.0)}
'''


def _per_call(fn, args: tuple, calls: int) -> float:
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        rounds.append((time.perf_counter() - t0) / calls)
    return statistics.median(rounds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "golden.py"
        path.write_text(GOLDEN)
        spec = importlib.util.spec_from_file_location("bench_golden", path)
        local = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(local)
        t0 = time.perf_counter()
        guarded = usercode.module(path)
        start = time.perf_counter() - t0
        print(f"worker start (process, NumPy, golden.py import): {start * 1e3:.1f} ms, once per package")
        print(f"{'call':<28}{'in-process':>14}{'guarded':>14}{'overhead':>14}")
        rows = [("trivial call", "nothing", ())]
        for n in (2048, 100003, 1 << 20):
            x, y = np.random.default_rng(0).uniform(-1, 1, (2, n))
            rows.append((f"golden, {n} elements", "axpy_relu", (x, y)))
        for label, name, args in rows:
            calls = ns.calls if len(args) == 0 or args[0].size <= 100003 else max(10, ns.calls // 30)
            a = _per_call(getattr(local, name), args, calls)
            b = _per_call(getattr(guarded, name), args, calls)
            print(f"{label:<28}{a * 1e6:>11.1f} us{b * 1e6:>11.1f} us{(b - a) * 1e6:>11.1f} us")
        usercode.stop_all()


if __name__ == "__main__":
    main()
