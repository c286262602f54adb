"""MoeGatingTopK package: spec, golden (against independent model-style routing), tie rule, comparison."""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import make_inputs
from opkit.spec import load
from opkit.verify.compare import compare
from opkit.verify.golden import custom_generators, run_golden

PKG = Path(__file__).resolve().parent.parent / "ops" / "moe" / "moe_gating_top_k"


def _golden_module():
    spec = importlib.util.spec_from_file_location("moe_gating_top_k_golden_under_test", PKG / "golden.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


G = _golden_module()
SPEC = load(PKG)

DEEPSEEK = {"k": 8, "k_group": 4, "group_count": 8, "group_select_mode": 1, "norm_type": 1,
            "routed_scaling_factor": 2.5}


# ---------------------------------------------------------------------------------------------
# the spec
# ---------------------------------------------------------------------------------------------
def test_spec_interface_matches_the_real_op():
    assert SPEC.op_type == "MoeGatingTopK"
    assert [p.name for p in SPEC.inputs] == ["x", "bias"]
    assert [p.name for p in SPEC.outputs] == ["y", "expert_idx", "out"]  # the OpDef's output order
    assert SPEC.inputs[1].param == "optional"
    assert SPEC.inputs[0].dtypes == ("float16", "float32", "bfloat16")
    assert SPEC.outputs[1].dtypes == ("int32",) * 3
    assert SPEC.outputs[2].dtypes == ("float32",) * 3
    out = SPEC.outputs[2]
    assert out.when is not None and out.when.holds({"out_flag": True}) and not out.when.holds({"out_flag": False})
    attrs = {a.name: a for a in SPEC.attrs}
    assert list(attrs) == ["k", "k_group", "group_count", "group_select_mode", "renorm", "norm_type", "out_flag",
                           "routed_scaling_factor", "eps"]
    assert attrs["k"].required
    assert {n: attrs[n].default for n in list(attrs)[1:]} == {
        "k_group": 1, "group_count": 1, "group_select_mode": 0, "renorm": 0, "norm_type": 0, "out_flag": False,
        "routed_scaling_factor": 1.0, "eps": 1e-20}


def test_spec_cases_cover_the_issue():
    names = {c.name for c in SPEC.cases}
    assert {"deepseek_v3_smoke", "mixtral_top2", "e2048_top2", "ties_deepseek", "special_sigmoid"} <= names
    ds = SPEC.case("deepseek_v3_smoke").attrs
    assert (ds["k"], ds["k_group"], ds["group_count"], ds["group_select_mode"], ds["norm_type"],
            ds["routed_scaling_factor"]) == (8, 4, 8, 1, 1, 2.5)
    tokens = {c.shapes["x"][0] for c in SPEC.cases}
    assert min(tokens) == 1 and max(tokens) == 8192
    for c in SPEC.cases:
        if c.shapes["x"][0] >= 4096:
            assert "full" in c.tags, c.name


# ---------------------------------------------------------------------------------------------
# golden shapes and dtypes, case by case (through opkit's own input generation)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [c.name for c in SPEC.cases if "full" not in c.tags])
def test_golden_outputs_per_case(case):
    c = SPEC.case(case)
    t, e = c.shapes["x"]
    k = c.attrs["k"]
    for col in c.columns:
        inputs = make_inputs(SPEC, c, col, custom_generators(SPEC))
        out = run_golden(SPEC, c, inputs)
        assert set(out) == ({"y", "expert_idx", "out"} if c.attrs["out_flag"] else {"y", "expert_idx"})
        assert out["y"].shape == (t, k) and out["y"].dtype == np.float64
        assert out["expert_idx"].shape == (t, k) and out["expert_idx"].dtype == np.int32
        idx = out["expert_idx"]
        assert idx.min() >= 0 and idx.max() < e
        assert all(len(set(r)) == k for r in idx.tolist())
        if "out" in out:
            assert out["out"].shape == (t, e)


def test_large_case_shapes_without_running_them():
    c = SPEC.case("deepseek_v3_prefill")
    assert c.shapes["x"] == [8192, 256] and "full" in c.tags


# ---------------------------------------------------------------------------------------------
# independent cross-check: DeepSeek-V3 routing written the way model code writes it
# ---------------------------------------------------------------------------------------------
def deepseek_v3_route(logits, bias, top_k, n_group, topk_group, routed_scaling_factor):
    """Group-limited routing as MoE model code writes it, in float64, with its own loops."""
    scores = 1.0 / (1.0 + np.exp(-logits))
    scores_for_choice = scores + bias[None, :]
    n_tok, n_exp = scores.shape
    per = n_exp // n_group
    idx_out = np.zeros((n_tok, top_k), dtype=np.int64)
    w_out = np.zeros((n_tok, top_k))
    for t in range(n_tok):
        group_scores = []
        for g in range(n_group):
            members = sorted(scores_for_choice[t, g * per:(g + 1) * per], reverse=True)
            group_scores.append(members[0] + members[1])
        # top topk_group groups; on equal scores the earlier group comes first
        groups = sorted(range(n_group), key=lambda g: (-group_scores[g], g))[:topk_group]
        masked = np.full(n_exp, -np.inf)
        for g in groups:
            masked[g * per:(g + 1) * per] = scores_for_choice[t, g * per:(g + 1) * per]
        chosen = sorted(range(n_exp), key=lambda e: (-masked[e], e))[:top_k]
        weights = scores[t, chosen]
        weights = weights / (weights.sum() + 1e-20)
        idx_out[t] = chosen
        w_out[t] = weights * routed_scaling_factor
    return w_out, idx_out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_golden_agrees_with_model_style_deepseek_routing(seed, dtype):
    import ml_dtypes
    rng = np.random.default_rng(seed)
    npdt = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}[dtype]
    x = rng.normal(size=(48, 256)).astype(npdt).astype(np.float64)
    bias = rng.uniform(-0.1, 0.1, size=256).astype(npdt).astype(np.float64)
    got = G.moe_gating_top_k(x, bias, **DEEPSEEK)
    w, idx = deepseek_v3_route(x, bias, 8, 8, 4, 2.5)
    np.testing.assert_array_equal(got["expert_idx"], idx)
    np.testing.assert_allclose(got["y"], w, rtol=2e-6, atol=0)
    np.testing.assert_allclose(got["y"].sum(axis=-1), 2.5, rtol=1e-6)
    # the experts come from at most k_group = 4 groups
    assert max(len(set((r // 32).tolist())) for r in got["expert_idx"]) <= 4


def test_grouping_changes_the_choice():
    """Group-limited selection is not a plain top-k: find rows where it matters and check both."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 256))
    bias = rng.uniform(-0.1, 0.1, size=256)
    grouped = G.moe_gating_top_k(x, bias, **DEEPSEEK)["expert_idx"]
    plain = G.moe_gating_top_k(x, bias, **{**DEEPSEEK, "k_group": 8})["expert_idx"]
    assert (grouped != plain).any(axis=-1).sum() > 0
    _, idx = deepseek_v3_route(x, bias, 8, 8, 4, 2.5)
    np.testing.assert_array_equal(grouped, idx)


def test_mixtral_softmax_top2():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(100, 8)).astype(np.float32).astype(np.float64)
    got = G.moe_gating_top_k(x, None, k=2)
    p = np.exp(x - x.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    top2 = np.argsort(-p, axis=-1, kind="stable")[:, :2]
    np.testing.assert_array_equal(got["expert_idx"], top2)
    # softmax: the weights are the probabilities themselves, not renormalised (as the kernels do)
    np.testing.assert_allclose(got["y"], np.take_along_axis(p, top2, -1), rtol=1e-6)
    assert (got["y"].sum(-1) < 1.0).all()
    # Mixtral's weights (softmax over the two chosen logits) are y / sum(y)
    chosen = np.take_along_axis(x, top2, -1)
    mix = np.exp(chosen - chosen.max(-1, keepdims=True))
    mix /= mix.sum(-1, keepdims=True)
    np.testing.assert_allclose(got["y"] / got["y"].sum(-1, keepdims=True), mix, rtol=1e-6)


def test_renormalisation_only_for_sigmoid_and_scaling_always():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(10, 64))
    sig = G.moe_gating_top_k(x, None, k=4, norm_type=1, routed_scaling_factor=3.0)
    np.testing.assert_allclose(sig["y"].sum(-1), 3.0, rtol=1e-6)
    soft = G.moe_gating_top_k(x, None, k=4, norm_type=0, routed_scaling_factor=3.0)
    assert (soft["y"].sum(-1) < 3.0 - 1e-3).all()
    plain = G.moe_gating_top_k(x, None, k=4, norm_type=0)
    np.testing.assert_allclose(soft["y"], 3.0 * plain["y"], rtol=1e-7)


def test_bias_steers_the_choice_but_not_the_weights():
    x = np.zeros((1, 8))
    x[0, 3] = 1.0
    bias = np.zeros(8)
    bias[6] = 5.0
    got = G.moe_gating_top_k(x, bias, k=1, norm_type=1)
    assert got["expert_idx"][0, 0] == 6
    # y is gathered from the unbiased norm: sigmoid(0) = 0.5, renormalised over one expert -> 1
    np.testing.assert_allclose(got["y"], [[1.0]])
    got2 = G.moe_gating_top_k(x, bias, k=2, norm_type=1)
    sig1 = 1 / (1 + np.exp(-1.0))
    np.testing.assert_allclose(got2["y"][0], [0.5 / (0.5 + sig1), sig1 / (0.5 + sig1)], rtol=1e-6)


def test_out_only_with_out_flag():
    x = np.random.default_rng(5).normal(size=(3, 16))
    assert "out" not in G.moe_gating_top_k(x, None, k=2)
    got = G.moe_gating_top_k(x, None, k=2, norm_type=1, out_flag=True)
    np.testing.assert_allclose(got["out"], 1 / (1 + np.exp(-x)), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# the tie rule
# ---------------------------------------------------------------------------------------------
def test_ties_lower_index_wins_at_the_boundary_and_in_order():
    x = np.array([[0.0, 2.0, 1.0, 2.0, 1.0, 1.0, -1.0, 2.0]])
    got = G.moe_gating_top_k(x, None, k=5)
    assert got["expert_idx"].tolist() == [[1, 3, 7, 2, 4]]


def test_ties_between_groups_lower_group_wins():
    rng = np.random.default_rng(6)
    one = rng.normal(size=32)
    x = np.tile(one, 8)[None, :]
    got = G.moe_gating_top_k(x, None, k=8, k_group=4, group_count=8, group_select_mode=0, norm_type=1)
    assert set((got["expert_idx"][0] // 32).tolist()) <= {0, 1, 2, 3}
    # equal experts in the kept groups: each value appears 4 times, group 0's copy comes first
    best = int(np.argmax(one))
    assert got["expert_idx"][0, :4].tolist() == [best, 32 + best, 64 + best, 96 + best]


def test_tie_generators_make_ties():
    rng = np.random.default_rng(0)
    x = G.tied_logits((4, 256), "float16", rng, {})
    assert x.shape == (4, 256) and len(np.unique(x)) <= 17
    assert (x == x.astype(np.float16)).all()
    b = G.tied_bias((256,), "bfloat16", rng, {})
    assert set(np.unique(b).tolist()) <= {-0.25, -0.125, 0.0, 0.125, 0.25}
    eq = G.equal_groups_logits((2, 256), "float32", rng, {"group_count": 8})
    assert (eq[:, :32] == eq[:, 224:]).all()


def test_saturated_sigmoid_ties():
    x = np.array([[np.inf, 50.0, 40.0, -np.inf, 0.0, 60.0, np.inf, -3.0]])
    got = G.moe_gating_top_k(x, None, k=4, norm_type=1, out_flag=True)
    # sigmoid of inf, 40, 50, 60 is exactly 1.0 in float32: five-way tie, lower index first
    assert got["expert_idx"].tolist() == [[0, 1, 2, 5]]
    np.testing.assert_allclose(got["y"], [[0.25] * 4])
    assert got["out"][0, 3] == 0.0


# ---------------------------------------------------------------------------------------------
# attribute limits
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,attrs,message", [
    ((2, 16), {"k": 17}, "k is 17"),
    ((2, 256), {"k": 33, "k_group": 1, "group_count": 8}, "k is 33"),
    ((2, 2048), {"k": 2, "k_group": 2, "group_count": 128}, "exceeds 2048"),
    ((2, 100), {"k": 2, "group_count": 3}, "not divisible"),
    ((2, 64), {"k": 2, "group_count": 64, "k_group": 2, "group_select_mode": 1}, "at least 2 experts"),
    ((2, 64), {"k": 2, "renorm": 1}, "renorm"),
    ((2, 4096), {"k": 2}, "expert count 4096"),
    ((2, 64), {"k": 2, "k_group": 5, "group_count": 4}, "k_group is 5"),
])
def test_attr_limits(shape, attrs, message):
    with pytest.raises(ValueError, match=message):
        G.moe_gating_top_k(np.zeros(shape), None, **attrs)


def test_padding_limit_only_applies_when_grouping_is_active():
    # 128 groups of 16 would pad to 4096, but with k_group == group_count nothing is grouped
    got = G.moe_gating_top_k(np.zeros((1, 2048)), None, k=2, k_group=128, group_count=128)
    assert got["expert_idx"].tolist() == [[0, 1]]


# ---------------------------------------------------------------------------------------------
# the routing comparison
# ---------------------------------------------------------------------------------------------
def _routing(scores, attrs):
    scores = np.asarray(scores, dtype=np.float32)
    idx = G.select_experts(scores, attrs["k"], attrs.get("k_group", 1), attrs.get("group_count", 1),
                           attrs.get("group_select_mode", 0))
    y = G.routing_weights(scores, idx, attrs.get("norm_type", 0), attrs.get("routed_scaling_factor", 1.0),
                          attrs.get("eps", 1e-20))
    return {"y": y, "expert_idx": idx.astype(np.int32)}


def _actual(scores, idx, attrs):
    scores = np.asarray(scores, dtype=np.float32)
    idx = np.asarray(idx)
    y = G.routing_weights(scores, idx, attrs.get("norm_type", 0), attrs.get("routed_scaling_factor", 1.0),
                          attrs.get("eps", 1e-20))
    return {"y": y, "expert_idx": idx.astype(np.int32)}


def _check(dtype="float32"):
    """opkit's check for y: the mixed profile in y's dtype, as verify applies it."""
    return lambda name, actual, expected: compare(name, np.asarray(actual), np.asarray(expected), dtype)


def _compare(scores, actual_idx, attrs, dtype="float32", **kw):
    scores = np.asarray(scores, dtype=np.float32)
    golden = _routing(scores, attrs)
    actual = _actual(scores, actual_idx, attrs)
    actual.update(kw.pop("override", {}))
    rep = G.check_routing(actual, golden, scores, scores, attrs, _check(dtype), **kw)
    return rep["passed"], rep


K3 = {"k": 3, "norm_type": 1}
ROW = [[0.9, 0.8, 0.5, 0.5 + 3e-7, 0.1, 0.7]]


def test_compare_identical_routing_passes_exactly():
    ok, rep = _compare(ROW, [[0, 1, 5]], K3)
    assert ok and rep["counts"]["exact_rows"] == 1 and rep["counts"]["near_ties"] == 0


def test_compare_accepts_a_swap_inside_the_k_boundary_cluster():
    attrs = {"k": 4, "norm_type": 1}
    golden = _routing(ROW, attrs)["expert_idx"].tolist()
    assert golden == [[0, 1, 5, 3]]
    ok, rep = _compare(ROW, [[0, 1, 5, 2]], attrs)
    assert ok, rep
    assert rep["details"]["near_ties"][0]["kinds"] == ["k-boundary"]


def test_compare_rejects_a_swap_outside_the_cluster():
    attrs = {"k": 4, "norm_type": 1}
    ok, rep = _compare(ROW, [[0, 1, 5, 4]], attrs)
    assert not ok and "outside the near-tie cluster" in rep["failures"][0]
    ok, rep = _compare(ROW, [[0, 1, 2, 3]], attrs)  # left out expert 5 (0.7), clearly above the boundary
    assert not ok and "clearly above" in rep["failures"][0]


def test_compare_order_inside_the_top_k():
    row = [[0.9, 0.6 + 2e-7, 0.6, 0.1]]
    attrs = {"k": 3, "norm_type": 1}
    ok, rep = _compare(row, [[0, 2, 1]], attrs)  # near-equal pair swapped: accepted, reported
    assert ok and rep["details"]["near_ties"][0]["kinds"] == ["order"]
    ok, rep = _compare(row, [[1, 0, 2]], attrs)  # 0.6 before 0.9: rejected
    assert not ok and "not descending" in rep["failures"][0]


def test_compare_exact_ties_must_follow_the_lower_index_rule():
    row = [[0.9, 0.5, 0.7, 0.5, 0.5]]
    attrs = {"k": 3, "norm_type": 1}
    assert _routing(row, attrs)["expert_idx"].tolist() == [[0, 2, 1]]
    ok, rep = _compare(row, [[0, 2, 3]], attrs)  # chose 3 over 1 with the same score
    assert not ok and "tie rule" in rep["failures"][0]
    ok, rep = _compare([[0.9, 0.7, 0.7, 0.1]], [[0, 2, 1]], attrs)  # equal pair in the wrong order
    assert not ok and "tie rule" in rep["failures"][0]


def test_compare_group_boundary_near_tie():
    attrs = {"k": 2, "k_group": 2, "group_count": 4, "group_select_mode": 0, "norm_type": 1}
    row = [[0.9, 0.1, 0.5, 0.2, 0.5 + 2e-7, 0.3, 0.05, 0.04]]
    assert _routing(row, attrs)["expert_idx"].tolist() == [[0, 4]]
    ok, rep = _compare(row, [[0, 2]], attrs)  # group 1 instead of the near-equal group 2
    assert ok, rep
    assert "group-boundary" in rep["details"]["near_ties"][0]["kinds"]
    ok, rep = _compare(row, [[0, 6]], attrs)  # group 3 is clearly out
    assert not ok and rep["failures"][0].startswith("row 0: group boundary")
    ok, rep = _compare(row, [[0, 5]], attrs)  # expert 5 is in a kept group but far below expert 4
    assert not ok


def test_compare_rejects_wrong_weights_and_bad_indices():
    ok, rep = _compare(ROW, [[0, 1, 5]], K3, override={"y": np.array([[0.5, 0.3, 0.2]])})
    # the indices are right, the weights are not: the hook fails on y, judged by the profile
    assert not ok and not rep["failures"] and "y:" in rep["summary"] and "elements match" in rep["summary"]
    ok, rep = _compare(ROW, [[0, 0, 5]], K3)
    assert not ok and "repeats" in rep["failures"][0]
    ok, rep = _compare(ROW, [[0, 1, 4]], K3, override={"expert_idx": np.array([[0, 1, 9]], dtype=np.int32)})
    assert not ok and "outside [0, 6)" in rep["failures"][0]


def test_compare_weights_aligned_by_expert_index():
    attrs = {"k": 4, "norm_type": 1, "routed_scaling_factor": 2.0}
    # a kernel that chose the near-tie expert 2 has weights renormalised over its own choice
    ok, rep = _compare(ROW, [[0, 1, 5, 2]], attrs)
    assert ok
    golden = _routing(ROW, attrs)
    ok, rep = _compare(ROW, [[0, 1, 5, 2]], attrs, override={"y": golden["y"]})
    assert ok  # the two weight sets differ by ~3e-7 relative: inside the weight tolerance
    ok, rep = _compare(ROW, [[0, 1, 5, 3]], attrs, override={"y": golden["y"][:, [1, 0, 2, 3]]})
    assert not ok  # right experts, weights attached to the wrong ones


def test_compare_on_the_deepseek_golden_with_float32_noise():
    """A kernel whose scores differ from the golden by a few float32 ulps must still pass."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(256, 256))
    bias = rng.uniform(-0.1, 0.1, size=256)
    norm, sel = G.routing_scores(x, bias, 1)
    golden = G.moe_gating_top_k(x, bias, **DEEPSEEK)
    noisy_sel = (sel * (1 + rng.uniform(-4, 4, size=sel.shape) * 2.0**-24)).astype(np.float32)
    idx = G.select_experts(noisy_sel, 8, 4, 8, 1)
    actual = {"expert_idx": idx, "y": G.routing_weights(norm, idx, 1, 2.5, 1e-20).astype(np.float16)}
    rep = G.check_routing(actual, golden, sel, norm, {**DEEPSEEK}, _check("float16"))
    assert rep["passed"], rep["failures"][:3]


# ---------------------------------------------------------------------------------------------
# counts for the performance model
# ---------------------------------------------------------------------------------------------
def test_fused_bytes_and_unfused_chain():
    shapes = {"x": [8192, 256], "bias": [256]}
    dtypes = {"x": "bfloat16", "bias": "bfloat16", "y": "bfloat16", "expert_idx": "int32", "out": "float32"}
    fused = G.hbm_bytes(shapes, dtypes, DEEPSEEK)
    assert fused == 8192 * 256 * 2 + 8192 * 8 * (2 + 4) + 256 * 2
    chain = G.unfused_chain(shapes, dtypes, DEEPSEEK)
    assert [c["op"] for c in chain] == ["sigmoid", "add_bias", "group_score", "group_topk", "group_mask", "topk",
                                        "gather", "normalise", "scale"]
    unfused = sum(sum(c["reads"].values()) + sum(c["writes"].values()) for c in chain)
    assert unfused > 5 * fused
    soft = G.unfused_chain({"x": [64, 8]}, {"x": "float16"}, {"k": 2})
    assert [c["op"] for c in soft] == ["softmax", "topk", "gather", "scale"]
    assert G.flops(shapes, dtypes, DEEPSEEK) > 8192 * 256 * 4
    with_out = G.hbm_bytes(shapes, dtypes, {**DEEPSEEK, "out_flag": True})
    assert with_out - fused == 8192 * 256 * 4


# ---------------------------------------------------------------------------------------------
# NaN follows the simulator's table: it sorts as the largest score
# ---------------------------------------------------------------------------------------------
def test_nan_sorts_first_and_poisons_the_weights():
    x = np.array([[0.5, np.nan, 2.0, 1.0, np.nan, -1.0, 3.0, 0.0]])
    got = G.moe_gating_top_k(x, None, k=3, norm_type=1)
    assert got["expert_idx"].tolist() == [[1, 4, 6]]  # the NaNs first, in index order, then the best
    assert np.isnan(got["y"]).all()  # the renormalising sum is NaN
    grouped = G.moe_gating_top_k(x, None, k=2, k_group=1, group_count=4, norm_type=1)
    assert grouped["expert_idx"].tolist() == [[1, 0]]  # group 0 holds a NaN: its score is NaN, the largest


def test_compare_nan_rows_must_match_exactly():
    row = [[0.9, np.nan, 0.5, 0.4]]
    attrs = {"k": 2, "norm_type": 0}
    ok, rep = _compare(row, [[1, 0]], attrs)
    assert ok, rep
    ok, rep = _compare(row, [[0, 1]], attrs)
    assert not ok and "NaN" in rep["failures"][0]


@pytest.mark.parametrize("seed", range(4))
def test_fast_topk_equals_the_full_stable_sort(seed):
    rng = np.random.default_rng(seed)
    for values in (rng.normal(size=(64, 512)).astype(np.float32),
                   (rng.integers(-3, 4, size=(64, 512)) / 4).astype(np.float32),  # heavy ties
                   np.where(rng.random((64, 512)) < 0.3, -np.inf, rng.normal(size=(64, 512))).astype(np.float32)):
        for k in (1, 2, 8, 33):
            np.testing.assert_array_equal(G.stable_topk(values, k), G.descending_order(values)[:, :k])


def test_compare_near_tie_width_scales_with_the_row():
    # softmax-like row of small probabilities: a swap 4e-6 apart is a real difference here
    row = [[2e-3, 1e-3, 5e-4, 5e-4 - 4e-6, 1e-4]]
    attrs = {"k": 3, "norm_type": 0}
    ok, rep = _compare(row, [[0, 1, 3]], attrs)
    assert not ok  # default width: 2^-16 * 2e-3 = 3e-8
    ok, rep = _compare(row, [[0, 1, 3]], attrs, tol=1e-5)  # an explicit absolute width accepts it
    assert ok and rep["details"]["near_ties"][0]["kinds"] == ["k-boundary"]


# ---------------------------------------------------------------------------------------------
# the package end to end on opkit's CPU simulator: OpDef, InferShape, tiling and kernel
# ---------------------------------------------------------------------------------------------
# The harnesses are the ones `opkit build` makes (opkit.build.sim_backend through the runner: the package's
# op_host/*.cpp, the generated launch shim around its kernel, one executable per dtype column, kept in the
# package's .opkit/), and the requests are the runner's own (SimRunner.request); the tests run the harness
# on them directly to read its exit code, diagnostics and result file.
needs_sim = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not available")
CHIP = "ascend910b2"
COLUMNS = {dtype: SPEC.inputs[0].dtypes.index(dtype) for dtype in ("float16", "float32", "bfloat16")}


@pytest.fixture(scope="module")
def runner():
    """The simulator runner with every dtype column's harness built (opkit's build, cached in the package)."""
    from opkit.errors import OpkitError
    from opkit.run.sim_runner import SimRunner

    r = SimRunner(jobs=1)
    try:
        r.prebuild([(SPEC, CHIP, col) for col in COLUMNS.values()])
    except OpkitError as exc:
        pytest.fail(str(exc))
    return r


@pytest.fixture(scope="module")
def harnesses(runner):
    """dtype column -> harness executable."""
    return {dtype: runner.artifact(SPEC, CHIP, col).exe for dtype, col in COLUMNS.items()}


def _run_request(runner, run_dir, x, bias, attrs, dtype):
    """Run one request (the runner's request for these inputs and attrs, op.yaml's defaults for the attrs not
    given); returns (CompletedProcess, result dict or None, output arrays)."""
    import dataclasses
    import json

    import ml_dtypes

    np_type = {"float16": np.float16, "float32": np.float32, "bfloat16": ml_dtypes.bfloat16}[dtype]
    run_dir.mkdir(parents=True, exist_ok=True)
    col = COLUMNS[dtype]
    case = dataclasses.replace(SPEC.cases[0], name="test", attrs={**{a.name: a.default for a in SPEC.attrs}, **attrs})
    inputs = {"x": np.asarray(x).astype(np_type), "bias": None if bias is None else np.asarray(bias).astype(np_type)}
    request = runner.request(SPEC, case, col, CHIP, inputs, run_dir)
    req = run_dir / "request.json"
    req.write_text(json.dumps(request), encoding="utf-8")
    exe = runner.artifact(SPEC, CHIP, col).exe
    res = subprocess.run([str(exe), "run", str(req)], capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        return res, None, None
    result = json.loads(Path(str(req) + ".result.json").read_text(encoding="utf-8"))
    rows, experts = np.shape(x)
    k = result["output_shapes"]["y"][1]
    outs = {"y": np.fromfile(run_dir / "out_y.bin", dtype=np_type).astype(np.float64).reshape(rows, k),
            "expert_idx": np.fromfile(run_dir / "out_expert_idx.bin", dtype=np.int32).reshape(rows, k),
            "out": np.fromfile(run_dir / "out_out.bin", dtype=np.float32).reshape(rows, experts)}
    return res, result, outs


def _expected_key(experts, attrs, has_bias):
    """The tiling key the op's rules give (op_host/moe_gating_top_k_tiling.cpp, README)."""
    if (experts == 256 and attrs["group_count"] == 8 and attrs["k_group"] == 4 and attrs["k"] <= 32 and has_bias
            and attrs["group_select_mode"] == 1 and attrs["norm_type"] == 1 and not attrs["out_flag"]):
        return 0
    return 2 if G.grouping_active(experts, attrs["group_count"], attrs["k_group"]) else 1


SIM_CASES = [c.name for c in SPEC.cases if "full" not in c.tags]


@needs_sim
def test_harness_describes_the_op_yaml_interface(harnesses):
    import json
    res = subprocess.run([str(harnesses["float16"]), "describe"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    (op,) = json.loads(res.stdout)["ops"]
    assert op["op_type"] == SPEC.op_type
    for kind, params in (("inputs", SPEC.inputs), ("outputs", SPEC.outputs)):
        assert [(p["name"], p["param_type"], tuple(p["dtypes"])) for p in op[kind]] == \
            [(p.name, "required" if p.is_output else p.param, p.dtypes) for p in params]
    assert [(a["name"], a["type"], a["required"], a["default"]) for a in op["attrs"]] == \
        [(a.name, a.type, a.required, a.default) for a in SPEC.attrs]
    assert op["socs"] == [s.key for s in SPEC.socs]
    assert op["has_tiling"] and op["has_infershape"] and op["has_inferdatatype"]


@needs_sim
@pytest.mark.parametrize("case", SIM_CASES)
def test_case_on_the_simulator(case, runner, tmp_path):
    c = SPEC.case(case)
    rows, experts = c.shapes["x"]
    k = c.attrs["k"]
    for col in c.columns:
        dtype = SPEC.inputs[0].dtypes[col]
        inputs = make_inputs(SPEC, c, col, custom_generators(SPEC))
        golden = run_golden(SPEC, c, inputs)
        res, result, outs = _run_request(runner, tmp_path / dtype, inputs["x"], inputs["bias"], c.attrs, dtype)
        assert res.returncode == 0, f"{case} {dtype}: {res.stderr[-3000:]}"
        assert res.stderr.strip() == "", f"{case} {dtype}: the simulator warned:\n{res.stderr[-3000:]}"
        assert result["output_shapes"] == {"y": [rows, k], "expert_idx": [rows, k], "out": [rows, experts]}
        assert result["tiling_key"] == _expected_key(experts, c.attrs, inputs["bias"] is not None)
        x64 = np.asarray(inputs["x"]).astype(np.float64)
        b64 = None if inputs["bias"] is None else np.asarray(inputs["bias"]).astype(np.float64)
        norm, sel = G.routing_scores(x64, b64, c.attrs["norm_type"])
        rep = G.check_routing(outs, golden, sel, norm, c.attrs, _check(dtype))
        assert rep["passed"], f"{case} {dtype} (tiling key {result['tiling_key']}): {rep['summary']}; {rep['failures'][:3]}"
        if c.attrs["out_flag"]:
            np.testing.assert_allclose(outs["out"], golden["out"], rtol=1e-5, atol=1e-6, equal_nan=True)


@needs_sim
def test_tiling_falls_back_to_one_x_buffer_when_ub_is_short(runner, tmp_path):
    # 2048 experts, k 2016, out: two fp16 x buffers do not fit, two fp32 ones do
    c = SPEC.case("e2048_k2016_out")
    fields = {}
    for dtype in ("float16", "float32"):
        col = SPEC.inputs[0].dtypes.index(dtype)
        inputs = make_inputs(SPEC, c, col, custom_generators(SPEC))
        res, result, _ = _run_request(runner, tmp_path / dtype, inputs["x"], inputs["bias"], c.attrs, dtype)
        assert res.returncode == 0, res.stderr[-3000:]
        fields[dtype] = struct.unpack("<22q2f", bytes.fromhex(result["tiling_data_hex"]))
    assert fields["float16"][21] == 1 and fields["float32"][21] == 2  # xBufferNum


@needs_sim
@pytest.mark.parametrize("experts,attrs,message", [
    (2048, {"k": 2, "k_group": 2, "group_count": 128}, "128 * 32 = 4096 exceeds 2048"),
    (64, {"k": 40, "k_group": 1, "group_count": 4}, "k = 40 must be in [1, k_group * E / group_count = 16]"),
    (64, {"k": 2, "renorm": 1}, "renorm = 1"),
    (64, {"k": 2, "group_count": 64, "k_group": 2, "group_select_mode": 1}, "at least 2 experts per group"),
])
def test_tiling_refuses_with_a_clear_message(runner, tmp_path, experts, attrs, message):
    res, _, _ = _run_request(runner, tmp_path, np.zeros((2, experts)), None, attrs, "float16")
    assert res.returncode == 3
    assert "MoeGatingTopK tiling error" in res.stderr and message in res.stderr, res.stderr


@needs_sim
def test_no_tokens(runner, tmp_path):
    attrs = {"k": 8, "k_group": 4, "group_count": 8, "group_select_mode": 1, "norm_type": 1}
    res, result, outs = _run_request(runner, tmp_path, np.zeros((0, 256)), np.zeros(256), attrs, "bfloat16")
    assert res.returncode == 0, res.stderr
    assert result["block_dim"] == 1 and outs["y"].shape == (0, 8)


@needs_sim
def test_sources_compile_without_warnings(runner):
    # Every unit of the package the build compiles (the host sources, the generated shim around the kernel of each
    # dtype column), with the build's own flags plus -Wall -Wextra: no warning located in the package's sources.
    from opkit.build import program

    units = {}
    for col in COLUMNS.values():
        for u in runner.artifact(SPEC, CHIP, col).units:
            if u.shim or PKG in u.source.parents:
                units[u.obj] = u
    assert len(units) == 6  # def, infershape, tiling and three kernel columns
    own = []
    for u in units.values():
        r = program.check_syntax(u.source, chip=CHIP, flags=[*u.flags, "-Wall", "-Wextra"])
        assert r.returncode == 0, r.stderr[-3000:]
        own += [line for line in r.stderr.splitlines() if line.startswith(str(PKG)) and "warning:" in line]
    assert not own, "\n".join(own)  # no warnings located in the package's own sources
