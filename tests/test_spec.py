"""The op.yaml loader: YAML 1.2 scalars, line numbers, schema and semantic checks."""

from __future__ import annotations

import math
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opkit.errors import SpecError
from opkit.spec import load, load_string
from opkit.spec.yamlio import dump, load_text


def problems(text: str, file: str = "ops/x/op.yaml") -> list[str]:
    with pytest.raises(SpecError) as info:
        load_string(text, file=file)
    return info.value.problems


def line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


# --- YAML 1.2 scalars -------------------------------------------------------------------------

def test_yaml12_numbers_and_booleans():
    d = load_text("eps: 1e-20\nmode: off\nyes_: yes\nb: true\nB: False\no: 0o17\nh: 0x1f\n"
                  "i: .inf\nn: .nan\nz: ~\ns: '1e3'\nf: 1.\n", "f.yaml").data
    assert d["eps"] == 1e-20 and isinstance(d["eps"], float)
    assert d["mode"] == "off" and d["yes_"] == "yes"
    assert d["b"] is True and d["B"] is False
    assert d["o"] == 15 and d["h"] == 31
    assert d["i"] == math.inf and math.isnan(d["n"])
    assert d["z"] is None and d["s"] == "1e3" and d["f"] == 1.0


def test_duplicate_keys_are_refused_with_both_lines():
    with pytest.raises(SpecError) as info:
        load_text("name: a\nfamily: b\nname: c\n", "s.yaml")
    assert info.value.problems == ["s.yaml:3: name: duplicate key 'name' (first given on line 1); remove one of them"]


def test_nested_duplicate_key():
    with pytest.raises(SpecError, match=r"s.yaml:3: cases\[0\]\.shapes\.x: duplicate key 'x'"):
        load_text("cases:\n  - shapes: {x: [1],\n      x: [2]}\n", "s.yaml")


def test_syntax_error_names_line():
    with pytest.raises(SpecError, match=r"^s.yaml:3: invalid YAML"):
        load_text("a: 1\nb: 2\n  c: 3\n", "s.yaml")


def test_dump_round_trips_ambiguous_strings():
    data = {"a": "off", "b": "1e-3", "c": "true", "d": "null", "e": [1, 2.5], "f": {"g": "yes"}}
    assert load_text(dump(data), "x").data == data


# --- the template spec loads into typed objects -------------------------------------------------

def test_template_spec_loads(axpy_text):
    s = load_string(axpy_text)
    assert (s.name, s.op_type, s.family, s.kernel) == ("axpy_relu", "AxpyRelu", "examples", "vector")
    assert [p.name for p in s.inputs] == ["x", "y"] and [p.name for p in s.outputs] == ["z"]
    assert s.n_columns == 3 and s.column(1) == {"x": "bfloat16", "y": "bfloat16", "z": "bfloat16"}
    assert s.attr("alpha").default == 1.0 and not s.attr("alpha").required
    assert s.case("multi_dim").columns == (1,)
    assert s.case("smoke").columns == (0, 1, 2)
    assert s.case("odd_tail").attrs == {"alpha": -0.5}
    assert s.case("tiny").attrs == {"alpha": 2.0}
    assert s.golden_file == "golden.py" and s.golden_func == "axpy_relu"
    assert [p.case for p in s.perf] == ["large"]


# --- error messages name file, line, field, found and expected ------------------------------------

def test_bad_dtype_message(axpy_text):
    bad = axpy_text.replace("{name: y, dtypes: [float16, bfloat16, float32]",
                            "{name: y, dtypes: [float16, bfloat16, fp17]")
    (msg,) = problems(bad)
    assert msg.startswith(f"ops/x/op.yaml:{line_of(bad, 'fp17')}: inputs[1].dtypes[2]: 'fp17' is not a dtype "
                          "(expected one of float16, bfloat16, float32")


def test_unknown_field_suggests(axpy_text):
    bad = axpy_text.replace("kernel: vector", "kernell: vector")
    msgs = problems(bad)
    assert any(f":{line_of(bad, 'kernell')}: kernell: unknown field 'kernell'" in m and "did you mean 'kernel'" in m
               for m in msgs)
    assert any("missing field 'kernel'" in m for m in msgs)


