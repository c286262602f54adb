"""`opkit perf` on a multi-rank package (tests/fixtures/mc2/rank_sum): compute, communication, serial, fused and
saving in text and JSON, one timeline with every rank's cores and an HCCL track per rank; the multi-rank options'
user errors end in one clear message (figures are modelled; nothing here asserts a time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import fresh_copy

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "tests" / "fixtures" / "mc2" / "rank_sum"
ROPE = ROOT / "ops" / "posembedding" / "interleave_rope"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    return fresh_copy(PKG, tmp_path_factory.mktemp("mc2") / "rank_sum")


def _clean_error(code: int, out: str, err: str, text: str) -> None:
    assert code != 0
    assert text in err, err
    assert "Traceback" not in out + err


@pytest.mark.slow
@pytest.mark.parametrize("trace_only", [False, True])
def test_a_multi_rank_run_reports_the_overlap(cli, pkg, tmp_path, trace_only):
    tl, js = tmp_path / "tl.json", tmp_path / "perf.json"
    args = ["perf", str(pkg), "--case", "smoke.r4", "--trace", str(tl), "--json", str(js)]
    code, out, err = cli(*args, *(["--trace-only"] if trace_only else []))
    assert code == 0, err
    for line in ("4 ranks on ascend910b2: mesh of ascend910b", "compute ", "communication ", "serial sum ",
                 "perfect overlap ", "fused (modelled) ", "saving ", "AllReduce #0 (fp32): 4 slice(s) of 128 bytes"):
        assert line in out, out
    assert ("trace-only run" in out) == trace_only
    rec = json.loads(js.read_text())
    perf = rec["perf"]
    assert perf["label"] == "modelled" and perf["ranks"] == 4
    assert perf["serial_us"] == pytest.approx(perf["compute_us"] + perf["comm_us"])
    assert perf["saving"] == pytest.approx(1 - perf["fused_us"] / perf["serial_us"])
    assert [(s["handle"], s["slice"]) for s in perf["slices"]] == [(0, i) for i in range(4)]
    assert perf["link"]["topology"] == "mesh"
    doc = json.loads(tl.read_text())
    names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "process_name"}
    for r in range(4):
        assert f"rank {r} HCCL" in names.values()
        assert f"rank {r} AIV 0" in names.values() and f"rank {r} AIV 1" in names.values()
    hccl_pids = {pid for pid, n in names.items() if n.endswith(" HCCL")}
    slices = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] in hccl_pids]
    assert len(slices) == 4 * 4 and {e["name"] for e in slices} == {f"AllReduce #0.{i}" for i in range(4)}
    waits = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"].startswith("Hccl::Wait")]
    assert len(waits) == 4 * 4
    for w in waits:  # a Wait ends once its slice has landed
        h_i = w["name"].split("#")[1]
        land = next(e for e in slices if e["name"].endswith(h_i) and e["pid"] // 1000 == w["pid"] // 1000)
        assert w["ts"] + w["dur"] >= land["ts"] + land["dur"] - 1e-6
    assert doc["otherData"]["label"] == "modelled" and doc["otherData"]["ranks"] == 4


@pytest.mark.slow
def test_world_size_overrides_the_cases(cli, pkg, tmp_path):
    js = tmp_path / "perf.json"
    code, out, err = cli("perf", str(pkg), "--case", "smoke.r4", "--world-size", "2", "--trace-only", "--json", str(js))
    assert code == 0, err
    assert "2 ranks on ascend910b2" in out
    assert json.loads(js.read_text())["perf"]["ranks"] == 2


def test_world_size_on_a_single_rank_package_is_refused(cli):
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--world-size", "2"), "is not a multi-rank operator")


def test_more_ranks_than_a_server_is_refused(cli, pkg):
    _clean_error(*cli("perf", str(pkg), "--case", "smoke.r2", "--world-size", "16"),
                 "--world-size 16: the mesh of ascend910b connects 8 ranks in one server")


def test_a_bad_rank_count_is_refused(cli, pkg):
    _clean_error(*cli("perf", str(pkg), "--case", "smoke.r2", "--world-size", "0"),
                 "--world-size 0: give a number of ranks >= 1")


def test_a_json_path_that_is_a_folder_is_refused(cli, pkg, tmp_path):
    _clean_error(*cli("perf", str(pkg), "--case", "smoke.r2", "--json", str(tmp_path)), "is a folder")


def test_json_of_a_single_rank_run(cli, tmp_path):
    js = tmp_path / "perf.json"
    code, out, err = cli("perf", str(ROPE), "--case", "smoke", "--json", str(js))
    assert code == 0, err
    rec = json.loads(js.read_text())
    assert rec["perf"]["label"] == "modelled" and rec["case"] == "smoke"
    assert rec["perf"]["modelled_us"] > 0
    code, out, err = cli("perf", str(ROPE), "--case", "smoke", "--json", str(js))  # opkit's own file: replaced
    assert code == 0, err
