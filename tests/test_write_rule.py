"""Never lose work: one rule for every file opkit writes (item 3). A file still as opkit wrote it is
replaced; one changed since, or not written by opkit, needs --force."""

from __future__ import annotations

import pytest
from hostile import hostile_package, install_fake_sim

from opkit.errors import UsageError


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


def test_verify_junit_reruns_replace_opkits_own_report_but_not_someone_elses(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path)
    junit = tmp_path / "ci" / "report.xml"
    args = ("verify", pkg, "-k", "tiny", "--junit", junit, "--out", tmp_path / "res")
    code, out, err = cli(*args, cwd=tmp_path)
    assert code == 0 and junit.is_file(), out + err
    code, out, err = cli(*args, cwd=tmp_path)  # a CI rerun
    assert code == 0, out + err
    junit.write_text("<my own notes/>")
    runs = len(fake_sim.runs)
    code, out, err = cli(*args, cwd=tmp_path)
    assert code == 2 and "--junit" in err and "was not written by opkit, or was changed since" in err
    assert junit.read_text() == "<my own notes/>" and len(fake_sim.runs) == runs  # refused before running
    code, out, err = cli(*args, "--force", cwd=tmp_path)
    assert code == 0 and "<testsuites" in junit.read_text()


def test_verify_out_guards_results_json(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path)
    res = tmp_path / "res"
    res.mkdir()
    (res / "results.json").write_text("{}")
    code, _, err = cli("verify", pkg, "-k", "tiny", "--out", res, cwd=tmp_path)
    assert code == 2 and "results.json: exists and was not written by opkit" in err
    assert (res / "results.json").read_text() == "{}"


def test_spec_schema_out_follows_the_rule(cli, tmp_path):
    target = tmp_path / "op.schema.json"
    assert cli("spec", "schema", "--out", target)[0] == 0
    assert cli("spec", "schema", "--out", target)[0] == 0
    target.write_text("edited")
    code, _, err = cli("spec", "schema", "--out", target)
    assert code == 2 and "--force" in err and target.read_text() == "edited"
    assert cli("spec", "schema", "--out", target, "--force")[0] == 0 and target.read_text().startswith("{")


def test_the_manifest_and_the_rule(tmp_path):
    from opkit import writes

    f = tmp_path / "out" / "a.txt"
    writes.write_text(f, "one")
    assert writes.owned(f) and writes.manifest_for(f) == tmp_path / "out" / ".opkit" / "written.json"
    writes.write_text(f, "two")  # still opkit's: replaced
    f.write_text("user edit")
    with pytest.raises(UsageError, match="a.txt: exists and was not written by opkit"):
        writes.write_text(f, "three")
    assert f.read_text() == "user edit"
    writes.write_text(f, "three", force=True)
    assert f.read_text() == "three" and writes.owned(f)
    foreign = tmp_path / "b.txt"
    foreign.write_text("not opkit's")
    with pytest.raises(UsageError, match="--force"):
        writes.check(foreign, False, "--out")
    # a file in an .opkit folder is opkit's own state (the default verify output), recorded or not
    state = tmp_path / ".opkit" / "verify" / "results.json"
    state.parent.mkdir(parents=True)
    state.write_text("from an older opkit")
    writes.check(state, False, "--out")
    # inside a .opkit folder the manifest is that folder's; inside a package, the package's
    assert writes.manifest_for(tmp_path / ".opkit" / "verify" / "results.json") == tmp_path / ".opkit" / "written.json"
    pkg = hostile_package(tmp_path)
    assert writes.manifest_for(pkg / "sub" / "x.json") == pkg / ".opkit" / "written.json"


def test_export_msopgen_and_import_follow_the_rule(cli, tmp_path):
    pkg = hostile_package(tmp_path)
    out = tmp_path / "axpy.json"
    assert cli("export-msopgen", pkg, "--out", out)[0] == 0
    assert cli("export-msopgen", pkg, "--out", out)[0] == 0  # opkit's own file: replaced
    out.write_text("[]")
    code, _, err = cli("export-msopgen", pkg, "--out", out)
    assert code == 2 and "axpy.json: exists and was not written by opkit" in err and out.read_text() == "[]"
    out.write_text(out.read_text())
    assert cli("export-msopgen", pkg, "--out", out, "--force")[0] == 0
    code, _, err = cli("import-msopgen", out, "--dir", tmp_path / "imported")
    assert code == 0, err
    golden = tmp_path / "imported" / "axpy_relu" / "golden.py"
    golden.write_text(golden.read_text() + "# mine\n")
    code, _, err = cli("import-msopgen", out, "--dir", tmp_path / "imported")
    assert code == 2 and "golden.py" in err and "--force" in err
    code, stdout, err = cli("import-msopgen", out, "--dir", tmp_path / "imported", "--force")
    assert code == 0 and "kept a copy" in stdout
    (copy,) = (tmp_path / "imported" / "axpy_relu" / ".opkit" / "backup").glob("*/golden.py")
    assert copy.read_text().endswith("# mine\n")
