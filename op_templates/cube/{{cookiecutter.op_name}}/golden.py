{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
"""Golden reference of {{ T }}: y = relu(x @ w + bias), or x @ w + bias with relu=False.

opkit calls the golden with every input as a float64 array that holds exactly the values the kernel
receives (already rounded to the input dtype) and every attr by name, and compares what it returns
with the kernel's output under the precision profile of op.yaml. The cube multiplies exactly and
accumulates in float32, adds the float32 bias, applies the ReLU and rounds once to y's dtype; this
reference computes all of it in float64.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def {{ s.golden_func }}(x, w, bias, relu=True):
    """y[m, n] = act(sum_k x[m, k] * w[k, n] + bias[n]); act is max(., 0) when relu, else identity.

    NaN propagates; the ReLU keeps NaN (as the Fixpipe's ReLU is assumed to) and maps -inf to 0.
    """
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    bias = np.asarray(bias, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        y = x @ w + bias
        if relu:
            y = np.where(y < 0, 0.0, y)
    return {"y": y}


def flops(shapes, dtypes, attrs):
    """Two per multiply-accumulate, plus the bias add and the ReLU per output element."""
    m, k = shapes["x"]
    n = shapes["w"][1]
    return 2 * m * n * k + 2 * m * n


def hbm_bytes(shapes, dtypes, attrs):
    """x, w and bias read once, y written once (the ideal of a kernel that re-reads nothing)."""
    m, k = shapes["x"]
    n = shapes["w"][1]
    return (m * k * DTYPES[dtypes["x"]].size + k * n * DTYPES[dtypes["w"]].size + n * DTYPES[dtypes["bias"]].size
            + m * n * DTYPES[dtypes["y"]].size)
