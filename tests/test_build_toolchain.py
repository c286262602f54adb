"""Compiler discovery, compiler-error reporting and content hashing."""

import os
import stat

import pytest

from opkit.build.cache import digest, tree_files
from opkit.build.toolchain import BuildError, _version, explain_failure, find_compiler


def test_finds_a_cxx17_compiler():
    c = find_compiler()
    assert c.kind in ("gcc", "clang") and c.version[0] >= 9
    assert os.path.isfile(c.path)


def fake_compiler(tmp_path, text):
    exe = tmp_path / "fakecxx"
    exe.write_text(f"#!/bin/sh\necho '{text}'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def test_too_old_or_missing_compiler_is_a_clear_error(tmp_path):
    old = fake_compiler(tmp_path, "g++ (GCC) 7.5.0")
    assert _version(old) == ("gcc", (7, 5, 0))
    with pytest.raises(BuildError, match="opkit needs gcc >= 9"):
        find_compiler.__wrapped__(old)
    with pytest.raises(BuildError, match="'no-such-cxx' not found"):
        find_compiler.__wrapped__("no-such-cxx")


def test_compiler_errors_are_shown_against_the_users_file(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "op_kernel").mkdir(parents=True)
    src = pkg / "op_kernel" / "k.cpp"
    src.write_text("int main() { return undefined_name; }\n")
    import subprocess

    r = subprocess.run([find_compiler().path, "-std=c++17", "-c", str(src), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode != 0
    text = explain_failure(r.stderr, pkg)
    assert text.startswith("op_kernel/k.cpp:1:") and "error" in text and "undefined_name" in text
    assert explain_failure("ld: something odd\n", pkg) == "ld: something odd"


def test_digest_tracks_content_names_and_flags(tmp_path):
    (tmp_path / "a.cpp").write_text("int a;")
    (tmp_path / "b.h").write_text("int b;")
    (tmp_path / "notes.txt").write_text("ignored")
    (tmp_path / ".opkit").mkdir()
    (tmp_path / ".opkit" / "gen.cpp").write_text("ignored")
    files = tree_files(tmp_path)
    assert [f.name for f in files] == ["a.cpp", "b.h"]
    d0 = digest(files, tmp_path, ["-O2"])
    assert digest(files, tmp_path, ["-O2"]) == d0
    assert digest(files, tmp_path, ["-O3"]) != d0
    (tmp_path / "b.h").write_text("int b2;")
    assert digest(files, tmp_path, ["-O2"]) != d0


def test_f16c_probe_is_remembered_per_compiler(tmp_path, monkeypatch):
    import opkit.build.toolchain as tc

    monkeypatch.setenv("OPKIT_CACHE_DIR", str(tmp_path))
    calls = []
    monkeypatch.setattr(tc, "_compiles", lambda path, flags, src: calls.append(path) or True)
    cc = tc.find_compiler().path
    assert tc._probe_f16c(cc) is True and tc._probe_f16c(cc) is True
    assert calls == [cc]
    assert (tmp_path / "compilers.json").is_file()
