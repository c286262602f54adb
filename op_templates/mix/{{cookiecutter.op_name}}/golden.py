{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
"""Golden reference of {{ T }}: y = softmax(x @ w) along the last axis (N), row by row.

opkit calls the golden with every input as a float64 array that holds exactly the values the kernel
receives (already rounded to the input dtype) and compares what it returns with the kernel's output
under the precision profile of op.yaml. The kernel multiplies exactly on the cube, accumulates in
float32, runs the softmax in float32 and rounds once to y's dtype; this reference computes all of it
in float64.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def {{ s.golden_func }}(x, w):
    """y[m, n] = exp(z[m, n] - max_j z[m, j]) / sum_j exp(z[m, j] - max_j z[m, j]), z = x @ w.

    The row max is subtracted first, as the kernel's SoftMax does, so large logits do not overflow.
    """
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        z = x @ w
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        y = e / e.sum(axis=-1, keepdims=True)
    return {"y": y}


def flops(shapes, dtypes, attrs):
    """Two per multiply-accumulate, plus the softmax's max, subtract, exp, sum and divide per element."""
    m, k = shapes["x"]
    n = shapes["w"][1]
    return 2 * m * n * k + 5 * m * n


def hbm_bytes(shapes, dtypes, attrs):
    """x and w read once, y written once (the ideal of a kernel that keeps the logits on chip)."""
    m, k = shapes["x"]
    n = shapes["w"][1]
    return m * k * DTYPES[dtypes["x"]].size + k * n * DTYPES[dtypes["w"]].size + m * n * DTYPES[dtypes["y"]].size
