"""op.yaml: in-place results, complex64 tensors, build options; the generated kernel tiling header."""

from __future__ import annotations

import numpy as np
import pytest

from opkit.errors import SpecError
from opkit.run.inputs import as_golden_input, make_inputs
from opkit.sim.host.tiling_struct import kernel_tiling_header, registered_classes
from opkit.spec import load_string
from opkit.verify.compare import compare

BASE = """name: cscale
family: t
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [complex64, float32], shape: [N]}
  - {name: w, dtypes: [float32, float32], shape: [N], param: dynamic}
outputs:
  - {name: y, dtypes: [complex64, float32], inplace: x}
golden: golden.py:f
cases:
  - {name: a, shapes: {x: [8], w: [[8]]}}
"""


def _problems(text: str) -> str:
    with pytest.raises(SpecError) as exc:
        load_string(text)
    return str(exc.value)


def test_inplace_output_takes_the_inputs_shape_and_has_no_device_buffer():
    spec = load_string(BASE)
    y = spec.outputs[0]
    assert y.inplace == "x" and y.shape == ("N",)
    assert spec.device_outputs == []


def test_inplace_mistakes_are_reported_with_their_line():
    assert "'q' is not an input (inputs: x, w)" in _problems(BASE.replace("inplace: x", "inplace: q"))
    assert "dynamic (list) input" in _problems(BASE.replace("inplace: x", "inplace: w"))
    msg = _problems(BASE.replace("{name: y, dtypes: [complex64, float32]", "{name: y, dtypes: [float32, float32]"))
    assert "op.yaml:9: outputs[0].dtypes: is written in place into 'x'" in msg


def test_complex_inputs_have_both_parts_and_specials_keep_the_imaginary_part():
    text = BASE.replace("{name: a, shapes: {x: [8], w: [[8]]}}",
                        "{name: a, shapes: {x: [400], w: [[400]]}, special: {x: [nan, huge]}}")
    spec = load_string(text)
    x = make_inputs(spec, spec.cases[0], 0)["x"]
    assert x.dtype == np.complex64 and np.abs(x.imag).max() > 0
    assert np.isnan(x.real).sum() >= 1 and np.isfinite(x.imag).all()
    assert as_golden_input(x).dtype == np.complex128


def test_complex_compare_judges_real_and_imaginary_parts():
    g = np.array([1 + 2j, -3 + 0.5j, 0 - 1j], dtype=np.complex128)
    ok = compare("y", g.astype(np.complex64), g, "complex64")
    assert ok.passed and ok.dtype == "complex64" and ok.shape == (3,) and ok.count == 6
    bad = g.astype(np.complex64)
    bad[2] = bad[2].real + 0.5j  # only the imaginary part is wrong
    res = compare("y", bad, g, "complex64")
    assert not res.passed and "real and imaginary parts" in res.reason


def test_build_options_are_checked_against_the_package(tmp_path):
    (tmp_path / "golden.py").write_text("def f(x):\n    return {}\n")
    (tmp_path / "inc").mkdir()
    text = BASE + "build:\n  include_dirs: [inc, nope]\n  sources: [src/*.cpp]\n  include_aliases: {a/b: ., a: inc}\n"
    (tmp_path / "op.yaml").write_text(text)
    from opkit.spec import load

    with pytest.raises(SpecError) as exc:
        load(tmp_path)
    msg = str(exc.value)
    assert "build.include_dirs[1]: include folder 'nope' does not exist" in msg
    assert "build.sources[0]: source 'src/*.cpp' matches no file" in msg
    assert "overlaps the prefix 'a/b'" in msg


def _described(regs: dict[str, str]) -> dict:
    sub = {"class": "Sub", "size": 8, "fields": [{"name": "on", "kind": "scalar", "type": "bool", "offset": 0,
                                                  "size": 1}]}
    main = {"class": "Main", "size": 16, "fields": [
        {"name": "n", "kind": "scalar", "type": "uint32_t", "offset": 0, "size": 4},
        {"name": "sub", "kind": "struct", "type": "Sub", "offset": 8, "size": 8}]}
    other = {"class": "Other", "size": 8, "fields": [{"name": "k", "kind": "scalar", "type": "int64_t", "offset": 0,
                                                      "size": 8}]}
    return {"tiling_data_classes": [sub, main, other], "tiling_data_registrations": regs}


def test_kernel_tiling_header_follows_the_registrations():
    d = _described({"Op": "Main", "Op_7": "Other", "OpX": "Other", "SubOp": "Sub"})
    assert registered_classes(d, "Op") == ("Main", {7: "Other"})
    text = kernel_tiling_header(d, "Op")
    assert text.index("struct Sub {") < text.index("struct Main {") and "struct Other {" in text
    assert "bool on = 0;" in text and "#define OPKIT_TILING_DATA_TYPE ::Main" in text
    only_keys = kernel_tiling_header(_described({"Op_1": "Other", "Op_2": "Other"}), "Op")
    assert "#define OPKIT_TILING_DATA_TYPE ::Other" in only_keys and "struct Main" not in only_keys
    assert kernel_tiling_header(_described({"Other": "Main"}), "Op") is None
    with pytest.raises(ValueError, match="tiling keys name different ones"):
        kernel_tiling_header(_described({"Op_1": "Other", "Op_2": "Main"}), "Op")


REF = """name: cacc
family: t
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float16, float32], shape: [R, C]}
  - {name: cache, dtypes: [float16, float32], shape: [M, C]}
outputs:
  - {name: y, dtypes: [float16, float32], shape: [R, C]}
  - {name: cache_ref, dtypes: [float16, float32], ref: cache}
golden: golden.py:f
cases:
  - {name: a, shapes: {x: [2, 8], cache: [4, 8]}}
"""


def test_a_reference_form_output_is_an_opdef_output_of_its_inputs_name():
    spec = load_string(REF)
    y, ref = spec.outputs
    assert ref.ref == "cache" and ref.opdef_name == "cache" and ref.shape == ("M", "C")
    assert [o.name for o in spec.device_outputs] == ["y", "cache_ref"]  # the kernel gets a parameter for it
    assert ref.upper == "CACHE_REF" and y.upper == "Y" and y.opdef_name == "y"  # CANN's DTYPE_<NAME>_REF


def test_reference_form_mistakes_are_reported():
    assert "'q' is not an input" in _problems(REF.replace("ref: cache}", "ref: q}"))
    assert "not both" in _problems(REF.replace("ref: cache}", "ref: cache, inplace: cache}"))
    assert "whose dtypes are" in _problems(REF.replace("{name: cache_ref, dtypes: [float16, float32]",
                                                       "{name: cache_ref, dtypes: [float32, float32]"))
    two = REF.replace("{name: y, dtypes: [float16, float32], shape: [R, C]}",
                      "{name: y, dtypes: [float16, float32], ref: cache}")
    assert "'cache' already holds output 'y'" in _problems(two)
    assert "cannot be conditional" in _problems(REF.replace("ref: cache}", "ref: cache, when: flag}").replace(
        "golden:", "attrs:\n  - {name: flag, type: bool, default: true}\ngolden:"))
