"""InterleaveRope package (ops/posembedding/interleave_rope): spec, golden, cross-checks, cost model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from opkit.spec import load
from opkit.verify.golden import custom_generators, load_module, run_golden
from opkit.verify.inputs import as_golden_input, make_inputs

PKG = Path(__file__).resolve().parents[1] / "ops" / "posembedding" / "interleave_rope"
SMALL = 1 << 20  # elements of x up to which a case counts as smoke-sized here


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.fixture(scope="module")
def golden(spec):
    return load_module(spec)


def _small_cases(spec):
    return [(c, col) for c in spec.cases for col in c.columns if np.prod(c.shapes["x"]) <= SMALL]


# --- independent references ------------------------------------------------------------------------
# Written the way model code writes rotary embeddings, without looking at golden.py.

def rotate_half(t):
    """HF-transformers / LLaMA style: the second half, negated, in front of the first half."""
    t1 = t[..., : t.shape[-1] // 2]
    t2 = t[..., t.shape[-1] // 2:]
    return np.concatenate((-t2, t1), axis=-1)


def apply_rotary_pos_emb(q, cos, sin):
    """LLaMA-style rotate-half RoPE on a tensor already in half-split order."""
    return (q * cos) + (rotate_half(q) * sin)


def deinterleave(x):
    """The real op's README formulation: reshape to [..., D/2, 2], swap the last two axes, flatten."""
    *lead, d = x.shape
    return x.reshape(*lead, d // 2, 2).swapaxes(-1, -2).reshape(*lead, d)


def complex_rope(x, theta):
    """Meta's original LLaMA formulation: interleaved pairs as complex numbers times e^{i theta}.

    theta has D/2 angles per row; returns the rotated pairs in half-split order.
    """
    z = x[..., 0::2] + 1j * x[..., 1::2]
    w = z * np.exp(1j * theta)
    return np.concatenate([w.real, w.imag], axis=-1)


def _golden_inputs(spec, case, column):
    raw = make_inputs(spec, case, column, custom_generators(spec))
    return {k: as_golden_input(v) for k, v in raw.items()}


# --- the spec ---------------------------------------------------------------------------------------

def test_spec_loads(spec):
    assert spec.name == "interleave_rope" and spec.op_type == "InterleaveRope"
    assert spec.family == "posembedding" and spec.kernel == "vector"
    assert [p.name for p in spec.inputs] == ["x", "cos", "sin"]
    assert [p.name for p in spec.outputs] == ["y"]
    assert spec.n_columns == 2
    assert spec.column(0) == {"x": "float16", "cos": "float16", "sin": "float16", "y": "float16"}
    assert spec.column(1) == {"x": "bfloat16", "cos": "bfloat16", "sin": "bfloat16", "y": "bfloat16"}
    assert [s.key for s in spec.socs] == ["ascend910b", "ascend910_93"]
    assert not spec.attrs
    assert {p.case for p in spec.perf} <= {c.name for c in spec.cases}


def test_cases_cover_what_the_issue_asks(spec):
    by_name = {c.name: c for c in spec.cases}
    pat = set()
    for c in spec.cases:
        b, n, s, d = c.shapes["x"]
        cb, cn, cs, cd = c.shapes["cos"]
        assert c.shapes["sin"] == c.shapes["cos"], c.name
        assert cn == 1 and cd == d and d % 2 == 0 and d <= 256, c.name
        pat.add(("B" if cb == b and b > 1 else "1") + ("S" if cs == s and s > 1 else "1"))
    assert pat == {"BS", "B1", "1S", "11"}
    llama = [c for c in spec.cases if c.shapes["x"][:3] == [1, 32, 2048]]
    assert {c.shapes["x"][3] for c in llama} == {64, 128}
    assert all("full" in c.tags for c in llama)
    assert by_name["decode"].shapes["x"][2] == 1
    assert any(c.shapes["x"][2] % 2 == 1 and c.shapes["x"][2] > 1 for c in spec.cases)
    assert any(c.columns == (1,) for c in spec.cases)  # a bf16-only case
    assert "nan" in by_name["special_values"].special["x"]
    assert any(c.shapes["x"][3] * 2 % 32 for c in spec.cases)  # a row that is not whole 32-byte blocks
    assert all("smoke" in c.tags for c in spec.cases if np.prod(c.shapes["x"]) <= SMALL)


# --- the golden on every smoke-sized case -------------------------------------------------------------

def test_golden_shapes_on_small_cases(spec):
    cases = _small_cases(spec)
    assert len(cases) >= 20
    for case, column in cases:
        inputs = make_inputs(spec, case, column, custom_generators(spec))
        out = run_golden(spec, case, inputs)
        assert set(out) == {"y"}
        y = out["y"]
        assert y.shape == tuple(case.shapes["x"]), case.name
        assert y.dtype == np.float64
        if not case.special:
            assert np.isfinite(y).all(), case.name


@pytest.mark.parametrize("name", ["smoke", "decode", "odd_s", "bf16", "cos_b1sd", "cos_b11d", "cos_11sd",
                                  "cos_111d", "d40_unaligned", "d2_minimal", "d100_b11d"])
def test_golden_equals_llama_rotate_half_of_deinterleaved_x(spec, golden, name):
    case = spec.case(name)
    for column in case.columns:
        g = _golden_inputs(spec, case, column)
        expected = apply_rotary_pos_emb(deinterleave(g["x"]), g["cos"], g["sin"])
        y = golden.interleave_rope(**g)["y"]
        np.testing.assert_allclose(y, expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("shape", [(2, 3, 5, 64), (1, 2, 7, 128), (3, 1, 1, 6), (1, 1, 4, 2)])
def test_golden_equals_complex_rotation_with_real_tables(golden, shape):
    """With real cos/sin caches, y is the complex rotation of each (x[2t], x[2t+1]) pair by theta_t."""
    b, n, s, d = shape
    rng = np.random.default_rng(11)
    x = rng.normal(size=shape)
    theta = rng.uniform(-np.pi, np.pi, size=(b, 1, s, d // 2))
    cos = np.cos(np.concatenate([theta, theta], axis=-1))
    sin = np.sin(np.concatenate([theta, theta], axis=-1))
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    np.testing.assert_allclose(y, complex_rope(x, theta), rtol=1e-12, atol=1e-12)


def test_rope_tables_rotate_pairs_like_llama(golden):
    """rope_cos/rope_sin give a real cache: both halves share the angles, cos^2 + sin^2 = 1."""
    shape = (2, 1, 9, 64)
    c = golden.rope_cos(shape, "float16", None, {})
    s = golden.rope_sin(shape, "float16", None, {})
    assert c.shape == shape and s.shape == shape
    np.testing.assert_allclose(c ** 2 + s ** 2, 1.0, atol=1e-12)
    np.testing.assert_array_equal(c[..., :32], c[..., 32:])
    np.testing.assert_array_equal(c[0, 0, 0], np.ones(64))  # position 0: no rotation
    assert not np.array_equal(c[0], c[1])  # batches sit at different positions


def test_golden_is_not_plain_rotate_half(golden):
    """The de-interleave matters: skipping it (or using the interleaved rotation) gives other numbers."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 2, 4, 8))
    cos = rng.uniform(-1, 1, size=(1, 1, 4, 8))
    sin = rng.uniform(-1, 1, size=(1, 1, 4, 8))
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    assert not np.allclose(y, apply_rotary_pos_emb(x, cos, sin))
    assert not np.allclose(y, deinterleave(apply_rotary_pos_emb(x, cos, sin)))


# --- broadcast patterns --------------------------------------------------------------------------------

@pytest.mark.parametrize("cos_shape", [(3, 1, 5, 16), (3, 1, 1, 16), (1, 1, 5, 16), (1, 1, 1, 16)])
def test_broadcast_patterns_equal_explicit_broadcast(golden, cos_shape):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4, 5, 16))
    cos = rng.uniform(-1, 1, size=cos_shape)
    sin = rng.uniform(-1, 1, size=cos_shape)
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    full_cos = np.ascontiguousarray(np.broadcast_to(cos, x.shape))
    full_sin = np.ascontiguousarray(np.broadcast_to(sin, x.shape))
    np.testing.assert_array_equal(y, golden.interleave_rope(x=x, cos=full_cos, sin=full_sin)["y"])
    # and row by row: every (b, n, s) uses cos/sin row (b or 0, 0, s or 0)
    for b in range(3):
        for s in range(5):
            row_c = cos[b if cos_shape[0] > 1 else 0, 0, s if cos_shape[2] > 1 else 0]
            row_s = sin[b if cos_shape[0] > 1 else 0, 0, s if cos_shape[2] > 1 else 0]
            for n in range(4):
                expected = apply_rotary_pos_emb(deinterleave(x[b, n, s]), row_c, row_s)
                np.testing.assert_allclose(y[b, n, s], expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", ["cos_b1sd", "cos_b11d", "cos_11sd", "cos_111d"])
def test_broadcast_cases_equal_explicit_broadcast(spec, golden, name):
    case = spec.case(name)
    g = _golden_inputs(spec, case, 0)
    y = golden.interleave_rope(**g)["y"]
    full = {k: np.broadcast_to(g[k], g["x"].shape) for k in ("cos", "sin")}
    np.testing.assert_array_equal(y, golden.interleave_rope(x=g["x"], **full)["y"])


# --- special values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pos", [0, 1, 6, 7, 10, 15])
def test_nan_reaches_exactly_its_pair(golden, pos):
    """NaN at x[..., 2t] or x[..., 2t+1] makes y[..., t] and y[..., D/2 + t] NaN, nothing else."""
    d = 16
    rng = np.random.default_rng(pos)
    x = rng.normal(size=(2, 3, 4, d))
    cos = rng.uniform(0.1, 1, size=(2, 1, 4, d))
    sin = rng.uniform(0.1, 1, size=(2, 1, 4, d))
    x[1, 2, 3, pos] = np.nan
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    expected = np.zeros(y.shape, dtype=bool)
    expected[1, 2, 3, pos // 2] = True
    expected[1, 2, 3, d // 2 + pos // 2] = True
    np.testing.assert_array_equal(np.isnan(y), expected)


def test_special_values_case_keeps_nonfinite_inside_pairs(spec, golden):
    case = spec.case("special_values")
    for column in case.columns:
        g = _golden_inputs(spec, case, column)
        x = g["x"]
        assert np.isnan(x).any() and np.isinf(x).any()
        y = golden.interleave_rope(**g)["y"]
        half = x.shape[-1] // 2
        bad_pair = ~np.isfinite(x[..., 0::2]) | ~np.isfinite(x[..., 1::2])
        nan_pair = np.isnan(x[..., 0::2]) | np.isnan(x[..., 1::2])
        bad_y = np.concatenate([bad_pair, bad_pair], axis=-1)
        assert not (~np.isfinite(y) & ~bad_y).any()  # nothing leaks out of a pair
        np.testing.assert_array_equal(np.isnan(y[..., :half]) & nan_pair, nan_pair)
        np.testing.assert_array_equal(np.isnan(y[..., half:]) & nan_pair, nan_pair)


# --- cost model ----------------------------------------------------------------------------------------

def _cost_args(spec, name, column=0):
    case = spec.case(name)
    return {k: tuple(v) for k, v in case.shapes.items()}, spec.column(column), case.attrs


def test_flops_and_bytes(spec, golden):
    shapes, dtypes, attrs = _cost_args(spec, "llama_prefill_d64")
    n = 1 * 32 * 2048 * 64
    assert golden.flops(shapes, dtypes, attrs) == 3 * n
    assert golden.hbm_bytes(shapes, dtypes, attrs) == 2 * n * 2 + 2 * 2048 * 64 * 2
    shapes, dtypes, attrs = _cost_args(spec, "cos_111d")
    assert golden.hbm_bytes(shapes, dtypes, attrs) == 2 * (3 * 2 * 5 * 64) * 2 + 2 * 64 * 2


def test_unfused_chain(spec, golden):
    shapes, dtypes, attrs = _cost_args(spec, "llama_prefill_d128")
    chain = golden.unfused_chain(shapes, dtypes, attrs)
    assert [s["op"] for s in chain] == ["strided_gather", "mul", "rotate", "mul", "add"]
    assert [s["launch"] for s in chain] == [1, 2, 3, 4, 5]
    nbytes = 32 * 2048 * 128 * 2
    table = 2048 * 128 * 2
    assert [s["hbm_bytes"] for s in chain] == [2 * nbytes, 2 * nbytes + table, 2 * nbytes,
                                               2 * nbytes + table, 3 * nbytes]
    assert all(s["hbm_bytes"] == s["reads"] + s["writes"] for s in chain)
    assert sum(s["flops"] for s in chain) == golden.flops(shapes, dtypes, attrs)
    fused = golden.hbm_bytes(shapes, dtypes, attrs)
    assert sum(s["hbm_bytes"] for s in chain) == 11 * nbytes + 2 * table > 5 * fused


# --- the C++ sources agree with the spec ------------------------------------------------------------

def test_sources_present_and_consistent():
    for rel in ("op_host/interleave_rope_def.cpp", "op_host/interleave_rope_infershape.cpp",
                "op_host/interleave_rope_tiling.cpp", "op_kernel/interleave_rope_tiling_data.h",
                "op_kernel/interleave_rope.h", "op_kernel/interleave_rope.cpp", "CMakeLists.txt", "README.md"):
        assert (PKG / rel).is_file(), rel
    entry = (PKG / "op_kernel/interleave_rope.cpp").read_text()
    assert re.search(r'extern "C" __global__ __aicore__ void interleave_rope\(\s*GM_ADDR x, GM_ADDR cos, '
                     r'GM_ADDR sin, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling\)', entry)
    assert "DTYPE_X" in entry and "TILING_KEY_IS" in entry
    opdef = (PKG / "op_host/interleave_rope_def.cpp").read_text()
    assert re.findall(r'(Input|Output)\("(\w+)"\)', opdef) == [("Input", "x"), ("Input", "cos"),
                                                                 ("Input", "sin"), ("Output", "y")]
    assert opdef.count("DataType({ge::DT_FLOAT16, ge::DT_BF16})") == 4
    assert re.findall(r'AddConfig\("(\w+)"', opdef) == ["ascend910b", "ascend910_93"]
