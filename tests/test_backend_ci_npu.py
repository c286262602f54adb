"""`opkit ci init --npu`: the workflow for a self-hosted runner with CANN and an NPU, and its lint."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml


def test_npu_workflow_builds_installs_and_verifies(cli, tmp_path):
    out = tmp_path / "npu.yml"
    code, stdout, err = cli("ci", "init", "ops/examples/axpy_relu", "--npu", "--runner-label", "ascend910b",
                            "--set-env", "/opt/Ascend/set_env.sh", "--vendor", "acme", "--out", out)
    assert code == 0, stdout + err
    text = out.read_text()
    assert text.splitlines()[1] == ("# Written by: opkit ci init ops/examples/axpy_relu --npu --runner-label "
                                    "ascend910b --set-env /opt/Ascend/set_env.sh --vendor acme")
    job = yaml.safe_load(text)["jobs"]["npu"]
    assert job["runs-on"] == ["self-hosted", "linux", "ascend910b"]
    runs = [s.get("run", "") for s in job["steps"]]
    assert all(r.startswith("source /opt/Ascend/set_env.sh && source .venv/bin/activate") for r in runs[2:6])
    assert "opkit build ops/examples/axpy_relu --backend cann --vendor acme" in runs[3]
    assert 'opkit install "$op" --path "$RUNNER_TEMP/opp" --vendor acme' in runs[4]
    assert "opkit verify ops/examples/axpy_relu --out npu-verify --junit npu-verify/junit.xml" in runs[5]
    assert "opkit doctor" in runs[2] and "npu-smi info" in runs[2]
    exe = shutil.which("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (the dev extra installs it)")
    r = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_npu_workflow_over_every_package(cli, tmp_path):
    out = tmp_path / "npu.yml"
    code, stdout, err = cli("ci", "init", "--npu", "--out", out)
    assert code == 0, stdout + err
    job = yaml.safe_load(out.read_text())["jobs"]["npu"]
    assert job["runs-on"] == ["self-hosted", "linux", "npu"]
    assert "find ops -name op.yaml" in job["steps"][4]["run"]


@pytest.mark.parametrize("args,message", [
    (["--npu", "--runner-label", "a b"], "--runner-label 'a b'"),
    (["--npu", "--set-env", "set_env.sh"], "--set-env 'set_env.sh': give the absolute path"),
    (["--npu", "--python", "3.11"], "--npu: --shards, --python"),
    (["--runner-label", "npu"], "go with --npu"),
    (["--npu", "--vendor", "9x"], "--vendor '9x'"),
])
def test_bad_npu_options_exit_2(cli, tmp_path, args, message):
    code, stdout, err = cli("ci", "init", *args, "--out", tmp_path / "w.yml")
    assert code == 2 and message in err, stdout + err
    assert not (tmp_path / "w.yml").exists()
