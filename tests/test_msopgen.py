"""msOpGen prototype JSON <-> op.yaml: mapping, round trips, refusals, and fuzzed input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opkit.errors import OpkitError, SpecError, UsageError
from opkit.scaffold.msopgen import import_msopgen, list_operators, read_msopgen_json, spec_from_msopgen
from opkit.scaffold.msopgen_export import export_msopgen, msopgen_from_spec
from opkit.spec import load, load_string

# The quick-start operator as the msOpGen docs write it: one format broadcast over three types,
# a camelCase optional attr.
ADD_CUSTOM = [{
    "op": "AddCustom",
    "input_desc": [
        {"name": "x", "param_type": "required", "format": ["ND"], "type": ["fp16", "float", "int32"]},
        {"name": "y", "param_type": "required", "format": ["ND", "ND", "ND"], "type": ["half", "fp32", "int32"]},
    ],
    "output_desc": [{"name": "z", "param_type": "required", "format": ["ND"], "type": ["float16", "float", "int32"]}],
    "attr": [{"name": "isKeepDim", "param_type": "optional", "type": "int", "default_value": 1}],
}]

# Shaped like msOpGen's bundled Conv2D template: NCHW, required list_int attrs, an optional one.
CONV2D = [{
    "op": "Conv2D",
    "input_desc": [
        {"name": "x", "param_type": "required", "format": ["NCHW"], "type": ["fp16"]},
        {"name": "filter", "param_type": "required", "format": ["NCHW"], "type": ["fp16"]},
    ],
    "output_desc": [{"name": "y", "param_type": "required", "format": ["NCHW"], "type": ["fp16"]}],
    "attr": [
        {"name": "strides", "param_type": "required", "type": "list_int"},
        {"name": "pads", "param_type": "required", "type": "list_int"},
        {"name": "dilations", "param_type": "optional", "type": "list_int", "default_value": [1, 1, 1, 1]},
    ],
}]

# A fused op with an optional input, a dynamic (list) input, per-column formats and list attrs.
FUSED = {
    "op": "GroupedAddRmsNorm",
    "input_desc": [
        {"name": "x", "param_type": "required", "format": ["ND", "NHWC"], "type": ["bf16", "fp16"]},
        {"name": "gamma", "param_type": "optional", "format": "ND", "type": ["float", "float"]},
        {"name": "residuals", "param_type": "dynamic", "format": ["ND", "NHWC"], "type": ["bf16", "fp16"]},
    ],
    "output_desc": [
        {"name": "y", "format": ["ND", "NHWC"], "type": ["bf16", "fp16"]},
        {"name": "rstd", "param_type": "required", "format": ["ND"], "type": ["fp32", "float32"]},
    ],
    "attr": [
        {"name": "epsilon", "param_type": "optional", "type": "float", "default_value": 1e-6},
        {"name": "axes", "param_type": "optional", "type": "list_int", "default_value": [-1]},
        {"name": "scales", "param_type": "optional", "type": "list_float", "default_value": [1, 0.5]},
        {"name": "mask", "param_type": "optional", "type": "list_bool", "default_value": [True, False]},
        {"name": "group_sizes", "param_type": "required", "type": "list_list_int"},
        {"name": "mode", "param_type": "optional", "type": "string", "default_value": "fast"},
        {"name": "trace", "param_type": "optional", "type": "bool", "default_value": False},
    ],
}
MULTI = [ADD_CUSTOM[0], FUSED, CONV2D[0]]


INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"]


def convert(data, op=None, **kw):
    return load_string(spec_from_msopgen(data, "op.json", op=op, **kw))


def normalised(op_obj: dict) -> dict:
    """What export writes for an imported operator: canonical spellings, formats per column."""
    out = copy.deepcopy(op_obj)
    spell = {**{t: t for t in INTS}, "fp16": "fp16", "half": "fp16", "float16": "fp16", "float": "float",
             "fp32": "float", "float32": "float", "bf16": "bf16", "bfloat16": "bf16", "double": "double",
             "fp64": "double", "float64": "double"}
    n = None
    for group in ("input_desc", "output_desc"):
        for p in out.get(group, []):
            types = p["type"] if isinstance(p["type"], list) else [p["type"]]
            fmts = p.get("format", ["ND"])
            fmts = fmts if isinstance(fmts, list) else [fmts]
            n = max(len(types), len(fmts))
            p["type"] = [spell[t] for t in (types * n if len(types) == 1 else types)]
            p["format"] = fmts * n if len(fmts) == 1 else fmts
            p.setdefault("param_type", "required")
            p_sorted = {k: p[k] for k in ("name", "param_type", "format", "type")}
            p.clear()
            p.update(p_sorted)
    for a in out.get("attr", []):
        a.setdefault("param_type", "required")
        if a["type"] in ("float", "list_float") and "default_value" in a:
            v = a["default_value"]
            a["default_value"] = float(v) if a["type"] == "float" else [float(x) for x in v]
    out.setdefault("input_desc", [])
    out.setdefault("attr", [])
    return {k: out[k] for k in ("op", "input_desc", "output_desc", "attr")}


# --- mapping ------------------------------------------------------------------------------------

def test_add_custom_maps_columns_broadcast_formats_and_keeps_camel_case():
    spec = convert(ADD_CUSTOM)
    assert (spec.name, spec.op_type, spec.family) == ("add_custom", "AddCustom", "custom")
    assert [s.key for s in spec.socs] == ["ascend910b"]
    assert [p.name for p in spec.inputs] == ["x", "y"] and [p.name for p in spec.outputs] == ["z"]
    for p in spec.params:
        assert p.dtypes == ("float16", "float32", "int32")
        assert p.formats == ("ND", "ND", "ND")
        assert p.param == "required" and p.shape is None
    (attr,) = spec.attrs
    assert (attr.name, attr.type, attr.default, attr.required) == ("isKeepDim", "int", 1, False)
    assert (spec.golden_file, spec.golden_func) == ("golden.py", "add_custom")
    (smoke,) = spec.cases
    assert smoke.tags == ("smoke",) and smoke.shapes == {"x": [8, 64], "y": [8, 64]}


def test_conv2d_formats_required_list_attrs_get_placeholders():
    spec = convert(CONV2D, socs=["ascend910b4", "ascend310p"])
    assert [s.key for s in spec.socs] == ["ascend910b", "ascend310p"]  # a chip name stands for its OpDef key
    assert [p.formats for p in spec.params] == [("NCHW",)] * 3
    assert [(a.name, a.required, a.default) for a in spec.attrs] == [
        ("strides", True, None), ("pads", True, None), ("dilations", False, [1, 1, 1, 1])]
    assert spec.cases[0].shapes == {"x": [1, 16, 8, 8], "filter": [1, 16, 8, 8]}
    assert spec.cases[0].attrs == {"strides": [], "pads": [], "dilations": [1, 1, 1, 1]}


def test_optional_dynamic_inputs_and_list_attrs():
    spec = convert([FUSED])
    by = {p.name: p for p in spec.params}
    assert by["gamma"].param == "optional" and by["gamma"].formats == ("ND", "ND")
    assert by["gamma"].dtypes == ("float32", "float32")
    assert by["residuals"].param == "dynamic" and by["residuals"].formats == ("ND", "NHWC")
    assert by["x"].dtypes == ("bfloat16", "float16") and by["rstd"].dtypes == ("float32", "float32")
    attrs = {a.name: a for a in spec.attrs}
    assert attrs["epsilon"].default == 1e-6 and isinstance(attrs["epsilon"].default, float)
    assert attrs["scales"].default == [1.0, 0.5] and all(isinstance(v, float) for v in attrs["scales"].default)
    assert attrs["mask"].default == [True, False]
    assert attrs["group_sizes"].required and attrs["mode"].default == "fast" and attrs["trace"].default is False
    shapes = spec.cases[0].shapes
    assert shapes["residuals"] == [[8, 64], [8, 64]] and shapes["x"] == [8, 64]


def test_several_operators_need_op():
    assert list_operators(MULTI, "ops.json") == ["AddCustom", "GroupedAddRmsNorm", "Conv2D"]
    with pytest.raises(UsageError, match=r"ops.json defines 3 operators \(AddCustom, GroupedAddRmsNorm, Conv2D\); "
                                         "pick one with --op"):
        spec_from_msopgen(MULTI, "ops.json")
    assert convert(MULTI, op="Conv2D").name == "conv2_d"
    with pytest.raises(UsageError, match="no operator 'Conv2d'.*did you mean 'Conv2D'"):
        spec_from_msopgen(MULTI, "ops.json", op="Conv2d")


def test_single_object_is_accepted_like_msopgen_does():
    assert convert(ADD_CUSTOM[0]).name == "add_custom"
    assert refused({"input_desc": []}) == 'op.json: (top level): the operator object has no "op" (its OpType, ' \
                                          'e.g. "AddCustom")'
    assert refused({"op": None}) == "op.json: op: expected the OpType as a string, found null"


def test_string_defaults_type_and_format_strings_are_read_like_msopgen():
    op = {"op": "Scale", "input_desc": [{"name": "x", "type": "fp16", "format": "ND"}],
          "output_desc": [{"name": "y", "type": "fp16"}],
          "attr": [{"name": "k", "param_type": "optional", "type": "int", "default_value": " 3 "},
                   {"name": "on", "param_type": "optional", "type": "bool", "default_value": "True"},
                   {"name": "pads", "param_type": "optional", "type": "list_int", "default_value": "[1, 2]"}]}
    spec = convert([op])
    assert [a.default for a in spec.attrs] == [3, True, [1, 2]]
    assert spec.inputs[0].dtypes == ("float16",) and spec.outputs[0].formats == ("ND",)


def test_operator_without_inputs_gets_a_fixed_output_shape():
    spec = convert([{"op": "MakeRange", "output_desc": [{"name": "y", "type": ["int32"], "format": ["ND"]}]}])
    assert spec.inputs == [] and spec.outputs[0].shape == (8, 64) and spec.cases[0].shapes == {}


# --- round trips --------------------------------------------------------------------------------

@pytest.mark.parametrize("data,op", [(ADD_CUSTOM, None), (CONV2D, None), ([FUSED], None), (MULTI, "GroupedAddRmsNorm")])
def test_json_to_spec_to_json_gives_back_the_operator(data, op):
    spec = convert(data, op=op)
    original = next(o for o in (data if isinstance(data, list) else [data]) if op is None or o["op"] == op)
    assert msopgen_from_spec(spec) == [normalised(original)]


GATE_SPEC = """
name: moe_gate
family: moe
socs: [ascend910b, ascend910_93]
kernel: vector
inputs:
  - {name: x, dtypes: [float16, bfloat16, float32], formats: [ND, ND, FRACTAL_NZ], shape: [T, E]}
  - {name: bias, dtypes: [float16, bfloat16, float32], param: optional, shape: [E]}
  - {name: extra, dtypes: [int32, int32, int64], param: dynamic, format: NCHW}
