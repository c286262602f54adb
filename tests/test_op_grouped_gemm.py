"""GroupedGemm package (ops/gmm/grouped_gemm): golden against a plain loop, packed y, cost hooks, the kernel
on list inputs through `opkit run --inputs` (the .npz keys x.0, x.1, ...) and the tiling's refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import as_golden_input, make_inputs
from opkit.spec import load
from opkit.verify.golden import load_module

PKG = Path(__file__).resolve().parents[1] / "ops" / "gmm" / "grouped_gemm"
LIST_SUM = Path(__file__).resolve().parent / "fixtures" / "api" / "list_sum"


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.fixture(scope="module")
def golden(spec):
    return load_module(spec)


def loop_reference(xs, ws, bs, transpose_weight):
    """Problem by problem, written apart from golden.py: einsum per problem."""
    parts = []
    for i, x in enumerate(xs):
        w = np.transpose(ws[i]) if transpose_weight else ws[i]
        parts.append(np.einsum("mk,kn->mn", x, w) + (bs[i] if bs else 0.0))
    return parts


@pytest.mark.parametrize("name", ["three_problems", "transposed", "many_small", "random64"])
def test_golden_matches_the_loop(spec, golden, name):
    case = spec.case(name)
    raw = make_inputs(spec, case, case.columns[0])
    inp = {k: as_golden_input(v) for k, v in raw.items()}
    t = case.attrs.get("transpose_weight", False)
    y = golden.grouped_gemm(**inp, transpose_weight=t)["y"]
    ref = loop_reference(inp["x"], inp["weight"], inp["bias"], t)
    shapes = [(x.shape[0], w.shape[0] if t else w.shape[1]) for x, w in zip(inp["x"], inp["weight"], strict=True)]
    assert [p.shape for p in y] == [r.shape for r in ref] == shapes  # one y_i [M_i, N_i] per problem
    for yi, ri in zip(y, ref, strict=True):
        np.testing.assert_allclose(yi, ri, rtol=1e-12, atol=1e-12)


def test_random64_sizes_and_cost_hooks(spec, golden):
    case = spec.case("random64")
    assert len(case.shapes["x"]) == 64
    dims = [d for s in case.shapes["x"] + case.shapes["weight"] for d in s]
    assert min(dims) >= 16 and max(dims) <= 512
    shapes = {k: [tuple(s) for s in v] for k, v in case.shapes.items()}
    dtypes = {"x": "float16", "weight": "float16", "bias": "float32", "y": "float16"}
    chain = golden.unfused_chain(shapes, dtypes, {})
    assert len(chain) == 64 and sum(s["flops"] for s in chain) == golden.flops(shapes, dtypes, {})
    assert {s["unit"] for s in chain} == {"cube"}  # each launch a matmul at the cube's peak, not the vector's


def _run(cli, tmp_path, arrays, *attrs, pkg=PKG):
    np.savez(tmp_path / "in.npz", **arrays)
    code, out, err = cli("run", pkg, "--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz", "--force",
                         *[a for kv in attrs for a in ("--attr", kv)])
    return code, out + err


def _lists(sizes, seed=0, transpose=False):
    rng = np.random.default_rng(seed)
    arrays = {}
    for i, (m, k, n) in enumerate(sizes):
        arrays[f"x.{i}"] = rng.normal(size=(m, k)).astype(np.float16)
        arrays[f"weight.{i}"] = rng.normal(size=(n, k) if transpose else (k, n)).astype(np.float16)
        arrays[f"bias.{i}"] = rng.normal(size=n).astype(np.float32)
    return arrays


def test_kernel_on_npz_lists(cli, tmp_path, golden):
    sizes = [(20, 48, 24), (1, 16, 300), (140, 70, 17)]
    arrays = _lists(sizes, transpose=True)
    code, text = _run(cli, tmp_path, arrays, "transpose_weight=true")
    assert code == 0, text
    out = np.load(tmp_path / "out.npz")
    assert sorted(out.files) == ["y.0", "y.1", "y.2"]  # the list output, one key per tensor
    ref = loop_reference([arrays[f"x.{i}"].astype(np.float64) for i in range(3)],
                         [arrays[f"weight.{i}"].astype(np.float64) for i in range(3)],
                         [arrays[f"bias.{i}"].astype(np.float64) for i in range(3)], True)
    for i, (m, _, n) in enumerate(sizes):
        assert out[f"y.{i}"].shape == (m, n)
        np.testing.assert_allclose(out[f"y.{i}"].astype(np.float64), ref[i], rtol=2e-3, atol=3e-2)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.pop("weight.2"), "but weight has 2: one weight per problem"),
    (lambda a: a.update({"bias.1": np.zeros(5, np.float32)}), "problem 1: bias must be [N] = [300]"),
    (lambda a: a.update({"weight.0": np.zeros((40, 24), np.float16)}), "problem 0: x has K = 48 columns"),
])
def test_tiling_refusals(cli, tmp_path, change, message):
    arrays = _lists([(20, 48, 24), (1, 16, 300), (140, 70, 17)])
    change(arrays)
    code, text = _run(cli, tmp_path, arrays)
    assert code != 0 and message in text and "Traceback" not in text


def test_npz_list_keys_round_trip_and_refusals(cli, tmp_path):
    xs = {f"xs.{i}": np.full(64, i + 1, np.float32) for i in range(3)}
    code, text = _run(cli, tmp_path, xs, "scale=0.5", pkg=LIST_SUM)
    assert code == 0, text
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], np.full(64, 3.0, np.float32))
    code, text = _run(cli, tmp_path, {"xs.0": xs["xs.0"], "xs.2": xs["xs.2"]}, pkg=LIST_SUM)
    assert code != 0 and "no 'xs.1'" in text
    code, text = _run(cli, tmp_path, {"xs": xs["xs.0"]}, pkg=LIST_SUM)
    assert code != 0 and "'xs.0', 'xs.1'" in text


def test_case_run_writes_list_inputs_as_numbered_keys(cli, tmp_path):
    code, out, err = cli("run", LIST_SUM, "--case", "three", "--out", tmp_path / "c.npz")
    assert code == 0, out + err
    assert sorted(np.load(tmp_path / "c.npz").files) == ["xs.0", "xs.1", "xs.2", "y"]
