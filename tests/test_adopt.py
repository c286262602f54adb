"""`opkit adopt`: an existing operator folder becomes an opkit package without touching its C++.

The folders are the layout fixtures of tests/fixtures/layouts (operators of our own in
ops-transformer's and msOpGen's layouts) with their op.yaml and golden.py taken away, as a user
with an existing operator has them.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from opkit.spec import load

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parent / "fixtures" / "layouts"
CHIP = "ascend910b2"

ROW_SCALE_UT = r'''
TEST_F(RowScaleTiling, rows_fit)
{
    gert::TilingContextPara para("RowScale",
        {{{{4, 40}, {4, 40}}, ge::DT_FLOAT16, ge::FORMAT_ND}, {{{40}, {40}}, ge::DT_FLOAT16, ge::FORMAT_ND}},
        {{{{4, 40}, {4, 40}}, ge::DT_FLOAT16, ge::FORMAT_ND}},
        {{"bias", Ops::Transformer::AnyValue::CreateFrom<float>(0.25)}}, &compileInfo);
    ExecuteTestCase(para, ge::GRAPH_SUCCESS, 100, "", {});
}
TEST_F(RowScaleTiling, row_split)
{
    gert::TilingContextPara para("RowScale",
        {{{{2, 70001}, {2, 70001}}, ge::DT_FLOAT, ge::FORMAT_ND}, {{{70001}, {70001}}, ge::DT_FLOAT, ge::FORMAT_ND}},
        {{{{2, 70001}, {2, 70001}}, ge::DT_FLOAT, ge::FORMAT_ND}}, &compileInfo);
    uint64_t expectTilingKey = 200;
    ExecuteTestCase(para, ge::GRAPH_SUCCESS, expectTilingKey, "", {});
}
TEST_F(RowScaleTiling, empty_gamma)
{
    gert::TilingContextPara para("RowScale",
        {{{{2, 8}, {2, 8}}, ge::DT_FLOAT, ge::FORMAT_ND}, {{{0}, {0}}, ge::DT_FLOAT, ge::FORMAT_ND}},
        {{{{2, 8}, {2, 8}}, ge::DT_FLOAT, ge::FORMAT_ND}}, &compileInfo);
    ExecuteTestCase(para, ge::GRAPH_FAILED, 0, "", {});
}
'''


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".opkit" not in p.parts:
            h.update(str(p.relative_to(root)).encode() + p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def library(tmp_path) -> Path:
    """The fixture library without opkit's files: what a user has before adopting."""
    root = tmp_path / "lib"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns(".opkit", "__pycache__", "op.yaml", "golden.py"))
    ut = root / "optrans" / "demos" / "row_scale" / "tests" / "ut" / "op_host" / "test_row_scale_tiling.cpp"
    ut.parent.mkdir(parents=True)
    ut.write_text(ROW_SCALE_UT, encoding="utf-8")
    return root


def _adopt_row_scale(cli, library: Path, *extra: str):
    folder = library / "optrans" / "demos" / "row_scale"
    common = library / "optrans" / "common"
    return cli("adopt", folder, "-I", common / "include", "--alias", f"demo/row_scale={folder}",
               "--source", str(common / "src" / "*.cpp"), "--soc", CHIP, *extra)


def test_adopt_derives_the_interface_and_the_unit_test_cases(cli, library):
    folder = library / "optrans" / "demos" / "row_scale"
    before = _tree_digest(folder / "op_host") + _tree_digest(folder / "op_kernel")
    code, out, err = _adopt_row_scale(cli, library)
    assert code == 0, out + err
    assert "adopted RowScale" in out and "rows_fit, row_split" in out
    spec = load(folder)
    assert [(p.name, p.dtypes) for p in spec.inputs] == [("x", ("float32", "float16")), ("gamma", ("float32", "float16"))]
    assert [(p.name, p.dtypes) for p in spec.outputs] == [("y", ("float32", "float16"))]
    assert [(a.name, a.type, a.default) for a in spec.attrs] == [("bias", "float", 0.0)]
    assert sorted(s.key for s in spec.socs) == ["ascend910_93", "ascend910b"]
    cases = {c.name: c for c in spec.cases}
    assert set(cases) == {"rows_fit", "row_split"}  # the GRAPH_FAILED case is not a case to verify
    assert cases["rows_fit"].shapes == {"x": [4, 40], "gamma": [40]} and cases["rows_fit"].attrs["bias"] == 0.25
    assert cases["rows_fit"].columns == (1,) and cases["row_split"].columns == (0,)  # float16, float32
    assert (cases["rows_fit"].tiling_key, cases["row_split"].tiling_key) == (100, 200)
    assert "smoke" in cases["rows_fit"].tags
    assert _tree_digest(folder / "op_host") + _tree_digest(folder / "op_kernel") == before  # C++ untouched
    assert "compute not implemented" in (folder / "golden.py").read_text() or \
        "ComputeNotImplemented" in (folder / "golden.py").read_text()