outputs:
  - {name: y, dtypes: [float16, bfloat16, float32], shape: [T, E]}
  - {name: idx, dtypes: [int32, int32, int32], shape: [T, E], when: out_flag}
attrs:
  - {name: k, type: int}
  - {name: out_flag, type: bool, default: false}
  - {name: scales, type: list_float, default: [1.0, 2.5]}
  - {name: groups, type: list_list_int, default: [[1, 2], []]}
golden: golden.py:moe_gate
cases:
  - {name: smoke, shapes: {x: [4, 8], extra: [[2], [3]]}, attrs: {k: 2}}
"""


@pytest.mark.parametrize("which", ["axpy", "gate"])
def test_spec_to_json_to_spec_keeps_the_interface(axpy_text, which):
    first = load_string(axpy_text if which == "axpy" else GATE_SPEC)
    exported = msopgen_from_spec(first)
    assert exported[0]["input_desc"][0]["type"] == ["fp16", "bf16", "float"]
    again = convert(json.loads(json.dumps(exported)), family=first.family, socs=[s.key for s in first.socs])
    assert (again.name, again.op_type, again.family) == (first.name, first.op_type, first.family)
    assert [s.key for s in again.socs] == [s.key for s in first.socs]

    def interface(spec):
        return ([(p.name, p.dtypes, p.formats, p.param, p.is_output) for p in spec.params],
                [(a.name, a.type, a.default, a.required) for a in spec.attrs])

    assert interface(again) == interface(first)


def test_export_spells_types_msopgen_style_and_keeps_original_names():
    spec = convert([FUSED])
    (op,) = msopgen_from_spec(spec)
    assert op["input_desc"][0] == {"name": "x", "param_type": "required", "format": ["ND", "NHWC"],
                                   "type": ["bf16", "fp16"]}
    assert op["attr"][0] == {"name": "epsilon", "param_type": "optional", "type": "float", "default_value": 1e-6}
    assert op["attr"][4] == {"name": "group_sizes", "param_type": "required", "type": "list_list_int"}
    camel = convert(ADD_CUSTOM)
    assert msopgen_from_spec(camel)[0]["attr"][0]["name"] == "isKeepDim"


_SPELLINGS = [["fp16", "half", "float16"], ["float", "fp32", "float32"], ["bf16", "bfloat16"],
              ["double", "fp64", "float64"], *[[t] for t in INTS]]
_NAMES = ["x", "y", "z", "gamma", "keyRope", "valueCache", "out", "idx", "scale", "axisList", "isTraining", "eps",
          "mode", "groupSizes", "beta2"]
_I64 = st.integers(-(2**63), 2**63 - 1)
_F = st.floats(allow_nan=False, allow_infinity=False)
_DEFAULTS = {"int": _I64, "float": _F, "bool": st.booleans(), "string": st.text(max_size=12),
             "list_int": st.lists(_I64, max_size=3), "list_float": st.lists(_F, max_size=3),
             "list_bool": st.lists(st.booleans(), max_size=3),
             "list_list_int": st.lists(st.lists(_I64, max_size=3), max_size=3)}
_FORMATS = ["ND", "NCHW", "NHWC", "HWCN", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NCDHW", "NDHWC"]


@st.composite
def _valid_operator(draw):
    """A random operator msOpGen and opkit both accept, spelled in any of msOpGen's ways."""
    n_in, n_out, n_attr = draw(st.integers(0, 3)), draw(st.integers(1, 2)), draw(st.integers(0, 4))
    names = draw(st.permutations(_NAMES))[: n_in + n_out + n_attr]
    n_cols = draw(st.integers(1, 4))
    cols = draw(st.lists(st.tuples(*[st.integers(0, len(_SPELLINGS) - 1)] * (n_in + n_out)), min_size=n_cols,
                         max_size=n_cols, unique=True))
    tensors = []
    for k, name in enumerate(names[: n_in + n_out]):
        t: dict = {"name": name}
        kinds = ["required", "optional", "dynamic", None] if k < n_in else ["required", "dynamic", None]
        kind = draw(st.sampled_from(kinds))
        if kind:
            t["param_type"] = kind
        t["type"] = [draw(st.sampled_from(_SPELLINGS[col[k]])) for col in cols]
        how = draw(st.sampled_from(["absent", "one", "each"]))
        if how == "one":
            t["format"] = [draw(st.sampled_from(_FORMATS))]
        elif how == "each":
            t["format"] = [draw(st.sampled_from(_FORMATS)) for _ in cols]
        tensors.append(t)
    attrs = []
    for name in names[n_in + n_out:]:
        atype = draw(st.sampled_from(sorted(_DEFAULTS)))
        a: dict = {"name": name, "type": atype}
        if draw(st.booleans()):
            a.update(param_type="optional", default_value=draw(_DEFAULTS[atype]))
        elif draw(st.booleans()):
            a["param_type"] = "required"
        attrs.append(a)
    op = {"op": draw(st.sampled_from(["AddCustom", "MoeGate", "Conv2D", "RmsNormV2"])), "input_desc": tensors[:n_in],
          "output_desc": tensors[n_in:]}
    if attrs or draw(st.booleans()):
        op["attr"] = attrs
    return op


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_valid_operator())
def test_round_trip_of_random_valid_operators(op):
    spec = convert([op])
    assert [len(p.dtypes) for p in spec.params] == [len(spec.params[0].dtypes)] * len(spec.params)
    assert msopgen_from_spec(spec) == [normalised(op)]
    again = convert(msopgen_from_spec(spec))  # and spec -> JSON -> spec keeps the interface
    assert [(p.name, p.dtypes, p.formats, p.param) for p in again.params] == \
        [(p.name, p.dtypes, p.formats, p.param) for p in spec.params]
    assert [(a.name, a.type, a.default, a.required) for a in again.attrs] == \
        [(a.name, a.type, a.default, a.required) for a in spec.attrs]


