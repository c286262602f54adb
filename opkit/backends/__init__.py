"""Build backends: how a package is built and where it runs.

``sim`` (default) builds with g++ against opkit's simulator and runs on this CPU; ``cann`` builds the
custom operator package with the CANN toolkit (runs on an NPU); ``cann-cpu`` builds the kernel in
CANN's own CPU-debug mode (tikicpulib) and runs it on this CPU. Each backend module has ``NAME``,
``SUMMARY`` and ``readiness(env, cann_path)``; commands call :func:`require` before any work, so a
backend that cannot work here refuses with one message naming what is missing and how to get it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from opkit.backends.base import BackendUnavailable, Need, Readiness
from opkit.errors import UsageError

DEFAULT = "sim"
_MODULES = {"sim": "opkit.backends.sim", "cann": "opkit.backends.cann", "cann-cpu": "opkit.backends.cann_cpu"}
NAMES = tuple(_MODULES)

__all__ = ["DEFAULT", "NAMES", "BackendUnavailable", "Need", "Readiness", "get", "readiness", "require", "runner"]


def get(name: str) -> ModuleType:
    if name not in _MODULES:
        raise UsageError(f"--backend {name}: unknown (backends: {', '.join(NAMES)})")
    return importlib.import_module(_MODULES[name])


def readiness(name: str, env: Mapping[str, str] | None = None, cann_path: Path | str | None = None,
              command: str = "opkit build") -> Readiness:
    """What backend ``name`` needs for ``command`` (``opkit build``, ``opkit verify``...) and whether it is here."""
    mod = get(name)
    if name == "cann":
        return mod.readiness(env, cann_path, command)
    return mod.readiness(env, cann_path)


def require(name: str, command: str, env: Mapping[str, str] | None = None,
            cann_path: Path | str | None = None) -> None:
    """Refuse (exit 2, one message) when backend ``name`` cannot work on this machine for ``command``."""
    readiness(name, env, cann_path, command).require(command)


def runner(name: str, *, timeout_s: float = 300.0, jobs: int | None = None, trace_dir: Path | None = None,
           beside_sim: bool = False, **options: object) -> object:
    """The runner of backend ``name`` (``run(spec, case, column, chip, inputs) -> RunOutput``, ``prebuild``): the
    one place a backend becomes a runner, for verify, run and the Python API. ``trace_dir``: the simulator's
    traces (sim only); ``beside_sim``: a cann-cpu run compared with the simulator's; ``options``: the cann
    backend's ``vendor``, ``device``, ``sanitize``. A backend that cannot work here refuses (BackendUnavailable)."""
    from opkit.run.sim_runner import SimRunner

    get(name)
    if name == "cann":
        from opkit.backends.npu_runner import NpuRunner

        return NpuRunner(timeout_s=timeout_s, jobs=jobs, **options)  # type: ignore[arg-type]
    if name == "cann-cpu":
        from opkit.backends.cann_cpu_runner import BesideSim, CannCpuRunner

        cpu = CannCpuRunner(timeout_s=timeout_s, jobs=jobs)
        return BesideSim(cpu, SimRunner(timeout_s=timeout_s, jobs=jobs)) if beside_sim else cpu
    return SimRunner(timeout_s=timeout_s, jobs=jobs, trace_dir=trace_dir)
