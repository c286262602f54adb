"""Verification that scales: `verify --workers N`, `--shard I/N`, `pytest --opkit-shard`, `opkit report merge`.

The real-simulator tests verify a copy of ops/examples/axpy_relu (13 runs); the others use a stand-in for
the simulator (tests/hostile.py) or results.json files made here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import fresh_copy
from hostile import FakeSim, golden_line, hostile_package, install_fake_sim

from opkit import __version__
from opkit.spec import load
from opkit.verify import parallel
from opkit.verify.pipeline import Selection, run_id, select
from opkit.verify.report import SCHEMA_VERSION
from opkit.verify.session import VerifyOptions, plan, verify_packages
from opkit.verify.shard import Shard, in_shard, job_id, parse_shard, selection_record, slice_of

ROOT = Path(__file__).resolve().parents[1]
AXPY = ROOT / "ops" / "examples" / "axpy_relu"


def comparable(path: Path) -> dict:
    """results.json without its timing fields and trace paths."""
    doc = json.loads(path.read_text())
    for c in doc["cases"]:
        c.pop("seconds")
        c.pop("trace")
    return doc


def junit_comparable(path: Path) -> str:
    root = ET.parse(path).getroot()
    for el in root.iter():
        el.attrib.pop("time", None)
    return ET.tostring(root, encoding="unicode")


# --- the split ---------------------------------------------------------------------------------------------

def test_the_slice_of_a_run_is_a_fixed_function_of_its_id():
    # sha256 of the id, not Python's hash(): the same in every process and on every machine
    assert [slice_of("axpy_relu::smoke[float16@ascend910b2]", n) for n in (1, 3, 7)] == [1, 3, 3]
    assert slice_of("axpy_relu::tiny[float32@ascend910b2]", 3) == 2
    code = "from opkit.verify.shard import slice_of; print(slice_of('a::b[c@d]', 7))"
    for seed in ("0", "1"):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed})
        assert r.stdout.strip() == "7"


def test_every_run_falls_in_exactly_one_shard_whatever_the_order():
    spec = load(AXPY)
    ids = [run_id(spec, j) for j in select(spec, Selection(full=True))]
    for n in (1, 2, 3, 5):
        slices = [[i for i in ids if in_shard(i, Shard(k, n))] for k in range(1, n + 1)]
        assert sorted(sum(slices, [])) == sorted(ids)
        spec.cases.reverse()  # op.yaml's cases in another order: each run stays in its slice
        again = [run_id(spec, j) for j in select(spec, Selection(full=True))]
        assert sorted(again) == sorted(ids)
        assert [[i for i in again if in_shard(i, Shard(k, n))] for k in range(1, n + 1)] == \
            [sorted(s, key=again.index) for s in slices]


def test_packages_in_another_order_keep_their_shards(tmp_path):
    a = load(hostile_package(tmp_path / "a", name="axpy_relu"))
    b = load(AXPY.parent / "rms_norm")
    shard = Shard(2, 3)
    one = {p.id for _, runs in plan([a, b], Selection()) for p in runs if in_shard(p.id, shard)}
    other = {p.id for _, runs in plan([b, a], Selection()) for p in runs if in_shard(p.id, shard)}
    assert one == other and one


@pytest.mark.parametrize("text, message", [
    ("0/3", "the slice I must be between 1 and 3"),
    ("4/3", "the slice I must be between 1 and 3"),
    ("1/0", "the number of shards N must be between 1"),
    ("x", "give I/N"),
    ("1/3/4", "give I/N"),
    ("-1/3", "give I/N"),
    ("", "give I/N"),
])
def test_bad_shards_are_refused(text, message):
    from opkit.errors import UsageError

    with pytest.raises(UsageError, match=message):
        parse_shard(text)


def test_a_shard_parses():
    assert parse_shard(" 2 / 5 ") == Shard(2, 5) and str(Shard(2, 5)) == "2/5" and parse_shard(None) is None


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


@pytest.mark.parametrize("args, expect", [
    (["--shard", "0/3"], "--shard 0/3: the slice I must be between 1 and 3"),
    (["--shard", "4/3"], "--shard 4/3: the slice I must be between 1 and 3"),
    (["--shard", "x"], "--shard 'x': give I/N"),
    (["--workers", "0"], "--workers 0: must be at least 1"),
])
def test_bad_options_exit_2_before_any_run(cli, tmp_path, fake_sim, args, expect):
    pkg = hostile_package(tmp_path)
    code, out, err = cli("verify", pkg, "--out", tmp_path / "v", *args)
    assert code == 2 and expect in err and "Traceback" not in out + err, out + err
    assert fake_sim.runs == [] and not (tmp_path / "v" / "results.json").exists()


# --- workers, with the stand-in simulator -------------------------------------------------------------------

EXITS_ON_TINY = """
import sys