# --- files: import writes a package, export never overwrites ------------------------------------

def test_import_scaffolds_a_package_and_export_writes_next_to_it(tmp_path):
    src = tmp_path / "add_custom.json"
    src.write_text(json.dumps(MULTI, indent=2))
    r = import_msopgen("add_custom.json", op="AddCustom", directory="out", cwd=tmp_path)
    assert r.path == tmp_path / "out" / "add_custom"
    spec = load(r.path)
    assert spec.op_type == "AddCustom" and "msOpGen prototype add_custom.json" in (r.path / "op.yaml").read_text()
    import_msopgen(src, op="AddCustom", directory="out", cwd=tmp_path)  # unchanged since written: allowed
    (r.path / "op.yaml").write_text((r.path / "op.yaml").read_text() + "# edited\n")
    with pytest.raises(UsageError, match=r"differ from what the template would write .*: op.yaml; nothing was"):
        import_msopgen(src, op="AddCustom", directory="out", cwd=tmp_path)
    (r.path / "op.yaml").write_text((r.path / "op.yaml").read_text().removesuffix("# edited\n"))
    out = export_msopgen(r.path)
    assert out == r.path / "add_custom.json"
    assert json.loads(out.read_text()) == [normalised(ADD_CUSTOM[0])]
    out.write_text("mine")
    with pytest.raises(UsageError, match="exists and was not written by opkit, or was changed since; nothing was written"):
        export_msopgen(r.path / "op.yaml")
    assert out.read_text() == "mine"
    assert export_msopgen(r.path, force=True) == out and json.loads(out.read_text())[0]["op"] == "AddCustom"
    before = src.read_text()
    with pytest.raises(UsageError, match="add_custom.json: exists and was not written by opkit"):
        export_msopgen(r.path, out=tmp_path)  # the directory already holds the source prototype
    assert src.read_text() == before
    (tmp_path / "exported").mkdir()
    assert export_msopgen(r.path, out=tmp_path / "exported") == tmp_path / "exported" / "add_custom.json"


