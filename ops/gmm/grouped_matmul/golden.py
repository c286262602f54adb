"""Golden reference of GroupedMatmul (GMM), the MoE expert matmul, and its group_list generators.

opkit calls ``grouped_matmul`` with every input as a float64 array holding exactly the values the
kernel receives (group_list as int64), absent optional inputs as None, and every attr by name. For
each expert g, the rows start_g .. end_g of x (from group_list) are multiplied by weight[g]:

    y[start_g : end_g] = x[start_g : end_g] @ w_g (+ bias[g]),   w_g = weight[g] or weight[g].T (transpose_weight)

in float64; the cube multiplies fp16/bf16 exactly, accumulates in float32 and rounds once on the way
out, which the precision profile allows for. Rows of y past the last group's end are not written by
the kernel (ops-transformer's contract); ``untouched_rows`` returns their mask. The golden fills them
with zeros, the value of a fresh output buffer.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def group_bounds(group_list, group_list_type, m):
    """(start, end) row pairs, one per expert, from a cumulative (type 0) or count (type 1) group_list.

    Raises ValueError for a group_list outside the contract: negative counts, cumulative ends that
    decrease, or groups that end past x's M rows.
    """
    gl = np.asarray(group_list, dtype=np.int64).reshape(-1)
    if group_list_type == 1:
        if (gl < 0).any():
            raise ValueError(f"group_list (counts) holds a negative count: {gl.tolist()}")
        ends = np.cumsum(gl)
    elif group_list_type == 0:
        ends = gl
        if (np.diff(np.concatenate([[0], ends])) < 0).any():
            raise ValueError(f"group_list (cumulative ends) decreases: {gl.tolist()}")
    else:
        raise ValueError(f"group_list_type {group_list_type} is not 0 (cumulative) or 1 (counts)")
    if ends.size and ends[-1] > m:
        raise ValueError(f"group_list ends at row {int(ends[-1])}, past x's {m} rows")
    if ends.size == 0:
        return []
    starts = np.concatenate([[0], ends[:-1]])
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def grouped_matmul(x, weight, bias=None, scale=None, offset=None, antiquant_scale=None, antiquant_offset=None,
                   group_list=None, per_token_scale=None, split_item=0, dtype=0, transpose_weight=False,
                   transpose_x=False, group_type=-1, group_list_type=0, act_type=0, tuning_config=None):
    """y [M, N]: each expert's rows of x times its weight (plus its bias row); rows past the last group 0."""
    x = np.asarray(x, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    w = np.swapaxes(weight, 1, 2) if transpose_weight else weight  # [E, K, N]
    m, n = x.shape[0], w.shape[2]
    y = np.zeros((m, n), dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        for g, (s, e) in enumerate(group_bounds(group_list, group_list_type, m)):
            if e > s:
                y[s:e] = x[s:e] @ w[g]
                if bias is not None:
                    y[s:e] += np.asarray(bias, dtype=np.float64)[g]
    return {"y": y}


def untouched_rows(x, weight, group_list=None, group_list_type=0, transpose_weight=False, **_):
    """Mask of y's elements the kernel leaves as they were: every row past the last group's end.

    Takes the golden's keyword arguments (inputs and attrs) and returns a boolean array of y's shape
    [M, N]; True marks an element that must keep the value the output buffer held before the call.
    """
    x = np.asarray(x)
    n = np.asarray(weight).shape[1 if transpose_weight else 2]
    bounds = group_bounds(group_list, group_list_type, x.shape[0])
    end = bounds[-1][1] if bounds else 0
    mask = np.zeros((x.shape[0], n), dtype=bool)
    mask[end:] = True
    return mask


# --- group_list generators (init: {group_list: {custom: NAME}}) --------------------------------------
# A generator sees only group_list's own shape [E] and the attrs, so each split below names the M it
# is for; the case's x must have that many rows. Every split ends exactly at M.

def _as_group_list(counts, attrs):
    counts = np.asarray(counts, dtype=np.int64)
    return np.cumsum(counts) if int(attrs.get("group_list_type", 0)) == 0 else counts


def _balanced(m, e):
    return np.full(e, m // e, dtype=np.int64) + (np.arange(e) < m % e)


def _random_split(m, e, rng, empty_fraction=0.0):
    """m rows over e experts at random (multinomial), about empty_fraction of the experts getting none."""
    live = rng.random(e) >= empty_fraction
    if not live.any():
        live[0] = True
    p = np.where(live, rng.random(e) + 0.1, 0.0)
    return rng.multinomial(m, p / p.sum())


def split_small(shape, dtype, rng, attrs):
    """M = 200 over 4 experts: 37, 0 (empty), 100, 63 - none a multiple of 16."""
    return _as_group_list([37, 0, 100, 63], attrs)


def split_short(shape, dtype, rng, attrs):
    """M = 200 over 4 experts: 37, 0, 100, 30 - the groups end at row 167, the last 33 rows belong to none."""
    return _as_group_list([37, 0, 100, 30], attrs)


def split_tails(shape, dtype, rng, attrs):
    """M = 130 over 3 experts: 1, 128, 1 - single-row groups around one full row block."""
    return _as_group_list([1, 128, 1], attrs)


def split_skewed_512(shape, dtype, rng, attrs):
    """M = 512 over 8 experts: expert 3 takes half the rows, the others share the rest at random."""
    counts = np.zeros(8, dtype=np.int64)
    counts[3] = 256
    others = [g for g in range(8) if g != 3]
    counts[others] = rng.multinomial(256, np.full(7, 1 / 7))
    return _as_group_list(counts, attrs)


def split_one_expert(shape, dtype, rng, attrs):
    """M = 160 over 4 experts, all of it in expert 2 (the others empty)."""
    return _as_group_list([0, 0, 160, 0], attrs)


def split_wide_600(shape, dtype, rng, attrs):
    """M = 600 over 2 experts: 300, 300 (row blocks of 128, 128 and 44 rows each)."""
    return _as_group_list([300, 300], attrs)


def split_empty(shape, dtype, rng, attrs):
    """M = 0: every expert empty (E from the shape)."""
    return _as_group_list(np.zeros(shape[0], dtype=np.int64), attrs)


def split_e256_300(shape, dtype, rng, attrs):
    """M = 300 over 256 experts at random, about a third of them empty (most groups are a few rows)."""
    return _as_group_list(_random_split(300, 256, rng, empty_fraction=0.35), attrs)


def split_balanced_4096(shape, dtype, rng, attrs):
    """M = 4096 evenly over E experts (E from the shape)."""
    return _as_group_list(_balanced(4096, shape[0]), attrs)


def split_skewed_4096(shape, dtype, rng, attrs):
    """M = 4096 over E experts: expert 0 takes half, the others share the rest evenly."""
    e = shape[0]
    counts = np.zeros(e, dtype=np.int64)
    counts[0] = 2048
    counts[1:] = _balanced(2048, e - 1)
    return _as_group_list(counts, attrs)


# --- cost hooks --------------------------------------------------------------------------------------

def _dims(shapes, attrs):
    m, k = shapes["x"]
    e = shapes["weight"][0]
    n = shapes["weight"][1] if attrs.get("transpose_weight") else shapes["weight"][2]
    return m, k, n, e


def flops(shapes, dtypes, attrs):
    """Two per multiply-accumulate over all M rows (the groups cover x), plus the bias add."""
    m, k, n, _ = _dims(shapes, attrs)
    return 2 * m * n * k + (m * n if "bias" in shapes else 0)


def hbm_bytes(shapes, dtypes, attrs):
    """x, every expert's weight, the bias and group_list read once, y written once."""
    m, k, n, e = _dims(shapes, attrs)
    size = {t: DTYPES[d].size for t, d in dtypes.items()}
    total = m * k * size["x"] + e * k * n * size["weight"] + m * n * size["y"] + e * 8
    if "bias" in shapes:
        total += e * n * size["bias"]
    return total


def unfused_chain(shapes, dtypes, attrs):
    """A loop of E per-expert matmul launches, y_g = x_g @ w_g (+ bias_g), as a framework without GMM runs it.

    The cost hooks do not see group_list's values, so every expert is given M / E rows (the balanced
    split); each launch reads its rows of x, its weight and bias row and writes its rows of y.
    """
    m, k, n, e = _dims(shapes, attrs)
    size = {t: DTYPES[d].size for t, d in dtypes.items()}
    steps = []
    for g in range(e):
        rows = m // e + (1 if g < m % e else 0)
        reads = {"x": rows * k * size["x"], "weight": k * n * size["weight"]}
        if "bias" in shapes:
            reads["bias"] = n * size["bias"]
        steps.append({"op": "matmul", "reads": reads, "writes": {"y": rows * n * size["y"]},
                      "flops": 2 * rows * n * k + (rows * n if "bias" in shapes else 0), "dtype": dtypes["x"], "unit": "cube"})
    return steps
