"""The CLI imports its heavy dependencies lazily, so `opkit --help` starts fast (timed in benchmarks/cli.py)."""

import subprocess
import sys

HEAVY = ("numpy", "jsonschema", "cookiecutter", "jinja2", "yaml", "ml_dtypes", "rich.table")


def test_help_imports_no_heavy_module():
    code = ("import sys\nfrom opkit.cli import app\n"
            "try:\n    app(['--help'], prog_name='opkit')\nexcept SystemExit:\n    pass\n"
            f"print('LOADED:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "Usage: opkit" in r.stdout
    loaded = r.stdout.split("LOADED:")[1].strip()
    assert loaded == "", f"opkit --help imported {loaded}"


def test_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "opkit", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("opkit ")
