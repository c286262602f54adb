"""Layouts of plain tiling structs read from debug information (opkit.build.struct_layout): the probe's cached
object follows the headers a struct's members come from, not only the header that defines it."""

from __future__ import annotations

import shutil

import pytest

from opkit.build import toolchain
from opkit.build.struct_layout import plain_layouts

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")


def _write(tmp_path, nested_fields: str):
    common = tmp_path / "common" / "op_host"
    host = tmp_path / "pkg" / "op_host"
    common.mkdir(parents=True, exist_ok=True)
    host.mkdir(parents=True, exist_ok=True)
    (common / "shared_tiling.h").write_text(f"#pragma once\n#include <cstdint>\nstruct SharedPart {{ {nested_fields} }};\n")
    top = host / "op_tiling.h"
    top.write_text('#pragma once\n#include "shared_tiling.h"\nstruct OpTiling { uint32_t n; SharedPart part; };\n')
    return top, ["-std=c++17", f"-I{common}"]


def test_a_change_in_an_included_header_changes_the_layout(tmp_path):
    compiler = toolchain.find_compiler().path
    top, flags = _write(tmp_path, "uint32_t a;")
    layouts, notes = plain_layouts(["OpTiling"], [top], flags, compiler, tmp_path / "work")
    assert notes == []
    assert layouts["OpTiling"]["size"] == 8 and layouts["SharedPart"]["size"] == 4

    _write(tmp_path, "uint32_t a; uint64_t b;")  # the nested struct grows; the defining header is unchanged
    layouts, notes = plain_layouts(["OpTiling"], [top], flags, compiler, tmp_path / "work")
    assert notes == []
    assert layouts["SharedPart"]["size"] == 16
    assert [f["name"] for f in layouts["SharedPart"]["fields"]] == ["a", "b"]
    assert layouts["OpTiling"]["size"] == 24