import numpy as np


def axpy_relu(x, y, alpha=1.0):
    if alpha == 2.0:
        sys.exit(3)  # the 'tiny' case exits instead of returning
    return {"z": np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}
"""


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_workers_keep_the_plan_order_and_guard_golden_py_in_each_worker(fake_sim, tmp_path):
    pkg = hostile_package(tmp_path, EXITS_ON_TINY)
    spec = load(pkg)
    seen = []
    runs = {}
    for n in (1, 2):
        outcome = verify_packages([spec], VerifyOptions(out_dir=tmp_path / f"w{n}", workers=n),
                                  lambda r, done, total: seen.append((done, total)))
        assert outcome.workers == n
        runs[n] = comparable(outcome.json_path)
    assert runs[1] == runs[2]
    cases = runs[2]["cases"]
    assert [c["order"] for c in cases] == list(range(len(cases)))
    assert [c["id"] for c in cases] == [run_id(spec, j) for j in select(spec, Selection())]
    line = golden_line(pkg, "sys.exit(3)")
    tiny = [c for c in cases if c["case"] == "tiny"]
    assert len(tiny) == 3 and all(c["status"] == "error" and f"golden.py:{line}: called sys.exit(3)" in c["message"]
                                  for c in tiny)
    assert all(c["status"] == "pass" for c in cases if c["case"] != "tiny")
    assert [d for d, _ in seen] == list(range(1, len(cases) + 1)) * 2


class DiesOnTiny(FakeSim):
    def run(self, spec, case, column, chip, inputs, trace_only=False):
        if case.name == "tiny" and os.getpid() != PARENT[0]:
            os.kill(os.getpid(), signal.SIGKILL)  # the worker process is killed (as by the OOM killer)
        return super().run(spec, case, column, chip, inputs)


PARENT = [os.getpid()]


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_a_killed_worker_process_is_an_error_not_a_hang(monkeypatch, cli, tmp_path):
    import opkit.verify.session as session

    install_fake_sim(monkeypatch)
    import opkit.run.sim_runner

    monkeypatch.setattr(session, "SimRunner", DiesOnTiny)
    monkeypatch.setattr(opkit.run.sim_runner, "SimRunner", DiesOnTiny)  # what opkit.backends.runner("sim") makes
    PARENT[0] = os.getpid()
    pkg = hostile_package(tmp_path)
    code, out, err = cli("verify", pkg, "-k", "tiny", "--workers", "2", "--out", tmp_path / "v")
    assert code == 1 and "Traceback" not in out + err
    doc = json.loads((tmp_path / "v" / "results.json").read_text())
    assert {c["status"] for c in doc["cases"]} == {"error"} and len(doc["cases"]) == 3
    assert "worker process running this case ended unexpectedly" in doc["cases"][0]["message"]


def test_an_empty_shard_writes_an_empty_report_and_exits_0(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path)
    spec = load(pkg)
    (only,) = [run_id(spec, j) for j in select(spec, Selection(keyword="tiny", dtype="float32"))]
    empty = 2 if slice_of(only, 2) == 1 else 1
    code, out, err = cli("verify", pkg, "-k", "tiny", "--dtype", "float32", "--shard", f"{empty}/2",
                         "--out", tmp_path / "e", "--junit", tmp_path / "e.xml")
    assert code == 0, out + err
    assert f"shard {empty}/2: 0 of the 1 selected runs; none to run here" in out
    doc = json.loads((tmp_path / "e" / "results.json").read_text())
    assert doc["cases"] == [] and doc["selection"]["shard"] == {"index": empty, "count": 2, "runs": 0}
    code, out, err = cli("verify", pkg, "-k", "tiny", "--dtype", "float32", "--shard", f"{3 - empty}/2",
                         "--out", tmp_path / "f")
    assert code == 0 and "shard" in out and "1 passed" in out
    code, out, err = cli("report", "merge", tmp_path / "m.json", tmp_path / "e" / "results.json",
                         tmp_path / "f" / "results.json")
    assert code == 0, out + err
    assert [c["id"] for c in json.loads((tmp_path / "m.json").read_text())["cases"]] == [only]


# --- the real simulator -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def axpy(tmp_path_factory) -> Path:
    return fresh_copy(AXPY, tmp_path_factory.mktemp("scale") / "axpy_relu")


@pytest.fixture(scope="module")
def serial(axpy) -> Path:
    """The unsharded run with one worker: results.json and JUnit."""
    from typer.testing import CliRunner

    from opkit.cli import app

    out = axpy.parent / "serial"
    r = CliRunner().invoke(app, ["verify", str(axpy), "-j", "1", "--workers", "1", "--out", str(out), "--junit",
                                 str(out / "junit.xml")], catch_exceptions=False)
    assert r.exit_code == 0, r.stdout + r.stderr
    return out


@pytest.mark.slow
@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")
def test_two_workers_equal_one(cli, axpy, serial, tmp_path):
    code, out, err = cli("verify", axpy, "--workers", "2", "--out", tmp_path / "w2", "--junit", tmp_path / "w2.xml")
    assert code == 0, out + err
    one, two = comparable(serial / "results.json"), comparable(tmp_path / "w2" / "results.json")
    assert two == one and len(one["cases"]) == 13 and one["summary"]["pass"] == 13
    assert junit_comparable(tmp_path / "w2.xml") == junit_comparable(serial / "junit.xml")


@pytest.mark.slow
def test_three_shards_merged_equal_the_unsharded_run(cli, axpy, serial, tmp_path):
    files = []
    for i in (3, 1, 2):  # any order
        out = tmp_path / f"s{i}"
        code, stdout, err = cli("verify", axpy, "--shard", f"{i}/3", "--out", out, "--junit", out / "junit.xml")
        assert code == 0, stdout + err
        doc = json.loads((out / "results.json").read_text())
        assert doc["selection"]["shard"]["index"] == i and doc["selection"]["runs"] == 13
        assert all(slice_of(c["id"], 3) == i for c in doc["cases"])
        files.append(out / "results.json")
    code, out, err = cli("report", "merge", tmp_path / "merged.json", *files, "--junit", tmp_path / "merged.xml")
    assert code == 0, out + err
    assert "merged 3 shard(s), 13 run record(s): 13 passed" in out
    assert comparable(tmp_path / "merged.json") == comparable(serial / "results.json")
    assert junit_comparable(tmp_path / "merged.xml") == junit_comparable(serial / "junit.xml")


@pytest.mark.slow
def test_pytest_opkit_shard_selects_what_verify_shard_runs(axpy, serial, tmp_path):
    spec = load(axpy)
    verified = [c["id"] for c in json.loads((serial / "results.json").read_text())["cases"]]
    full_ids = [run_id(spec, j) for j in select(spec, Selection(full=True))]  # the plugin also collects 'full'
    collected_all = []
    for i in (1, 2, 3):
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only",
                            str(axpy), "--opkit-shard", f"{i}/3"], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        items = [line.split("op.yaml::", 1)[1] for line in r.stdout.splitlines() if "op.yaml::" in line]
        ids = [f"{spec.name}::{name}" for name in items]
        assert ids == [x for x in full_ids if slice_of(x, 3) == i]
        assert [x for x in ids if x in verified] == [x for x in verified if slice_of(x, 3) == i]
        collected_all += ids
    assert sorted(collected_all) == sorted(full_ids)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only", str(axpy),
                        "--opkit-shard", "4/3"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0 and "--opkit-shard 4/3: the slice I must be between 1 and 3" in r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr


# --- report merge on files made here ------------------------------------------------------------------------

IDS = [job_id("op_a", f"case{k}", dt, "ascend910b2") for k in range(6) for dt in ("float16", "float32")]


def shard_doc(index: int, count: int, ids: list[str] = IDS, version: str = __version__, status: str = "pass",
              **selection) -> dict:
    mine = [(o, i) for o, i in enumerate(ids) if index == 0 or slice_of(i, count) == index]
    cases = []
    for order, i in mine:
        op, rest = i.split("::")
        case, col = rest[:-1].split("[")
        dtype, soc = col.split("@")
        cases.append({"id": i, "op": op, "case": case, "dtype": dtype, "soc": soc, "shapes": {"x": [4]},
                      "profile": "mixed", "status": status, "message": "", "seconds": 0.01, "perf": {}, "trace": None,
                      "outputs": [], "compare": None, "warnings": [], "order": order})
    sel = selection_record(["op_a"], Selection(**selection), None, False, len(ids),
                           None if index == 0 else Shard(index, count), len(cases))
    return {"schema_version": SCHEMA_VERSION, "opkit": {"version": version, "backend": "sim"},
            "summary": {"pass": len(cases), "fail": 0, "error": 0, "skip": 0}, "selection": sel, "cases": cases}


def write(tmp_path: Path, name: str, doc) -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


def test_merge_puts_runs_back_in_plan_order(cli, tmp_path):
    files = [write(tmp_path, f"s{i}.json", shard_doc(i, 3)) for i in (2, 3, 1)]
    code, out, err = cli("report", "merge", tmp_path / "m.json", *files)
    assert code == 0, out + err
    merged = json.loads((tmp_path / "m.json").read_text())
    assert [c["id"] for c in merged["cases"]] == IDS and merged["selection"] == shard_doc(0, 1)["selection"]
    assert merged["summary"]["pass"] == len(IDS)


def test_merge_keeps_one_record_of_a_package_that_did_not_build(cli, tmp_path):
    docs = [shard_doc(i, 2) for i in (1, 2)]
    build = {**docs[0]["cases"][0], "id": "op_b::(build)[float16@ascend910b2]", "op": "op_b", "case": "(build)",
             "status": "error", "message": "op_kernel/op_b.h:3: error", "order": len(IDS)}
    for d in docs:
        d["selection"]["runs"] += 2
        d["selection"]["shard"]["runs"] += 1
        d["cases"].append(dict(build))
    files = [write(tmp_path, f"s{i}.json", d) for i, d in enumerate(docs, 1)]
    code, out, err = cli("report", "merge", tmp_path / "m.json", *files)
    assert code == 1 and "Traceback" not in out + err  # an error among the runs: exit 1, as verify's
    merged = json.loads((tmp_path / "m.json").read_text())
    assert [c["case"] for c in merged["cases"]].count("(build)") == 1 and merged["summary"]["error"] == 1


def test_merge_exits_1_when_a_run_failed(cli, tmp_path):
    docs = [shard_doc(i, 2) for i in (1, 2)]
    docs[1]["cases"][0]["status"] = "fail"
    code, out, err = cli("report", "merge", tmp_path / "m.json", *[write(tmp_path, f"s{i}.json", d)
                                                                   for i, d in enumerate(docs)])
    assert code == 1 and "1 failed" in out


@pytest.mark.parametrize("make, message", [
    (lambda: [shard_doc(1, 3), shard_doc(2, 3)], "shard(s) 3/3 missing (given: 1/3, 2/3)"),
    (lambda: [shard_doc(1, 2), shard_doc(1, 2), shard_doc(2, 2)], "shard 1/2 given twice"),
    (lambda: [shard_doc(1, 2), shard_doc(2, 3)], "a shard of 2, "),
    (lambda: [shard_doc(1, 2), shard_doc(2, 2, version="0.0.1")], "shards from different opkit versions"),
    (lambda: [shard_doc(1, 2), shard_doc(2, 2, keyword="case1")], "shards of different selections (keyword: None "
                                                                 "against 'case1')"),
    (lambda: [shard_doc(1, 2), shard_doc(2, 2, chips=["ascend910b4"])], "socs: [] against ['ascend910b4']"),
    (lambda: [shard_doc(1, 2), {**shard_doc(2, 2), "schema_version": SCHEMA_VERSION + 1}],
     "this opkit reads version 1 (the file is from a newer opkit"),
    (lambda: [shard_doc(1, 2), {k: v for k, v in shard_doc(2, 2).items() if k != "selection"}],
     "records no selection"),
    (lambda: [shard_doc(1, 2), "{not json"], "not JSON"),
    (lambda: [shard_doc(1, 2), "[]"], "no schema_version and cases"),
])
def test_merge_refuses_shards_that_do_not_make_one_run(cli, tmp_path, make, message):
    files = [write(tmp_path, f"s{n}.json", d) for n, d in enumerate(make())]
    code, out, err = cli("report", "merge", tmp_path / "m.json", *files)
    assert code == 2 and message in err and "Traceback" not in out + err, out + err
    assert len([line for line in err.splitlines() if line.strip()]) == 1
    assert not (tmp_path / "m.json").exists()


def test_merge_refuses_a_shard_that_lost_runs_or_holds_foreign_ones(cli, tmp_path):
    short = shard_doc(1, 2)
    short["cases"].pop()
    short["selection"]["shard"]["runs"] -= 1
    code, out, err = cli("report", "merge", tmp_path / "m.json", write(tmp_path, "a.json", short),
                         write(tmp_path, "b.json", shard_doc(2, 2)))
    assert code == 2 and f"the shards hold {len(IDS) - 1} runs, their selection has {len(IDS)}" in err
    foreign = shard_doc(1, 2)
    foreign["cases"].append({**shard_doc(2, 2)["cases"][0]})
    other = shard_doc(2, 2)
    other["cases"].pop(0)
    code, out, err = cli("report", "merge", tmp_path / "m.json", write(tmp_path, "a.json", foreign),
                         write(tmp_path, "b.json", other))
    assert code == 2 and "does not belong to shard 1/2" in err


def test_merge_refuses_missing_files_folders_and_outputs_it_may_not_replace(cli, tmp_path):
    a, b = write(tmp_path, "a.json", shard_doc(1, 2)), write(tmp_path, "b.json", shard_doc(2, 2))
    code, _, err = cli("report", "merge", tmp_path / "m.json", a, tmp_path / "nope.json")
    assert code == 2 and "nope.json: no such file" in err
    code, _, err = cli("report", "merge", tmp_path / "m.json", a, tmp_path)
    assert code == 2 and "is a folder; give the shard's results.json" in err
    (tmp_path / "mine.json").write_text("my notes")
    code, _, err = cli("report", "merge", tmp_path / "mine.json", a, b)
    assert code == 2 and "exists and was not written by opkit" in err and (tmp_path / "mine.json").read_text() == \
        "my notes"
    code, out, err = cli("report", "merge", tmp_path / "mine.json", a, b, "--force")
    assert code == 0 and json.loads((tmp_path / "mine.json").read_text())["summary"]["pass"] == len(IDS)
    code, out, err = cli("report", "merge", tmp_path / "mine.json", a, b)  # opkit's own file now: replaced
    assert code == 0


def test_merged_junit_has_every_run(cli, tmp_path):
    files = [write(tmp_path, f"s{i}.json", shard_doc(i, 2)) for i in (1, 2)]
    code, out, err = cli("report", "merge", tmp_path / "m.json", *files, "--junit", tmp_path / "m.xml")
    assert code == 0, out + err
    root = ET.parse(tmp_path / "m.xml").getroot()
    assert root.get("tests") == str(len(IDS)) and root.get("failures") == "0"
    assert [f"op_a::{c.get('name')}" for c in root.iter("testcase")] == IDS


# --- report merge of JUnit files (pytest --opkit-shard) -----------------------------------------------------

def junit_file(tmp_path: Path, name: str, cases: list[tuple[str, str]], suite: str = "pytest") -> Path:
    body = "".join(f'<testcase classname="axpy_relu.op.yaml" name="{n}" time="0.5">'
                   + ("<failure message='bad'>z: mismatch</failure>" if s == "fail" else "")
                   + ("<skipped message='full'/>" if s == "skip" else "") + "</testcase>" for n, s in cases)
    p = tmp_path / name
    p.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="{suite}" tests="{len(cases)}" errors="0" '
                 f'failures="0" skipped="0" time="1">{body}</testsuite></testsuites>')
    return p


def test_junit_shards_merge_into_one_suite(cli, tmp_path):
    a = junit_file(tmp_path, "a.xml", [("smoke[float16@ascend910b2]", "pass"), ("large[float16@ascend910b2]", "skip")])
    b = junit_file(tmp_path, "b.xml", [("tiny[float16@ascend910b2]", "pass")])
    code, out, err = cli("report", "merge", tmp_path / "m.xml", a, b)
    assert code == 0, out + err
    assert "merged 2 JUnit file(s), 3 test case(s): 0 failed, 0 errors, 1 skipped" in out
    root = ET.parse(tmp_path / "m.xml").getroot()
    (suite,) = root.findall("testsuite")
    assert [c.get("name") for c in suite.iter("testcase")] == ["smoke[float16@ascend910b2]",
                                                              "large[float16@ascend910b2]", "tiny[float16@ascend910b2]"]
    assert (suite.get("tests"), suite.get("skipped"), root.get("tests"), suite.get("time")) == ("3", "1", "3", "1.500")
    c = junit_file(tmp_path, "c.xml", [("odd_tail[float32@ascend910b2]", "fail")])
    code, out, err = cli("report", "merge", tmp_path / "m.xml", a, b, c)
    assert code == 1 and "1 failed" in out and ET.parse(tmp_path / "m.xml").getroot().get("failures") == "1"


@pytest.mark.parametrize("make, message", [
    (lambda t: [junit_file(t, "a.xml", [("x[f@c]", "pass")]), junit_file(t, "b.xml", [("x[f@c]", "pass")])],
     "test case axpy_relu.op.yaml::x[f@c] is in both"),
    (lambda t: [junit_file(t, "a.xml", [("x[f@c]", "pass")]), write(t, "b.xml", "<testsuites><oops")],
     "b.xml: not well-formed XML"),
    (lambda t: [write(t, "a.xml", "<html></html>")], "not a JUnit XML file (its root element is <html>"),
    (lambda t: [junit_file(t, "a.xml", [("x[f@c]", "pass")]), write(t, "b.json", shard_doc(1, 2))],
     "the shards mix JUnit XML and results.json files"),
])
def test_junit_merge_refusals(cli, tmp_path, make, message):
    code, out, err = cli("report", "merge", tmp_path / "m.xml", *make(tmp_path))
    assert code == 2 and message in err and "Traceback" not in out + err, out + err


@pytest.mark.slow
def test_pytest_shards_junit_merged_hold_every_item_once(axpy, serial, tmp_path):
    from opkit.verify.merge import merge_junit

    files = []
    for i in (1, 2, 3):
        junit = tmp_path / f"p{i}.xml"
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(axpy), "--opkit-shard",
                            f"{i}/3", f"--junitxml={junit}"], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        files.append(junit)
    text, counts = merge_junit(files)
    names = sorted(c.get("name") for c in ET.fromstring(text.split("?>", 1)[1]).iter("testcase"))
    spec = load(axpy)
    assert names == sorted(f"{j.case.name}[{spec.column_label(j.column)}@{j.chip}]"
                           for j in select(spec, Selection(full=True)))
    assert counts["skipped"] == 1 and counts["failures"] == counts["errors"] == 0  # 'large' is tagged full


SLEEPS = """
import time


