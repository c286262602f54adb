"""Helpers of the simulator tests: compile C++ programs against opkit/sim once per session (cached by content)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import opkit.sim as sim

CPP = Path(__file__).resolve().parent / "cpp"
_CACHE = Path(os.environ.get("OPKIT_SIM_TEST_CACHE", Path(tempfile.gettempdir()) / "opkit-sim-test-cache"))


def _digest(paths: list[Path], flags: list[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    h.update("\0".join(flags).encode())
    return h.hexdigest()[:20]


def build(src: Path | str, *, soc: str = "ascend910b", flags: tuple[str, ...] = (), opt: str = "-O1",
          f16c: bool | None = None) -> Path:
    """Compile one C++ file against the simulator; cached by the content of every header."""
    src = Path(src)
    allflags = [*sim.cxx_flags(soc, opt=opt, f16c=f16c), *flags]
    headers = sorted(sim.include_dir().rglob("*.h")) + sorted(src.parent.glob("*.h"))  # and the harness's own
    key = _digest([src, *headers], allflags)
    _CACHE.mkdir(parents=True, exist_ok=True)
    exe = _CACHE / f"{src.stem}-{key}"
    if not exe.exists():
        tmp = exe.with_suffix(f".tmp{os.getpid()}")
        r = subprocess.run([sim.find_cxx(), *allflags, str(src), "-o", str(tmp)], capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"compile of {src.name} failed:\n{r.stderr[-6000:]}")
        tmp.replace(exe)
    return exe


def compile_snippet(code: str, tmp: Path, *, soc: str = "ascend910b") -> subprocess.CompletedProcess[str]:
    """Compile (only) a snippet; returns the finished process so tests can read g++'s errors."""
    src = tmp / "snippet.cpp"
    src.write_text(code, encoding="utf-8")
    return subprocess.run([sim.find_cxx(), *sim.cxx_flags(soc, opt="-O0"), "-fsyntax-only", str(src)],
                          capture_output=True, text=True)


class VecRunner:
    """Runs tests/sim/cpp/vec_harness.cpp: one vector API on arrays given as NumPy arrays."""

    def __init__(self, exe: Path, workdir: Path):
        self.exe = exe
        self.workdir = workdir
        self.n = 0

    def __call__(self, op: str, out_init: np.ndarray, *ins: np.ndarray | None, expect_fail: bool = False, **params):
        dst = out_init
        self.n += 1
        d = self.workdir / f"case{self.n}"
        d.mkdir()
        for i, a in enumerate(ins):
            if a is not None:
                (d / f"in{i}.bin").write_bytes(np.ascontiguousarray(a).tobytes())
        (d / "dst.bin").write_bytes(np.ascontiguousarray(dst).tobytes())
        args = [str(self.exe), str(d), op, *[f"{k}={v}" for k, v in params.items()]]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if expect_fail:
            assert r.returncode != 0, f"expected a failure, got success: {r.stdout}"
            return r
        assert r.returncode == 0, f"{op} {params} failed ({r.returncode}):\n{r.stderr}"
        out = np.frombuffer((d / "out.bin").read_bytes(), dtype=dst.dtype).reshape(dst.shape).copy()
        rsvd = int(r.stdout.strip().split("=")[1])
        return out, rsvd, r


def marked_line(src: Path, name: str) -> int:
    """The line of ``src`` that ends with the marker comment ``// @name`` (the broken-kernel corpora mark
    the call each diagnostic must point at)."""
    for i, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
        if line.rstrip().endswith(f"// @{name}"):
            return i
    raise KeyError(name)
