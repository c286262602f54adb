"""The timed run of the replay as native code: ``replay_engine.cpp``, compiled on first use and called with ctypes.

The source is compiled with the C++ compiler opkit builds the simulator with
(:func:`opkit.build.toolchain.find_compiler`) into a shared library in opkit's cache
(:func:`opkit.build.cache.shared_dir`), named by the hash of the source, the compiler and the flags, so that it is
compiled once per machine and again only when one of them changes. What the run computes:
:func:`opkit.perf.replay.run` and the source's own comment.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from opkit.errors import OpkitError

SOURCE = Path(__file__).with_name("replay_engine.cpp")
# no contraction of a * b + c into one rounding: the run gives the times the model's arithmetic gives
FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-ffp-contract=off")

_f64 = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
_i32 = np.ctypeslib.ndpointer(dtype=np.int32, flags="C_CONTIGUOUS")


def library_path() -> Path:
    """Where the compiled engine is (or will be) in opkit's cache."""
    from opkit.build.cache import shared_dir
    from opkit.build.toolchain import find_compiler

    cc = find_compiler()
    h = hashlib.sha256(SOURCE.read_bytes())
    h.update("\0".join([cc.path, ".".join(map(str, cc.version)), *FLAGS]).encode())
    return shared_dir() / "perf-engine" / f"replay_engine-{h.hexdigest()[:20]}.so"


def _compile(out: Path) -> None:
    from opkit.build.toolchain import find_compiler

    try:
        cc = find_compiler()
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f"{out.name}.tmp{os.getpid()}-{threading.get_ident()}")
        r = subprocess.run([cc.path, *FLAGS, "-o", str(tmp), str(SOURCE)], capture_output=True, text=True,
                           timeout=300)
    except (OpkitError, OSError, subprocess.SubprocessError) as exc:
        raise OpkitError(f"the performance model's replay engine ({SOURCE.name}) cannot be compiled: {exc}") from None
    if r.returncode != 0:
        lines = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln), lines[0] if lines else f"exit status {r.returncode}")
        tmp.unlink(missing_ok=True)
        raise OpkitError(f"the performance model's replay engine ({SOURCE.name}) cannot be compiled with {cc.label}: "
                         f"{first}")
    tmp.replace(out)


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL:
    path = library_path()
    if not path.is_file():
        _compile(path)
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise OpkitError(f"the performance model's replay engine ({path}) cannot be loaded: {exc}") from None
    fn = lib.opkit_replay_run
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int64, _i32, _f64, _f64, _f64, ctypes.c_int64, _i32, _i32, ctypes.c_double, _f64, _f64]
    return lib


def timed_run(spec: np.ndarray, fixed: np.ndarray, gm_bytes: np.ndarray, cap: np.ndarray, src: np.ndarray,
              dst: np.ndarray, hbm_bytes_per_cycle: float) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) of every task in cycles: task ``i`` is spec ``spec[i]``, whose ``fixed`` cycles, ``gm_bytes`` and
    ``cap`` are given per spec; dependency edges ``src`` -> ``dst`` (task indices). Raises RuntimeError when the graph
    cannot run to its end."""
    n = len(spec)
    if n >= 2**31:
        raise RuntimeError(f"perf replay: {n} tasks, more than the replay engine indexes (2**31 - 1)")
    k = np.ascontiguousarray(spec, dtype=np.int32)
    if n and (int(k.min()) < 0 or int(k.max()) >= len(fixed)):
        raise ValueError("perf replay: a task's spec is not one of the specs given")
    cols = [np.ascontiguousarray(a, dtype=np.float64) for a in (fixed, gm_bytes, cap)]
    s, d = (np.ascontiguousarray(a, dtype=np.int32) for a in (src, dst))
    if len(s) != len(d) or (len(s) and (min(int(s.min()), int(d.min())) < 0 or max(int(s.max()), int(d.max())) >= n)):
        raise ValueError("perf replay: a dependency edge names no task")
    start = np.zeros(n, dtype=np.float64)
    end = np.zeros(n, dtype=np.float64)
    rc = _library().opkit_replay_run(n, k, *cols, len(s), s, d, float(hbm_bytes_per_cycle), start, end)
    if rc < 0:
        raise RuntimeError("perf replay: GM transfers with zero bandwidth")
    if rc > 0:
        raise RuntimeError(f"perf replay: {rc} of {n} trace events never became ready (unmatched wait in the trace)")
    return start, end


__all__ = ["library_path", "timed_run"]
