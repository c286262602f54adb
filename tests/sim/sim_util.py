"""Helpers of the simulator tests: C++ programs compiled against opkit/sim by opkit's build (cached by content)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from opkit.build import program
from opkit.build.toolchain import BuildError

CPP = Path(__file__).resolve().parent / "cpp"


def build(src: Path | str, *, soc: str = "ascend910b", flags: tuple[str, ...] = (), opt: str = "-O1",
          f16c: bool | None = None) -> Path:
    """Compile one C++ file against the simulator (opkit's build, cached by content: the file, the headers
    beside it, the simulator, the flags); returns the executable. A compile error fails the test with
    the compiler's diagnostics."""
    try:
        return program.compile_program([Path(src)], chip=soc, flags=flags, opt=opt, f16c=f16c, link_flags=flags).exe
    except BuildError as exc:
        raise AssertionError(exc.message) from None


def compile_snippet(code: str, tmp: Path, *, soc: str = "ascend910b") -> subprocess.CompletedProcess[str]:
    """Compile (only) a snippet; returns the finished process so tests can read g++'s errors."""
    src = tmp / "snippet.cpp"
    src.write_text(code, encoding="utf-8")
    return program.check_syntax(src, chip=soc, opt="-O0")


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
