"""opkit.build.pch: the simulator's headers precompiled once per chip flags, used by a unit only as its first
include and only where GCC finds them valid for the unit."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from opkit.build import pch
from opkit.build.program import MAX_AGE_S, sim_flags
from opkit.build.toolchain import Compiler, find_compiler

CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def gcc() -> Compiler:
    cc = find_compiler()
    if cc.kind != "gcc":
        pytest.skip(f"precompiled headers are GCC's; the compiler here is {cc.label}")
    return cc


def _used(cc: Compiler, flags: list[str], source: Path) -> list[str]:
    """The precompiled headers a compile of ``source`` reads (GCC's -H marks them with '!')."""
    r = subprocess.run([cc.path, *flags, "-H", "-fsyntax-only", str(source)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [line.split()[-1] for line in r.stderr.splitlines() if line.startswith("! ")]


def test_a_units_first_include_is_read_precompiled(gcc, tmp_path):
    flags = sim_flags(CHIP, compiler=gcc)
    inc = pch.include_flags(gcc, flags)  # the session's shared cache: built once for every test and build
    folder = Path(inc[0][2:])
    assert inc == [f"-I{folder}"] and folder.parent.name == pch.CACHE_SUBDIR
    for header in pch.HEADERS:
        assert (folder / f"{header}.gch").is_file(), header
    kernel = tmp_path / "kernel.cpp"
    kernel.write_text('#include "tikicpulib.h"\n#include "kernel_operator.h"\nint main() { return 0; }\n')
    assert _used(gcc, [*inc, *flags], kernel) == [str(folder / "tikicpulib.h.gch")]
    host = tmp_path / "host.cpp"
    host.write_text('#include "register/op_def_registry.h"\nint main() { return 0; }\n')
    assert _used(gcc, [*inc, *flags], host) == [str(folder / "register" / "op_def_registry.h.gch")]
    # Only as the first include: a unit that starts with something else parses the header itself.
    later = tmp_path / "later.cpp"
    later.write_text('#include <cstdint>\n#include "register/op_def_registry.h"\nint main() { return 0; }\n')
    assert _used(gcc, [*inc, *flags], later) == []
    # The same flags find the same files; nothing is rebuilt.
    stamps = {h: (folder / f"{h}.gch").stat().st_ino for h in pch.HEADERS}
    assert pch.include_flags(gcc, flags) == inc
    assert {h: (folder / f"{h}.gch").stat().st_ino for h in pch.HEADERS} == stamps


def test_a_unit_whose_macros_differ_reads_the_header_itself(gcc, tmp_path):
    flags = sim_flags(CHIP, compiler=gcc)
    inc = pch.include_flags(gcc, flags)
    kernel = tmp_path / "kernel.cpp"
    kernel.write_text('#include "tikicpulib.h"\nstatic_assert(OPKIT_SIM_UB_SIZE == 4096, "");\nint main() { return 0; }\n')
    other = [f for f in flags if not f.startswith("-DOPKIT_SIM_UB_SIZE=")] + ["-DOPKIT_SIM_UB_SIZE=4096"]
    assert _used(gcc, [*inc, *other], kernel) == []  # not valid for this unit: the real header, the unit's macro


def test_clang_gets_no_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_CACHE_DIR", str(tmp_path / "cache"))
    assert pch.include_flags(Compiler("/usr/bin/clang++", "clang", (17, 0)), ["-std=c++17"]) == []
    assert not (tmp_path / "cache" / pch.CACHE_SUBDIR).exists()


def test_a_header_that_does_not_compile_is_tried_once(gcc, tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pch, "HEADERS", ("tikicpulib.h",))
    runs = []
    real = subprocess.run

    def counted(*a, **k):
        runs.append(a[0])
        return real(*a, **k)

    monkeypatch.setattr(pch.subprocess, "run", counted)
    flags = ["-std=c++17", "-DOPKIT_SIM_L1_SIZE=oops"]  # no -I of the simulator: the header cannot compile
    inc = pch.include_flags(gcc, flags)
    folder = Path(inc[0][2:])
    assert len(runs) == 1 and not (folder / "tikicpulib.h.gch").exists()
    assert "tikicpulib.h" in (folder / "tikicpulib.h.gch.failed").read_text()
    assert pch.include_flags(gcc, flags) == inc and len(runs) == 1  # the failure is remembered


def test_folders_nobody_used_for_long_are_pruned(gcc, tmp_path, monkeypatch):
    root = tmp_path / "cache" / pch.CACHE_SUBDIR
    monkeypatch.setenv("OPKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pch, "_pruned", False)
    monkeypatch.setattr(pch, "_build", lambda cc, flags, header, gch: None)
    old, recent = root / "old", root / "recent"
    for d in (old, recent):
        (d / "register").mkdir(parents=True)
        (d / "register" / "op_def_registry.h.gch").write_bytes(b"x")
    stale = time.time() - MAX_AGE_S - 60
    for p in (old / "register" / "op_def_registry.h.gch", old / "register", old):
        os.utime(p, (stale, stale))
    pch.include_flags(gcc, ["-std=c++17"])
    assert not old.exists() and recent.is_dir()
