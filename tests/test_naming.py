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
