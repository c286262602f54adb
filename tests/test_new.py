"""`opkit new`: where packages go, what is never overwritten, generating from a user's spec."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opkit.errors import SpecError, UsageError
from opkit.paths import template_names
from opkit.scaffold.new import new_package
from opkit.spec import load


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_new_into_dir(tmp_path):
    r = new_package("my_op", directory="D", cwd=tmp_path)
    assert r.path == tmp_path / "D" / "my_op"
    spec = load(r.path)
    assert spec.name == "my_op" and spec.op_type == "MyOp" and spec.family == "custom"
    assert (r.path / "golden.py").is_file()
    assert all(p.is_relative_to(tmp_path / "D" / "my_op") for p in r.written)


def test_new_with_family_goes_under_ops(tmp_path):
    r = new_package("gate_op", family="moe", cwd=tmp_path)
    assert r.path == tmp_path / "ops" / "moe" / "gate_op"
    assert load(r.path).family == "moe"


def test_existing_package_is_never_overwritten_without_force(tmp_path):
    r = new_package("my_op", directory=".", cwd=tmp_path)
    golden = r.path / "golden.py"
    golden.write_text("# my own work\n")
    before = snapshot(tmp_path)
    with pytest.raises(UsageError, match=r"differ from what the template would write .*: golden.py; nothing was written"):
        new_package("my_op", directory=".", cwd=tmp_path)
    assert snapshot(tmp_path) == before
    (r.path / "notes.txt").write_text("keep me")
    r2 = new_package("my_op", directory=".", cwd=tmp_path, force=True)
    assert golden in r2.written and "my own work" not in golden.read_text()
    assert (r.path / "notes.txt").read_text() == "keep me"
    # --force kept a copy of the edited file, under .opkit/backup/<time>/
    assert r2.backup is not None and r2.backup.parent == r.path / ".opkit" / "backup"
    assert (r2.backup / "golden.py").read_text() == "# my own work\n"


def test_files_opkit_wrote_and_nobody_changed_are_replaced_without_force(tmp_path):
    """The write rule: a file still matching the hash recorded when opkit wrote it is opkit's to replace."""
    from opkit import writes

    r = new_package("my_op", directory=".", cwd=tmp_path)
    readme = r.path / "README.md"
    stale = "# an older opkit wrote this\n"
    readme.write_text(stale)
    writes.record([readme])  # as if opkit had written this content
    r2 = new_package("my_op", directory=".", cwd=tmp_path)
    assert readme in r2.written and readme.read_text() != stale and r2.backup is None
    # a folder of someone else's files is not written into without --force
    (tmp_path / "other_op").mkdir()
    (tmp_path / "other_op" / "mine.txt").write_text("x")
    with pytest.raises(UsageError, match="already exists and was not created by opkit"):
        new_package("other_op", directory=".", cwd=tmp_path)
    assert sorted(p.name for p in (tmp_path / "other_op").iterdir()) == ["mine.txt"]


