"""Cast: every legal dtype pair and round mode of NPU arch 2201, illegal pairs and modes refused."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from sim_util import compile_snippet

rng = np.random.default_rng(99)
NP = {"f16": np.float16, "f32": np.float32, "bf16": ml_dtypes.bfloat16, "s32": np.int32, "s16": np.int16,
      "s8": np.int8, "u8": np.uint8, "s64": np.int64}
FMT = {"f16": (11, -14, 65504.0), "bf16": (8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
       "f32": (24, -126, float(np.finfo(np.float32).max))}
MODES = ["none", "rint", "floor", "ceil", "round", "trunc", "odd"]

# (src, dst) -> legal modes, from the Cast page of the Ascend C API reference (A2/A3)
LEGAL = {
    ("f16", "f32"): ["none"], ("bf16", "f32"): ["none"], ("s16", "f32"): ["none"], ("s8", "f16"): ["none"],
    ("u8", "f16"): ["none"], ("s32", "s64"): ["none"], ("s64", "s32"): ["none"], ("s32", "s16"): ["none"],
    ("f32", "f16"): ["none", "rint", "floor", "ceil", "round", "trunc", "odd"],
    ("f32", "bf16"): ["rint", "floor", "ceil", "round", "trunc"],
    ("f32", "s32"): ["rint", "floor", "ceil", "round", "trunc"], ("f32", "s16"): ["rint", "floor", "ceil", "round", "trunc"],
    ("f32", "s64"): ["rint", "floor", "ceil", "round", "trunc"], ("f32", "f32"): ["rint", "floor", "ceil", "round", "trunc"],
    ("f16", "s32"): ["rint", "floor", "ceil", "round", "trunc"], ("f16", "s16"): ["rint", "floor", "ceil", "round", "trunc"],
    ("f16", "s8"): ["none", "rint", "floor", "ceil", "round", "trunc"], ("f16", "u8"): ["none", "rint", "floor", "ceil", "round", "trunc"],
    ("s16", "f16"): ["none", "rint", "floor", "ceil", "round", "trunc"], ("s32", "f32"): ["none", "rint", "floor", "ceil", "round", "trunc"],
    ("s64", "f32"): ["rint", "floor", "ceil", "round", "trunc"], ("bf16", "s32"): ["rint", "floor", "ceil", "round", "trunc"],
}


def round_int(y: np.ndarray, mode: str) -> np.ndarray:
    if mode in ("none", "rint"):
        return np.rint(y)
    if mode == "floor":
        return np.floor(y)
    if mode == "ceil":
        return np.ceil(y)
    if mode == "round":
        return np.sign(y) * np.floor(np.abs(y) + 0.5)
    if mode == "trunc":
        return np.trunc(y)
    t = np.trunc(y)  # odd: truncate, then force the last bit to 1 when inexact
    inexact = t != y
    even = np.fmod(t, 2) == 0
    return np.where(inexact & even, t + np.sign(y), t)


def model_float(x: np.ndarray, dst: str, mode: str) -> np.ndarray:
    p, emin, maxv = FMT[dst]
    x = x.astype(np.longdouble)  # 64-bit significand: exact for every int64 and float32 input
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    xf = x[fin]
    _, e = np.frexp(xf)
    q = np.ldexp(np.longdouble(1), np.maximum(e - 1, emin) - (p - 1))
    r = round_int(xf / q, mode) * q
    over = np.abs(r) > maxv
    pos = xf > 0
    inf = np.inf
    if mode in ("trunc", "odd"):
        ov = np.where(pos, maxv, -maxv)
    elif mode == "floor":
        ov = np.where(pos, maxv, -inf)
    elif mode == "ceil":
        ov = np.where(pos, inf, -maxv)
    else:
        ov = np.where(pos, inf, -inf)
    r = np.where(over, ov, r)
    out[fin] = r
    return out.astype(NP[dst])


def model_int(x: np.ndarray, dst: str, mode: str) -> np.ndarray:
    info = np.iinfo(NP[dst])
    x = x.astype(np.float64) if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16 else x.astype(np.float64)
    r = round_int(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=-np.inf), mode)
    out = np.where(r >= 2.0**63, 0, np.where(r < -(2.0**63), 0, r)).astype(np.int64)
    out = np.where(r >= float(info.max), info.max, np.where(r <= float(info.min), info.min, out))
    return out.astype(NP[dst])


def sample(src: str, n: int = 512) -> np.ndarray:
    t = NP[src]
    if src in ("s8", "u8", "s16", "s32", "s64"):
        info = np.iinfo(t)
        lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
        v = rng.integers(lo, hi, n, dtype=np.int64)
        v[:4] = [lo, hi, 0, 1]
        if src == "s64":
            v[4:8] = [2**53 + 1, -(2**60) - 3, 2**62 + 2**38 + 1, 16777217]
        return v.astype(t)
    v = np.concatenate([rng.standard_normal(n // 2) * 50, rng.uniform(-3, 3, n // 4),
                        np.exp2(rng.uniform(-30, 20, n - n // 2 - n // 4 - 12)),
                        [0.5, 1.5, 2.5, -2.5, 65504, 65519, 65520, 70000, -70000, 1e-9, -0.0, 3e38]])
    if src == "f16":
        v = np.clip(v, -60000, 60000)
    with np.errstate(over="ignore"):
        return v.astype(np.float32).astype(t)


def to_raw(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16) if a.dtype == ml_dtypes.bfloat16 else a


@pytest.mark.parametrize("pair", list(LEGAL), ids=lambda p: f"{p[0]}->{p[1]}")
def test_cast_pair_all_modes(vec, pair):
    src, dst = pair
    x = sample(src)
    n = len(x)
    for mode in LEGAL[pair]:
        dz = np.zeros(n, NP[dst])
        out, _, _ = vec("Cast", to_raw(dz), to_raw(x), src=src, dst=dst, rm=mode, n=n)
        out = out.view(NP[dst]) if dst == "bf16" else out
        if dst in FMT:
            want = model_float(x.astype(np.float32) if src == "bf16" else x, dst, mode)
        else:
            want = model_int(x.astype(np.float32) if src == "bf16" else x, dst, mode)
        got, exp = to_raw(out), to_raw(want)
        bad = np.nonzero(got != exp)[0]
        assert bad.size == 0, f"{src}->{dst} {mode}: first mismatch x={x[bad[0]]!r} got={out[bad[0]]!r} want={want[bad[0]]!r}"


def test_rint_agrees_with_numpy_and_ml_dtypes(vec):
    x = sample("f32", 2048)
    out, _, _ = vec("Cast", np.zeros(2048, np.float16), x, src="f32", dst="f16", rm="rint", n=2048)
    with np.errstate(over="ignore"):
        assert np.array_equal(out, x.astype(np.float16))
    out, _, _ = vec("Cast", np.zeros(2048, np.uint16), x, src="f32", dst="bf16", rm="rint", n=2048)
    assert np.array_equal(out, x.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_floor_ceil_bracket_the_value(vec):
    x = sample("f32", 1024)
    x = x[np.abs(x) < 60000]
    n = len(x)
    lo, _, _ = vec("Cast", np.zeros(n, np.float16), x, src="f32", dst="f16", rm="floor", n=n)
    hi, _, _ = vec("Cast", np.zeros(n, np.float16), x, src="f32", dst="f16", rm="ceil", n=n)
    xd = x.astype(np.float64)
    assert np.all(lo.astype(np.float64) <= xd) and np.all(hi.astype(np.float64) >= xd)
    exact = lo.astype(np.float64) == xd
    assert np.all(np.nextafter(lo, np.float16(np.inf))[~exact].astype(np.float64) == hi[~exact].astype(np.float64))


def test_masked_cast_counts_lanes_of_the_wider_type(vec):
    x = sample("f16", 256)
    dst = np.full(128, 5, np.float32)
    out, _, _ = vec("Cast", dst, x, src="f16", dst="f32", rm="none", rep=2, mask=64, dr=8, sr=4)
    want = dst.copy()
    want[:64] = x[:64]
    want[64:128] = x[64:128]
    assert np.array_equal(out, want)


def test_illegal_mode_is_refused_at_run_time(vec):
    x = sample("f32", 64)
    r = vec("Cast", np.zeros(64, np.uint16), x, src="f32", dst="bf16", rm="none", n=64, expect_fail=True)
    assert "CAST_NONE is not supported" in r.stderr and "Cast" in r.stderr


@pytest.mark.parametrize("code,needles", [
    ("AscendC::Cast(i8, f, AscendC::RoundMode::CAST_RINT, 64);", ["Cast", "signed char", "2201"]),
    ("AscendC::Add(b, b, b, 64);", ["Add", "bfloat16_t", "ascend910b2", "2201", "not supported"]),
    ("AscendC::Exp(i8, i8, 64);", ["Exp", "signed char", "not supported"]),
])
def test_illegal_dtype_refused_at_compile_time(tmp_path, code, needles):
    src = f"""
#include "kernel_operator.h"
void f(AscendC::LocalTensor<float> f, AscendC::LocalTensor<int8_t> i8, AscendC::LocalTensor<bfloat16_t> b) {{ {code} }}
"""
    r = compile_snippet(src, tmp_path)
    assert r.returncode != 0
    for n in needles:
        assert n in r.stderr, (n, r.stderr[-3000:])


def test_310p_has_no_bf16_cast(tmp_path):
    src = """
#include "kernel_operator.h"
void f(AscendC::LocalTensor<float> f, AscendC::LocalTensor<bfloat16_t> b) { AscendC::Cast(b, f, AscendC::RoundMode::CAST_RINT, 64); }
"""
    assert compile_snippet(src, tmp_path, soc="ascend910b").returncode == 0
    r = compile_snippet(src, tmp_path, soc="ascend310p")
    assert r.returncode != 0 and "2002" in r.stderr and "ascend310p3" in r.stderr
