"""InterleaveRope package (ops/posembedding/interleave_rope): spec, golden, cross-checks, cost model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import as_golden_input, make_inputs
from opkit.spec import load
from opkit.verify.golden import custom_generators, load_module, run_golden

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


# --- the kernel's de-interleave, bit for bit ----------------------------------------------------------

def test_shift_and_narrow_deinterleave_is_exact_for_every_16_bit_pattern():
    """The kernel's de-interleave (interleave_rope.h, Deinterleave) on every fp16/bf16 bit pattern.

    A pair (r, i) of 16-bit values is one little-endian 32-bit word w; i = ShiftRight(int32 w, 16)
    (arithmetic), r = ShiftRight(int32 ShiftLeft(uint32 w, 16), 16); Cast int32 -> int16 saturates
    (Cast.md), which never applies because both are sign-extended 16-bit values. The result must be the
    original bit patterns, NaN, Inf, -0 and subnormals included.
    """
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    r = bits
    i = bits[::-1].copy()
    pairs = np.empty(2 * bits.size, dtype=np.uint16)
    pairs[0::2], pairs[1::2] = r, i  # x[2t] = r_t, x[2t+1] = i_t
    w = pairs.view("<u4")
    i32 = w.view("<i4") >> 16
    r32 = ((w << np.uint32(16)) & np.uint32(0xFFFFFFFF)).view("<i4") >> 16
    assert i32.min() >= -32768 and i32.max() <= 32767 and r32.min() >= -32768 and r32.max() <= 32767
    np.testing.assert_array_equal(np.clip(r32, -32768, 32767).astype(np.int16).view(np.uint16), r)
    np.testing.assert_array_equal(np.clip(i32, -32768, 32767).astype(np.int16).view(np.uint16), i)


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
    from opkit.perf.unfused import check_steps, hbm_bytes, peak_intermediate_bytes

    shapes, dtypes, attrs = _cost_args(spec, "llama_prefill_d128")
    chain = check_steps(golden.unfused_chain(shapes, dtypes, attrs))
    assert [s["op"] for s in chain] == ["strided_gather", "mul", "rotate", "mul", "add"]
    nbytes = 32 * 2048 * 128 * 2
    table = 2048 * 128 * 2
    assert [hbm_bytes(s) for s in chain] == [2 * nbytes, 2 * nbytes + table, 2 * nbytes,
                                             2 * nbytes + table, 3 * nbytes]
    assert sum(s["flops"] for s in chain) == golden.flops(shapes, dtypes, attrs)
    fused = golden.hbm_bytes(shapes, dtypes, attrs)
    assert sum(hbm_bytes(s) for s in chain) == 11 * nbytes + 2 * table > 5 * fused
    # q, a and r (or a, r and b) are alive at once: three x-sized intermediates
    assert peak_intermediate_bytes(chain, ["x", "cos", "sin", "y"]) == 3 * nbytes


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


# --- the tiling function, run on the host --------------------------------------------------------
# The package's own tiling in the host-only harness opkit's build makes (sim_backend.build_host), on the runner's
# request for the shapes given (as `opkit tiling` runs it), with the chip's vector core count changed; the
# decisions it writes into InterleaveRopeTilingData are decoded with the struct's layout from debug information
# (opkit.run.tiling, as `opkit tiling` shows them) and checked field by field.

SIM_INCLUDE = Path(__file__).resolve().parents[1] / "opkit" / "sim" / "include"
UB_910B = 196608 - 256  # GetCoreMemSize(UB) on 910B
CHIP = "ascend910b2"
# the decoded fields under the names the tests use
_FIELDS = {"tileRows": "tileRows", "cosRows": "cosRows", "rowStride": "rowStride", "aligned": "alignedRows",
           "formerNum": "formerNum", "formerRows": "formerRows", "tailRows": "tailRows", "totalRows": "totalRows",
           "usedCores": "usedCores", "numHeads": "numHeads", "headGroup": "headGroup"}


def _compiler():
    import shutil
    return shutil.which("g++") or shutil.which("clang++")


@pytest.fixture(scope="module")
def tiling(spec):
    """tiling(x_shape, cos_shape, column=0, cores=48) -> the tiling's decisions, or None if it refuses."""
    import dataclasses
    import json
    import subprocess
    import tempfile

    from opkit.build import sim_backend
    from opkit.errors import OpkitError
    from opkit.run import tiling as opkit_tiling
    from opkit.run.sim_runner import SimRunner

    if _compiler() is None:
        pytest.skip("needs a C++ compiler")
    try:
        exe = sim_backend.build_host(spec, CHIP, jobs=1)
    except OpkitError as exc:
        pytest.fail(str(exc))
    base = spec.case("smoke")
    layout = {}

    def run(x_shape, cos_shape, column=0, cores=48):
        case = dataclasses.replace(base, shapes={"x": list(x_shape), "cos": list(cos_shape), "sin": list(cos_shape)})
        with tempfile.TemporaryDirectory(prefix="opkit-test-tiling-") as tmp:
            req = SimRunner().request(spec, case, column, CHIP, {}, Path(tmp))
            for entry in req["inputs"]:  # shapes only: the tiling reads no input data
                entry["shape"] = case.shapes[entry["name"]]
            req["chip"]["aiv_cores"] = cores
            path = Path(tmp) / "request.json"
            path.write_text(json.dumps(req), encoding="utf-8")
            r = subprocess.run([str(exe), "tiling", str(path)], capture_output=True, text=True, timeout=120)
            if r.returncode != 0:  # a refusal of the tiling function itself, nothing else
                assert "optiling::TilingInterleaveRope: tiling of InterleaveRope" in r.stderr, r.stderr[-4000:]
                assert "returned ge::GRAPH_FAILED" in r.stderr, r.stderr[-4000:]
                return None
            result = json.loads((Path(tmp) / "request.json.result.json").read_text(encoding="utf-8"))
        data = bytes.fromhex(result["tiling_data_hex"])
        if not layout:
            cls, classes, notes = opkit_tiling.plain_layout(spec, CHIP, len(data))
            assert cls == "InterleaveRopeTilingData", notes
            layout.update(cls=cls, classes=classes)
        fields, notes = opkit_tiling.decode(data, layout["classes"], layout["cls"])
        assert not notes, notes
        values = {f.path: f.value for f in fields}
        return {"key": int(result["tiling_key"]), "blockDim": int(result["block_dim"]),
                "workspace": int(result["workspace_sizes"][0]), **{k: int(values[v]) for k, v in _FIELDS.items()}}

    return run


