"""High-level Matmul (kernel side): C = A x B (+ bias), fp32 accumulation, one rounding to C."""

from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest
from sim_util import CPP, build, compile_snippet

rng = np.random.default_rng(5)
COMBOS = {"f16f32": (np.float16, np.float32, np.float32), "bf16bf16": (ml_dtypes.bfloat16, ml_dtypes.bfloat16, np.float32),
          "f32f32": (np.float32, np.float32, np.float32), "s8s32": (np.int8, np.int32, np.int32),
          "s8f16": (np.int8, np.float16, np.int32)}


@pytest.fixture(scope="module")
def exe():
    return build(CPP / "matmul_harness.cpp")


def run_mm(exe, tmp_path, combo, m, n, k, ta=0, tb=0, bias=0, mode="all", c0=None):
    at, ct, bt = COMBOS[combo]
    if at == np.int8:
        lim = 128 if ct == np.int32 else 8  # int8 -> half: sums stay inside the half range
        a = rng.integers(-lim, lim, (m, k)).astype(np.int8)
        b = rng.integers(-lim, lim, (k, n)).astype(np.int8)
        bv = rng.integers(-1000, 1000, n).astype(np.int32)
    else:
        a = rng.uniform(-1, 1, (m, k)).astype(at)
        b = rng.uniform(-1, 1, (k, n)).astype(at)
        bv = rng.uniform(-1, 1, n).astype(bt)
    sa = a.T.copy() if ta else a
    sb = b.T.copy() if tb else b
    c = np.zeros((m, n), ct) if c0 is None else c0.astype(ct)
    d = tmp_path / f"{combo}{m}{n}{k}{ta}{tb}{bias}{mode}"
    d.mkdir()
    for name, arr in [("a", sa), ("b", sb), ("bias", bv), ("c", c)]:
        (d / f"{name}.bin").write_bytes(np.ascontiguousarray(arr).tobytes())
    r = subprocess.run([str(exe), str(d), combo, str(m), str(n), str(k), str(ta), str(tb), str(bias), mode], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = np.frombuffer((d / "out.bin").read_bytes(), ct).reshape(m, n)
    return a, b, bv, c, out


def reference(a, b, bv, bias, ct):
    if a.dtype == np.int8:
        acc = a.astype(np.int64) @ b.astype(np.int64)
        if bias:
            acc += bv
        return acc.astype(ct)
    acc = a.astype(np.float64) @ b.astype(np.float64)
    if bias:
        acc += bv.astype(np.float64)
    return acc


@pytest.mark.parametrize("combo", list(COMBOS))
@pytest.mark.parametrize("ta,tb,bias", [(0, 0, 0), (1, 0, 1), (0, 1, 1), (1, 1, 0)])
def test_iterate_all(exe, tmp_path, combo, ta, tb, bias):
    m, n, k = 37, 45, 70
    a, b, bv, _, out = run_mm(exe, tmp_path, combo, m, n, k, ta, tb, bias)
    want = reference(a, b, bv, bias, COMBOS[combo][1])
    if combo in ("s8s32", "s8f16"):  # integer sums, rounded once to half (RINT) by the Fixpipe's DEQF16
        assert np.array_equal(out, want)
    else:
        # fp32 accumulation, then one rounding to the output dtype
        tol = 1e-5 if combo != "bf16bf16" else 8e-3
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol)


def test_tiles_and_sequential_write(exe, tmp_path):
    m, n, k = 40, 70, 33
    a, b, bv, _, out = run_mm(exe, tmp_path, "f32f32", m, n, k, mode="tiles")
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)
    a, b, bv, _, out = run_mm(exe, tmp_path, "f32f32", 32, 64, 16, mode="seq")
    full = a.astype(np.float64) @ b.astype(np.float64)
    # 16 x 32 tiles, M first, written one after another
    tiles = [full[i * 16:(i + 1) * 16, j * 32:(j + 1) * 32] for j in range(2) for i in range(2)]
    np.testing.assert_allclose(out.reshape(-1), np.concatenate([t.ravel() for t in tiles]), rtol=1e-5, atol=1e-5)


def test_atomic_accumulates_into_c(exe, tmp_path):
    c0 = rng.uniform(-1, 1, (16, 32)).astype(np.float32)
    a, b, bv, c, out = run_mm(exe, tmp_path, "f16f32", 16, 32, 16, mode="atomic", c0=c0)
    np.testing.assert_allclose(out, c0 + a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_mix_launch_aic_returns_in_regist(exe, tmp_path):
    a, b, bv, _, out = run_mm(exe, tmp_path, "f16f32", 24, 16, 8, mode="mix")
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_cube_only_launch_computes_on_the_aic(exe, tmp_path):
    a, b, bv, _, out = run_mm(exe, tmp_path, "f32f32", 20, 24, 12, mode="aic")
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_illegal_dtype_combination_refused(tmp_path):
    src = """
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using A = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
using C = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int32_t>;
AscendC::Matmul<A, A, C> mm;
"""
    r = compile_snippet(src, tmp_path)
    assert r.returncode != 0 and "Matmul" in r.stderr and "not supported" in r.stderr