def test_import_with_family_goes_under_ops(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(CONV2D))
    r = import_msopgen(tmp_path / "c.json", family="cv", cwd=tmp_path)
    assert r.path == tmp_path / "ops" / "cv" / "conv2_d" and load(r.path).family == "cv"


def test_import_errors_name_the_line(tmp_path):
    bad = copy.deepcopy(MULTI)
    bad[0]["input_desc"][1]["type"][2] = "fp17"
    bad[0]["attr"][0]["default_value"] = "one"
    (tmp_path / "ops.json").write_text(json.dumps(bad, indent=2))
    lines = (tmp_path / "ops.json").read_text().splitlines()
    fp17 = next(i for i, line in enumerate(lines, 1) if "fp17" in line)
    one = next(i for i, line in enumerate(lines, 1) if '"one"' in line)
    with pytest.raises(SpecError) as info:
        import_msopgen("ops.json", op="AddCustom", directory="out", cwd=tmp_path)
    assert info.value.problems[0].startswith(f"ops.json:{fp17}: AddCustom: input_desc[1].type[2]: 'fp17' is not")
    assert info.value.problems[1].startswith(f"ops.json:{one}: AddCustom: attr[0].default_value: 'one' is not")


def test_tab_indented_file_like_msopgens_template(tmp_path):
    text = json.dumps(CONV2D, indent="\t").replace('"NCHW"', '"NCHW "')  # msOpGen strips values too
    (tmp_path / "conv.json").write_text(text)
    r = import_msopgen("conv.json", directory="out", cwd=tmp_path)
    assert load(r.path).inputs[1].formats == ("NCHW",)
    (tmp_path / "bad.json").write_text(text.replace('"list_int"', '"list_int64"'))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"list_int"' in t)
    with pytest.raises(SpecError, match=f"bad.json:{line}: Conv2D: attr\\[0\\].type: 'list_int64' is not an attr type"):
        import_msopgen("bad.json", directory="out2", cwd=tmp_path)