@pytest.mark.parametrize("x_shape, cos_shape, key", [
    ((2, 3, 5, 64), (2, 1, 5, 64), 1),   # [B, 1, S, D]
    ((2, 3, 5, 64), (2, 1, 1, 64), 2),   # [B, 1, 1, D]
    ((2, 3, 5, 64), (1, 1, 5, 64), 3),   # [1, 1, S, D], opkit extension
    ((2, 3, 5, 64), (1, 1, 1, 64), 4),   # [1, 1, 1, D], opkit extension
    ((1, 3, 5, 64), (1, 1, 5, 64), 1),   # B = 1: the real op's pattern
    ((1, 3, 1, 64), (1, 1, 1, 64), 2),   # B = 1, S = 1
    ((4, 3, 1, 64), (4, 1, 1, 64), 2),   # decode: S = 1 is a row per batch
    ((2, 3, 64, 64), (2, 1, 64, 64), 5),  # prefill: positions split, loop over heads
    ((2, 3, 64, 64), (1, 1, 64, 64), 6),  # the same with cos shared by the batches
    ((2, 1, 64, 64), (2, 1, 64, 64), 1),  # one head: nothing to reuse
    ((2, 3, 15, 64), (2, 1, 15, 64), 1),  # fewer positions than a 2 KiB copy per head needs
    ((2, 3, 26, 40), (2, 1, 26, 40), 5),  # 26 rows of 80 bytes reach 2 KiB
])
def test_tiling_key_per_broadcast_pattern(tiling, x_shape, cos_shape, key):
    assert tiling(x_shape, cos_shape)["key"] == key


@pytest.mark.parametrize("x_shape, cos_shape", [
    ((1, 2, 4, 63), (1, 1, 4, 63)),    # odd D
    ((1, 2, 4, 258), (1, 1, 4, 258)),  # D > 256
    ((1, 2, 4, 0), (1, 1, 4, 0)),      # D = 0
    ((3, 2, 4, 64), (2, 1, 4, 64)),    # cos batch neither B nor 1
    ((3, 2, 4, 64), (3, 1, 3, 64)),    # cos sequence neither S nor 1
])
def test_tiling_refuses_unsupported_shapes(tiling, x_shape, cos_shape):
    assert tiling(x_shape, cos_shape) is None


