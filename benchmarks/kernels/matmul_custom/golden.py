"""Golden of MatmulCustom (c = a @ b, float16 in, float32 out) and its cost hooks, for the calibration."""

from __future__ import annotations

import numpy as np


def matmul_custom(a, b, base_m=128, base_n=256, base_k=64, step_k=1):
    """c[m, n] = sum_k a[m, k] * b[k, n], exactly (the cube multiplies exactly and accumulates in float32)."""
    return {"c": np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)}


def flops(shapes, dtypes, attrs):
    m, k = shapes["a"]
    return 2 * m * k * shapes["b"][1]


def hbm_bytes(shapes, dtypes, attrs):
    """a and b read once (2 bytes per element), c written once (4 bytes): a kernel that re-read nothing."""
    m, k = shapes["a"]
    n = shapes["b"][1]
    return 2 * m * k + 2 * k * n + 4 * m * n
