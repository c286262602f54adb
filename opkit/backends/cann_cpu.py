"""The ``cann-cpu`` backend: the kernel built in CANN's own CPU-debug mode (tikicpulib), run on this CPU.

CANN's CPU-debug ("twin debug") mode compiles the unmodified kernel with g++ against the toolkit's
``tikicpulib`` (its CMake package ``tikicpulib::<chip>`` brings the headers, the chip model and the
``ICPU_RUN_KF`` launcher); a second opinion beside opkit's simulator on the same kernel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from opkit.backends import cann_env
from opkit.backends.base import Need, Readiness, cmake_need, compiler_need, toolkit_need

NAME = "cann-cpu"
SUMMARY = "CANN's CPU-debug mode (tikicpulib, ICPU_RUN_KF): the same kernel on CANN's CPU model; runs on this CPU"


def readiness(env: Mapping[str, str] | None = None, cann_path: Path | str | None = None) -> Readiness:
    env = os.environ if env is None else env
    cann = cann_env.find(env, cann_path)
    needs = [toolkit_need(cann, env)]
    if cann is not None:
        where = cann.tikicpulib_cmake
        ok = where is not None and any(where.glob("tikicpulib*config.cmake"))
        needs.append(Need("tikicpulib (CPU-debug library)", ok,
                          str(where) if ok else f"no tikicpulib-config.cmake under {cann.root}/"
                          f"{' or '.join(cann_env.TIKICPULIB_CMAKE_DIRS)}",
                          "" if ok else "install the full CANN toolkit (the tikicpulib CPU-debug library is part of "
                          "its developer kit), then " + cann.source_fix))
    needs.append(cmake_need(env, (3, 16)))
    needs.append(compiler_need(env))
    return Readiness(NAME, needs)
