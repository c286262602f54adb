"""The Ascend C CPU simulator: C++17 headers named like CANN's, plus helpers to compile against them.

``include_dir()`` is the directory to put on the include path; ``cxx_flags(soc)`` gives the full
g++ command-line flags for one SoC (C++17, -O2, F16C when the CPU and compiler have it, the
chip's capacities as -D macros taken from ``opkit/data/socs.yaml``); ``compile(...)`` runs g++.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def include_dir() -> Path:
    """Directory to pass as ``-I`` so that ``#include "kernel_operator.h"`` finds the simulator."""
    return _HERE / "include"


def find_cxx() -> str:
    """The C++ compiler to use ($CXX, else g++, else clang++): opkit's one compiler discovery."""
    from opkit.build.toolchain import find_compiler

    return find_compiler().path


def has_f16c(cxx: str | None = None) -> bool:
    """True when this CPU has F16C and the compiler builds F16C code (x86 only)."""
    from opkit.build.toolchain import find_compiler

    return "-mf16c" in find_compiler(cxx).features


def soc_defines(soc: str = "ascend910b") -> list[str]:
    """-D flags describing one chip (name or OpDef key) to the simulator headers."""
    from opkit import soc as socdb

    c = socdb.chip(soc)
    return [
        f"-D__NPU_ARCH__={c['arch']}",
        f'-DOPKIT_SIM_SOC="{c["name"]}"',
        f"-DOPKIT_SIM_UB_SIZE={c['ub_size']}",
        f"-DOPKIT_SIM_UB_CAP={c['ub_reported']}",
        f"-DOPKIT_SIM_UB_RESERVED={c['ub_reserved']}",
        f"-DOPKIT_SIM_L1_SIZE={c['l1_size']}",
        f"-DOPKIT_SIM_L1_CAP={c['l1_reported']}",
        f"-DOPKIT_SIM_L0A_SIZE={c['l0a_size']}",
        f"-DOPKIT_SIM_L0B_SIZE={c['l0b_size']}",
        f"-DOPKIT_SIM_L0C_SIZE={c['l0c_size']}",
        f"-DOPKIT_SIM_SYS_WORKSPACE={c['sys_workspace']}",
    ]


def cxx_flags(soc: str = "ascend910b", *, opt: str = "-O2", f16c: bool | None = None) -> list[str]:
    """Compiler flags for a kernel/harness built against the simulator."""
    flags = ["-std=c++17", opt, "-pthread", f"-I{include_dir()}"]
    if f16c is None:
        f16c = has_f16c()
    if f16c:
        flags.append("-mf16c")
    return flags + soc_defines(soc)


def compile(  # noqa: A001 - mirrors the verb users expect
    sources: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    soc: str = "ascend910b",
    defines: Sequence[str] = (),
    extra: Sequence[str] = (),
    cxx: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Compile ``sources`` into the executable ``output``; raises CalledProcessError with g++'s output."""
    cmd = [cxx or find_cxx(), *cxx_flags(soc), *[f"-D{d}" for d in defines], *extra, *map(str, sources),
           "-o", str(output)]
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


__all__ = ["compile", "cxx_flags", "find_cxx", "has_f16c", "include_dir", "soc_defines"]