def test_misaligned_dtype_columns_name_both_lists(axpy_text):
    bad = axpy_text.replace("{name: z, dtypes: [float16, bfloat16, float32]", "{name: z, dtypes: [float16, bfloat16]")
    (msg,) = problems(bad)
    assert f":{line_of(bad, 'name: z')}: outputs[0].dtypes: has 2 dtype(s) but inputs[0].dtypes has 3" in msg


def test_wrong_types(axpy_text):
    assert any("cases: expected a list, found 'none'" in m for m in problems(axpy_text.replace(
        axpy_text[axpy_text.index("cases:"):axpy_text.index("precision:")], "cases: none\n")))
    (msg,) = problems(axpy_text.replace("default: 1.0", "default: one"))
    assert "attrs[0].default: 'one' is not a value of type float" in msg
    (msg,) = problems(axpy_text.replace("seed: 7", "seed: -1"))
    assert "cases[4].seed: -1 (a number) must be >= 0" in msg


def test_off_is_a_string_only_an_error_where_a_bool_is_expected(axpy_text):
    text = axpy_text.replace("attrs:\n", "attrs:\n  - {name: mode, type: string, default: off}\n"
                                         "  - {name: flag, type: bool, default: off}\n")
    (msg,) = problems(text)
    assert "attrs[1].default: 'off' is not a value of type bool" in msg
    ok = text.replace("default: off}\n  - {name: flag", "default: off}\n  - {name: flag").replace(
        "type: bool, default: off", "type: bool, default: false")
    s = load_string(ok)
    assert s.attr("mode").default == "off" and s.attr("flag").default is False


def test_eps_1e_20_is_a_float(axpy_text):
    s = load_string(axpy_text.replace("attrs:\n", "attrs:\n  - {name: eps, type: float, default: 1e-20}\n"))
    assert s.attr("eps").default == 1e-20


def test_case_shape_checks(axpy_text):
    (msg,) = problems(axpy_text.replace("shapes: {x: [7], y: [7]}", "shapes: {x: [7], y: [8]}"))
    assert "cases[2].shapes.y: shape [8] dims [8] (...N) differ from [7]" in msg
    (msg,) = problems(axpy_text.replace("shapes: {x: [7], y: [7]}", "shapes: {x: [7]}"))
    assert "cases[2].shapes: no shape for required input 'y'" in msg
    (msg,) = problems(axpy_text.replace("shapes: {x: [7], y: [7]}", "shapes: {x: [7], y: [7], z: [7]}"))
    assert "'z' is not an input (output shapes come from InferShape)" in msg


def test_symbolic_dims_bind_across_inputs():
    base = """
name: rope_like
family: posembedding
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float16], shape: [B, N, S, D]}
  - {name: cos, dtypes: [float16], shape: [B|1, 1, S|1, D]}
outputs:
  - {name: y, dtypes: [float16], shape: [B, N, S, D]}
golden: golden.py:rope_like
cases:
  - {name: a, shapes: {x: [2, 4, 8, 64], cos: SHAPE}}
"""
    for good in ("[2, 1, 8, 64]", "[1, 1, 8, 64]", "[2, 1, 1, 64]"):
        load_string(base.replace("SHAPE", good))
    (msg,) = problems(base.replace("SHAPE", "[3, 1, 8, 64]"))
    assert "dim 0 is 3 but B|1 is bound to B=2" in msg
    (msg,) = problems(base.replace("SHAPE", "[2, 2, 8, 64]"))
    assert "dim 1 is 2 but the spec fixes it to 1" in msg
    (msg,) = problems(base.replace("SHAPE", "[2, 1, 8]"))
    assert "has rank 3 but the spec's shape" in msg


def test_dtype_selectors(axpy_text):
    (msg,) = problems(axpy_text.replace("dtype: bfloat16", "dtype: 3"))
    assert "column 3 does not exist" in msg
    s = load_string(axpy_text.replace("dtype: bfloat16", "dtype: {x: float32}"))
    assert s.case("multi_dim").columns == (2,)
    mixed = axpy_text.replace("{name: y, dtypes: [float16, bfloat16, float32]",
                              "{name: y, dtypes: [float16, float16, float32]")
    mixed = mixed.replace("dtype: bfloat16", "dtype: {y: float16}")
    (msg,) = problems(mixed)
    assert "matches columns [0, 1]" in msg


