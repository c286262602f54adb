"""GroupedMatmul package (ops/gmm/grouped_matmul): spec, golden against a per-row cross-check, group_list
forms, the untouched-rows mask, cost hooks, and the kernel on the simulator (results and refusals)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import as_golden_input, make_inputs
from opkit.spec import load
from opkit.verify.golden import custom_generators, load_module

PKG = Path(__file__).resolve().parents[1] / "ops" / "gmm" / "grouped_matmul"


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.fixture(scope="module")
def golden(spec):
    return load_module(spec)


def expert_of_rows(group_list, group_list_type, m):
    """Written apart from golden.py: the expert of every row by a search over the row ends (-1: past the end)."""
    gl = np.asarray(group_list, dtype=np.int64)
    ends = np.cumsum(gl) if group_list_type == 1 else gl
    owner = np.searchsorted(ends, np.arange(m), side="right")
    return np.where(owner < len(ends), owner, -1)


def per_row_reference(x, weight, bias, group_list, group_list_type, transpose_weight):
    """One row at a time: y[i] = x[i] @ W_e (+ b_e) for the expert e that owns row i; zeros past the groups."""
    m = x.shape[0]
    n = weight.shape[1] if transpose_weight else weight.shape[2]
    y = np.zeros((m, n))
    with np.errstate(invalid="ignore", over="ignore"):
        for i, e in enumerate(expert_of_rows(group_list, group_list_type, m)):
            if e < 0:
                continue
            w = weight[e].T if transpose_weight else weight[e]
            y[i] = np.einsum("k,kn->n", x[i], w) + (0.0 if bias is None else bias[e])
    return y


def _inputs(spec, case, column=0):
    raw = make_inputs(spec, case, column, custom_generators(spec))
    return {k: as_golden_input(v) for k, v in raw.items()}


def test_spec_interface_is_the_real_ops(spec):
    assert spec.op_type == "GroupedMatmul" and spec.family == "gmm" and spec.kernel == "cube"
    assert [p.name for p in spec.inputs] == ["x", "weight", "bias", "scale", "offset", "antiquant_scale",
                                             "antiquant_offset", "group_list", "per_token_scale"]
    assert [a.name for a in spec.attrs] == ["split_item", "dtype", "transpose_weight", "transpose_x", "group_type",
                                            "group_list_type", "act_type", "tuning_config"]
    assert spec.column(1)["bias"] == "float32" and spec.column(1)["x"] == "bfloat16"
    assert spec.column(0)["bias"] == "float16" and spec.column(0)["x"] == "float16"  # ops-transformer's pairing


@pytest.mark.parametrize("name", ["smoke_counts", "smoke_cumsum", "transposed_tails", "transposed_cumsum", "skewed",
                                  "wide_runs", "e256", "m_zero", "special_values"])
def test_golden_matches_the_per_row_reference(spec, golden, name):
    case = next(c for c in spec.cases if c.name == name)
    for column in case.columns:
        inp = _inputs(spec, case, column)
        attrs = {a.name: case.attrs.get(a.name, a.default) for a in spec.attrs}
        y = golden.grouped_matmul(**inp, **attrs)["y"]
        ref = per_row_reference(inp["x"], inp["weight"], inp["bias"], inp["group_list"], attrs["group_list_type"],
                                attrs["transpose_weight"])
        np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_rows_past_the_last_group_are_the_outputs_untouched_contract(spec):
    """y names untouched_rows as its untouched hook, and a case leaves rows past the last group."""
    assert next(o for o in spec.outputs if o.name == "y").untouched == "untouched_rows"
    short = []
    for case in spec.cases:
        inp = _inputs(spec, case)
        owner = expert_of_rows(inp["group_list"], case.attrs.get("group_list_type", 0), case.shapes["x"][0])
        if (owner < 0).any():
            short.append(case.name)
    assert short == ["rows_past_last_group"]


def test_cases_cover_the_forms(spec, golden):
    def split(name):
        case = next(c for c in spec.cases if c.name == name)
        gl = _inputs(spec, case)["group_list"]
        return np.diff(np.concatenate([[0], gl])) if case.attrs.get("group_list_type", 0) == 0 else gl

    counts = split("smoke_counts")
    assert (counts == 0).any() and (counts[counts > 0] % 16 != 0).all()
    counts = split("e256")
    assert len(counts) == 256 and (counts == 0).sum() > 50 and counts.sum() == 300
    counts = split("skewed")
    assert counts.max() == 256 and counts.sum() == 512
    counts = split("skewed_e8")
    assert counts[0] == 2048 and counts.sum() == 4096
    # the streamed path: x's row block (128 x K fp16) and three 128 x 256 weight slices exceed the 910B L1
    long_k = next(c for c in spec.cases if c.name == "long_k_streamed")
    assert 128 * long_k.shapes["x"][1] * 2 + 3 * 128 * 256 * 2 > 524032


def test_cumulative_and_count_forms_agree(golden):
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(50, 8)), rng.normal(size=(3, 8, 5))
    counts = np.array([20, 0, 30])
    a = golden.grouped_matmul(x, w, group_list=counts, group_list_type=1)["y"]
    b = golden.grouped_matmul(x, w, group_list=np.cumsum(counts), group_list_type=0)["y"]
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).min(axis=1).max() > 0  # every row written


def test_untouched_rows_marks_rows_past_the_last_group(golden):
    x, w = np.ones((10, 4)), np.ones((2, 4, 3))
    mask = golden.untouched_rows(x, w, group_list=np.array([3, 4]), group_list_type=1)
    assert mask.shape == (10, 3) and not mask[:7].any() and mask[7:].all()
    mask_t = golden.untouched_rows(x, np.ones((2, 5, 4)), group_list=np.array([3, 10]), group_list_type=0,
                                   transpose_weight=True)
    assert mask_t.shape == (10, 5) and not mask_t.any()
    y = golden.grouped_matmul(x, w, group_list=np.array([3, 4]), group_list_type=1)["y"]
    assert (y[7:] == 0).all() and (y[:7] == 4).all()


@pytest.mark.parametrize("group_list, kind, message", [
    ([3, -1], 1, "negative count"), ([5, 3], 0, "decreases"), ([4, 20], 0, "past x's"), ([1], 2, "not 0")])
def test_group_list_out_of_contract(golden, group_list, kind, message):
    with pytest.raises(ValueError, match=message):
        golden.group_bounds(np.array(group_list), kind, 10)


def test_cost_hooks_and_unfused_chain(golden):
    shapes = {"x": (4096, 1024), "weight": (8, 1024, 2048), "group_list": (8,), "y": (4096, 2048)}
    dtypes = {"x": "float16", "weight": "float16", "group_list": "int64", "y": "float16"}
    assert golden.flops(shapes, dtypes, {}) == 2 * 4096 * 1024 * 2048
    assert golden.hbm_bytes(shapes, dtypes, {}) == 4096 * 1024 * 2 + 8 * 1024 * 2048 * 2 + 4096 * 2048 * 2 + 64
    chain = golden.unfused_chain(shapes, dtypes, {})
    assert len(chain) == 8 and {s["op"] for s in chain} == {"matmul"}
    assert {s["unit"] for s in chain} == {"cube"}  # each launch a matmul at the cube's peak, not the vector's
    assert sum(s["flops"] for s in chain) == golden.flops(shapes, dtypes, {})
    assert sum(s["reads"]["x"] for s in chain) == 4096 * 1024 * 2
    assert sum(s["writes"]["y"] for s in chain) == 4096 * 2048 * 2


# --- the kernel on the simulator ---------------------------------------------------------------------

def _run(cli, tmp_path, arrays, *attrs):
    np.savez(tmp_path / "in.npz", **arrays)
    code, out, err = cli("run", PKG, "--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz", "--force",
                         *[a for kv in attrs for a in ("--attr", kv)])
    return code, out + err


def _problem(m=70, k=40, n=24, e=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(m, k)).astype(np.float16), rng.normal(size=(e, k, n)).astype(np.float16))


def test_kernel_leaves_rows_past_the_last_group_and_matches(cli, tmp_path):
    x, w = _problem()
    counts = np.array([17, 0, 33], dtype=np.int64)  # 50 of 70 rows
    code, text = _run(cli, tmp_path, {"x": x, "weight": w, "group_list": counts},
                      "split_item=3", "group_type=0", "group_list_type=1")
    assert code == 0, text
    y = np.load(tmp_path / "out.npz")["y"].astype(np.float64)
    ref = per_row_reference(x.astype(np.float64), w.astype(np.float64), None, counts, 1, False)
    np.testing.assert_allclose(y[:50], ref[:50], rtol=2e-3, atol=2e-2)
    assert (y[50:] == 0).all()


def test_kernel_transposed_weight_with_bias(cli, tmp_path):
    x, w = _problem(m=40, k=72, n=20, e=2, seed=1)
    wt = np.ascontiguousarray(np.swapaxes(w, 1, 2))
    bias = np.random.default_rng(2).normal(size=(2, 20)).astype(np.float16)  # fp16 x: an fp16 bias
    code, text = _run(cli, tmp_path, {"x": x, "weight": wt, "bias": bias, "group_list": np.array([15, 40])},
                      "split_item=2", "group_type=0", "transpose_weight=true")
    assert code == 0, text
    y = np.load(tmp_path / "out.npz")["y"].astype(np.float64)
    ref = per_row_reference(x.astype(np.float64), wt.astype(np.float64), bias.astype(np.float64),
                            np.array([15, 40]), 0, True)
    np.testing.assert_allclose(y, ref, rtol=2e-3, atol=2e-2)


def test_kernel_long_k_transposed_streamed_matches(cli, tmp_path):
    # K 1400 takes the streamed path (x re-read per tile), with the weight transposed and a K tail
    x, w = _problem(m=60, k=1400, n=36, e=2, seed=3)
    wt = np.ascontiguousarray(np.swapaxes(w, 1, 2)) * np.float16(0.05)
    counts = np.array([25, 35], dtype=np.int64)
    code, text = _run(cli, tmp_path, {"x": x, "weight": wt, "group_list": counts},
                      "split_item=3", "group_type=0", "group_list_type=1", "transpose_weight=true")
    assert code == 0, text
    y = np.load(tmp_path / "out.npz")["y"].astype(np.float64)
    ref = per_row_reference(x.astype(np.float64), wt.astype(np.float64), None, counts, 1, True)
    np.testing.assert_allclose(y, ref, rtol=5e-3, atol=5e-2)


@pytest.mark.parametrize("extra, attrs, message", [
    ({}, ["split_item=3", "group_type=2"], "group_type 2 (split K"),
    ({}, ["split_item=3"], "group_type -1"),
    ({}, ["group_type=0"], "split_item 0 asks for y as a list"),
    ({}, ["split_item=3", "group_type=0", "act_type=1"], "act_type 1"),
    ({}, ["split_item=3", "group_type=0", "group_list_type=2"], "group_list_type 2"),
    ({"offset": np.zeros((3, 24), np.float32)}, ["split_item=3", "group_type=0"], "input offset is given"),
    ({"per_token_scale": np.ones(70, np.float32)}, ["split_item=3", "group_type=0"], "per_token_scale"),
])
def test_tiling_refuses_what_is_not_supported(cli, tmp_path, extra, attrs, message):
    x, w = _problem()
    code, text = _run(cli, tmp_path, {"x": x, "weight": w, "group_list": np.array([10, 20, 70]), **extra}, *attrs)
    assert code != 0 and message in text and "Traceback" not in text
