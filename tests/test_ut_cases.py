"""Cases read from an operator library's tiling unit tests (opkit.scaffold.ut_cases)."""

from __future__ import annotations

from pathlib import Path

from opkit.scaffold.ut_cases import find_ut_cases, scan_file

UT = r'''
#include <gtest/gtest.h>
// TEST_F(Commented, out) { gert::TilingContextPara p("ScaleRows", {}, {}, &ci); }
TEST_F(ScaleRowsTiling, scale_rows_fp16_small)
{
    optiling::ScaleRowsCompileInfo compileInfo = {};
    gert::TilingContextPara tilingContextPara("ScaleRows",
        {
            {{{4, 48}, {4, 48}}, ge::DT_FLOAT16, ge::FORMAT_ND},   /* x */
            {{{48}, {48}}, ge::DT_FLOAT16, ge::FORMAT_ND},
        },
        {
            {{{4, 48}, {4, 48}}, ge::DT_FLOAT16, ge::FORMAT_ND},
        },
        {
            {"alpha", Ops::Transformer::AnyValue::CreateFrom<float>(0.5)},
            {"mode", Ops::Transformer::AnyValue::CreateFrom<int64_t>(-2)},
            {"relu", Ops::Transformer::AnyValue::CreateFrom<bool>(true)},
        },
        &compileInfo);
    uint64_t expectTilingKey = 2000;
    string expectTilingData = "1 2 3 ";
    ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS, expectTilingKey, expectTilingData, {32});
}

TEST_F(ScaleRowsTiling, scale_rows_bad_rank)
{
    optiling::ScaleRowsCompileInfo compileInfo = {};
    gert::TilingContextPara tilingContextPara("ScaleRows",
        {{{{4, 4, 48}, {4, 4, 48}}, ge::DT_BF16, ge::FORMAT_ND}, {{{48}, {48}}, ge::DT_BF16, ge::FORMAT_ND}},
        {{{{4, 4, 48}, {4, 4, 48}}, ge::DT_BF16, ge::FORMAT_ND}},
        &compileInfo);
    ExecuteTestCase(tilingContextPara, ge::GRAPH_FAILED, 0, "", {});
}

TEST_F(ScaleRowsTiling, other_op)
{
    gert::TilingContextPara p("OtherOp", {{{{1}, {1}}, ge::DT_FLOAT, ge::FORMAT_ND}}, {}, &ci);
    ExecuteTestCase(p, ge::GRAPH_SUCCESS, 7, "", {});
}

TEST_F(ScaleRowsTiling, shape_from_a_variable)
{
    gert::TilingContextPara p("ScaleRows", {{{{rows, 48}, {rows, 48}}, ge::DT_FLOAT16, ge::FORMAT_ND}}, {}, &ci);
    ExecuteTestCase(p, ge::GRAPH_SUCCESS, 1, "", {});
}

TEST_F(ScaleRowsTiling, no_expectation)
{
    gert::TilingContextPara p("ScaleRows", {{{{2, 48}, {2, 48}}, ge::DT_FLOAT16, ge::FORMAT_ND}}, {}, &ci);
}
'''


def _write(tmp_path: Path) -> Path:
    f = tmp_path / "scale_rows" / "tests" / "ut" / "op_host" / "test_scale_rows_tiling.cpp"
    f.parent.mkdir(parents=True)
    f.write_text(UT, encoding="utf-8")
    return f


def test_reads_shapes_dtypes_attrs_and_the_expected_key(tmp_path):
    scan = scan_file(_write(tmp_path), "ScaleRows")
    ok, bad = scan.cases
    assert ok.name == "scale_rows_fp16_small" and ok.success and ok.tiling_key == 2000
    assert [t.shape for t in ok.inputs] == [[4, 48], [48]] and [t.dtype for t in ok.inputs] == ["float16"] * 2
    assert [t.shape for t in ok.outputs] == [[4, 48]] and ok.inputs[0].format == "ND"
    assert ok.attrs == {"alpha": 0.5, "mode": -2, "relu": True}
    assert isinstance(ok.attrs["alpha"], float) and isinstance(ok.attrs["relu"], bool)
    assert ok.line == UT[:UT.index("TEST_F(ScaleRowsTiling, scale_rows_fp16_small")].count("\n") + 1
    assert not bad.success and bad.tiling_key == 0 and bad.inputs[0].dtype == "bfloat16"


def test_other_ops_are_left_and_unreadable_cases_are_named_not_guessed(tmp_path):
    scan = scan_file(_write(tmp_path), "ScaleRows")
    assert [c.name for c in scan.cases] == ["scale_rows_fp16_small", "scale_rows_bad_rank"]
    assert len(scan.skipped) == 2
    variable, missing = scan.skipped
    assert "shape_from_a_variable" in variable and "integers" in variable
    assert "no_expectation" in missing and "ExecuteTestCase" in missing
    assert [c.op_type for c in scan_file(tmp_path / "scale_rows/tests/ut/op_host/test_scale_rows_tiling.cpp").cases] \
        == ["ScaleRows", "ScaleRows", "OtherOp"]


