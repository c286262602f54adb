"""A family's common sources (<family>/common/op_host, <family>/common/op_kernel): discovery leaves them out,
the sim build puts them on the include path and in the cache key, the CANN project carries a copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_cann import copy_package, make_fake_cann, needs_cmake, run_opkit

from opkit import discover
from opkit.backends import cann, cann_env, cann_project
from opkit.build import options
from opkit.errors import UsageError
from opkit.spec import load

KERNEL_HEADER = "#pragma once\nconstexpr int kFamKernelValue = 1;\n"
HOST_HEADER = "#pragma once\nconstexpr int kFamHostValue = 2;\n"


def family(tmp: Path) -> Path:
    """tmp/fam/axpy_relu (the example) whose kernel and tiling include a header of tmp/fam/common."""
    fam = tmp / "fam"
    fam.mkdir()
    pkg = copy_package(fam)
    (fam / "common" / "op_kernel").mkdir(parents=True)
    (fam / "common" / "op_host").mkdir()
    (fam / "common" / "op_kernel" / "fam_kernel.h").write_text(KERNEL_HEADER)
    (fam / "common" / "op_host" / "fam_host.h").write_text(HOST_HEADER)
    kernel = pkg / "op_kernel" / "axpy_relu.cpp"
    kernel.write_text('#include "fam_kernel.h"\nstatic_assert(kFamKernelValue == 1);\n' + kernel.read_text())
    tiling = pkg / "op_host" / "axpy_relu_tiling.cpp"
    tiling.write_text('#include "fam_host.h"\n#include "fam_kernel.h"\nstatic_assert(kFamHostValue == 2);\n'
                      + tiling.read_text())
    return pkg


def test_discovery_leaves_common_out(tmp_path):
    pkg = family(tmp_path)
    fam = pkg.parent
    # even an op.yaml somewhere inside common/ (a fixture, a template) does not make it a package
    (fam / "common" / "op_kernel" / "sample").mkdir()
    (fam / "common" / "op_kernel" / "sample" / "op.yaml").write_text((pkg / "op.yaml").read_text())
    assert discover.packages_under(fam) == [pkg]
    assert discover.resolve_ops([str(fam)], tmp_path) == [pkg]
    with pytest.raises(UsageError, match="family's common folder"):
        discover.find_package(str(fam / "common"), tmp_path)
    assert discover.family_common(pkg) == (fam / "common").resolve()
    assert discover.family_common_include_dirs(pkg) == [(fam / "common" / "op_kernel").resolve(),
                                                        (fam / "common" / "op_host").resolve()]
    (tmp_path / "alone").mkdir()
    alone = copy_package(tmp_path / "alone")  # no common/ beside it
    assert discover.family_common(alone) is None and options.package_build(load(alone)).common is None


def test_include_path_and_cache_key(tmp_path):
    pkg = family(tmp_path)
    common = (pkg.parent / "common").resolve()
    pb = options.package_build(load(pkg))
    assert pb.common == common
    assert [f for f in pb.flags if f.startswith("-I")] == [f"-I{common / 'op_kernel'}", f"-I{common / 'op_host'}"]
    assert set(pb.inputs) >= {common / "op_kernel" / "fam_kernel.h", common / "op_host" / "fam_host.h"}


def test_sim_build_includes_common_and_rebuilds_on_its_change(tmp_path):
    pkg = family(tmp_path)
    build = ["build", str(pkg), "--soc", "ascend910b2", "-j", "1"]  # one chip: the check needs no second
    first = run_opkit(build, _env())
    assert first.returncode == 0, first.stdout + first.stderr
    assert "built axpy_relu" in first.stdout
    same = run_opkit(build, _env())
    assert same.returncode == 0 and "built axpy_relu" not in same.stdout, same.stdout
    header = pkg.parent / "common" / "op_kernel" / "fam_kernel.h"
    header.write_text(KERNEL_HEADER + "// edited\n")
    again = run_opkit(build, _env())
    assert again.returncode == 0 and "built axpy_relu" in again.stdout, again.stdout + again.stderr
    header.write_text(KERNEL_HEADER.replace("= 1", "= 3"))  # the kernel's static_assert now fails
    broken = run_opkit(build, _env())
    assert broken.returncode != 0 and "op_kernel/axpy_relu.cpp:2:" in broken.stderr  # where the check sits
    assert "Traceback" not in broken.stderr


def _env() -> dict[str, str]:
    """The test session's environment and so its shared build cache: the simulator's harness objects are built
    once per session; the package's own objects are keyed by its (edited) sources, so they are built here."""
    import os

    return dict(os.environ)


def test_cann_project_carries_the_common_files(tmp_path):
    pkg = family(tmp_path)
    fake = make_fake_cann(tmp_path / "cann")
    proj = cann_project.write_project(load(pkg), cann_env.find(fake.env()))
    for rel in ("common/op_kernel/fam_kernel.h", "common/op_host/fam_host.h"):
        assert (proj.root / rel).read_text() == (pkg.parent / rel).read_text()
    host = (proj.root / "op_host" / "CMakeLists.txt").read_text()
    kernel = (proj.root / "op_kernel" / "CMakeLists.txt").read_text()
    inc = '"${CMAKE_CURRENT_SOURCE_DIR}/../common/op_kernel" "${CMAKE_CURRENT_SOURCE_DIR}/../common/op_host"'
    assert f"target_include_directories(cust_optiling PRIVATE {inc})" in host
    assert '"-I${CMAKE_CURRENT_SOURCE_DIR}/../common/op_kernel"' in kernel
    assert str(pkg.parent / "common") not in host + kernel  # the project's own copy, not the source tree
    files = json.loads((proj.root / "opkit-project.json").read_text())["files"]
    assert files["common/op_host/fam_host.h"] == str((pkg.parent / "common" / "op_host" / "fam_host.h").resolve())
    # a common file that leaves the family leaves the project
    (pkg.parent / "common" / "op_host" / "fam_host.h").unlink()
    again = cann_project.write_project(load(pkg), cann_env.find(fake.env()))
    assert "common/op_host/fam_host.h" in again.removed and not (proj.root / "common/op_host/fam_host.h").exists()


@needs_cmake
def test_cann_build_resolves_the_common_include(tmp_path):
    pkg = family(tmp_path)
    fake = make_fake_cann(tmp_path / "cann")
    r = run_opkit(["build", str(pkg), "--backend", "cann", "-j", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    proj = (pkg / ".opkit" / "cann" / "project").resolve()
    compiled = [c["argv"] for c in fake.calls("bisheng")]
    assert compiled
    for argv in compiled:  # the header the kernel includes is found through bisheng's -I, inside the project
        dirs = [Path(a[2:]).resolve() for a in argv if a.startswith("-I")]
        hits = [d / "fam_kernel.h" for d in dirs if (d / "fam_kernel.h").is_file()]
        assert hits and hits[0].is_relative_to(proj), argv


def test_map_paths_names_the_common_file():
    files = {"op_kernel/util.h": Path("/fam/pkg/op_kernel/util.h"),
             "common/op_kernel/util.h": Path("/fam/common/op_kernel/util.h")}
    text = ("/p/.opkit/cann/project/common/op_kernel/util.h:3:1: error: x\n"
            "/p/.opkit/cann/project/op_kernel/util.h:4:1: error: y")
    out = cann.map_paths(text, Path("/p/.opkit/cann/project"), files)
    assert out.splitlines() == ["/fam/common/op_kernel/util.h:3:1: error: x", "/fam/pkg/op_kernel/util.h:4:1: error: y"]
