"""Case inputs: seeded, per-dtype, distributions, special values, custom generators, npz round trip."""

import ml_dtypes
import numpy as np
import pytest

from opkit import data_io
from opkit.errors import OpkitError
from opkit.run.inputs import as_golden_input, make_inputs
from opkit.spec import load_string

SPEC = """
name: mixer
family: custom
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float16, bfloat16, float32]}
  - {name: idx, dtypes: [int32, int32, int32]}
  - {name: bias, dtypes: [float16, bfloat16, float32], param: optional}
  - {name: parts, dtypes: [float16, bfloat16, float32], param: dynamic}
outputs:
  - {name: y, dtypes: [float16, bfloat16, float32]}
golden: golden.py:mixer
cases:
  - {name: plain, shapes: {x: [64, 32], idx: [16], parts: [[3, 4], [5]]}, seed: 3}
  - name: shaped
    shapes: {x: [1000], idx: [50], bias: [8], parts: []}
    init: {x: {uniform: [2, 3]}, idx: {randint: [5, 7]}, bias: {constant: 0.5}}
    special: {x: {values: [nan, -inf, huge, denormal], fraction: 0.1}}
  - {name: empty, shapes: {x: [0, 7], idx: [0], parts: []}}
  - {name: custom, shapes: {x: [4, 4], idx: [3], parts: []}, init: {x: {custom: ramp}}}
"""


@pytest.fixture
def spec():
    return load_string(SPEC)


def test_dtypes_and_determinism(spec):
    case = spec.case("plain")
    for column, dt in enumerate([np.float16, ml_dtypes.bfloat16, np.float32]):
        a = make_inputs(spec, case, column)
        b = make_inputs(spec, case, column)
        assert a["x"].dtype == np.dtype(dt) and a["x"].shape == (64, 32)
        assert a["idx"].dtype == np.int32 and np.all((a["idx"] >= -10) & (a["idx"] <= 10))
        assert a["bias"] is None
        assert [p.shape for p in a["parts"]] == [(3, 4), (5,)]
        assert np.array_equal(a["x"].astype(np.float64), b["x"].astype(np.float64))
        assert np.all(np.abs(a["x"].astype(np.float64)) <= 1)
    x0 = make_inputs(spec, case, 0)["x"].astype(np.float64)
    x2 = make_inputs(spec, case, 2)["x"].astype(np.float64)
    assert not np.allclose(x0, x2)


def test_distributions_and_specials(spec):
    case = spec.case("shaped")
    a = make_inputs(spec, case, 0)
    x = a["x"].astype(np.float64)
    assert np.isnan(x).sum() == 25 and (x == -np.inf).sum() == 25
    assert (x == 32752.0).sum() == 25  # huge: half of float16's max, rounded to float16
    assert (x == 2.0**-24).sum() == 25  # the smallest float16 subnormal
    ordinary = x[np.isfinite(x) & (x > 1) & (x < 100)]
    assert ordinary.size == 900 and ordinary.min() >= 2 and ordinary.max() <= 3
    assert set(np.unique(a["idx"])) <= {5, 6, 7}
    assert np.all(a["bias"].astype(np.float64) == 0.5) and a["bias"].shape == (8,)


def test_empty_tensors(spec):
    a = make_inputs(spec, spec.case("empty"), 1)
    assert a["x"].shape == (0, 7) and a["idx"].shape == (0,) and a["parts"] == []


def test_custom_generator(spec):
    def lookup(name):
        assert name == "ramp"
        return lambda shape, dtype, rng, attrs: np.arange(np.prod(shape)).reshape(shape)
    a = make_inputs(spec, spec.case("custom"), 2, lookup)
    assert np.array_equal(a["x"], np.arange(16, dtype=np.float32).reshape(4, 4))

    def bad(name):
        return lambda shape, dtype, rng, attrs: np.zeros(3)
    with pytest.raises(OpkitError, match=r"custom generator ramp\(\) returned shape \[3\], expected \[4, 4\]"):
        make_inputs(spec, spec.case("custom"), 2, bad)
    # a caller that passes no golden.py generators gets one message, not an assertion
    with pytest.raises(OpkitError, match=r"init \{custom: ramp\} needs golden.py's generators"):
        make_inputs(spec, spec.case("custom"), 2)


def test_golden_inputs_are_exact_float64(spec):
    a = make_inputs(spec, spec.case("plain"), 1)
    g = {k: as_golden_input(v) for k, v in a.items()}
    assert g["x"].dtype == np.float64 and np.array_equal(g["x"].astype(ml_dtypes.bfloat16), a["x"])
    assert g["idx"].dtype == np.int32 and g["bias"] is None


def test_npz_bf16_travels_as_uint16(tmp_path):
    x = np.array([1.0, -2.5, 3.140625], dtype=ml_dtypes.bfloat16)
    data_io.save(tmp_path / "d.npz", {"x": x, "i": np.arange(3, dtype=np.int32)}, {"x": "bfloat16", "i": "int32"})
    raw = data_io.load(tmp_path / "d.npz")
    assert raw["x"].dtype == np.uint16
    back = data_io.from_npz_array(raw["x"], "bfloat16", "d.npz:x")
    assert np.array_equal(back, x)
    notes = []
    rounded = data_io.from_npz_array(np.array([1.00390625], np.float32), "bfloat16", "d.npz:x", notes.append)
    assert rounded.astype(np.float64)[0] == 1.0 and "rounded to nearest even" in notes[0]
    with pytest.raises(OpkitError, match="int64 data cannot feed a bfloat16 tensor"):
        data_io.from_npz_array(np.arange(2), "bfloat16", "d.npz:x")
    with pytest.raises(OpkitError, match="not a readable .npz"):
        (tmp_path / "bad.npz").write_text("nope")
        data_io.load(tmp_path / "bad.npz")
