from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The operator folders under fixtures/ and sim_host/cpp/ops/ are built and verified by the tests that use them
# (test_fixture_layouts.py, test_adopt.py, sim_host/), not collected as op.yaml items by opkit's pytest plugin.
collect_ignore_glob = ["fixtures/*", "sim_host/cpp/*"]


@pytest.fixture
def cli():
    """Run the opkit CLI in-process; returns (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from opkit.cli import app

    runner = CliRunner()

    def run(*args: str, cwd: Path | None = None, input: str | None = None):
        import os

        old = os.getcwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            r = runner.invoke(app, [str(a) for a in args], input=input, catch_exceptions=False)
        finally:
            os.chdir(old)
        return r.exit_code, r.stdout, r.stderr

    return run


@pytest.fixture
def axpy_text() -> str:
    from opkit.scaffold.new import default_spec_text

    return default_spec_text("vector", "axpy_relu", "examples")
