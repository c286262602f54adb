"""op.yaml build options as the sim backend applies them (no compiling here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opkit.build import options
from opkit.errors import UsageError
from opkit.spec import load

SPEC = """name: demo_op
family: t
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float32], shape: [N]}
outputs:
  - {name: y, dtypes: [float32], shape: [N]}
golden: golden.py:f
cases:
  - {name: a, shapes: {x: [8]}}
"""


def _package(tmp_path: Path, build: str = "") -> Path:
    pkg = tmp_path / "lib" / "demos" / "demo_op"
    for rel in ("op_host/demo_op_def.cpp", "op_host/op_tiling/demo_op_tiling.cpp", "op_host/op_tiling/arch35/t.cpp",
                "op_host/fallback_demo_op.cpp", "op_host/op_api/aclnn_demo_op.cpp", "op_host/tests/ut.cpp",
                "op_kernel/demo_op.cpp", "op_kernel/demo_op_tiling_key.h"):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("// " + rel + "\n")
    common = tmp_path / "lib" / "common"
    (common / "include" / "base").mkdir(parents=True)
    (common / "include" / "base" / "flow.h").write_text("#pragma once\n")
    (common / "src").mkdir()
    for name in ("a.cpp", "b.cpp"):
        (common / "src" / name).write_text("// shared\n")
    (pkg / "golden.py").write_text("def f(x):\n    return {'y': x}\n")
    (pkg / "op.yaml").write_text(SPEC + build)
    return pkg


def _rel(pkg: Path, paths: list[Path]) -> list[str]:
    return [p.relative_to(pkg).as_posix() for p in paths]


def test_host_sources_are_found_recursively_without_the_aclnn_and_graph_layers(tmp_path):
    pkg = _package(tmp_path)
    kept, left = options.host_sources(load(pkg))
    assert _rel(pkg, kept) == ["op_host/demo_op_def.cpp", "op_host/op_tiling/arch35/t.cpp",
                               "op_host/op_tiling/demo_op_tiling.cpp"]
    assert _rel(pkg, left) == ["op_host/fallback_demo_op.cpp", "op_host/op_api/aclnn_demo_op.cpp",
                               "op_host/tests/ut.cpp"]


def test_host_exclude_replaces_the_default(tmp_path):
    pkg = _package(tmp_path, "build:\n  host_exclude: ['arch35', 'op_tiling/demo_*']\n")
    kept, _ = options.host_sources(load(pkg))
    assert "op_host/fallback_demo_op.cpp" in _rel(pkg, kept) and "op_host/op_api/aclnn_demo_op.cpp" in _rel(pkg, kept)
    assert not any("op_tiling" in r for r in _rel(pkg, kept))


def test_sources_includes_and_aliases_become_flags_and_inputs(tmp_path):
    pkg = _package(tmp_path, "build:\n  include_dirs: [../../common/include]\n"
                             "  include_aliases: {demo/demo_op: .}\n"
                             "  sources: [../../common/src/*.cpp, op_host/demo_op_def.cpp]\n"
                             "  defines: [A=1]\n  flags: [-Wno-unused]\n")
    pb = options.package_build(load(pkg))
    names = [p.name for p in pb.host_sources]
    assert names.count("demo_op_def.cpp") == 1 and names[-2:] == ["a.cpp", "b.cpp"]
    common = (tmp_path / "lib" / "common").resolve()
    assert f"-I{common / 'include'}" in pb.flags and "-DA=1" in pb.flags and "-Wno-unused" in pb.flags
    assert common / "include" / "base" / "flow.h" in pb.inputs and common / "src" / "a.cpp" in pb.inputs
    alias = next(Path(f[2:]) for f in pb.flags if ".opkit/include-alias" in f)
    fwd = alias / "demo" / "demo_op" / "op_kernel" / "demo_op_tiling_key.h"
    assert f'#include "{(pkg / "op_kernel" / "demo_op_tiling_key.h").resolve().as_posix()}"' in fwd.read_text()
    assert not (alias / "demo" / "demo_op" / ".opkit").exists()  # the build folder is not forwarded


def test_a_missing_path_is_a_usage_error_at_build_time(tmp_path):
    from opkit.spec import load_string

    pkg = _package(tmp_path)
    spec = load_string(SPEC + "build:\n  include_aliases: {x/y: ../nowhere}\n", file=str(pkg / "op.yaml"))
    with pytest.raises(UsageError, match=r"build.include_aliases.x/y: alias folder '../nowhere' does not exist"):
        options.package_build(spec)