def test_failed_import_writes_nothing(tmp_path):
    bad = copy.deepcopy(ADD_CUSTOM)
    bad[0]["input_desc"][1]["type"][2] = "fp17"
    (tmp_path / "op.json").write_text(json.dumps(bad))
    with pytest.raises(SpecError):
        import_msopgen("op.json", directory="out", cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["op.json"]


# --- refusals: one clear message naming file, operator and JSON path -----------------------------

def refused(data, *, op=None, exc=SpecError) -> str:
    with pytest.raises(exc) as info:
        spec_from_msopgen(data, "op.json", op=op)
    return info.value.message


def mutate(fn, base=ADD_CUSTOM):
    data = copy.deepcopy(base)
    fn(data[0])
    return data


def test_unknown_dtype_names_file_operator_and_path():
    msg = refused(mutate(lambda o: o["input_desc"][1]["type"].__setitem__(2, "fp17")))
    assert msg.startswith("op.json: AddCustom: input_desc[1].type[2]: 'fp17' is not a dtype msOpGen knows "
                          "(expected one of float16, fp16, half, float,")


@pytest.mark.parametrize("bad,expected", [
    ("numbertype", "'numbertype' is a type group"),
    ("BasicType", "'BasicType' is a type group"),
    ("complex64", "'complex64' is a dtype msOpGen knows but opkit cannot build"),
    ("FP16", "did you mean 'fp16'"),
])
def test_type_groups_and_unsupported_dtypes(bad, expected):
    msg = refused(mutate(lambda o: o["output_desc"][0].__setitem__("type", [bad, "float", "int32"])))
    assert msg.startswith("op.json: AddCustom: output_desc[0].type[0]: ") and expected in msg


def test_misaligned_columns_and_type_format_lengths():
    msg = refused(mutate(lambda o: o["input_desc"][1].update(type=["fp16", "float"], format=["ND"])))
    assert "op.json: AddCustom: input_desc[1].type: has 2 type column(s) but input_desc[0].type has 3" in msg
    msg = refused(mutate(lambda o: o["input_desc"][0].update(format=["ND", "ND"])))
    assert "input_desc[0].format: has 2 formats for 3 types" in msg


def test_a_single_type_is_broadcast_to_the_formats():
    spec = convert([{"op": "Cast", "input_desc": [{"name": "x", "type": ["fp16"], "format": ["ND", "NCHW"]}],
                     "output_desc": [{"name": "y", "type": ["float", "int32"], "format": ["ND", "NCHW"]}]}])
    assert spec.inputs[0].dtypes == ("float16", "float16") and spec.inputs[0].formats == ("ND", "NCHW")


def test_columns_differing_only_in_format_are_refused():
    data = mutate(lambda o: [p.update(type=["fp16", "fp16"], format=["ND", "NCHW"])
                             for p in [*o["input_desc"], *o["output_desc"]]])
    assert "input_desc[0].type[1]: column 1 repeats the dtypes of column 0" in refused(data)


@pytest.mark.parametrize("fn,expected", [
    (lambda o: o["input_desc"][1].update(name="x"),
     "input_desc[1].name: 'x' is already the name of input_desc[0].name"),
    (lambda o: o["attr"].append({"name": "ISKEEPDIM", "type": "int"}),
     "'isKeepDim' and 'ISKEEPDIM' both give DTYPE_ISKEEPDIM"),
    (lambda o: o["output_desc"][0].update(name="x"), "output_desc[0].name: 'x' is already the name"),
    (lambda o: o["input_desc"][0].update(name="workspace"), "cannot name a tensor"),
    (lambda o: o["input_desc"][0].update(name="x-1"), "'x-1' is not a usable tensor name"),
    (lambda o: o["input_desc"][0].update(param_type="maybe"), "input_desc[0].param_type: 'maybe' is not a param_type"),
    (lambda o: o["attr"][0].pop("default_value"), "attr[0]: an optional attr needs a default_value"),
    (lambda o: o["attr"][0].update(param_type="required"), "attr[0].default_value: a required attr takes no"),
    (lambda o: o["attr"][0].update(default_value=2**63), "is not a value of type int (integers must fit in int64"),
    (lambda o: o["attr"][0].update(default_value="one"), "attr[0].default_value: 'one' is not a value of type int"),
    (lambda o: o["attr"][0].update(type="list_string"), "known to msOpGen but opkit does not support it"),
    (lambda o: o["attr"][0].update(type="lst_int"), "'lst_int' is not an attr type"),
    (lambda o: o.update(input_decs=[]), "op.json: AddCustom: input_decs: unknown field 'input_decs'"),
    (lambda o: o["input_desc"][0].update(formats=["ND"]), "did you mean 'format'"),
    (lambda o: o.pop("output_desc"), "op.json: AddCustom: (operator): no \"output_desc\""),
    (lambda o: o.update(output_desc=[]), "output_desc: the list is empty"),
    (lambda o: o.update(input_desc={"name": "x"}), "input_desc: expected a list, found an object"),
    (lambda o: o["input_desc"][0].pop("type"), "input_desc[0]: the tensor has no \"type\""),
    (lambda o: o["input_desc"][0].update(type=[]), "input_desc[0].type: the list is empty"),
    (lambda o: o["input_desc"][0].update(format=["nd"]), "formats are upper case: 'ND'"),
    (lambda o: o["input_desc"][0].update(format=["FRACTAL_Z_3D"]), "msOpGen knows but opkit does not support"),
    (lambda o: o.update(language="py"), "opkit generates Ascend C operators only"),
    (lambda o: o.update(op="addCustom"), "is not an UpperCamelCase OpType"),
    (lambda o: o.update(op="Sin"), "OpType Sin gives the op name 'sin', which opkit refuses"),
])
def test_refusals_name_the_json_path(fn, expected):
    msg = refused(mutate(fn))
    assert expected in msg
    assert all(line.startswith("op.json: ") for line in msg.splitlines())


def test_every_problem_is_reported_at_once():
    data = mutate(lambda o: (o["input_desc"][0]["type"].__setitem__(0, "fp17"),
                             o["attr"][0].update(type="lst_int")))
    with pytest.raises(SpecError) as info:
        spec_from_msopgen(data, "op.json")
    assert len(info.value.problems) == 2


@pytest.mark.parametrize("data,expected", [
    ("AddCustom", "(top level): expected a list of operator objects"),
    ([], "the list is empty"),
    ([1], "op.json: [0]: expected an operator object, found a number"),
    ([{"input_desc": []}], "op.json: [0]: the operator object has no \"op\""),
    ([{"op": 3}], "[0].op: expected the OpType as a string"),
    ([ADD_CUSTOM[0], ADD_CUSTOM[0]], "[1].op: operator 'AddCustom' is defined twice (also at [0])"),
])
def test_top_level_refusals(data, expected):
    assert expected in refused(data)


def test_bad_caller_arguments():
    with pytest.raises(UsageError, match="invalid family"):
        spec_from_msopgen(ADD_CUSTOM, "op.json", family="Bad-Family")
    with pytest.raises(UsageError, match="unknown SoC 'ascend999'"):
        spec_from_msopgen(ADD_CUSTOM, "op.json", socs=["ascend999"])


def test_reading_files(tmp_path):
    f = tmp_path / "op.json"
    f.write_text('[{"op": "AddCustom",\n  "input_desc": [,]}]')
    with pytest.raises(SpecError, match=r"op.json:2:18: invalid JSON: Expecting value"):
        read_msopgen_json(f)
    f.write_text('[{"op": "A",\n "output_desc": [{"name": "y", "type": ["fp16"],\n  "type": ["float"]}]}]')
    with pytest.raises(SpecError, match=r"op.json:3: \[0\].output_desc\[0\].type: duplicate key 'type'; JSON "
                                        r"readers keep only the last one \(first given on line 2\)"):
        read_msopgen_json(f)
    deep = "[" * 70 + '{"name": "y", "k": 1, "k": 2}' + "]" * 70  # too deep for the line finder
    f.write_text('[{"op": "A", "x": ' + deep + "}]")
    with pytest.raises(SpecError, match="invalid prototype: duplicate key 'k' \\(in the object with name 'y'\\)"):
        read_msopgen_json(f)
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(ADD_CUSTOM).encode())  # a BOM, as Windows editors write
    assert read_msopgen_json(f) == ADD_CUSTOM
    f.write_bytes(b'[{"op": "\xff"}]')
    with pytest.raises(SpecError, match="not UTF-8"):
        read_msopgen_json(f)
    with pytest.raises(UsageError, match="cannot read"):
        read_msopgen_json(tmp_path / "missing.json")


