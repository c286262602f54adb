"""Golden reference of GroupedGemm: a list of independent problems y_i = x_i @ w_i (+ bias_i).

opkit calls ``grouped_gemm`` with the list inputs as lists of float64 arrays (exactly the values the
kernel receives); it returns {"y": [y_0, y_1, ...]} in float64, y_i [M_i, N_i]. w_i is weight[i],
or weight[i].T with transpose_weight. The cube multiplies fp16/bf16 exactly and accumulates in float32; the precision
profile allows for the one rounding to y's dtype.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def grouped_gemm(x, weight, bias=None, transpose_weight=False):
    """y_i = x_i @ w_i (+ bias_i) for every problem i of the lists."""
    out = []
    with np.errstate(invalid="ignore", over="ignore"):
        for i, (xi, wi) in enumerate(zip(x, weight, strict=True)):
            w = np.asarray(wi, dtype=np.float64)
            yi = np.asarray(xi, dtype=np.float64) @ (w.T if transpose_weight else w)
            if bias:
                yi = yi + np.asarray(bias[i], dtype=np.float64)
            out.append(yi)
    return {"y": out}


def _problems(shapes, attrs):
    """(M_i, K_i, N_i) of every problem."""
    t = bool(attrs.get("transpose_weight"))
    return [(x[0], x[1], w[0] if t else w[1]) for x, w in zip(shapes["x"], shapes["weight"], strict=True)]


def flops(shapes, dtypes, attrs):
    """Two per multiply-accumulate of every problem, plus the bias adds."""
    bias = bool(shapes.get("bias"))
    return sum(2 * m * k * n + (m * n if bias else 0) for m, k, n in _problems(shapes, attrs))


def hbm_bytes(shapes, dtypes, attrs):
    """Every x_i, w_i (and bias_i) read once, every y_i written once."""
    size = {t: DTYPES[d].size for t, d in dtypes.items()}
    bias = bool(shapes.get("bias"))
    return sum(m * k * size["x"] + k * n * size["weight"] + m * n * size["y"] + (n * size["bias"] if bias else 0)
               for m, k, n in _problems(shapes, attrs))


def unfused_chain(shapes, dtypes, attrs):
    """One matmul launch per problem, as a loop over the list without a grouped kernel."""
    size = {t: DTYPES[d].size for t, d in dtypes.items()}
    bias = bool(shapes.get("bias"))
    steps = []
    for i, (m, k, n) in enumerate(_problems(shapes, attrs)):
        reads = {f"x{i}": m * k * size["x"], f"weight{i}": k * n * size["weight"]}
        if bias:
            reads[f"bias{i}"] = n * size["bias"]
        steps.append({"op": "matmul", "reads": reads, "writes": {f"y{i}": m * n * size["y"]},
                      "flops": 2 * m * k * n + (m * n if bias else 0), "dtype": dtypes["x"], "unit": "cube"})
    return steps
