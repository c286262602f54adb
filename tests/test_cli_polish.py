"""CLI polish (item 6): run and perf default OP to the package containing the current directory, the guide's
commands work as written from inside a package, help lists every template and shows no Python types,
shell completion is installable."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hostile import hostile_package, install_fake_sim

from opkit.paths import template_names

COMMANDS = [["new"], ["list"], ["spec", "check"], ["spec", "schema"], ["import-msopgen"], ["export-msopgen"],
            ["build"], ["verify"], ["run"], ["perf"], ["doctor"], []]


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


def test_run_defaults_to_the_package_containing_the_current_directory(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path)
    (pkg / "op_host").mkdir(exist_ok=True)
    code, out, err = cli("run", "--case", "tiny", "--out", "smoke.npz", cwd=pkg / "op_host")
    assert code == 0, out + err
    data = np.load(pkg / "op_host" / "smoke.npz")
    assert np.allclose(data["z"], np.maximum(data["x"] + 2.0 * data["y"], 0))
    # the getting-started guide's command, from inside the package: the bare name is the package itself
    code, out, err = cli("run", "axpy_relu", "--case", "tiny", "--out", "again.npz", cwd=pkg)
    assert code == 0, out + err


def test_perf_defaults_to_the_enclosing_package(cli, tmp_path):
    pkg = hostile_package(tmp_path)
    code, out, err = cli("perf", "--case", "no_such_case", cwd=pkg)
    assert code == 2 and "axpy_relu has no case 'no_such_case'" in err and "Traceback" not in out + err
    code, out, err = cli("perf", cwd=pkg)
    assert code == 2 and "give --case NAME" in err


def test_run_and_perf_outside_any_package_say_what_to_do(cli, tmp_path):
    (tmp_path / "ops" / "a").mkdir(parents=True)
    (tmp_path / "ops" / "b").mkdir(parents=True)
    hostile_package(tmp_path / "ops" / "a")
    hostile_package(tmp_path / "ops" / "b")
    code, out, err = cli("run", "--case", "tiny", "--out", "o.npz", cwd=tmp_path)
    assert code == 2 and "run acts on one package; 2 found (" in err
    code, out, err = cli("perf", "--case", "tiny", cwd=tmp_path / "ops")
    assert code == 2 and "no operator package here" in err


def test_new_help_lists_every_template(cli):
    code, out, _ = cli("new", "--help")
    assert code == 0
    flat = " ".join(out.split())
    for name in template_names():
        assert name in flat
    assert set(template_names()) >= {"vector", "reduce", "cube", "mix"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "opkit")
def test_help_shows_no_python_types(cli, command):
    code, out, _ = cli(*command, "--help")
    assert code == 0
    assert not re.search(r"<(str|int|float|path|bool|list\[str\])>|\b(INTEGER|FLOAT|TEXT|PATH|BOOLEAN)\b", out), out


def test_shell_completion_is_installable(cli):
    code, out, _ = cli("--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out
    code, out, _ = cli("--show-completion", "bash")
    assert code == 0 and "_OPKIT_COMPLETE" in out and "complete" in out


def test_the_guarantees_and_exit_codes_are_documented():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cli_md = (root / "docs" / "cli.md").read_text()
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 130 |"):
        assert code in cli_md
    readme = (root / "README.md").read_text()
    section = readme.split("## Error handling", 1)[1].split("\n## ", 1)[0]
    for promise in ("never a traceback", "guarded", "--timeout", "nothing was verified", "--force",
                    ".opkit/backup/", "schema_version", "OPKIT_MAX_CASE_MEMORY"):
        assert promise in section, promise
