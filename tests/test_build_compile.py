"""opkit.build.program: C++ programs compiled against the simulator, cached by content."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from opkit.build import program, sim_backend
from opkit.build.program import Source, compile_program
from opkit.build.toolchain import BuildError
from opkit.spec import load

ROOT = Path(__file__).resolve().parents[1]

MAIN = """#include <cstdio>
#include "value.h"
int main() { std::printf("%d %d\\n", VALUE, EXTRA); return 0; }
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_CACHE_DIR", str(tmp_path / "cache"))


def _program(tmp_path: Path, value: int = 1) -> Path:
    d = tmp_path / "src"
    d.mkdir(exist_ok=True)
    (d / "value.h").write_text(f"#define VALUE {value}\n")
    (d / "main.cpp").write_text(MAIN)
    return d / "main.cpp"


def _run(exe: Path) -> str:
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip()


def test_second_call_takes_the_cached_program(tmp_path):
    src = _program(tmp_path)
    first = compile_program([src], defines=["EXTRA=7"], opt="-O0")
    assert first.built and first.compiled == first.objects
    assert _run(first.exe) == "1 7"
    stamps = [p.stat().st_mtime_ns for p in (first.exe, *first.objects)]
    inodes = [p.stat().st_ino for p in (first.exe, *first.objects)]
    again = compile_program([src], defines=["EXTRA=7"], opt="-O0")
    assert not again.built and again.compiled == []
    assert again.exe == first.exe and again.objects == first.objects
    assert [p.stat().st_ino for p in (again.exe, *again.objects)] == inodes  # not rewritten
    assert [p.stat().st_mtime_ns for p in (again.exe, *again.objects)] >= stamps
    # Other defines are another program.
    other = compile_program([src], defines=["EXTRA=8"], opt="-O0")
    assert other.built and other.exe != first.exe and _run(other.exe) == "1 8"


def test_a_header_beside_the_source_is_part_of_the_key(tmp_path):
    src = _program(tmp_path, value=1)
    first = compile_program([src], defines=["EXTRA=0"], opt="-O0")
    (src.parent / "value.h").write_text("#define VALUE 2\n")
    second = compile_program([src], defines=["EXTRA=0"], opt="-O0")
    assert second.built and second.exe != first.exe
    assert _run(second.exe) == "2 0"


def test_a_header_in_an_include_folder_is_part_of_the_key(tmp_path):
    inc = tmp_path / "inc" / "nested"
    inc.mkdir(parents=True)
    (inc / "extra.h").write_text("#define EXTRA 5\n")
    src = tmp_path / "prog.cpp"
    src.write_text('#include <cstdio>\n#include "nested/extra.h"\nint main() { std::printf("%d\\n", EXTRA); }\n')
    first = compile_program([src], include_dirs=[tmp_path / "inc"], opt="-O0")
    assert _run(first.exe) == "5"
    (inc / "extra.h").write_text("#define EXTRA 6\n")
    second = compile_program([src], include_dirs=[tmp_path / "inc"], opt="-O0")
    assert second.built and _run(second.exe) == "6"
    # An -I given among the flags counts the same.
    (inc / "extra.h").write_text("#define EXTRA 9\n")
    third = compile_program([src], flags=[f"-I{tmp_path / 'inc'}"], opt="-O0")
    assert third.built and _run(third.exe) == "9"


def test_deps_and_the_simulator_flags(tmp_path):
    data = tmp_path / "table.inc"
    data.write_text("3\n")
    src = tmp_path / "prog.cpp"
    src.write_text('#include <cstdio>\nint main() { std::printf("%d %s\\n", \n#include "table.inc"\n, OPKIT_SIM_SOC); }\n')
    a = compile_program([src], chip="ascend910b2", deps=[data], opt="-O0")
    assert _run(a.exe) == "3 ascend910b2"
    assert not compile_program([src], chip="ascend910b2", deps=[data], opt="-O0").built
    b = compile_program([src], chip="ascend310p", deps=[data], opt="-O0")  # the chip's soc_defines
    assert b.exe != a.exe and _run(b.exe).startswith("3 ascend310p")
    data.write_text("4\n")  # a dependency changed
    c = compile_program([src], chip="ascend910b2", deps=[data], opt="-O0")
    assert c.built and _run(c.exe) == "4 ascend910b2"


