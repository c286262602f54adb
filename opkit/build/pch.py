"""The simulator's precompiled headers: the headers package units include first, compiled once per chip.

Parsing the simulator's headers is a large part of compiling a package: about 3 s of a 10-15 s kernel unit (the
generated entry, :mod:`opkit.build.kernel_entry`, includes ``tikicpulib.h`` and through it the whole simulator
first) and 1.6 s of a 3 s host unit that starts with ``register/op_def_registry.h``, as OpDef and InferShape
sources do. With GCC, opkit compiles those headers once per compiler, simulator version and chip flags into
opkit's shared cache (``$OPKIT_CACHE_DIR/sim-pch/<key>/``, the headers' own relative paths with ``.gch``
appended) and puts that folder first on every package unit's include path. GCC looks there for ``<name>.gch``
when a unit's first ``#include`` names one of them, and only then.

The object a unit compiles to does not depend on it. The key of an object leaves the folder out. GCC uses a
precompiled header only as a unit's first include, only if it was made with the unit's options and the same
definitions of the macros it reads (a package's own ``-D`` that the simulator reads, another ``-std``), and
otherwise reads the header itself: a slower compile, never a different one. No declaration becomes visible
that the unit did not include: the precompiled header is the header the unit names first.

With clang, or when a header does not compile on its own, that header is not precompiled and units compile as
before. Precompiled headers nobody used for two weeks are dropped (``program.MAX_AGE_S``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from opkit import sim
from opkit.build.cache import digest, shared_dir, sim_digest
from opkit.build.program import MAX_AGE_S
from opkit.build.toolchain import Compiler

# What package units include first: a generated kernel entry (kernel_entry.shim_source), OpDef and InferShape sources
HEADERS = ("tikicpulib.h", "register/op_def_registry.h")
CACHE_SUBDIR = "sim-pch"
FAILED = ".failed"  # appended to a header's name: it did not compile with these flags (not tried again)

_lock = threading.Lock()  # one build of a header per process at a time (a harness's units compile in threads)
_pruned = False


def include_flags(cc: Compiler, flags: Sequence[str]) -> list[str]:
    """``-I`` of the folder holding ``HEADERS`` precompiled with ``flags`` (the simulator flags every unit for a
    chip starts with, :func:`opkit.build.program.sim_flags`), built now where missing; ``[]`` with clang."""
    if cc.kind != "gcc":
        return []
    root = shared_dir() / CACHE_SUBDIR
    folder = root / digest([], root, [cc.path, ".".join(map(str, cc.version)), sim_digest(), *flags])
    with _lock:
        _prune(root, keep=folder)
        for header in HEADERS:
            gch = folder / f"{header}.gch"
            if not gch.is_file() and not gch.with_name(gch.name + FAILED).is_file():
                _build(cc, flags, header, gch)
            try:
                os.utime(gch)  # in use: not pruned
            except OSError:
                pass
    return [f"-I{folder}"]


def _build(cc: Compiler, flags: Sequence[str], header: str, gch: Path) -> None:
    """Compile one header into ``gch`` (written atomically: two processes may build it at once), or leave the
    compiler's messages in ``<gch>.failed``."""
    gch.parent.mkdir(parents=True, exist_ok=True)
    tmp = gch.with_name(f"{gch.name}.tmp{os.getpid()}")
    r = subprocess.run([cc.path, *flags, "-x", "c++-header", str(sim.include_dir() / header), "-o", str(tmp)],
                       capture_output=True, text=True)
    if r.returncode != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        gch.with_name(gch.name + FAILED).write_text(r.stderr, encoding="utf-8")
        return
    tmp.replace(gch)


def _prune(root: Path, keep: Path) -> None:
    """Drop the precompiled headers of flags nobody built with for MAX_AGE_S (about 190 MB each); once per
    process."""
    global _pruned
    if _pruned or not root.is_dir():
        return
    _pruned = True
    now = time.time()
    for folder in root.iterdir():
        try:
            used = max(p.stat().st_mtime for p in [folder, *folder.rglob("*")])
        except (OSError, ValueError):
            continue
        if now - used > MAX_AGE_S and folder != keep:
            shutil.rmtree(folder, ignore_errors=True)
