"""Verify reports: results.json, worst-element CSV, JUnit XML, terminal table."""

import csv
import json
import xml.etree.ElementTree as ET

import numpy as np

from opkit.verify.compare import compare
from opkit.verify.report import ERROR, FAIL, PASS, SKIP, CaseResult, table, write_json, write_junit, write_worst_csv


def results():
    g = np.linspace(-1, 1, 64)
    ok = compare("z", g.astype(np.float16), g, "float16")
    bad_a = g.astype(np.float16)
    bad_a[3] = np.nan
    bad_a[7] += np.float16(0.5)
    bad = compare("z", bad_a, g, "float16")
    return [
        CaseResult("axpy_relu", "smoke", "float16", "ascend910b2", {"x": [64]}, "mixed", PASS, "", [ok], 0.12,
                   {"modelled_us": 3.5, "efficiency": 0.81}),
        CaseResult("axpy_relu", "broken", "float16", "ascend910b2", {"x": [64]}, "mixed", FAIL, bad.reason, [bad],
                   0.2),
        CaseResult("axpy_relu", "crash", "bfloat16", "ascend910b2", {"x": [64]}, "mixed", ERROR,
                   "kernel aborted: UB overflow <&> \"quoted\"", [], 0.01),
        CaseResult("other_op", "later", "float32", "ascend910b2", {"x": [8]}, "mixed", SKIP, "tag full not selected"),
    ]


def test_json_is_strict_json_with_summary(tmp_path):
    rs = results()
    write_json(rs, tmp_path / "results.json", {"version": "x"})
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["summary"] == {"pass": 1, "fail": 1, "error": 1, "skip": 1}
    broken = doc["cases"][1]
    assert broken["id"] == "axpy_relu::broken[float16@ascend910b2]"
    out = broken["outputs"][0]
    assert out["nonfinite_mismatches"] == 1 and out["thresholds"]["profile"] == "mixed"
    assert out["worst"][0]["index"] == [3] and out["worst"][0]["actual"] == "nan"


def test_worst_csv(tmp_path):
    rs = results()
    path = write_worst_csv(rs[1], tmp_path / "worst")
    rows = list(csv.DictReader(path.open()))
    assert [r["index"] for r in rows[:2]] == ["[3]", "[7]"]
    assert rows[1]["output"] == "z" and float(rows[1]["abs_err"]) > 0.4
    assert rows[0]["thresholds"].startswith("mixed (float16): rtol=0.000976562, atol=0.000976562, pass_ratio=0.99")
    assert write_worst_csv(rs[0], tmp_path / "worst") is None


def test_junit_is_valid_and_counts(tmp_path):
    write_junit(results(), tmp_path / "r.xml")
    root = ET.parse(tmp_path / "r.xml").getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("4", "1", "1", "1")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"axpy_relu", "other_op"}
    cases = {c.get("name"): c for c in suites["axpy_relu"].findall("testcase")}
    assert cases["broken[float16@ascend910b2]"].find("failure") is not None
    assert "NaN/Inf" in cases["broken[float16@ascend910b2]"].find("failure").get("message")
    assert cases["crash[bfloat16@ascend910b2]"].find("error").get("message").endswith('<&> "quoted"')
    assert suites["other_op"].find("testcase").find("skipped") is not None


def test_table_renders_every_row():
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(table(results()))
    text = console.export_text()
    assert "modelled time" in text and "3.50 us" in text and "81%" in text
    for word in ("pass", "FAIL", "ERROR", "skip", "broken", "crash"):
        assert word in text


def test_threshold_lines_and_nonfinite_column():
    from rich.console import Console

    from opkit.verify.report import thresholds_lines

    rs = results()
    assert thresholds_lines(rs) == ["mixed (float16): rtol=0.000976562, atol=0.000976562, pass_ratio=0.99, "
                                    "hard_abs=0.1, hard_ulps=32"]
    console = Console(width=250, record=True)
    console.print(table(rs))
    text = console.export_text()
    assert "NaN/Inf diff" in text
    broken = next(line for line in text.splitlines() if "broken" in line)
    cells = [c.strip() for c in broken.split("│")]
    header = next(line for line in text.splitlines() if "NaN/Inf diff" in line)
    col = [c.strip() for c in header.split("┃")].index("NaN/Inf diff")
    assert cells[col] == "1"  # one NaN/Inf position differs, counted apart