def test_bad_names_write_nothing(tmp_path):
    for bad in ["../escape", "/abs", "sin", "", "a/b", "Bad"]:
        with pytest.raises(UsageError):
            new_package(bad, directory="D", cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_never_writes_through_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    pkg = tmp_path / "D" / "my_op"
    pkg.mkdir(parents=True)
    (pkg / "golden.py").symlink_to(outside / "stolen.py")
    with pytest.raises(UsageError, match="symbolic link"):
        new_package("my_op", directory="D", cwd=tmp_path, force=True)
    assert list(outside.iterdir()) == []


def test_unknown_template(tmp_path):
    with pytest.raises(UsageError, match="unknown template 'nope'"):
        new_package("my_op", template="nope", cwd=tmp_path)
    # the generic skeleton of --spec is not a template to pick
    assert "_generic" not in template_names() and {"vector", "reduce"} <= set(template_names())
    with pytest.raises(UsageError, match="unknown template '_generic'"):
        new_package("my_op", template="_generic", cwd=tmp_path)


USER_SPEC = """
name: gated_sum
family: custom
summary: a user's op whose math opkit cannot know
socs: [ascend910b]
kernel: vector
inputs:
  - {name: a, dtypes: [float16, int32], shape: [M, K]}
  - {name: gate, dtypes: [float16, int32], shape: [K], param: optional}
outputs:
  - {name: out, dtypes: [float16, int32], shape: [M]}
attrs:
  - {name: axis, type: int, default: -1}
  - {name: dims, type: list_int, default: [1, 2]}
golden: golden.py:gated_sum
cases:
  - {name: smoke, shapes: {a: [4, 16], gate: [16]}}
"""


def test_new_from_user_spec(tmp_path):
    spec_file = tmp_path / "my.yaml"
    spec_file.write_text(USER_SPEC)
    r = new_package(spec_file=spec_file, directory="out", cwd=tmp_path)
    assert r.path == tmp_path / "out" / "gated_sum"
    assert (r.path / "op.yaml").read_text() == USER_SPEC
    spec = load(r.path)
    assert [p.name for p in spec.inputs] == ["a", "gate"] and spec.inputs[1].param == "optional"
    with pytest.raises(UsageError, match="differs from the spec's name 'gated_sum'"):
        new_package("other", spec_file=spec_file, directory="out2", cwd=tmp_path)


def test_template_does_not_apply_with_spec(cli, tmp_path):
    (tmp_path / "my.yaml").write_text(USER_SPEC)
    code, out, err = cli("new", "--spec", "my.yaml", "--template", "reduce", "--dir", "o", cwd=tmp_path)
    assert code != 0 and "--template reduce does not apply with --spec" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_user_spec_errors_name_the_file(tmp_path):
    spec_file = tmp_path / "my.yaml"
    spec_file.write_text(USER_SPEC.replace("golden: golden.py:gated_sum", "golden: ref.py:gated_sum"))
    with pytest.raises(SpecError, match=r"my.yaml:\d+: golden: opkit new writes the golden to golden.py"):
        new_package(spec_file=spec_file, directory="out", cwd=tmp_path)
    spec_file.write_text(USER_SPEC.replace("shape: [M]}", "shape: [Q]}"))
    with pytest.raises(SpecError, match=r"outputs\[0\]\.shape\[0\]: symbol 'Q' appears in no input's shape"):
        new_package(spec_file=spec_file, directory="out", cwd=tmp_path)
    spec_file.write_text("name: [unclosed\n")
    with pytest.raises(SpecError, match=r"my.yaml:\d+: invalid YAML"):
        new_package(spec_file=spec_file, directory="out", cwd=tmp_path)
    assert not (tmp_path / "out").exists()


def test_cli_new_and_list_and_check(cli, tmp_path):
    code, out, err = cli("new", "my_op", "--dir", "D", cwd=tmp_path)
    assert code == 0 and "created MyOp (my_op)" in out
    code, out, err = cli("new", "my_op", "--dir", "D", cwd=tmp_path)  # unchanged since opkit wrote it
    assert code == 0 and "already up to date" not in err and "Traceback" not in err + out
    (tmp_path / "D" / "my_op" / "golden.py").write_text("# mine\n")
    code, out, err = cli("new", "my_op", "--dir", "D", cwd=tmp_path)
    assert code == 2 and "golden.py" in err and "--force" in err and "Traceback" not in err + out
    code, out, err = cli("new", "my_op", "--dir", "D", "--force", cwd=tmp_path)
    assert code == 0 and "kept a copy" in out and ".opkit/backup/" in out
    code, out, _ = cli("spec", "check", "D/my_op", cwd=tmp_path)
    assert code == 0 and "ok" in out
    code, out, _ = cli("list", "D", cwd=tmp_path)
    assert code == 0 and "my_op" in out and "MyOp" in out and "valid" in out


def test_cli_interactive(cli, tmp_path):
    code, out, err = cli("new", "--interactive", cwd=tmp_path, input="inter_op\nvector\nmoe\nQ\n")
    assert code == 0, err
    assert load(tmp_path / "Q" / "inter_op").family == "moe"


def test_op_discovery(cli, tmp_path):
    new_package("first_op", family="fam", cwd=tmp_path)
    new_package("second_op", family="fam", cwd=tmp_path)
    code, out, _ = cli("spec", "check", cwd=tmp_path)
    assert code == 0 and out.count("ok ") == 2
    code, out, _ = cli("spec", "check", "second_op", cwd=tmp_path)
    assert code == 0 and out.count("ok ") == 1 and "second_op" in out
    code, out, _ = cli("spec", "check", cwd=tmp_path / "ops" / "fam" / "first_op")
    assert code == 0 and out.count("ok ") == 1 and "first_op" in out
    new_package("second_op", family="other", cwd=tmp_path)
    code, _, err = cli("spec", "check", "second_op", cwd=tmp_path)
    assert code == 2 and "several packages have this name" in err
    code, _, err = cli("spec", "check", "nope_op", cwd=tmp_path)
    assert code == 2 and "no operator package of that name" in err


def test_cli_reports_spec_errors_with_lines(cli, tmp_path):
    r = new_package("my_op", directory=".", cwd=tmp_path)
    text = (r.path / "op.yaml").read_text().replace("kernel: vector", "kernel: 3")
    (r.path / "op.yaml").write_text(text)
    code, out, err = cli("spec", "check", "my_op", cwd=tmp_path)
    assert code == 2
    assert f"op.yaml:{text.splitlines().index('kernel: 3') + 1}: kernel: 3 (a number) is not a kernel type" in err
    assert "Traceback" not in err + out
    code, out, _ = cli("list", ".", cwd=tmp_path)
    assert code == 1 and "is not a kernel type" in out


def test_schema_command_prints_valid_json_schema(cli, tmp_path):
    import json

    import jsonschema

    code, out, _ = cli("spec", "schema")
    assert code == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    code, _, _ = cli("spec", "schema", "--out", tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text()) == schema


def test_version(cli):
    from opkit import __version__

    code, out, _ = cli("--version")
    assert code == 0 and out.strip() == f"opkit {__version__}"


def test_cwd_untouched(tmp_path):
    here = os.getcwd()
    new_package("my_op", directory="D", cwd=tmp_path)
    assert os.getcwd() == here


def test_unknown_or_untargeted_chip_is_a_clear_error(cli, tmp_path):
    new_package("chip_op", directory=".", cwd=tmp_path)
    for cmd in (("build",), ("verify",), ("run", ".", "--case", "tiny", "--out", "o.npz")):
        code, out, err = cli(*cmd, "--soc", "ascend999", cwd=tmp_path / "chip_op")
        assert code == 2 and "ascend999" in err and "Traceback" not in out + err, cmd
        code, out, err = cli(*cmd, "--soc", "ascend310p3", cwd=tmp_path / "chip_op")
        assert code == 2 and "does not target ascend310p" in err, cmd