def test_adopted_package_verifies_once_the_golden_has_its_math(cli, library, tmp_path):
    folder = library / "optrans" / "demos" / "row_scale"
    code, out, err = _adopt_row_scale(cli, library)
    assert code == 0, out + err
    code, out, err = cli("verify", folder, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v0")
    assert code == 1 and "compute not implemented" in out + err  # the skeleton says what is missing
    shutil.copyfile(FIXTURES / "optrans" / "demos" / "row_scale" / "golden.py", folder / "golden.py")
    code, out, err = cli("verify", folder, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0, out + err
    assert "2 passed" in out or "passed 2" in out or "0 failed, 0 errors" in out, out


def test_a_wrong_expected_tiling_key_fails_the_case(cli, library, tmp_path):
    folder = library / "optrans" / "demos" / "row_scale"
    assert _adopt_row_scale(cli, library)[0] == 0
    shutil.copyfile(FIXTURES / "optrans" / "demos" / "row_scale" / "golden.py", folder / "golden.py")
    text = (folder / "op.yaml").read_text().replace("tiling_key: 200", "tiling_key: 300")
    (folder / "op.yaml").write_text(text)
    code, out, err = cli("verify", folder, "--soc", CHIP, "-j", "1", "-k", "row_split", "--out", tmp_path / "v")
    assert code == 1 and "tiling key 200, the case expects 300" in out + err


def test_adopt_into_a_separate_folder_points_back_at_the_sources(cli, library, tmp_path):
    folder = library / "msopgen" / "leaky_clamp"
    code, out, err = cli("adopt", folder, "--dir", tmp_path / "mine" / "leaky_clamp", "--soc", CHIP)
    assert code == 0, out + err
    pkg = tmp_path / "mine" / "leaky_clamp"
    assert sorted(p.name for p in pkg.iterdir() if p.name != ".opkit") == ["golden.py", "op.yaml"]
    assert not (folder / "op.yaml").exists() and not (folder / "golden.py").exists()  # nothing written there
    spec = load(pkg)
    assert spec.src_dir == folder.resolve() and [c.name for c in spec.cases] == ["smoke"]  # no UT: placeholder
    assert "placeholder shapes" in (pkg / "op.yaml").read_text()
    shutil.copyfile(FIXTURES / "msopgen" / "leaky_clamp" / "golden.py", pkg / "golden.py")
    code, out, err = cli("build", pkg, "--soc", CHIP, "-j", "1")
    assert code == 0, out + err


def test_relative_paths_on_the_command_line_are_taken_from_the_current_folder(cli, library):
    """-I, --alias and --source (a glob too) name paths from the folder the command runs in; op.yaml keeps them
    relative to the package, so the package builds from anywhere."""
    code, out, err = cli("adopt", "optrans/demos/row_scale", "--dir", "mine/row_scale", "-I", "optrans/common/include",
                         "--alias", "demo/row_scale=optrans/demos/row_scale", "--source", "optrans/common/src/*.cpp",
                         "--soc", CHIP, cwd=library)
    assert code == 0, out + err
    spec = load(library / "mine" / "row_scale")
    assert spec.build.sources == ("../../optrans/common/src/*.cpp",)
    assert spec.build.include_dirs == ("../../optrans/common/include",)


def test_adopt_never_overwrites_without_force_and_never_replaces_the_golden(cli, library):
    folder = library / "optrans" / "demos" / "row_scale"
    assert _adopt_row_scale(cli, library)[0] == 0
    assert _adopt_row_scale(cli, library)[0] == 0  # unchanged since opkit wrote it: refreshed silently
    (folder / "golden.py").write_text("def row_scale(x, gamma, *, bias=0.0):  # my math\n    return x\n")
    (folder / "op.yaml").write_text((folder / "op.yaml").read_text() + "# my note\n")
    code, out, err = _adopt_row_scale(cli, library)
    assert code == 2 and "op.yaml" in err and "--force" in err
    code, out, err = _adopt_row_scale(cli, library, "--force")
    assert code == 0, out + err
    assert "kept a copy" in out and "my math" in (folder / "golden.py").read_text()
    assert "# my note" not in (folder / "op.yaml").read_text()
    backups = list((folder / ".opkit" / "backup").rglob("op.yaml"))
    assert backups and "# my note" in backups[0].read_text()


@pytest.mark.parametrize("args, message", [
    (["nowhere"], "no such folder"),
    (["{lib}/optrans/common"], "no op_host/ folder"),
    (["{lib}/msopgen/leaky_clamp", "--alias", "noequals"], "give PREFIX=DIR"),
    (["{lib}/msopgen/leaky_clamp", "-I", "{lib}/missing"], "no such folder"),
    (["{lib}/msopgen/leaky_clamp", "--op", "NotThere"], "no OpDef NotThere"),
])
def test_adopt_errors_are_one_message(cli, library, tmp_path, args, message):
    code, out, err = cli("adopt", *[a.format(lib=library) for a in args], cwd=tmp_path)
    assert code == 2 and message in err and "Traceback" not in out + err, out + err


def test_a_folder_whose_host_code_does_not_compile_is_a_build_error(cli, library):
    folder = library / "msopgen" / "leaky_clamp"
    (folder / "op_host" / "broken.cpp").write_text("#include \"no_such_header.h\"\n")
    code, out, err = cli("adopt", folder, "--soc", CHIP)
    assert code != 0 and "no_such_header.h" in out + err and "Traceback" not in out + err
    assert not (folder / "op.yaml").exists()


def test_tensors_declared_only_in_the_per_soc_config(cli, library):
    # FlashAttentionScore's OpDef declares its tensors only through OpAICoreConfig (AddConfig(soc, cfg))
    folder = library / "msopgen" / "leaky_clamp"
    src = folder / "op_host" / "leaky_clamp.cpp"
    text = src.read_text()
    text = text.replace('this->Input("x")', 'ops::OpAICoreConfig cfg;\n        cfg.Input("x")')
    text = text.replace('this->Output("y")', 'cfg.Output("y")')
    text = text.replace('this->AICore().AddConfig("ascend910b");', 'this->AICore().AddConfig("ascend910b", cfg);')
    src.write_text(text)
    code, out, err = cli("adopt", folder, "--soc", CHIP)
    assert code == 0, out + err
    spec = load(folder)
    assert [(p.name, p.dtypes) for p in spec.inputs] == [("x", ("float32", "float16"))]
    assert [(p.name, p.dtypes) for p in spec.outputs] == [("y", ("float32", "float16"))]
