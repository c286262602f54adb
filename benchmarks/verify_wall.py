"""The wall time of ``opkit verify`` over a package or a folder of packages (its default, non-``full`` cases),
as the family benchmarks report it for their issues' time budgets.

    from verify_wall import verify_wall
    first, warm, code, last_line = verify_wall(ROOT / "ops" / "mc2")

The command runs twice, ``-j 1``, from the temporary folder: the first run builds what the build cache lacks,
the second is the warm figure. ``code`` is the first non-zero exit status of the two (0 when both passed) and
``last_line`` the warm run's summary line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path


def verify_wall(target: Path, *extra: str) -> tuple[float, float, int, str]:
    cmd = [sys.executable, "-m", "opkit", "verify", str(target), "-j", "1", *extra]
    times, code, last = [], 0, "?"
    for _ in range(2):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tempfile.gettempdir(), check=False)
        times.append(time.perf_counter() - t0)
        code = code or proc.returncode
        last = (proc.stdout.strip().splitlines() or ["?"])[-1]
    return times[0], times[1], code, last
