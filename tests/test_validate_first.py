"""Output paths, numeric options and resource sizes are checked before any case runs; what is left of
OSError and MemoryError is one message and exit 2 (item 2)."""

from __future__ import annotations

import time

import pytest
from hostile import hostile_package, install_fake_sim

from opkit.errors import SpecError
from opkit.spec import load
from opkit.spec.yamlio import load_text
from opkit.verify.pipeline import Selection, verify_spec


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


@pytest.mark.parametrize("args, expect", [
    (["--timeout", "-1"], "--timeout -1: must be a number of seconds > 0"),
    (["--timeout", "0"], "--timeout 0: must be"),
    (["--timeout", "nan"], "--timeout nan: must be"),
    (["-j", "0"], "--jobs 0: must be at least 1"),
    (["--sweep", "--sweep-values", "0"], "--sweep-values 0: must be at least 1"),
    (["--max-case-memory", "lots"], "--max-case-memory 'lots': expected a size"),
    (["--junit", "."], "--junit .: is a folder"),
])
def test_bad_options_are_refused_before_any_case_runs(cli, tmp_path, fake_sim, args, expect):
    pkg = hostile_package(tmp_path)
    code, out, err = cli("verify", pkg, "-k", "tiny", "--out", tmp_path / "res", *args, cwd=tmp_path)
    assert code == 2 and expect in err and "Traceback" not in out + err, out + err
    assert fake_sim.runs == []


def test_out_naming_a_file_is_refused_before_any_case_runs(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path)
    (tmp_path / "res").write_text("a file, not a folder")
    code, out, err = cli("verify", pkg, "-k", "tiny", "--out", tmp_path / "res", cwd=tmp_path)
    assert code == 2 and "is a file, not a folder" in err and "Traceback" not in out + err
    assert fake_sim.runs == []


def test_run_and_perf_check_their_options_too(cli, tmp_path):
    pkg = hostile_package(tmp_path)
    code, _, err = cli("run", pkg, "--case", "tiny", "--out", tmp_path / "o.npz", "--timeout", "-5")
    assert code == 2 and "--timeout -5" in err
    code, _, err = cli("perf", pkg, "--case", "tiny", "--timeout", "0")
    assert code == 2 and "--timeout 0" in err


def test_a_case_too_large_for_the_machine_is_refused_with_its_size(tmp_path, monkeypatch):
    from hostile import FakeSim

    pkg = hostile_package(tmp_path)
    text = (pkg / "op.yaml").read_text().replace("shapes: {x: [7], y: [7]}", "shapes: {x: [100000, 1000000], "
                                                 "y: [100000, 1000000]}")
    (pkg / "op.yaml").write_text(text)
    (r,) = verify_spec(load(pkg), FakeSim(), Selection(keyword="tiny", dtype="float32"))
    assert r.status == "error" and "case 'tiny' needs about 2.2 TB for its inputs alone" in r.message
    assert "x [100000, 1000000] float32" in r.message and "--max-case-memory" in r.message
    monkeypatch.setenv("OPKIT_MAX_CASE_MEMORY", "1k")
    (r,) = verify_spec(load(pkg), FakeSim(), Selection(keyword="smoke", dtype="float32"))
    assert r.status == "error" and "more than the limit of 1.0 kB (OPKIT_MAX_CASE_MEMORY)" in r.message


def test_sizes_parse():
    from opkit.run.limits import parse_size

    assert parse_size("8G", "x") == 8 << 30 and parse_size("512MiB", "x") == 512 << 20
    assert parse_size("1000", "x") == 1000 and parse_size("1.5k", "x") == 1536


def test_yaml_alias_bombs_and_huge_documents_are_refused_quickly():
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
        prev = name
    t0 = time.process_time()
    with pytest.raises(SpecError, match="expands to more than 200000 values"):
        load_text("\n".join(lines) + "\n", "bomb.yaml")
    assert time.process_time() - t0 < 30  # bounded work: 10^9 values were never built
    with pytest.raises(SpecError, match="bomb.yaml:1: the document is .* characters long"):
        load_text("x: " + "a" * (5 << 20) + "\n", "bomb.yaml")


def test_spec_check_of_an_alias_bomb_is_one_message(cli, tmp_path):
    pkg = tmp_path / "bomb"
    pkg.mkdir()
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
    (pkg / "op.yaml").write_text("\n".join(lines) + "\n")
    code, out, err = cli("spec", "check", pkg)
    assert code == 2 and "expands to more than" in err and "Traceback" not in out + err


def test_an_os_error_left_over_is_one_message_and_exit_2(cli, tmp_path, monkeypatch):
    import opkit.spec.schema

    def denied():
        raise PermissionError(13, "Permission denied", "/somewhere/op.schema.json")

    monkeypatch.setattr(opkit.spec.schema, "schema_text", denied)
    code, out, err = cli("spec", "schema")
    assert code == 2 and "/somewhere/op.schema.json: Permission denied" in err and "Traceback" not in out + err

    def no_memory():
        raise MemoryError

    monkeypatch.setattr(opkit.spec.schema, "schema_text", no_memory)
    code, out, err = cli("spec", "schema")
    assert code == 2 and "out of memory" in err
