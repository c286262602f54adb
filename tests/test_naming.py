import pytest

from opkit.errors import UsageError
from opkit.naming import check_name, name_problem, op_type_of, op_type_problem, snake_of


@pytest.mark.parametrize("op_type,snake", [
    ("AbcAAc", "abc_a_ac"), ("AddCustom", "add_custom"), ("MoeGatingTopK", "moe_gating_top_k"),
    ("InterleaveRope", "interleave_rope"), ("MatmulAllReduce", "matmul_all_reduce"),
    ("FlashAttentionScore", "flash_attention_score"), ("GMMTest", "gmm_test"), ("Conv2D", "conv2_d"),
    ("Add", "add"), ("ABC", "abc"), ("Softmax2", "softmax2"),
])
def test_snake_of_follows_msopgen_rule(op_type, snake):
    assert snake_of(op_type) == snake


@pytest.mark.parametrize("name", ["axpy_relu", "moe_gating_top_k", "grouped_matmul", "rms_norm", "a1"])
def test_good_names_round_trip(name):
    assert name_problem(name) is None
    assert snake_of(op_type_of(name)) == name


@pytest.mark.parametrize("name,why", [
    ("", "empty"), ("../x", "path"), ("a/b", "path"), ("..", "path"), ("Axpy", "snake_case"),
    ("axpy__relu", "snake_case"), ("_x", "snake_case"), ("x_", "snake_case"), ("1x", "snake_case"),
    ("sin", "C/libm/POSIX"), ("index", "C/libm/POSIX"), ("time", "C/libm/POSIX"), ("exp", "C/libm/POSIX"),
    ("class", "keyword"), ("int", "keyword"), ("rope_2d", "naming rule"), ("a" * 65, "longer"),
    ("x y", "snake_case"), ("ëx", "snake_case"),
])
def test_bad_names_are_refused_with_reason(name, why):
    problem = name_problem(name)
    assert problem is not None and why in problem
    with pytest.raises(UsageError):
        check_name(name)


def test_op_type_override_must_keep_the_stem():
    assert op_type_problem("AxpyRelu", "axpy_relu") is None
    assert "maps to the file stem 'axpy_re_lu'" in op_type_problem("AxpyReLu", "axpy_relu")
    assert "UpperCamelCase" in op_type_problem("axpyRelu", "axpy_relu")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_name_chars = st.text(alphabet=st.sampled_from(list("abcxyz019_./\\ -A\0é")), max_size=12)


@settings(max_examples=200, deadline=None)
@given(_name_chars)
def test_any_string_is_either_a_safe_name_or_refused(name):
    problem = name_problem(name)
    if problem is None:
        assert "/" not in name and "." not in name and "\\" not in name and name
        assert snake_of(op_type_of(name)) == name
    else:
        with pytest.raises(UsageError):
            check_name(name)


@settings(max_examples=25, deadline=None)
@given(_name_chars)
def test_new_never_writes_outside_its_target(tmp_path_factory, name):
    from opkit.scaffold.new import new_package

    root = tmp_path_factory.mktemp("new")
    work = root / "work"
    work.mkdir()
    try:
        r = new_package(name, directory="D", cwd=work)
    except UsageError:
        assert [p for p in root.rglob("*") if p != work] == []
        return
    written = [p for p in root.rglob("*") if p.is_file()]
    assert written and all(p.is_relative_to(work / "D" / name) for p in written)
    assert r.path == work / "D" / name
