"""Element-wise instructions whose destination is one of their sources, over several 256-element
chunks and ragged tails: results equal the element-by-element definition (float32 and an in-place
narrowing float -> half Cast)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from sim_util import CPP, build


@pytest.fixture(scope="module")
def exe():
    return build(CPP / "inplace_harness.cpp", opt="-O2")  # -O2: the vectorised loops of a real build


@pytest.mark.parametrize("n", [4096, 1000, 256, 255, 7])
def test_in_place_instructions_match_numpy(exe, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(4096) * 1000).astype(np.float32)
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    r = subprocess.run([str(exe), str(n)], input=x.tobytes(), capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    out = np.frombuffer(r.stdout, np.uint8)
    y = out[:4096 * 4].view(np.float32)
    h = out[4096 * 4:].view(np.float16)
    with np.errstate(invalid="ignore", over="ignore"):
        z = (x + np.float32(3) * x).astype(np.float32)
        want = np.where(np.isnan(z), z, np.maximum(z, np.float32(0)))  # Relu(NaN) = NaN
        half = x.astype(np.float16)
    assert np.array_equal(y[:n], want[:n], equal_nan=True)
    assert np.array_equal(y[n:], x[n:])  # beyond the count nothing changes
    assert np.array_equal(h[:n].view(np.uint16), half[:n].view(np.uint16))