def _ub_bytes(t, x_stride, cos_rows, rows):
    """UB the kernel's InitBuffer calls take (interleave_rope.h), for fp16/bf16."""
    tile, table = rows * x_stride, cos_rows * x_stride
    # x and y double-buffered; cos and sin halves staged once; four packed float32 half-row arrays;
    # the four float32 table halves
    return 2 * tile * 2 * 2 + table * 2 * 2 + (tile // 2) * 4 * 4 + (table // 2) * 4 * 4


@pytest.mark.parametrize("x_shape, cos_shape, cores", [
    ((1, 32, 2048, 64), (1, 1, 2048, 64), 48), ((1, 32, 2048, 128), (1, 1, 2048, 128), 40),
    ((32, 32, 1, 64), (32, 1, 1, 64), 48), ((3, 2, 5, 40), (3, 1, 1, 40), 7), ((1, 1, 1, 2), (1, 1, 1, 2), 48),
    ((2, 8, 1000, 256), (1, 1, 1000, 256), 24), ((64, 16, 8, 64), (64, 1, 1, 64), 48),
    ((3, 1, 5000, 2), (1, 1, 1, 2), 1), ((2, 3, 26, 40), (2, 1, 26, 40), 3), ((4, 16, 300, 40), (1, 1, 300, 40), 48),
    ((1, 64, 4096, 128), (1, 1, 4096, 128), 48), ((2, 2, 7, 64), (2, 1, 7, 64), 48),
])
def test_tiling_splits_rows_and_fits_ub(tiling, x_shape, cos_shape, cores):
    t = tiling(x_shape, cos_shape, cores=cores)
    b, n, s, d = x_shape
    head_loop = t["key"] in (5, 6)
    units = b * s if head_loop else b * n * s  # positions or rows
    assert t["totalRows"] == b * n * s and t["numHeads"] == n and t["blockDim"] == t["usedCores"]
    assert 1 <= t["blockDim"] <= cores
    assert t["formerNum"] * t["formerRows"] + (t["blockDim"] - t["formerNum"]) * t["tailRows"] == units
    assert t["formerRows"] - t["tailRows"] == 1 and t["formerNum"] < t["blockDim"]
    # half-rows start on 32-byte boundaries: Hp = D/2 rounded up to 16 elements, rows 2 Hp apart
    assert t["rowStride"] == 2 * (-(-(d // 2) // 16) * 16)
    assert t["aligned"] == (d % 32 == 0) == (t["rowStride"] == d)
    share = t["formerRows"] if t["formerNum"] else t["tailRows"]  # the most units a core owns
    assert _ub_bytes(t, t["rowStride"], t["cosRows"], t["tileRows"]) <= UB_910B
    assert t["workspace"] == 16 << 20  # only the system workspace
    if head_loop:
        # a tile: headGroup heads x cosRows positions; copies of at least 2 KiB per head unless
        # a core owns fewer positions
        assert 1 <= t["headGroup"] <= n and t["tileRows"] == t["headGroup"] * t["cosRows"]
        limit = min(share, s, 4095 if d % 32 == 0 else 2047)
        assert 1 <= t["cosRows"] <= limit
        # the chunks even out the core's positions (no short last chunk) ...
        chunks = -(-limit // t["cosRows"])
        assert t["cosRows"] == -(-limit // chunks)
        # ... and evening out at most halves the 2 KiB per head the group size aims at
        assert t["cosRows"] * d * 2 >= 1024 or t["cosRows"] == limit
        return
    assert t["headGroup"] == 1
    limit = 4095 if d % 32 == 0 else 2047  # DataCopyPad moves at most 4095 blocks (rows, or half-rows)
    assert 1 <= t["tileRows"] <= min(share, limit)
    per_s = cos_shape[2] == s and s > 1
    if per_s:
        assert t["cosRows"] == t["tileRows"]
    elif cos_shape[0] == b and b > 1:
        assert t["cosRows"] == min(b, -(-(t["tileRows"] - 1) // (n * s)) + 1)
    else:
        assert t["cosRows"] == 1
    if t["tileRows"] < min(share, limit):  # not limited by the core's share: the UB is full
        assert _ub_bytes(t, t["rowStride"], t["cosRows"] + (1 if per_s else 0), t["tileRows"] + 1) > UB_910B


# --- the kernel on opkit's CPU simulator -----------------------------------------------------------
# Built and run the way `opkit verify` does it: the simulator's host headers and harness run the
# OpDef, InferShape and the tiling; the kernel is compiled per dtype column.

@pytest.fixture(scope="module")
def sim_kernel(spec):
    """run(case, column) -> (inputs, y) from the kernel on the simulator."""
    if _compiler() is None or not (SIM_INCLUDE / "kernel_operator.h").is_file():
        pytest.skip("needs a C++ compiler and opkit/sim's headers")
    try:
        from opkit.run.sim_runner import SimRunner
    except ImportError:
        pytest.skip("opkit's simulator runner is not there yet")
    runner = SimRunner()
    chip = "ascend910b2"

    def run(case, column):
        inputs = make_inputs(spec, case, column, custom_generators(spec))
        out = runner.run(spec, case, column, chip, inputs)
        return inputs, out.outputs["y"]

    return run


def _assert_close_to_golden(y, golden_y, column):
    """Within one rounding of the output dtype (fp32 compute), NaN/Inf exactly where the golden has them."""
    y = np.asarray(y).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(golden_y))
    inf = np.isinf(golden_y)
    np.testing.assert_array_equal(y[inf], golden_y[inf])
    fin = np.isfinite(golden_y)
    rtol = 2.0 ** -10 if column == 0 else 2.0 ** -7  # one ulp of fp16 / bf16
    np.testing.assert_allclose(y[fin], golden_y[fin], rtol=rtol, atol=1e-6)


SMOKE = ["smoke", "decode", "decode_small", "odd_s", "bf16", "special_values", "cos_b1sd", "cos_b11d", "cos_11sd",
         "cos_111d", "d128", "d40_unaligned", "d2_minimal", "d256_max", "d100_b11d", "d48_gap", "d24_pad",
         "multi_tile", "multi_tile_b11d", "multi_tile_one_head", "multi_tile_unaligned"]


def test_smoke_list_is_every_smoke_case(spec):
    assert sorted(SMOKE) == sorted(c.name for c in spec.cases if "smoke" in c.tags)


@pytest.mark.slow
@pytest.mark.parametrize("name", SMOKE)
def test_kernel_on_simulator_matches_golden(spec, golden, sim_kernel, name):
    case = spec.case(name)
    for column in case.columns:
        inputs, y = sim_kernel(case, column)
        assert y.shape == tuple(case.shapes["x"])
        expected = golden.interleave_rope(**{k: as_golden_input(v) for k, v in inputs.items()})["y"]
        _assert_close_to_golden(y, expected, column)


@pytest.mark.slow
def test_kernel_on_simulator_sees_a_wrong_golden(spec, sim_kernel):
    """The comparison above can fail: the kernel's output is not plain rotate-half of x."""
    inputs, y = sim_kernel(spec.case("smoke"), 0)
    g = {k: as_golden_input(v) for k, v in inputs.items()}
    with pytest.raises(AssertionError):
        _assert_close_to_golden(y, apply_rotary_pos_emb(g["x"], g["cos"], g["sin"]), 0)


@pytest.mark.slow
def test_smoke_cases_pass_opkits_verify_pipeline(spec):
    """The whole `opkit verify` path, with the spec's precision profile."""
    if _compiler() is None:
        pytest.skip("needs a C++ compiler")
    try:
        from opkit.run.sim_runner import SimRunner
        from opkit.verify.pipeline import Selection, verify_spec
    except ImportError:
        pytest.skip("opkit's simulator runner is not there yet")
    results = verify_spec(spec, SimRunner(), Selection(tags=["smoke"]))
    assert len(results) == sum(len(c.columns) for c in spec.cases if "smoke" in c.tags)
    bad = [f"{r.id}: {r.status} {r.message}" for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_registered_opdef_agrees_with_the_spec(spec):
    """The OpDef that op_host/ registers (read back from the simulator harness) is what op.yaml says."""
    if _compiler() is None:
        pytest.skip("needs a C++ compiler")
    try:
        from opkit.build import opdef_check
        from opkit.run.sim_runner import SimRunner
    except ImportError:
        pytest.skip("opkit's simulator build is not there yet")
    described = opdef_check.describe(SimRunner().artifact(spec, "ascend910b2", 0).exe)
    assert opdef_check.differences(spec, described) == []
    (op,) = described["ops"]
    assert all(p["auto_contiguous"] for p in op["inputs"])
    assert op["has_tiling"] and op["has_infershape"] and op["has_inferdatatype"]


def test_sources_compile_against_the_simulator(spec):
    """Kernel (both dtype columns) and host files pass the build's compile (-fsyntax-only, the chip's simulator
    flags, the package's include folders, each column's dtype macros: program.check_syntax)."""
    from opkit.build import program, sim_backend

    if _compiler() is None:
        pytest.skip("needs a C++ compiler")
    dirs = [f"-I{spec.src_dir / 'op_kernel'}", f"-I{spec.src_dir / 'op_host'}"]
    jobs = {f"kernel ({spec.column_label(c)})": (PKG / "op_kernel" / "interleave_rope.cpp",
                                                [*dirs, *sim_backend.dtype_defines(spec, c)]) for c in range(2)}
    for rel in ("op_host/interleave_rope_def.cpp", "op_host/interleave_rope_infershape.cpp",
                "op_host/interleave_rope_tiling.cpp"):
        jobs[rel] = (PKG / rel, dirs)
    for what, (src, flags) in jobs.items():
        r = program.check_syntax(src, chip=CHIP, flags=flags)
        assert r.returncode == 0, f"{what}:\n{r.stderr[-4000:]}"