def test_units_of_a_program_and_shared_objects(tmp_path):
    (tmp_path / "lib.cpp").write_text("int scale() { return SCALE; }\n")
    (tmp_path / "main.cpp").write_text('#include <cstdio>\nint scale();\nint main() { std::printf("%d\\n", scale()); }\n')
    p1 = compile_program([Source(tmp_path / "lib.cpp", defines=("SCALE=3",)), tmp_path / "main.cpp"], name="p1", opt="-O0")
    assert _run(p1.exe) == "3" and len(p1.compiled) == 2
    p2 = compile_program([Source(tmp_path / "lib.cpp", defines=("SCALE=4",)), tmp_path / "main.cpp"], name="p2", opt="-O0")
    assert _run(p2.exe) == "4"
    assert p2.objects[1] == p1.objects[1] and p2.compiled == [p2.objects[0]]  # main.o is shared


def test_a_compile_error_is_one_clear_error(tmp_path):
    src = tmp_path / "bad.cpp"
    src.write_text("int main() {\n    return undeclared_name;\n}\n")
    with pytest.raises(BuildError) as err:
        compile_program([src], opt="-O0")
    msg = err.value.message
    assert msg.startswith("bad: compiling bad.cpp failed:")
    assert "bad.cpp:2:" in msg and "error:" in msg and "undeclared_name" in msg
    assert "Traceback" not in msg
    assert not list((tmp_path / "cache").rglob("bad-*.o"))  # nothing half-written is cached
    with pytest.raises(BuildError, match="no such source file"):
        compile_program([tmp_path / "missing.cpp"])


def test_warnings_are_kept_with_the_object(tmp_path):
    src = tmp_path / "warn.cpp"
    src.write_text("int main() { int unused = 0; return 0; }\n")
    prog = compile_program([src], flags=["-Wall"], opt="-O0")
    out = prog.compiler_output()
    assert "unused" in out[prog.objects[0]]
    quiet = compile_program([src], opt="-O0")
    assert quiet.compiler_output()[quiet.objects[0]] == ""


def test_check_syntax_reports_without_building(tmp_path):
    src = tmp_path / "snippet.cpp"
    src.write_text('#include "kernel_operator.h"\nint f() { return AscendC::NoSuchThing; }\n')
    r = program.check_syntax(src)
    assert r.returncode != 0 and "NoSuchThing" in r.stderr
    src.write_text('#include "kernel_operator.h"\nint f() { return 0; }\n')
    assert program.check_syntax(src).returncode == 0


def test_harness_objects_follow_the_harness_headers(tmp_path, monkeypatch):
    """A package's harness objects are keyed by the harness main and every header beside it."""
    host = tmp_path / "host"
    shutil.copytree(ROOT / "opkit" / "sim" / "host", host, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    monkeypatch.setattr(sim_backend, "_host_dir", lambda: host)
    spec = load(ROOT / "ops" / "examples" / "axpy_relu")

    def harness_objects():
        units = sim_backend.plan(spec, "ascend910b2", 0).units
        return sorted(u.obj.name for u in units if u.source.parent == host)

    before = harness_objects()
    assert before and all(name.startswith("harness-harness_main-") for name in before)
    assert harness_objects() == before
    (host / "harness_request.h").write_text((host / "harness_request.h").read_text() + "\n// changed\n")
    assert harness_objects() != before


def test_programs_unused_for_long_are_pruned(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.setattr(program, "_pruned", set())
    src = _program(tmp_path)
    kept = compile_program([src], defines=["EXTRA=1"], opt="-O0")
    stale = kept.exe.parent.parent / "obj" / "gone-0123.o"
    stale.write_bytes(b"")
    old = time.time() - program.MAX_AGE_S - 3600
    os.utime(stale, (old, old))
    os.utime(kept.exe, (old, old))  # the executable unused for long; its objects were used just now
    monkeypatch.setattr(program, "_pruned", set())
    again = compile_program([src], defines=["EXTRA=1"], opt="-O0")
    assert not stale.exists()
    assert again.exe == kept.exe and again.built  # the pruned program was linked again from its kept objects
    assert _run(again.exe) == "1 1" and time.time() - again.exe.stat().st_mtime < 3600


def test_generated_sources_are_named_by_content(tmp_path):
    text = '#include <cstdio>\nint main() { std::printf("gen\\n"); }\n'
    a = program.write_source(text, "gen")
    assert program.write_source(text, "gen") == a and a.read_text() == text
    b = program.write_source(text.replace("gen", "other"), "gen")
    assert b != a and a.is_file()
    assert _run(compile_program([a], opt="-O0").exe) == "gen"