def test_find_ut_cases_looks_in_the_operators_tiling_tests(tmp_path):
    _write(tmp_path)
    infer = tmp_path / "scale_rows" / "tests" / "ut" / "op_host" / "test_scale_rows_infershape.cpp"
    infer.write_text(UT, encoding="utf-8")  # not a tiling test: not read
    assert len(find_ut_cases(tmp_path / "scale_rows", "ScaleRows").cases) == 2
    assert find_ut_cases(tmp_path / "elsewhere", "ScaleRows").cases == []


LOCALS = r'''
TEST_F(RopeTiling, values_from_locals_and_arithmetic)
{
    std::vector<int64_t> splitsParams = {1024, 128, 128};
    int64_t rows = 2 * 4;
    const int cols = 2 + 16 * 8 - 2;
    gert::TilingContextPara p("Rope",
        {{{{rows, cols}, {rows, cols}}, ge::DT_FLOAT16, ge::FORMAT_ND}},
        {{{{rows, cols}, {rows, cols}}, ge::DT_FLOAT16, ge::FORMAT_ND}},
        {{"size_splits", Ops::Transformer::AnyValue::CreateFrom<vector<int64_t>>(splitsParams)},
         {"heads", Ops::Transformer::AnyValue::CreateFrom<std::vector<int64_t>>({8 * 128, 1 * 128})}},
        &ci);
    int64_t expectTilingKey = 3;  // not checked by the call below
    ExecuteTestCaseWithoutTilingKey(p, ge::GRAPH_SUCCESS, "", {16 * 1024 * 1024});
}

TEST_F(RopeTiling, a_local_that_is_not_a_literal_stays_unreadable)
{
    int64_t rows = GetRows();
    gert::TilingContextPara p("Rope", {{{{rows, 4}, {rows, 4}}, ge::DT_FLOAT16, ge::FORMAT_ND}}, {}, &ci);
    ExecuteTestCase(p, ge::GRAPH_SUCCESS, 1, "", {});
}
'''


def test_locals_with_literal_values_and_integer_arithmetic_are_read(tmp_path):
    f = tmp_path / "test_rope_tiling.cpp"
    f.write_text(LOCALS, encoding="utf-8")
    scan = scan_file(f, "Rope")
    (case,) = scan.cases
    assert case.inputs[0].shape == [8, 128] and case.outputs[0].shape == [8, 128]
    assert case.attrs == {"size_splits": [1024, 128, 128], "heads": [1024, 128]}
    assert case.success and case.tiling_key is None  # ExecuteTestCaseWithoutTilingKey: no key to check
    (skipped,) = scan.skipped
    assert "a_local_that_is_not_a_literal_stays_unreadable" in skipped and "integers" in skipped


def _op(outputs_dtypes=None):
    """A describe()-style OpDef: x, idx and an optional trailing probs input whose dtype varies by column."""
    cols = [("float16", "float16"), ("float16", "float32"), ("float32", "float32")]
    return {
        "op_type": "Unperm",
        "inputs": [{"name": "x", "dtypes": [c[0] for c in cols], "param_type": "required"},
                   {"name": "idx", "dtypes": ["int32"] * 3, "param_type": "required"},
                   {"name": "probs", "dtypes": [c[1] for c in cols], "param_type": "optional"}],
        "outputs": [{"name": "y", "dtypes": [c[0] for c in cols]},
                    {"name": "probs_grad", "dtypes": [c[1] for c in cols]}],
        "attrs": [{"name": "restore_shape", "type": "list_int", "required": False, "default": None}],
    }


UNPERM = r'''
TEST_F(UnpermTiling, probs_left_out)
{
    gert::TilingContextPara p("Unperm",
        {{{{6, 8}, {6, 8}}, ge::DT_FLOAT16, ge::FORMAT_ND}, {{{6}, {6}}, ge::DT_INT32, ge::FORMAT_ND}},
        {{{{3, 8}, {3, 8}}, ge::DT_FLOAT16, ge::FORMAT_ND}, {{{3, 2}, {3, 2}}, ge::DT_FLOAT, ge::FORMAT_ND}},
        &ci);
    ExecuteTestCase(p, ge::GRAPH_SUCCESS, 0, "", {});
}
'''


def test_trailing_optional_inputs_a_test_leaves_out_are_absent_and_outputs_settle_the_column(tmp_path):
    from opkit.scaffold.adopt import spec_text, ut_case_entries
    from opkit.spec import load_string

    f = tmp_path / "test_unperm_tiling.cpp"
    f.write_text(UNPERM, encoding="utf-8")
    cases, notes = ut_case_entries(_op(), scan_file(f, "Unperm"))
    assert notes == []
    (case,) = cases
    assert case["shapes"] == {"x": [6, 8], "idx": [6]}  # probs absent
    assert case["dtype"]["probs_grad"] == "float32"  # x=float16 alone matches columns 0 and 1
    text = spec_text(_op(), name="unperm", family="moe", kernel="vector", build={}, cases=cases, summary="s",
                     header=["# h"])
    spec = load_string(text)
    assert list(spec.cases[0].columns) == [1]
    # OPTIONAL without a default: op.yaml requires it, the case gets a placeholder, the header says so
    assert spec.attrs[0].required and spec.cases[0].attrs["restore_shape"] == []
    assert "Placeholder values for attrs with no default" in text and "&id" not in text