# --- fuzzing: whatever the JSON, the answer is a valid spec or an OpkitError ---------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_words = st.sampled_from(["fp16", "float", "bf16", "int32", "numbertype", "fp17", "ND", "NCHW", "FRACTAL_NZ",
                          "nd", "x", "y", "isKeepDim", "required", "optional", "dynamic", "int", "list_int",
                          "list_list_int", "string", "bool", "float", "", " fp16 ", "workspace", "Sin"])
_value = _words | _json | st.lists(_words, max_size=4)


def _accepts_or_refuses(data, op=None) -> None:
    try:
        text = spec_from_msopgen(data, "fuzz.json", op=op)
    except OpkitError as exc:
        assert exc.message and "fuzz.json" in exc.message
        return
    spec = load_string(text)
    assert spec.op_type and msopgen_from_spec(spec)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json)
def test_fuzz_random_structures(data):
    _accepts_or_refuses(data)


@st.composite
def _mutated(draw):
    data = copy.deepcopy(draw(st.sampled_from([ADD_CUSTOM, CONV2D, [FUSED], MULTI])))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(data))
        group = draw(st.sampled_from(["input_desc", "output_desc", "attr", "op", "extra"]))
        if group in ("op", "extra"):
            op[group] = draw(_value)
            continue
        items = op.get(group)
        items = items if isinstance(items, list) else []
        if not items or draw(st.booleans()):
            op[group] = draw(_value) if draw(st.booleans()) else items + [draw(_json)]
            continue
        item = draw(st.sampled_from(items))
        if not isinstance(item, dict):
            continue
        key = draw(st.sampled_from(["name", "param_type", "type", "format", "default_value", "bogus"]))
        if draw(st.booleans()) and key in item:
            del item[key]
        else:
            item[key] = draw(_value)
    return data, draw(st.sampled_from([None, "AddCustom", "Conv2D", "GroupedAddRmsNorm", "Nope"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_fuzz_mutated_operators(case):
    data, op = case
    _accepts_or_refuses(data, op)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60) | st.sampled_from(["[", "[{", '[{"op": "A"', "[]", "{}", "null", "1e999", "NaN"]))
def test_fuzz_file_text(tmp_path_factory, text):
    f = Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.json"
    f.write_bytes(text.encode("utf-8", errors="replace"))
    try:
        data = read_msopgen_json(f)
    except OpkitError as exc:
        assert str(f) in exc.message
        return
    _accepts_or_refuses(data)