def test_soc_column_restrictions(axpy_text):
    s = load_string(axpy_text.replace("socs: [ascend910b, ascend910_93]",
                                      "socs: [ascend910b, {soc: ascend310p, columns: [float16]}]"))
    assert s.socs[1].key == "ascend310p" and s.socs[1].columns == (0,)
    assert s.socs[1].supports(0) and not s.socs[1].supports(1)
    (msg,) = problems(axpy_text.replace("socs: [ascend910b, ascend910_93]", "socs: [ascend910b, ascend910c]"))
    assert "socs[1]: 'ascend910c' is not an OpDef SoC key" in msg


def test_conditional_outputs():
    base = """
name: gate
family: moe
socs: [ascend910b]
kernel: vector
inputs: [{name: x, dtypes: [float32]}]
outputs:
  - {name: y, dtypes: [float32]}
  - {name: out, dtypes: [float32], when: WHEN}
attrs:
  - {name: out_flag, type: bool, default: false}
  - {name: norm_type, type: int, default: 0}
golden: golden.py:gate
cases: [{name: a, shapes: {x: [4, 8]}}]
"""
    s = load_string(base.replace("WHEN", "out_flag"))
    assert s.outputs[1].when.holds({"out_flag": True}) and not s.outputs[1].when.holds({"out_flag": False})
    s = load_string(base.replace("WHEN", "'norm_type == 1'"))
    assert s.outputs[1].when.holds({"norm_type": 1}) and not s.outputs[1].when.holds({"norm_type": 0})
    assert "unknown attr 'flag'" in problems(base.replace("WHEN", "flag"))[0]
    assert "is int; compare it" in problems(base.replace("WHEN", "norm_type"))[0]
    assert "is not a value of type int" in problems(base.replace("WHEN", "'norm_type == x'"))[0]


def test_names_must_be_unique_and_not_reserved(axpy_text):
    (msg,) = problems(axpy_text.replace("{name: y, dtypes", "{name: x, dtypes").replace("y: [", "x2: ["))
    assert "'x' is already the name of inputs[0].name" in msg
    (msg,) = problems(axpy_text.replace("{name: z, dtypes", "{name: tiling, dtypes"))
    assert "'tiling' cannot name a tensor" in msg


def test_golden_file_is_checked(tmp_path, axpy_text):
    (tmp_path / "op.yaml").write_text(axpy_text)
    with pytest.raises(SpecError, match="golden file 'golden.py' does not exist"):
        load(tmp_path)
    (tmp_path / "golden.py").write_text("def other():\n    pass\n")
    with pytest.raises(SpecError, match="defines no function 'axpy_relu'"):
        load(tmp_path)
    (tmp_path / "golden.py").write_text("def axpy_relu(x, y, alpha):\n    return x\n")
    assert load(tmp_path).name == "axpy_relu"
    (tmp_path / "op.yaml").write_text(axpy_text.replace("golden: golden.py:", "golden: ../golden.py:"))
    with pytest.raises(SpecError, match="lies outside the package folder"):
        load(tmp_path)


def test_not_a_mapping_and_empty():
    assert "expected a mapping" in problems("")[0]
    assert "expected a mapping" in problems("- 1\n- 2\n")[0]


# --- malformed input never escapes as anything but a SpecError ------------------------------------

_junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=6,
)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_specs_fail_cleanly(axpy_text, data):
    spec = yaml.safe_load(axpy_text)
    paths = [p for p in _paths(spec) if p]
    path = data.draw(st.sampled_from(paths))
    target = spec
    for part in path[:-1]:
        target = target[part]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        target[path[-1]] = data.draw(_junk)
    elif action == "delete":
        del target[path[-1]]
    elif isinstance(target, dict):
        target[data.draw(st.text(min_size=1, max_size=6))] = data.draw(_junk)
    else:
        target.append(data.draw(_junk))
    text = yaml.safe_dump(spec, sort_keys=False)
    try:
        load_string(text, file="m.yaml")
    except SpecError as exc:
        assert exc.problems
        for msg in exc.problems:
            assert re.match(r"^m\.yaml:\d+: ", msg), msg


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_random_text_fails_cleanly(text):
    try:
        load_string(text, file="r.yaml")
    except SpecError as exc:
        assert all(m.startswith("r.yaml:") for m in exc.problems)
