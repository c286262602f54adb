"""A half bias with float accumulation, as ops-transformer's grouped_matmul (fp16 path) gives the Matmul API: the bias
converts half -> float on its way L1 (C1) -> BiasTable (C2), the converting DataCopy of the L1ToBiasTable page (on
Atlas A2/A3 half -> float is its only pair of dtypes); the other pairs and a source outside L1 are refused."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "ot_bias_harness.cpp"
rng = np.random.default_rng(31)


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def run(exe, tmp_path, scenario, m, n, k):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.uniform(-4, 4, n).astype(np.float16)
    d = tmp_path / scenario
    d.mkdir()
    for name, arr in [("a", a), ("b", b), ("bias", bias)]:
        (d / f"{name}.bin").write_bytes(arr.tobytes())
    r = subprocess.run([str(exe), str(d), scenario, str(m), str(n), str(k)], capture_output=True, text=True, timeout=120)
    out = np.frombuffer((d / "out.bin").read_bytes(), np.float32).reshape(m, n) if r.returncode == 0 else None
    return a, b, bias, out, r


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (50, 40, 72)])  # whole tiles; tails in every dimension
def test_matmul_adds_a_half_bias_in_float(exe, tmp_path, m, n, k):
    a, b, bias, out, r = run(exe, tmp_path, "matmul", m, n, k)
    assert r.returncode == 0, r.stderr
    want = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    assert np.abs(out - (want - bias.astype(np.float64))).max() > 1  # the bias (in [-4, 4]) really was added


@pytest.mark.parametrize("scenario,why", [
    ("bf16", "from bfloat16 to float32: a DataCopy between LocalTensors of two dtypes is L1 (C1) -> BiasTable (C2) "
             "from half to float"),
    ("ub_to_bt", "the source is in UB and the destination in BiasTable"),
])
def test_converting_copy_refuses_other_pairs(exe, tmp_path, scenario, why):
    *_, r = run(exe, tmp_path, scenario, 16, 16, 16)
    assert r.returncode != 0
    assert why in r.stderr, r.stderr
    assert f"ot_bias_harness.cpp:{marked_line(SRC, scenario)}" in r.stderr
    assert "Traceback" not in r.stderr
