"""The host C++ compiler: discovery, version, CPU-feature flags, and compiler-error reporting."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from opkit.errors import OpkitError

MIN_GCC = 9
MIN_CLANG = 10


class BuildError(OpkitError):
    """A compiler error in the user's sources (or a missing compiler)."""


@dataclass(frozen=True)
class Compiler:
    path: str
    kind: str  # "gcc" | "clang"
    version: tuple[int, ...]
    features: tuple[str, ...] = field(default=())  # extra flags the CPU supports, e.g. ("-mf16c",)

    @property
    def label(self) -> str:
        return f"{self.kind} {'.'.join(map(str, self.version))} ({self.path})"


def _version(path: str) -> tuple[str, tuple[int, ...]]:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildError(f"{path}: cannot run the C++ compiler ({exc})") from None
    kind = "clang" if "clang" in out.lower() else "gcc"
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    version = tuple(int(x) for x in m.groups() if x is not None) if m else (0,)
    return kind, version


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def _compiles(path: str, flags: list[str], source: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="opkit-probe-") as tmp:
        src = Path(tmp) / "probe.cpp"
        src.write_text(source)
        r = subprocess.run([path, "-std=c++17", *flags, "-o", str(Path(tmp) / "probe"), str(src)],
                           capture_output=True, text=True, timeout=120)
        return r.returncode == 0


_F16C_PROBE = """
#include <immintrin.h>
int main() { float f[8] = {1,2,3,4,5,6,7,8}; __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(f), 0);
  float g[8]; _mm256_storeu_ps(g, _mm256_cvtph_ps(h)); return g[3] == 4.0f ? 0 : 1; }
"""


def _probe_f16c(path: str) -> bool:
    """Whether ``path`` builds F16C code and this CPU has it; remembered per compiler binary in opkit's cache."""
    import json

    from opkit.build.cache import shared_dir

    st = os.stat(path)
    key = f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"
    memo = shared_dir() / "compilers.json"
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known:
        return bool(known[key])
    ok = _compiles(path, ["-mf16c", "-mavx"], _F16C_PROBE)
    known[key] = ok
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known))
        tmp.replace(memo)
    except OSError:
        pass
    return ok


@lru_cache(maxsize=4)
def find_compiler(explicit: str | None = None) -> Compiler:
    """The compiler opkit builds with: ``explicit``, else $CXX, else g++, else clang++."""
    candidates = [explicit] if explicit else [os.environ.get("CXX"), "g++", "clang++", "c++"]
    for cand in candidates:
        if not cand:
            continue
        path = shutil.which(cand)
        if path is None:
            if explicit or cand == os.environ.get("CXX"):
                raise BuildError(f"C++ compiler '{cand}' not found (set CXX to a g++ >= {MIN_GCC} or clang++ "
                                 f">= {MIN_CLANG}, or install one: apt-get install g++)")
            continue
        kind, version = _version(path)
        need = MIN_GCC if kind == "gcc" else MIN_CLANG
        if version[0] < need:
            raise BuildError(f"{path} is {kind} {'.'.join(map(str, version))}; opkit needs {kind} >= {need} "
                             "for C++17 (set CXX to a newer compiler)")
        features: list[str] = []
        machine = os.uname().machine
        if machine in ("x86_64", "i686") and "f16c" in _cpu_flags() and _probe_f16c(path):
            features += ["-mf16c", "-mavx"]
        return Compiler(path, kind, version, tuple(features))
    raise BuildError(f"no C++ compiler found: install g++ (>= {MIN_GCC}) or clang++ (>= {MIN_CLANG}), or set "
                     "CXX; `opkit doctor` shows what is missing")


_DIAG = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note): "
                   r"(?P<msg>.*)$")


def explain_failure(output: str, package: Path, limit: int = 12) -> str:
    """Compiler output reduced to the diagnostics, with paths shown relative to the package."""
    lines: list[str] = []
    pkg = str(package.resolve())
    for raw in output.splitlines():
        m = _DIAG.match(raw.strip())
        if not m:
            continue
        f = m.group("file")
        try:
            f = str(Path(f).resolve().relative_to(pkg))
        except ValueError:
            pass
        kind = m.group("kind")
        if kind == "note" and lines and len(lines) >= limit:
            continue
        lines.append(f"{f}:{m.group('line')}:{m.group('col')}: {kind}: {m.group('msg')}")
        if sum(1 for x in lines if ": error:" in x or ": fatal error:" in x) >= limit:
            break
    if not lines:
        tail = "\n".join(output.strip().splitlines()[-limit:])
        return tail or "the compiler failed without a message"
    return "\n".join(lines)