def axpy_relu(x, y, alpha=1.0):
    while True:
        time.sleep(0.05)
"""

LAUNCH = """
import sys
sys.path.insert(0, sys.argv[1])
import hostile
import opkit.run.sim_runner
import opkit.verify.session as session
session.SimRunner = hostile.FakeSim
opkit.run.sim_runner.SimRunner = hostile.FakeSim
session.opdef_check.check = lambda spec, exe: None
from opkit.cli import main
sys.argv = ["opkit", "verify", sys.argv[2], "--workers", "2", "--out", sys.argv[3]]
main()
"""


def _processes_naming(text: str) -> list[str]:
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmd:
                found.append(cmd)
    return found


@pytest.mark.skipif(not parallel.can_fork() or not Path("/proc").is_dir(), reason="needs fork and /proc")
def test_ctrl_c_stops_the_workers_and_what_they_run(tmp_path):
    import time

    pkg = hostile_package(tmp_path, SLEEPS)
    # as from a terminal: SIGINT at its default (a suite started in the background of a non-interactive shell
    # ignores it, and a process started with SIGINT ignored keeps ignoring it, as Python does)
    p = subprocess.Popen([sys.executable, "-c", LAUNCH, str(Path(__file__).parent), str(pkg), str(tmp_path / "v")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(_processes_naming(str(pkg / "golden.py"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # both workers are inside golden.py
    assert len(_processes_naming(str(pkg / "golden.py"))) == 2
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and "error: interrupted" in err and "Traceback" not in out + err, out + err
    time.sleep(0.5)
    assert _processes_naming(str(pkg)) == []  # no worker, no golden.py process left running


def test_a_broken_op_yaml_fails_in_every_pytest_shard(tmp_path):
    pkg = hostile_package(tmp_path)
    (pkg / "op.yaml").write_text((pkg / "op.yaml").read_text().replace("kernel: vector", "kernel: vectr"))
    for i in (1, 2):
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(pkg), "--opkit-shard",
                            f"{i}/2"], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 1 and "is not a kernel type" in r.stdout and "1 failed" in r.stdout, r.stdout
