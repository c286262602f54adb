"""Golden reference of MoeGatingTopK: MoE router scores, group-limited top-k, routing weights.

opkit calls ``moe_gating_top_k`` with every input as a float64 array holding exactly the values the
kernel receives (already rounded to the input dtype; ``bias`` is None when absent) and every attr
by name, and compares what it returns with the kernel's outputs.

Why this golden computes the scores in float32 (the family's fp32 golden path)
-----------------------------------------------------------------------------
Most goldens compute in float64 so that the golden is closer to the true result than any kernel.
A router cannot do that: its outputs are *decisions*. The kernel widens x to float32, computes
sigmoid/softmax in float32, adds the bias in float32, and ranks those float32 values. Two
experts whose float64 scores differ by 1e-9 may be equal in float32 (a tie, broken by the lower
index) or ranked the other way, and a float64 golden would then "expect" a different expert than
the one the hardware must pick. So the golden reproduces the kernel's float32 pipeline up to the
selection (norm, norm + bias, group scores, masking, stable descending top-k) and only the weights
after the selection (gather, renormalise, scale) are computed in float64 from those float32
values. Remaining differences (the kernel's Sigmoid/Exp against NumPy's, summation order) are a
few float32 ulps; ``compare_routing`` below accepts a different choice only inside such near-tie
clusters and reports it.

Math (x is [T, E], G = group_count, P = E / G)
---------------------------------------------
1. norm = sigmoid(x) (norm_type 1) or softmax(x, -1) (norm_type 0), in float32.
2. sel = norm + bias (bias optional), float32; used only for the selection.
3. Grouping is active when G is neither 1 nor E and k_group != G: a group's score is its max
   (group_select_mode 0) or the sum of its two largest sel (mode 1); the k_group best groups are
   kept (ties: lower group index), the other groups' experts are masked with -inf.
4. expert_idx = the k largest masked sel, descending; equal scores: lower expert index first.
5. y = norm[expert_idx] (the unbiased norm); y /= (sum(y) + eps) only for norm_type 1, as the
   kernels of ops-transformer do; then y *= routed_scaling_factor.
6. out = norm, produced only when out_flag.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from opkit.dtypes import DTYPES

F32 = np.float32
MAX_EXPERTS = 2048  # E limit of the op (one row resident in UB)
SORT_GROUP = 32  # Sort32 sorts 32 elements per repeat: each group is padded to a multiple of it


# ---------------------------------------------------------------------------------------------
# attribute rules (the same checks as op_host/moe_gating_top_k_tiling.cpp)
# ---------------------------------------------------------------------------------------------
def align32(n: int) -> int:
    return (n + SORT_GROUP - 1) // SORT_GROUP * SORT_GROUP


def grouping_active(num_experts: int, group_count: int, k_group: int) -> bool:
    """True when group-limited selection changes anything (G not in {1, E} and k_group != G)."""
    return group_count not in (1, num_experts) and k_group != group_count


def check_attrs(num_experts: int, k: int, k_group: int = 1, group_count: int = 1, group_select_mode: int = 0,
                renorm: int = 0, norm_type: int = 0) -> None:
    """Raise ValueError with the tiling's reason when the attrs are outside the op's limits."""
    e = num_experts
    if e < 1 or e > MAX_EXPERTS:
        raise ValueError(f"expert count {e} must be in [1, {MAX_EXPERTS}]")
    if group_count < 1:
        raise ValueError(f"group_count is {group_count}, must be >= 1")
    if not 1 <= k_group <= group_count:
        raise ValueError(f"k_group is {k_group}, must be in [1, group_count={group_count}]")
    if e % group_count:
        raise ValueError(f"expert count {e} is not divisible by group_count {group_count}")
    per_group = e // group_count
    if group_select_mode not in (0, 1):
        raise ValueError(f"group_select_mode is {group_select_mode}, must be 0 (max) or 1 (sum of top 2)")
    if group_select_mode == 1 and per_group < 2:
        raise ValueError(f"group_select_mode 1 needs at least 2 experts per group (E/G = {per_group})")
    if renorm != 0:
        raise ValueError(f"renorm is {renorm}; only 0 (norm first, then top-k) is supported")
    if norm_type not in (0, 1):
        raise ValueError(f"norm_type is {norm_type}, must be 0 (softmax) or 1 (sigmoid)")
    if not 1 <= k <= min(e, k_group * per_group):
        raise ValueError(f"k is {k}, must be in [1, k_group * E / G = {k_group * per_group}] and <= E")
    if grouping_active(e, group_count, k_group) and group_count * align32(per_group) > MAX_EXPERTS:
        raise ValueError(f"group_count * align32(E / G) = {group_count * align32(per_group)} exceeds "
                         f"{MAX_EXPERTS}: a padded row must fit the UB layout")


# ---------------------------------------------------------------------------------------------
# the float32 pipeline up to the selection
# ---------------------------------------------------------------------------------------------
def routing_scores(x: Any, bias: Any = None, norm_type: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(norm, sel) as the kernel computes them: float32 [T, E] arrays.

    softmax multiplies by the float32 reciprocal of the row sum, as the kernel's ``Muls`` does.
    """
    xf = np.asarray(x, dtype=np.float64).astype(F32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if norm_type == 1:
            norm = (F32(1) / (F32(1) + np.exp(-xf))).astype(F32)
        else:
            m = np.max(xf, axis=-1, keepdims=True)
            e = np.exp(xf - m).astype(F32)
            s = np.sum(e, axis=-1, keepdims=True, dtype=F32)
            norm = (e * (F32(1) / s)).astype(F32)
        sel = norm if bias is None else (norm + np.asarray(bias, dtype=np.float64).astype(F32)).astype(F32)
    return norm, sel


def descending_order(values: np.ndarray) -> np.ndarray:
    """The order Sort32/Sort/MrgSort give along the last axis: descending, stable.

    Equal values keep their input order (documented for the sort instructions); NaN sorts as the
    largest value (the simulator's NaN table, opkit/sim/README.md, marked assumed there).
    """
    values = np.asarray(values)
    nan = np.isnan(values)
    if not nan.any():
        return np.argsort(-values, axis=-1, kind="stable")
    return np.lexsort((np.where(nan, 0, -values), ~nan), axis=-1)


def group_scores(sel: np.ndarray, group_count: int, group_select_mode: int) -> np.ndarray:
    """Per-group score in float32 [T, G]: the max (mode 0) or the sum of the two largest (mode 1).

    Taken from each group sorted as the kernel sorts it, so a NaN in a group makes its score NaN.
    """
    t, e = sel.shape
    g = sel.reshape(t, group_count, e // group_count)
    top = np.take_along_axis(g, descending_order(g)[..., :2], axis=-1)
    if group_select_mode == 0:
        return top[..., 0].astype(F32)
    return (top[..., 0] + top[..., 1]).astype(F32)


def stable_topk(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest along the last axis, descending; equal values: lower index first.

    The same result as ``descending_order(values)[..., :k]``; for a small k of a wide row without
    NaN it partitions first (linear) and sorts only the k chosen.
    """
    values = np.asarray(values)
    n = values.shape[-1]
    if values.ndim != 2 or k * 8 > n or np.isnan(values).any():
        return descending_order(values)[..., :k]
    kth = -np.partition(-values, k - 1, axis=-1)[:, k - 1:k]  # the k-th largest of each row
    above = values > kth
    level = values == kth
    room = k - above.sum(axis=-1, keepdims=True)  # how many of the k-th value's copies fit
    take = above | (level & (np.cumsum(level, axis=-1) <= room))
    idx = np.nonzero(take)[1].reshape(values.shape[0], k)  # ascending index in each row
    order = np.argsort(-np.take_along_axis(values, idx, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(idx, order, axis=-1)


def select_experts(sel: np.ndarray, k: int, k_group: int = 1, group_count: int = 1,
                   group_select_mode: int = 0) -> np.ndarray:
    """expert_idx [T, k] (int64) from the float32 selection scores."""
    t, e = sel.shape
    masked = sel
    if grouping_active(e, group_count, k_group):
        gs = group_scores(sel, group_count, group_select_mode)
        keep = stable_topk(gs, k_group)
        kept = np.zeros((t, group_count), dtype=bool)
        np.put_along_axis(kept, keep, True, axis=-1)
        masked = np.where(np.repeat(kept, e // group_count, axis=-1), sel, F32(-np.inf))
    return stable_topk(masked, k)


def routing_weights(norm: np.ndarray, idx: np.ndarray, norm_type: int, routed_scaling_factor: float,
                    eps: float) -> np.ndarray:
    """y for the chosen experts, in float64 from the float32 norm."""
    y = np.take_along_axis(norm, idx, axis=-1).astype(np.float64)
    if norm_type == 1:
        y = y / (y.sum(axis=-1, keepdims=True) + float(F32(eps)))
    return y * float(F32(routed_scaling_factor))


def moe_gating_top_k(x, bias=None, *, k, k_group=1, group_count=1, group_select_mode=0, renorm=0, norm_type=0,
                     out_flag=False, routed_scaling_factor=1.0, eps=1e-20):
    """Return {"y": [T, k] float64, "expert_idx": [T, k] int32, and "out": [T, E] when out_flag}."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D [T, E], got shape {list(x.shape)}")
    if bias is not None and np.shape(bias) != (x.shape[1],):
        raise ValueError(f"bias must have shape [E] = [{x.shape[1]}], got {list(np.shape(bias))}")
    check_attrs(x.shape[1], k, k_group, group_count, group_select_mode, renorm, norm_type)
    norm, sel = routing_scores(x, bias, norm_type)
    idx = select_experts(sel, k, k_group, group_count, group_select_mode)
    result = {"y": routing_weights(norm, idx, norm_type, routed_scaling_factor, eps),
              "expert_idx": idx.astype(np.int32)}
    if out_flag:
        result["out"] = norm.astype(np.float64)
    return result


# ---------------------------------------------------------------------------------------------
# custom input generators (op.yaml: init: {x: {custom: tied_logits}})
# ---------------------------------------------------------------------------------------------
def tied_logits(shape, dtype, rng, attrs):
    """Logits on a coarse grid (multiples of 1/4 in [-2, 2]): many experts share a value exactly.

    The grid is exact in float16, bfloat16 and float32, so the ties survive the cast. With E
    experts and 17 levels every row has exact ties at the k-th boundary, inside the top k and, for
    grouped routing, between group scores: the lower-index rule decides all of them.
    """
    return rng.integers(-8, 9, size=shape).astype(np.float64) / 4.0


def tied_bias(shape, dtype, rng, attrs):
    """A bias on a coarse grid (multiples of 1/8 in [-1/4, 1/4]), so that ties survive norm + bias."""
    return rng.integers(-2, 3, size=shape).astype(np.float64) / 8.0


def equal_groups_logits(shape, dtype, rng, attrs):
    """Every group of a row holds the same values: all group scores tie, the lower groups win."""
    t, e = shape
    g = int(attrs.get("group_count", 1)) or 1
    one = rng.normal(0.0, 1.0, size=(t, e // g))
    return np.tile(one, (1, g))


# ---------------------------------------------------------------------------------------------
# counts for the performance model
# ---------------------------------------------------------------------------------------------
def _dims(shapes, attrs):
    t, e = (int(d) for d in shapes["x"])
    k = int(attrs["k"])
    g = int(attrs.get("group_count", 1))
    kg = int(attrs.get("k_group", 1))
    return t, e, k, g, kg


def flops(shapes, dtypes, attrs):
    """Vector operations per call (an estimate: a compare counts as one operation).

    Per row: the norm (sigmoid about 4 per element: negate, exp, add, reciprocal; softmax about 5:
    max, subtract, exp, sum, scale), the bias add, the selection (a sort of the padded row, about
    E' log2 32 compares for Sort32 plus the merges), and 3 per chosen expert for the weights.
    """
    t, e, k, g, kg = _dims(shapes, attrs)
    norm_ops = 4 if int(attrs.get("norm_type", 0)) == 1 else 5
    bias_ops = e if shapes.get("bias") is not None else 0
    padded = g * align32(e // g) if grouping_active(e, g, kg) else align32(e)
    sort_ops = padded * int(math.ceil(math.log2(max(padded, 2))))
    return t * (norm_ops * e + bias_ops + sort_ops + 3 * k)


def hbm_bytes(shapes, dtypes, attrs):
    """Global-memory traffic of the fused kernel: x read once, y/expert_idx (and out) written once.

    The bias is read once per core; it is counted once here (E elements), which is what it costs
    on one core and a rounding error for more.
    """
    t, e, k, _, _ = _dims(shapes, attrs)
    xs = DTYPES[dtypes["x"]].size
    ys = DTYPES[dtypes.get("y", dtypes["x"])].size
    total = t * e * xs + t * k * (ys + 4)
    if shapes.get("bias") is not None:
        total += e * DTYPES[dtypes.get("bias", dtypes["x"])].size
    if attrs.get("out_flag"):
        total += t * e * 4
    return total


def unfused_chain(shapes, dtypes, attrs):
    """The chain of primitive operators the fused kernel replaces, one launch each.

    opkit's ``unfused_chain`` hook (docs/perf.md, "Fused against unfused"): a list of steps
    {op, reads, writes, flops, dtype}, reads/writes mapping tensor names to the bytes moved
    through global memory. x, bias, y, expert_idx and out are the op's own tensors; every other
    name is an intermediate, float32 ([T, E] scores) or int32 (indices), as a framework keeps them:

      sigmoid (or softmax) -> add bias -> group scores -> group top-k -> mask -> top-k -> gather ->
      normalise (sigmoid only) -> scale

    Steps that do not apply to the case (no bias, no grouping, softmax) are left out. With out_flag
    the norm is the op's output ``out`` rather than an intermediate. Operation counts: about 4 per
    element for sigmoid and 5 for softmax (as in ``flops``), 1 per element for the bias add, the
    group score and the mask, log2 of the candidates per element for a top-k, 1-2 per chosen expert
    for the weights.
    """
    t, e, k, g, kg = _dims(shapes, attrs)
    xs = DTYPES[dtypes["x"]].size
    ys = DTYPES[dtypes.get("y", dtypes["x"])].size
    sigmoid = int(attrs.get("norm_type", 0)) == 1
    row = t * e * 4  # one float32 [T, E] tensor
    norm = "out" if attrs.get("out_flag") else "norm"

    def step(op, reads, writes, flops):
        return {"op": op, "reads": reads, "writes": writes, "flops": int(flops), "dtype": "float32"}

    chain = [step("sigmoid" if sigmoid else "softmax", {"x": t * e * xs}, {norm: row}, (4 if sigmoid else 5) * t * e)]
    sel = norm
    if shapes.get("bias") is not None:
        bias = e * DTYPES[dtypes.get("bias", dtypes["x"])].size
        chain.append(step("add_bias", {norm: row, "bias": bias}, {"sel": row}, t * e))
        sel = "sel"
    cand = sel
    if grouping_active(e, g, kg):
        chain.append(step("group_score", {sel: row}, {"group_scores": t * g * 4}, t * e))
        chain.append(step("group_topk", {"group_scores": t * g * 4}, {"group_idx": t * kg * 4},
                          t * g * math.ceil(math.log2(max(g, 2)))))
        chain.append(step("group_mask", {sel: row, "group_idx": t * kg * 4}, {"masked": row}, t * e))
        cand = "masked"
    chain.append(step("topk", {cand: row}, {"topk_values": t * k * 4, "expert_idx": t * k * 4},
                      t * e * math.ceil(math.log2(max(e, 2)))))
    chain.append(step("gather", {"expert_idx": t * k * 4, norm: t * k * 4}, {"weights": t * k * 4}, 0))
    w = "weights"
    if sigmoid:
        chain.append(step("normalise", {w: t * k * 4}, {"weights_norm": t * k * 4}, 2 * t * k))
        w = "weights_norm"
    chain.append(step("scale", {w: t * k * 4}, {"y": t * k * ys}, t * k))
    return chain


# ---------------------------------------------------------------------------------------------
# the routing comparison (op.yaml: compare: {function: compare_routing, outputs: [y, expert_idx]})
# ---------------------------------------------------------------------------------------------
SCORE_RTOL = 2.0**-16  # near-tie width relative to the row's largest |score|: 128 float32 ulps of it
MAX_LISTED = 20  # near-tie rows and failures listed in the report (all are counted)


def _near_tie_choice(values: np.ndarray, candidates: np.ndarray, count: int, chosen: set[int],
                     tol: float) -> tuple[str | None, bool]:
    """Check that ``chosen`` (members of ``candidates``) is a valid top-``count`` of ``values``.

    Returns (problem or None, used_near_tie). Valid means: every candidate clearly above the
    boundary value is chosen, every chosen one is clearly above or inside the near-tie cluster
    around the boundary, and exact ties at the boundary went to the lower index.
    """
    cand = np.asarray(candidates)
    vals = values[cand]
    order = cand[np.argsort(-vals, kind="stable")]
    boundary = values[order[count - 1]]
    above = set(cand[vals > boundary + tol].tolist())
    cluster = set(cand[np.abs(vals - boundary) <= tol].tolist())
    outside = sorted(chosen - above - cluster)
    if outside:
        i = outside[0]
        return (f"chose {i} (score {values[i]:.9g}) but the boundary is {boundary:.9g}: outside the "
                f"near-tie cluster (tol {tol:g})"), False
    missing = sorted(above - chosen)
    if missing:
        i = missing[0]
        return f"left out {i} (score {values[i]:.9g}), clearly above the boundary {boundary:.9g}", False
    golden_pick = set(order[:count].tolist())
    # Exact ties follow the lower-index rule even inside a cluster: a chosen j beaten by an
    # unchosen i < j with exactly the same score is a violation.
    picked = np.isin(cand, list(chosen))
    left_vals, left_idx = vals[~picked], cand[~picked]  # ascending indices
    if left_vals.size:
        levels, first = np.unique(left_vals, return_index=True)  # lowest left-out index per value
        pos = np.clip(np.searchsorted(levels, vals[picked]), 0, levels.size - 1)
        rival = left_idx[first[pos]]
        bad = (levels[pos] == vals[picked]) & (rival < cand[picked])
        if bad.any():
            j = int(cand[picked][bad][0])
            return f"tie rule: chose {j} over {int(rival[bad][0])} with the same score {values[j]:.9g}", False
    return None, chosen != golden_pick


def compare_routing(actual, golden, inputs, attrs, dtypes, check, tol=None, rtol=SCORE_RTOL):
    """opkit verify's comparison hook for y and expert_idx (see ``check_routing``).

    The float32 selection scores and norm are recomputed from the inputs the kernel received, as the
    golden computes them.
    """
    norm, sel = routing_scores(inputs["x"], inputs.get("bias"), int(attrs.get("norm_type", 0)))
    return check_routing(actual, golden, sel, norm, attrs, check, tol=tol, rtol=rtol)


def check_routing(actual: dict, golden: dict, scores: np.ndarray, norm: np.ndarray, attrs: dict, check, *,
                  tol: float | None = None, rtol: float = SCORE_RTOL) -> dict:
    """Compare a kernel's routing with the golden, tolerating choices inside near-tie clusters.

    actual, golden: {"y": [T, k], "expert_idx": [T, k]}; scores, norm: the float32 [T, E]
    selection scores and norm from ``routing_scores``; attrs: the case's attrs; check: opkit's
    ``check(output, actual, expected)``, which judges an array by the case's precision profile.

    Per row:
    - expert_idx entries must be distinct experts in [0, E);
    - grouping: every chosen expert lies in a group whose score is at least the k_group-th group
      score minus tol (2 tol for the top-2 sum); groups clearly above it must be kept;
    - the chosen set is a valid top-k of the masked scores: experts clearly above the k-th score
      are all chosen, the others come from the near-tie cluster around it (|s - s_k| <= tol);
    - the order is descending up to tol; exact ties (equal float32 scores) always follow the
      lower-index rule, at the boundary and inside the top k;
    - rows whose scores hold a NaN must carry the golden's indices exactly.
    A row that differs from the golden but passes is a near-tie (counted by kind). Then y is judged
    by the profile against the weights of the experts the kernel chose, in the kernel's order
    (aligned by expert index; for a row equal to the golden's these are the golden's y).

    tol is the near-tie width on the scores: absolute when given, else rtol times the row's
    largest finite |score| (so that softmax rows of many small probabilities get a width to their
    scale, and sigmoid + bias rows one of about 1.5e-5).

    Returns the hook's verdict: {"passed", "summary", "counts", "thresholds", "failures", "details"}.
    """
    a_idx = np.asarray(actual["expert_idx"]).astype(np.int64)
    g_idx = np.asarray(golden["expert_idx"]).astype(np.int64)
    scores = np.asarray(scores, dtype=F32)
    norm = np.asarray(norm, dtype=F32)
    t, e = scores.shape
    k = int(attrs["k"])
    g = int(attrs.get("group_count", 1))
    kg = int(attrs.get("k_group", 1))
    mode = int(attrs.get("group_select_mode", 0))
    thresholds = {"score_tol": tol if tol is not None else f"{rtol:.6g} * max|score| of the row",
                  "exact_ties": "lower index first"}
    if a_idx.shape != (t, k):
        return {"passed": False, "summary": f"expert_idx has shape {list(a_idx.shape)}, expected [{t}, {k}]",
                "counts": {"rows": t}, "thresholds": thresholds, "failures": [], "details": {}}
    grouped = grouping_active(e, g, kg)
    gs_all = group_scores(scores, g, mode) if grouped else None
    per = e // g
    failures: list[str] = []
    near_ties: list[dict] = []
    kinds_count = {"k-boundary": 0, "order": 0, "group-boundary": 0}
    exact_rows = 0
    expected_y = np.array(golden["y"], dtype=np.float64)  # replaced row by row with the aligned weights
    for r in range(t):
        problem, kinds = _check_row(a_idx[r], g_idx[r], scores[r], k, kg, mode, per, grouped,
                                    None if gs_all is None else gs_all[r], tol, rtol)
        if problem:
            failures.append(f"row {r}: {problem}")
            continue
        expected_y[r] = routing_weights(norm[r:r + 1], a_idx[r:r + 1], int(attrs.get("norm_type", 0)),
                                        float(attrs.get("routed_scaling_factor", 1.0)),
                                        float(attrs.get("eps", 1e-20)))[0]
        if kinds:
            for kind in kinds:
                kinds_count[kind] += 1
            near_ties.append({"row": r, "kinds": kinds, "actual": a_idx[r].tolist(), "golden": g_idx[r].tolist()})
        else:
            exact_rows += 1
    y = check("y", actual["y"], expected_y)
    summary = f"{exact_rows} exact, {len(near_ties)} near-tie" + (f", {len(failures)} failed" if failures else "")
    if not y.passed:
        summary += f"; y: {y.reason}"
    counts = {"rows": t, "exact_rows": exact_rows, "near_ties": len(near_ties), "failed_rows": len(failures),
              **{f"near_ties_{kind.replace('-', '_')}": n for kind, n in kinds_count.items()}}
    return {"passed": not failures and y.passed, "summary": summary, "counts": counts, "thresholds": thresholds,
            "failures": failures[:MAX_LISTED], "details": {"near_ties": near_ties[:MAX_LISTED]}}


def _check_row(row, golden_row, scores, k, kg, mode, per, grouped, gs, tol, rtol) -> tuple[str | None, list[str]]:
    """(problem or None, near-tie kinds) of one row's expert_idx."""
    e = scores.size
    if row.min() < 0 or row.max() >= e or len(set(row.tolist())) != k:
        return f"expert_idx {row.tolist()} has entries outside [0, {e}) or repeats", []
    if np.isnan(scores).any():
        # NaN scores: no near-tie reasoning; where NaN sorts comes from the simulator's table, so the
        # indices must be the golden's.
        if not np.array_equal(row, golden_row):
            return f"NaN in the scores: expert_idx {row.tolist()} must equal the golden's {golden_row.tolist()}", []
        return None, []
    chosen = set(row.tolist())
    kinds = []
    mags = np.abs(scores[np.isfinite(scores)])
    row_tol = tol if tol is not None else rtol * (float(mags.max()) if mags.size else 0.0)
    candidates = np.arange(e)
    if grouped:
        gtol = row_tol * (2 if mode == 1 else 1)
        used = {i // per for i in chosen}
        groups_problem, near = _group_check(gs, used, kg, gtol)
        if groups_problem:
            return "group boundary: " + groups_problem, []
        if near:
            kinds.append("group-boundary")
        allowed = _allowed_groups(gs, used, kg, gtol, scores, per)
        candidates = np.concatenate([np.arange(q * per, (q + 1) * per) for q in sorted(allowed)])
    problem, near = _near_tie_choice(scores, candidates, k, chosen, row_tol)
    if problem:
        return "k-th boundary: " + problem, []
    if near:
        kinds.append("k-boundary")
    s = scores[row]
    for j in range(k - 1):
        if s[j] < s[j + 1] - row_tol:
            return f"order: position {j}: score {s[j]:.9g} before {s[j + 1]:.9g} (not descending)", []
        if s[j] == s[j + 1] and row[j] > row[j + 1]:
            return f"order: tie rule: position {j} holds {row[j]} before {row[j + 1]} with the same score", []
    if not kinds and not np.array_equal(row, golden_row):
        kinds.append("order")
    return None, kinds


def _group_check(gs: np.ndarray, used: set[int], kg: int, gtol: float) -> tuple[str | None, bool]:
    order = np.argsort(-gs, kind="stable")
    boundary = gs[order[kg - 1]]
    above = {int(q) for q in range(gs.size) if gs[q] > boundary + gtol}
    cluster = {int(q) for q in range(gs.size) if abs(gs[q] - boundary) <= gtol}
    outside = sorted(used - above - cluster)
    if outside:
        q = outside[0]
        return (f"used group {q} (score {gs[q]:.9g}) below the k_group-th group score {boundary:.9g} "
                f"(tol {gtol:g})"), False
    need = kg - len(above)
    in_cluster = used & cluster
    if len(in_cluster) > need:
        return f"used {len(in_cluster)} groups of the near-tie cluster {sorted(cluster)} but only {need} fit", False
    golden_groups = {int(q) for q in order[:kg]}
    for q in in_cluster:
        for p in cluster:
            if p < q and p not in used and gs[p] == gs[q] and p in golden_groups and q not in golden_groups:
                return f"tie rule: used group {q} over group {p} with the same score {gs[q]:.9g}", False
    return None, not used <= golden_groups


def _allowed_groups(gs: np.ndarray, used: set[int], kg: int, gtol: float, row_scores: np.ndarray,
                    per: int) -> set[int]:
    """The kept groups consistent with the experts the kernel chose.

    Groups clearly above the boundary, the cluster groups the kernel used, and, for the remaining
    slots, the unused cluster groups whose best expert is lowest (the choice most favourable to
    the kernel: those experts compete least with the ones it chose).
    """
    order = np.argsort(-gs, kind="stable")
    boundary = gs[order[kg - 1]]
    above = {int(q) for q in range(gs.size) if gs[q] > boundary + gtol}
    cluster = [int(q) for q in range(gs.size) if abs(gs[q] - boundary) <= gtol]
    chosen = above | (used & set(cluster))
    spare = sorted((q for q in cluster if q not in chosen), key=lambda q: (row_scores[q * per:(q + 1) * per].max(), q))
    for q in spare[:max(0, kg - len(chosen))]:
        chosen.add(q)
    return chosen
