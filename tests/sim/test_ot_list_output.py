"""A dynamic (list) output, as ops-transformer's grouped_matmul has (`y`): the harness gives the kernel a
ListTensorDesc block of one GM tensor per entry (as many as the first list input has, each shaped by InferShape),
writes each tensor back, and verify compares them one by one with the golden's list (tests/fixtures/api/list_scale)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "api" / "list_scale"


def _verify(cli, pkg: Path, out: Path):
    code, stdout, stderr = cli("verify", pkg, "--soc", "ascend910b2", "-j", "1", "--out", out, "--force")
    return code, stdout + stderr, (json.loads((out / "results.json").read_text())["cases"]
                                   if (out / "results.json").is_file() else [])


def test_list_output_tensors_are_written_and_compared_one_by_one(cli, tmp_path):
    pkg = tmp_path / "list_scale"
    shutil.copytree(FIXTURE, pkg)
    code, text, cases = _verify(cli, pkg, tmp_path / "v")
    assert code == 0, text
    (case,) = cases
    assert case["status"] == "pass"
    assert [(o["name"], o["shape"]) for o in case["outputs"]] == [("ys[0]", [64]), ("ys[1]", [128]), ("ys[2]", [256])]


def test_a_wrong_list_output_tensor_fails_by_its_index(cli, tmp_path):
    pkg = tmp_path / "list_scale"
    shutil.copytree(FIXTURE, pkg)
    golden = pkg / "golden.py"  # the golden gets the third tensor wrong: only ys[2] may fail
    golden.write_text(golden.read_text().replace("return {\"ys\": [scale * x for x in xs]}",
                                                 "ys = [scale * x for x in xs]\n    ys[2] = ys[2] + 1.0\n"
                                                 "    return {\"ys\": ys}"))
    code, text, cases = _verify(cli, pkg, tmp_path / "v")
    assert code != 0 and "Traceback" not in text
    (case,) = cases
    assert case["status"] == "fail"
    assert [o["name"] for o in case["outputs"] if not o["passed"]] == ["ys[2]"]
    assert "ys[2]" in case["message"] and "ys[0]" not in case["message"]
