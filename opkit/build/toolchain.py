"""The host C++ compiler: discovery, version, CPU-feature flags, and compiler-error reporting."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from opkit.errors import OpkitError

# The oldest compilers with the C++17 the simulator's headers use (major versions).
MIN_GCC = 9
MIN_CLANG = 10
CANDIDATE_NAMES = ("g++", "clang++", "c++")  # looked up on PATH after $CXX, in this order


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


def parse_version(text: str) -> tuple[int, ...] | None:
    """The first dotted version number in ``text`` (``g++ (GCC) 11.4.0`` -> (11, 4, 0))."""
    m = re.search(r"(?<![\w.])(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def compiler_kind(version_output: str) -> str:
    return "clang" if "clang" in version_output.lower() else "gcc"


def min_version(kind: str) -> int:
    """The oldest usable major version of a compiler kind (``gcc`` or ``clang``)."""
    return MIN_CLANG if kind == "clang" else MIN_GCC


def compiler_candidates(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, where from) of every compiler to try, in order: $CXX, then g++, clang++, c++ on PATH.

    A name the environment's PATH does not resolve is left out; duplicates (one binary under two
    names) are listed once. ``where from`` is ``$CXX`` or ``PATH``.
    """
    search = env.get("PATH", "")

    def which(name: str) -> str | None:
        if os.sep in name:
            return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
        return shutil.which(name, path=search) if search else None

    out: list[tuple[str, str]] = []
    cxx = env.get("CXX", "").strip()
    if cxx:
        try:
            first = shlex.split(cxx)[0]
        except (ValueError, IndexError):
            first = cxx
        path = which(first)
        if path:
            out.append((path, "$CXX"))
    for name in CANDIDATE_NAMES:
        path = which(name)
        if path and all(os.path.realpath(path) != os.path.realpath(p) for p, _ in out):
            out.append((path, "PATH"))
    return out


def _version(path: str) -> tuple[str, tuple[int, ...]]:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildError(f"{path}: cannot run the C++ compiler ({exc})") from None
    first = next((line for line in out.splitlines() if line.strip()), "")
    return compiler_kind(out), parse_version(first) or parse_version(out) or (0,)


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
    """The compiler opkit builds with: ``explicit``, else $CXX, else g++, clang++, c++ on PATH."""
    cxx = os.environ.get("CXX", "").strip()
    wanted = explicit or cxx
    if explicit:
        candidates = compiler_candidates({"PATH": os.environ.get("PATH", ""), "CXX": explicit})[:1]
    else:
        candidates = compiler_candidates(os.environ)
    if wanted and not any(source == "$CXX" for _, source in candidates):
        raise BuildError(f"C++ compiler '{wanted}' not found (set CXX to a g++ >= {MIN_GCC} or clang++ "
                         f">= {MIN_CLANG}, or install one: apt-get install g++)")
    for path, source in candidates:
        kind, version = _version(path)
        need = min_version(kind)
        if version[0] < need:
            if source == "$CXX":
                raise BuildError(f"{path} is {kind} {'.'.join(map(str, version))}; opkit needs {kind} >= {need} "
                                 "for C++17 (set CXX to a newer compiler)")
            continue
        features: list[str] = []
        machine = os.uname().machine
        if machine in ("x86_64", "i686") and "f16c" in _cpu_flags() and _probe_f16c(path):
            features += ["-mf16c", "-mavx"]
        return Compiler(path, kind, version, tuple(features))
    raise BuildError(f"no usable C++ compiler found: install g++ (>= {MIN_GCC}) or clang++ (>= {MIN_CLANG}), or "
                     "set CXX; `opkit doctor` shows what is missing")


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
