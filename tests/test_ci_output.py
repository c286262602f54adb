"""CI-readable output (item 5): without a TTY no wrapping, one line per case, a summary at the end;
results.json carries a schema_version and validates against the JSON Schema shipped in the package."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hostile import hostile_package, install_fake_sim

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


OFF_BY_ONE = """
import numpy as np


def axpy_relu(x, y, alpha=1.0):
    z = np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)
    if z.size == 7:
        z = z + 1.0  # a wrong golden for the case tiny: the case fails
    if z.size == 2048:
        z = z[:5]  # a golden of the wrong shape for smoke: an error
    return {"z": z}
"""


def test_piped_output_is_one_line_per_case_with_a_summary_at_the_end(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path, OFF_BY_ONE)
    code, out, err = cli("verify", pkg, "--dtype", "float32", "-k", "*", "--out", tmp_path / "res", cwd=tmp_path)
    assert code == 1, out + err
    lines = out.splitlines()
    assert not any(ch in out for ch in "┃│┏━╭"), out  # no table
    case_lines = [ln for ln in lines if ln.startswith("[")]
    assert len(case_lines) == 4  # smoke, odd_tail, tiny, special_values (multi_dim is bfloat16 only)
    for ln in case_lines:
        assert "::" in ln and "@ascend910b2]" in ln
    tiny = next(ln for ln in case_lines if "::tiny[" in ln)
    assert " FAIL " in tiny and "max_rel_err=" in tiny and "-- z:" in tiny and len(tiny) > 80  # not wrapped
    smoke = next(ln for ln in case_lines if "::smoke[" in ln)
    assert " ERROR " in smoke and "returned 'z' with shape [5]" in smoke
    assert lines[-1].startswith("  worst elements:") or "passed" in lines[-1]
    summary = next(ln for ln in lines if " passed, " in ln)
    assert summary.startswith("2 passed, 1 failed, 1 errors; results:")
    assert lines.index(summary) > max(lines.index(ln) for ln in case_lines)


def test_results_json_validates_against_the_shipped_schema(cli, tmp_path, fake_sim):
    from opkit.verify.report import SCHEMA_VERSION, schema_path

    pkg = hostile_package(tmp_path, OFF_BY_ONE)
    code, out, err = cli("verify", pkg, "--out", tmp_path / "res", cwd=tmp_path)
    assert code == 1, out + err
    doc = json.loads((tmp_path / "res" / "results.json").read_text())
    assert doc["schema_version"] == SCHEMA_VERSION == 1
    assert {c["status"] for c in doc["cases"]} == {"pass", "fail", "error"}
    schema = json.loads(schema_path().read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    failed = next(c for c in doc["cases"] if c["status"] == "fail")
    assert failed["outputs"][0]["worst"], "a failed case lists its worst elements"
    broken = dict(doc, cases=[dict(doc["cases"][0], status="green")])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft202012Validator)


def test_the_schema_is_documented():
    from opkit.verify.report import schema_path

    text = (ROOT / "docs" / "results.md").read_text()
    schema = json.loads(schema_path().read_text())
    for key in [*schema["properties"], *schema["$defs"]["case"]["properties"]]:
        assert f"`{key}`" in text, key
