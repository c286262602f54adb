"""half and bfloat16_t: conversions round to nearest even, with and without F16C."""

from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest
from sim_util import CPP, build

import opkit.sim as sim

rng = np.random.default_rng(7)


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    f = bits.view(np.float32)
    # values near fp16 rounding boundaries and the subnormal / overflow edges
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    h = h[np.isfinite(h)]
    mids = (h[:-1].astype(np.float64) + np.diff(h.astype(np.float64)) / 2).astype(np.float32)
    edges = np.array([65504, 65519.99, 65520, 65536, 1e-8, 2.98e-8, 5.96e-8, 6e-8, -0.0, np.inf, -np.inf, np.nan], np.float32)
    f = np.concatenate([f, h, mids, edges])
    d = np.concatenate([rng.standard_normal(50_000) * 1e3, mids.astype(np.float64) + 1e-12, [65519.999999, 65520.0]])
    return f, d


@pytest.mark.parametrize("f16c", [True, False])
def test_conversions_match_numpy(tmp_path, f16c):
    if f16c and not sim.has_f16c():
        pytest.skip("CPU or compiler without F16C")
    exe = build(CPP / "fp16_harness.cpp", f16c=f16c)
    f, d = _inputs()
    (tmp_path / "f32.bin").write_bytes(f.tobytes())
    (tmp_path / "f64.bin").write_bytes(d.tobytes())
    subprocess.run([str(exe), str(tmp_path)], check=True)
    h = np.frombuffer((tmp_path / "h.bin").read_bytes(), np.uint16)
    b = np.frombuffer((tmp_path / "b.bin").read_bytes(), np.uint16)
    hd = np.frombuffer((tmp_path / "hd.bin").read_bytes(), np.uint16)
    nan = np.isnan(f)
    with np.errstate(all="ignore"):
        want_h = f.astype(np.float16).view(np.uint16)
        want_hd = d.astype(np.float16).view(np.uint16)  # NumPy rounds double -> half directly
        want_b = f.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(h[~nan], want_h[~nan])
    assert np.all(np.isnan(h[nan].view(np.float16)))
    assert np.array_equal(b[~nan], want_b[~nan])
    assert np.all(np.isnan(b[nan].view(ml_dtypes.bfloat16)))
    assert np.array_equal(hd, want_hd)
    back = np.frombuffer((tmp_path / "back.bin").read_bytes(), np.float32)
    all_h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    assert np.array_equal(back, all_h, equal_nan=True)
    bback = np.frombuffer((tmp_path / "bback.bin").read_bytes(), np.float32)
    all_b = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(bback, all_b, equal_nan=True)
    # x + y and x * y of two halves: one rounding, equal to NumPy's float16 arithmetic
    with np.errstate(all="ignore"):
        x = f[0:-1:2].astype(np.float16)
        y = f[1::2].astype(np.float16)[: len(x)]
    with np.errstate(all="ignore"):
        s = (x + y).view(np.uint16)
        p = (x * y).view(np.uint16)
    got_s = np.frombuffer((tmp_path / "sum.bin").read_bytes(), np.uint16)[: len(x)]
    got_p = np.frombuffer((tmp_path / "prod.bin").read_bytes(), np.uint16)[: len(x)]
    with np.errstate(all="ignore"):
        ok = ~np.isnan(x + y)
        okp = ~np.isnan(x * y)
    assert np.array_equal(got_s[ok], s[ok])
    assert np.array_equal(got_p[okp], p[okp])


def test_flags_fall_back_cleanly():
    flags = sim.cxx_flags(f16c=False)
    assert "-mf16c" not in flags and "-std=c++17" in flags
    assert any(f.startswith("-I") and f.endswith("include") for f in flags)
    assert ("-mf16c" in sim.cxx_flags()) == sim.has_f16c()


@pytest.mark.parametrize("cxx", ["g++-11", "clang++"])
def test_headers_compile_with_other_compilers(tmp_path, cxx):
    import shutil

    if not shutil.which(cxx):
        pytest.skip(f"{cxx} not installed")
    for src in ["checks_harness.cpp", "matmul_harness.cpp"]:
        r = subprocess.run([cxx, *sim.cxx_flags(opt="-O0"), "-fsyntax-only", str(CPP / src)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
