{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
"""Golden reference of {{ T }}: RMSNorm over the last axis, with rstd.

opkit calls the golden with every input as a float64 array that holds exactly the values the kernel
receives (already rounded to the input dtype) and every attr by name, and compares what it returns
with the kernel's outputs under the precision profile of op.yaml. The kernel computes in float32
and rounds y once to its dtype; the golden computes in float64.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES


def {{ s.golden_func }}(x, gamma, epsilon=1e-06):
    """rstd = 1 / sqrt(mean(x^2, last axis) + epsilon); y = x * rstd * gamma.

    rstd has the shape of x with the last dim 1. A NaN in a row makes the whole row of y and its
    rstd NaN. An infinity makes mean(x^2) infinite and rstd 0, so y is NaN where x is infinite
    (inf * 0) and 0 elsewhere in that row. The kernel squares in float32: rows with |x| above about
    1.8e19 overflow there, where this float64 reference does not.
    """
    x = np.asarray(x, dtype=np.float64)
    gamma = np.asarray(gamma, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        mean_square = np.mean(np.square(x), axis=-1, keepdims=True)
        rstd = 1.0 / np.sqrt(mean_square + float(epsilon))
        y = x * rstd * gamma
    return {"y": y, "rstd": rstd}


def flops(shapes, dtypes, attrs):
    """Arithmetic per call: square, add, scale by rstd and by gamma per element; 3 more per row."""
    n = int(np.prod(shapes["x"], dtype=np.int64))
    rows = n // shapes["x"][-1] if shapes["x"][-1] else 0
    return 4 * n + 3 * rows


def hbm_bytes(shapes, dtypes, attrs):
    """Global-memory traffic of the fused kernel: x read and y written once, gamma read, rstd written."""
    n = int(np.prod(shapes["x"], dtype=np.int64))
    d = shapes["x"][-1]
    rows = n // d if d else 0
    return (n * (DTYPES[dtypes["x"]].size + DTYPES[dtypes["y"]].size) + d * DTYPES[dtypes["gamma"]].size
            + rows * DTYPES[dtypes["rstd"]].size)
