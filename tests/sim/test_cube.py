"""The cube unit: DataCopy ND2NZ, LoadData, Mmad, Fixpipe against NumPy models of the fractal layouts,
and the checks that stop broken cube kernels (capacity, alignment, shapes, layout, M -> FIX order)."""

from __future__ import annotations

import re
import subprocess

import ml_dtypes
import numpy as np
import pytest
from sim_util import CPP, build, compile_snippet, marked_line

SRC = CPP / "cube_harness.cpp"
rng = np.random.default_rng(11)
BF16 = ml_dtypes.bfloat16
# DTYPE -> (input, L0C, output, B given transposed)
DT = {"f16": (np.float16, np.float32, np.float16, False), "bf16": (BF16, np.float32, BF16, False),
      "f16f32": (np.float16, np.float32, np.float32, False), "f32": (np.float32, np.float32, np.float32, True),
      "s8": (np.int8, np.int32, np.int32, True), "s8h": (np.int8, np.int32, np.float16, True)}


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def line_of(name: str) -> int:
    return marked_line(SRC, name)


# --- NumPy models of the layouts -----------------------------------------------------------------


def nd2nz(x: np.ndarray, c0: int, c0_stride: int) -> np.ndarray:
    """L1 after DataCopy(Nd2NzParams(1, rows, cols, 0, cols, c0_stride, 1, 0)): column blocks of c0 elements,
    each c0_stride rows of 32 B; the last block's columns past the matrix are zero-filled; rows past it stay unset (0 here)."""
    rows, cols = x.shape
    blocks = -(-cols // c0)
    out = np.zeros((blocks, c0_stride, c0), x.dtype)
    for b in range(blocks):
        part = x[:, b * c0:(b + 1) * c0]
        out[b, :rows, :part.shape[1]] = part
    return out.reshape(-1)


def load2d(l1: np.ndarray, frac: int, start: int, repeat: int, src_stride: int, transpose: bool) -> np.ndarray:
    """LoadData2D: `repeat` fractals of `frac` elements from fractal start + r * src_stride, each transposed (16 x 16) if asked."""
    out = []
    for r in range(repeat):
        f = l1[(start + r * src_stride) * frac:(start + r * src_stride + 1) * frac]
        out.append(f.reshape(16, 16).T.reshape(-1) if transpose else f)
    return np.concatenate(out)


def mmad(l0a: np.ndarray, l0b: np.ndarray, m: int, n: int, k: int, k0: int) -> np.ndarray:
    """What the cube computes: A read as ZZ (16 x k0 fractals, row-major, row-major inside), B as ZN (k0 x 16 fractals,
    row-major, column-major inside); float64 (or int64) accumulation of the first k elements."""
    mb, nb, kb = -(-m // 16), -(-n // 16), -(-k // k0)
    a = l0a[:mb * kb * 16 * k0].reshape(mb, kb, 16, k0).transpose(0, 2, 1, 3).reshape(mb * 16, kb * k0)[:m, :k]
    b = l0b[:kb * nb * 16 * k0].reshape(kb, nb, 16, k0).transpose(0, 3, 1, 2).reshape(kb * k0, nb * 16)[:k, :n]
    wide = np.int64 if a.dtype == np.int8 else np.float64
    return a.astype(wide) @ b.astype(wide)


def model(dt: str, a: np.ndarray, b: np.ndarray, bias: np.ndarray | None, relu: bool, b_transpose_fractals: bool = True):
    """The whole pipeline of cube_harness.cpp, layout by layout."""
    t_in, _, _, btrans = DT[dt]
    k0 = 32 // np.dtype(t_in).itemsize
    m, k = a.shape
    n = b.shape[1]
    mb, nb, kb = -(-m // 16), -(-n // 16), -(-k // k0)
    a1 = nd2nz(a, k0, mb * 16)
    l0a = np.concatenate([load2d(a1[i * 16 * k0:], 16 * k0, 0, kb, mb, False) for i in range(mb)])
    if btrans:
        b1 = nd2nz(b.T.copy(), k0, nb * 16)
        l0b = load2d(b1, 16 * k0, 0, kb * nb, 1, False)
    else:
        b1 = nd2nz(b, 16, kb * 16)
        l0b = np.concatenate([load2d(b1[i * 256:], 256, 0, nb, kb, b_transpose_fractals) for i in range(kb)])
    c = mmad(l0a, l0b, m, n, k, k0)
    if bias is not None:
        c = c + bias[:n].astype(c.dtype)
    if relu:
        c = np.maximum(c, 0)
    return c


def run(exe, tmp_path, dt, m, n, k, relu=0, bias=0, scenario="gemm", *, b_scale=1.0):
    t_in, t_acc, t_out, btrans = DT[dt]
    if t_in == np.int8:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        bv = rng.integers(-5000, 5000, n).astype(np.int32)
    else:
        a = rng.uniform(-1, 1, (m, k)).astype(t_in)
        b = (rng.uniform(-1, 1, (k, n)) * b_scale).astype(t_in)
        bv = rng.uniform(-2, 2, n).astype(np.float32)
    d = tmp_path / f"{dt}_{m}_{n}_{k}_{relu}_{bias}_{scenario}"
    d.mkdir()
    (d / "a.bin").write_bytes(np.ascontiguousarray(a).tobytes())
    (d / "b.bin").write_bytes(np.ascontiguousarray(b.T if btrans else b).tobytes())
    (d / "bias.bin").write_bytes(np.concatenate([bv, np.zeros(16, bv.dtype)]).tobytes())
    r = subprocess.run([str(exe), str(d), dt, str(m), str(n), str(k), str(relu), str(bias), scenario],
                       capture_output=True, text=True, timeout=120)
    out = None
    if r.returncode == 0:
        out = np.frombuffer((d / "out.bin").read_bytes(), t_out).reshape(m, n)
    return a, b, (bv if bias else None), out, r


def assert_rounded(out: np.ndarray, exact: np.ndarray, t_out) -> None:
    """out is exact (float64) rounded once to t_out, up to the fp32 accumulation error (at most 1 ulp of t_out)."""
    if np.dtype(t_out) == np.int32:
        np.testing.assert_array_equal(out, exact.astype(np.int64).astype(np.int32))
        return
    if np.dtype(t_out) == np.float32:
        np.testing.assert_allclose(out, exact, rtol=2e-6, atol=2e-5)
        return
    want = exact.astype(t_out).astype(np.float64)
    got = out.astype(np.float64)
    ulp = np.abs(np.spacing(np.abs(exact).astype(t_out))).astype(np.float64)
    assert np.all(np.abs(got - exact) <= ulp + 3e-5), np.max(np.abs(got - exact) - ulp)
    assert np.mean(got == want) > 0.97  # almost all exactly the once-rounded value


# --- results ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [d for d in DT if d != "s8h"])
@pytest.mark.parametrize("m,n,k,relu,bias", [(16, 16, 16, 0, 0), (77, 130, 200, 1, 1), (33, 48, 70, 0, 1), (128, 64, 96, 1, 0)])
def test_gemm_matches_the_layout_model(exe, tmp_path, dt, m, n, k, relu, bias):
    if dt == "f32":
        k = min(k, 100)  # fp32 B of 200 x 130 does not fit the 64 KiB of L0B
    a, b, bv, out, r = run(exe, tmp_path, dt, m, n, k, relu, bias)
    assert r.returncode == 0, r.stderr
    exact = model(dt, a, b, bv, bool(relu))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if bv is not None:
        ref = ref + bv
    if relu:
        ref = np.maximum(ref, 0)
    np.testing.assert_allclose(exact, ref, rtol=1e-12, atol=1e-9)  # the layout model is the plain product
    assert_rounded(out, exact, DT[dt][2])


def test_fractals_not_transposed_give_the_wrong_product_the_hardware_gives(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", 40, 48, 64, 0, 0, "b_no_transpose")
    assert r.returncode == 0, r.stderr
    wrong = model("f16f32", a, b, None, False, b_transpose_fractals=False)
    right = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out, wrong, rtol=2e-6, atol=2e-5)
    assert not np.allclose(out, right, atol=1e-2)


def test_a_through_the_tscm_position(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", 40, 32, 48, 0, 0, "tscm")
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-6, atol=2e-5)


def load_with_transpose(l1: np.ndarray, squares: int, itemsize: int) -> np.ndarray:
    """LoadDataWithTranspose(start 0, srcStride 1, dstGap 1, dstFracGap 0): per square, two source fractals joined
    (b32: 16 x 8 side by side; b8: 16 x 32 one above the other), transposed, split the same way into two fractals."""
    out = []
    for q in range(squares):
        per = 512 // itemsize
        f0, f1 = l1[2 * q * per:(2 * q + 1) * per], l1[(2 * q + 1) * per:(2 * q + 2) * per]
        if itemsize == 4:
            t = np.hstack([f0.reshape(16, 8), f1.reshape(16, 8)]).T
            out += [t[:, :8].reshape(-1), t[:, 8:].reshape(-1)]
        else:
            t = np.vstack([f0.reshape(16, 32), f1.reshape(16, 32)]).T
            out += [t[:16].reshape(-1), t[16:].reshape(-1)]
    return np.concatenate(out)


@pytest.mark.parametrize("dt,m,k", [("f32", 32, 16), ("s8", 32, 64)])
def test_load_data_with_transpose_b32_b8(exe, tmp_path, dt, m, k):
    # A's bytes are taken as a raw L1 image; B is the identity, so C shows L0A as Mmad reads it (ZZ)
    t_in = DT[dt][0]
    d = tmp_path / f"ldt_{dt}"
    d.mkdir()
    img = (np.arange(m * k) % 97 - 48).astype(t_in)
    (d / "a.bin").write_bytes(img.tobytes())
    (d / "b.bin").write_bytes(np.eye(k, dtype=t_in).tobytes())
    (d / "bias.bin").write_bytes(np.zeros(k + 16, np.int32 if dt == "s8" else np.float32).tobytes())
    r = subprocess.run([str(exe), str(d), dt, str(m), str(k), str(k), "0", "0", "ldt"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    out = np.frombuffer((d / "out.bin").read_bytes(), DT[dt][2]).reshape(m, k)
    itemsize = np.dtype(t_in).itemsize
    l0a = load_with_transpose(img, m * k * itemsize // 1024, itemsize)
    k0 = 32 // itemsize
    a_eff = l0a.reshape(m // 16, k // k0, 16, k0).transpose(0, 2, 1, 3).reshape(m, k)  # ZZ, as Mmad reads it
    np.testing.assert_array_equal(out, a_eff.astype(out.dtype))
    assert not np.array_equal(out, img.reshape(m, k).astype(out.dtype))  # the transpose really moved data


def test_fill_is_a_load_mmad_accepts(exe, tmp_path):
    *_, bv, out, r = run(exe, tmp_path, "f16f32", 40, 32, 48, 0, 1, "a_zero_fill")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(out, np.broadcast_to(bv[:32], (40, 32)))  # 0 x B + bias


def test_accumulate_in_l0c(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", 37, 20, 50, 0, 0, "accumulate_twice")
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, 2 * (a.astype(np.float64) @ b.astype(np.float64)), rtol=2e-6, atol=4e-5)


# Same-pipe ordering of PIPE_M (the Mmad page, asc-devkit docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/Mmad计算/Mmad.md):
# an Mmad accumulating onto L0C an earlier Mmad wrote needs PipeBarrier<PIPE_M> in between when (m / 16) * (n / 16),
# in integer arithmetic, is below 10. scenario, m, n, the Mmad reported, the earlier Mmad named, (m / 16) * (n / 16).
@pytest.mark.parametrize("scenario, m, n, at, earlier, units", [
    ("acc_no_barrier", 37, 20, "acc_no_barrier", "acc_first", 2),
    ("acc_no_barrier", 30, 80, "acc_no_barrier", "acc_first", 5),     # 1 * 5 (truncating; rounded up it would be 10)
    ("acc_no_barrier", 144, 16, "acc_no_barrier", "acc_first", 9),    # one below the threshold
    ("acc_wrong_pipe", 37, 20, "acc_no_barrier", "acc_first", 2),     # PipeBarrier<PIPE_MTE1> orders another pipe
    ("acc_gap", 16, 48, "acc_gap", "acc_no_barrier", 3),              # the third Mmad is not ordered after the second
])
def test_small_accumulating_mmads_need_a_pipe_m_barrier(exe, tmp_path, scenario, m, n, at, earlier, units):
    *_, r = run(exe, tmp_path, "f16f32", m, n, 32, 0, 0, scenario)
    assert r.returncode == 3, r.stderr
    assert f"cube_harness.cpp:{line_of(at)}" in r.stderr, r.stderr
    assert re.search(rf"Mmad: same-pipe ordering: accumulates onto L0C bytes \[0, \d+\) that an earlier Mmad "
                     rf"\(Mmad at .*cube_harness.cpp:{line_of(earlier)}\) wrote, with no PipeBarrier<PIPE_M> in between: "
                     rf"with m {m} and n {n}, \(m / 16\) \* \(n / 16\) = {units} is below 10", r.stderr), r.stderr
    assert "Mmad计算/Mmad.md" in r.stderr


@pytest.mark.parametrize("scenario, m, n", [
    ("acc_barrier_all", 37, 20),     # PipeBarrier<PIPE_ALL> orders every pipe, M included
    ("acc_no_barrier", 64, 64),      # 4 * 4 = 16: the hardware orders Mmads this large itself
    ("acc_no_barrier", 32, 80),      # 2 * 5 = 10, the threshold: no barrier needed
    ("acc_no_barrier", 160, 31),     # 10 * 1 = 10 (31 / 16 truncates to 1)
])
def test_ordered_or_large_accumulating_mmads_are_clean(exe, tmp_path, scenario, m, n):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", m, n, 32, 0, 0, scenario)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    np.testing.assert_allclose(out, 3 * (a.astype(np.float64) @ b.astype(np.float64)), rtol=4e-6, atol=1e-4)


def test_the_pipe_m_ordering_check_is_part_of_the_order_switch(exe, tmp_path, monkeypatch):
    """OPKIT_SIM_CHECKS_OFF=order (benchmarks/sim_speed.py --checks) leaves it out with the other same-pipe rules."""
    monkeypatch.setenv("OPKIT_SIM_CHECKS_OFF", "overlap,uaf")
    assert run(exe, tmp_path, "f16f32", 37, 20, 32, 0, 0, "acc_no_barrier")[-1].returncode == 3
    monkeypatch.setenv("OPKIT_SIM_CHECKS_OFF", "order")
    *_, r = run(exe, tmp_path, "f16f32", 37, 21, 32, 0, 0, "acc_no_barrier")
    assert r.returncode == 0 and "same-pipe" not in r.stderr, r.stderr


def test_fixpipe_nz_output_keeps_the_fractal_layout(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", 32, 48, 40, 0, 0, "nz_out")
    assert r.returncode == 0, r.stderr
    c = a.astype(np.float64) @ b.astype(np.float64)
    nz = c.reshape(2, 16, 3, 16).transpose(2, 0, 1, 3).reshape(-1)  # fractal columns, 16 x 16 row-major inside
    np.testing.assert_allclose(out.reshape(-1), nz, rtol=2e-6, atol=2e-5)


def test_fixpipe_to_l1_feeds_the_next_mmad(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "f16", 32, 32, 32, 0, 0, "chain")
    assert r.returncode == 0, r.stderr
    c1 = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)  # rounded to fp16 on the way to L1
    exact = c1.astype(np.float64) @ b.astype(np.float64)
    # one fp16 rounding of the result, plus up to one ulp of each c1 element (fp32 sums round to fp16 either way)
    bound = (np.abs(np.spacing(np.abs(exact).astype(np.float16))).astype(np.float64)
             + np.abs(np.spacing(np.abs(c1))).astype(np.float64) @ np.abs(b.astype(np.float64)) + 3e-5)
    assert np.all(np.abs(out.astype(np.float64) - exact) <= bound)
    plain = (a.astype(np.float64) @ b.astype(np.float64)) @ b.astype(np.float64)
    assert not np.allclose(out, plain, rtol=0, atol=0)  # the fp16 intermediate in L1 is visible


def test_fixpipe_deq_int32_to_half_with_a_scalar_scale(exe, tmp_path):
    a, b, _, out, r = run(exe, tmp_path, "s8h", 20, 24, 3, 0, 0)  # |0.5 x C| stays below 65504
    assert r.returncode == 0, r.stderr
    exact = (a.astype(np.int64) @ b.astype(np.int64)) * 0.5
    np.testing.assert_array_equal(out, exact.astype(np.float16))


@pytest.mark.parametrize("scenario", ["m_fix_flag", "unit_flag"])
def test_m_to_fix_ordered_by_a_flag_passes(exe, tmp_path, scenario):
    a, b, _, out, r = run(exe, tmp_path, "f16f32", 32, 32, 32, 0, 0, scenario)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-6, atol=2e-5)


def test_relu_and_fp16_rounding_on_fixpipe(exe, tmp_path):
    a, b, bv, out, r = run(exe, tmp_path, "f16", 32, 32, 32, 1, 1, b_scale=300.0)
    assert r.returncode == 0, r.stderr
    exact = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bv, 0)
    assert (out == 0).sum() > 100  # ReLU really cut
    assert_rounded(out, exact, np.float16)


def test_trace_records_cube_pipes(exe, tmp_path):
    import json
    import os

    trace = tmp_path / "t.json"
    env = dict(os.environ, OPKIT_SIM_TRACE=str(trace))
    d = tmp_path / "tr"
    d.mkdir()
    m = n = k = 64
    (d / "a.bin").write_bytes(np.ones((m, k), np.float16).tobytes())
    (d / "b.bin").write_bytes(np.ones((k, n), np.float16).tobytes())
    (d / "bias.bin").write_bytes(np.zeros(n + 16, np.float32).tobytes())
    r = subprocess.run([str(exe), str(d), "f16", str(m), str(n), str(k), "0", "0", "gemm"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    t = json.loads(trace.read_text())
    core = t["cores"][0]
    assert core["core_type"] == "AIC"
    pipes = core["pipes"]
    assert pipes["MTE2"]["bytes"] == 2 * 64 * 64 * 2          # GM -> L1, A and B
    assert pipes["MTE1"]["bytes"] == 2 * 64 * 64 * 2          # L1 -> L0A / L0B, whole fractals
    assert pipes["M"]["bytes"] == 64 * 64 * 64 and pipes["M"]["repeats"] == 64  # MACs; 16x16x16 steps
    assert pipes["FIX"]["bytes"] == 64 * 64 * 2               # L0C -> GM as fp16
    ops = [e for e in core["events"] if e.get("ev") == "op"]
    assert [e["api"] for e in ops if e["pipe"] == "M"] == ["Mmad"]
    from opkit.perf.costs import chip_params, op_cost

    p = chip_params("ascend910b2")
    mm = next(e for e in ops if e["pipe"] == "M")
    assert op_cost(mm, "AIC", p).klass == "cube"
    assert op_cost(next(e for e in ops if e["pipe"] == "MTE1"), "AIC", p).klass == "onchip"


@pytest.mark.parametrize("dt,k0", [("s8", 32), ("f32", 8), ("bf16", 16)])
def test_cube_steps_per_dtype_cost_one_cycle_per_fractal(exe, tmp_path, dt, k0):
    import json
    import os

    from opkit.perf.costs import chip_params, op_cost

    trace = tmp_path / "t.json"
    m, n, k = 48, 32, 72
    t_in = DT[dt][0]
    d = tmp_path / "tr"
    d.mkdir()
    (d / "a.bin").write_bytes(np.zeros((m, k), t_in).tobytes())
    (d / "b.bin").write_bytes(np.zeros((k, n), t_in).tobytes())
    (d / "bias.bin").write_bytes(np.zeros(n + 16, np.int32 if dt == "s8" else np.float32).tobytes())
    p = subprocess.run([str(exe), str(d), dt, str(m), str(n), str(k), "0", "0", "gemm"], capture_output=True, text=True,
                       env=dict(os.environ, OPKIT_SIM_TRACE=str(trace)), timeout=60)
    assert p.returncode == 0, p.stderr
    ev = next(e for e in json.loads(trace.read_text())["cores"][0]["events"] if e.get("api") == "Mmad")
    fractals = -(-m // 16) * -(-n // 16) * -(-k // k0)  # what the cube processes, one per cycle
    assert ev["dtype"] == {"s8": "int8", "f32": "float32", "bf16": "bfloat16"}[dt]
    chip = chip_params("ascend910b2")
    assert op_cost(ev, "AIC", chip).fixed == pytest.approx(chip.mmad_fixed + fractals, abs=1)


# --- checks -------------------------------------------------------------------------------------

ERRORS = {
    "l1_over": ("f16", [r"TPipe::InitBuffer: L1 capacity exceeded", r"offers 524032 bytes", r"32 bytes over"]),
    "l0a_over": ("f16", [r"L0A capacity exceeded", r"2 x 33280", r"offers 65536 bytes"]),
    "l0c_over": ("f16", [r"L0C capacity exceeded", r"offers 131072 bytes", r"64 bytes over"]),
    "l0a_misaligned": ("f16", [r"LoadData: L0A address 32 is not 512-byte aligned"]),
    "l0c_misaligned": ("f16f32", [r"Mmad: dst L0C address 256 is not aligned to 256 elements \(1024 bytes\)"]),
    "mmad_shape": ("f16", [r"Mmad: m 4096, n 32, k 32: each must be in \[0, 4095\]"]),
    "l0a_uninit": ("f16", [r"Mmad: A \(L0A\) element \(m 16, k 16\)", r"never written"]),
    "l0a_not_loaded": ("f16", [r"Mmad: A \(L0A\) fractal 0 .* did not arrive through LoadData", r"ZZ for A"]),
    "accumulate_uninit": ("f16", [r"Mmad: accumulating onto L0C element \(m 0, n 0\) that was never written", r"cmatrixInitVal"]),
    "no_m_fix_sync": ("f16", [r"Fixpipe: missing pipe synchronisation", r"L0C bytes", r"written on pipe M \(Mmad at",
                              r"read on pipe FIX", r"M_FIX"]),
    "fixpipe_quant": ("f16", [r"Fixpipe: L0C float32 -> GM float16 needs quantPre = QuantMode_t::F322F16",
                              r"it is QuantMode_t::NoQuant"]),
    "nd2nz_overlap": ("f16", [r"DataCopy\(Nd2Nz\): dstNzC0Stride 31", r"overwrite each other"]),
    "chain_nosync": ("f16", [r"LoadData: missing pipe synchronisation", r"L1 bytes", r"written on pipe FIX \(Fixpipe at",
                             r"read on pipe MTE1", r"FIX_MTE1"]),
    "cube_on_aiv": ("f16", [r"AIV block 0/1: LoadData: cube instruction on a vector core"]),
}


@pytest.mark.parametrize("scenario", list(ERRORS))
def test_broken_cube_kernels_are_stopped(exe, tmp_path, scenario):
    dt, pats = ERRORS[scenario]
    *_, out, r = run(exe, tmp_path, dt, 32, 32, 32, 0, 0, scenario)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    err = r.stderr
    assert err.count("opkit-sim: error:") == 1, err
    assert "kernel 'cube_kernel'" in err
    for p in pats:
        assert re.search(p, err), f"{p!r} not in:\n{err}"
    try:
        line = line_of(scenario)
    except KeyError:
        return
    assert f"cube_harness.cpp:{line}" in err, err


def test_unsupported_dtypes_fail_at_compile_time(tmp_path):
    code = """
#include "kernel_operator.h"
using namespace AscendC;
void f(LocalTensor<float> c, LocalTensor<int16_t> a, LocalTensor<int16_t> b) { Mmad(c, a, b, MmadParams()); }
void g(GlobalTensor<int32_t> o, LocalTensor<float> c) { Fixpipe(o, c, FixpipeParamsV220()); }
"""
    r = compile_snippet(code, tmp_path)
    assert r.returncode != 0
    assert "not supported by the cube unit" in r.stderr
    assert "Ascend C Fixpipe: this (L0C dtype -> GM dtype) pair is not supported" in r.stderr
    ok = "void h(GlobalTensor<half> o, LocalTensor<float> c) { Fixpipe(o, c, FixpipeParamsV220()); }"
    head = '#include "kernel_operator.h"\nusing namespace AscendC;\n'
    assert compile_snippet(head + ok, tmp_path).returncode == 0
    r = compile_snippet(head + ok, tmp_path, soc="ascend310p")
    assert r.returncode != 0 and "Fixpipe (FixpipeParamsV220) does not exist on ascend310p" in r.stderr, r.stderr[-2000:]


def test_tcubetiling_has_canns_fields(tmp_path):
    code = """
#include <cstddef>
#include "kernel_operator.h"
static_assert(sizeof(TCubeTiling) == 50 * 4, "50 int32 fields");
static_assert(offsetof(TCubeTiling, usedCoreNum) == 0, "");
static_assert(offsetof(TCubeTiling, stepKa) == 26 * 4, "");
static_assert(offsetof(TCubeTiling, BatchNum) == 48 * 4, "");
static_assert(offsetof(TCubeTiling, mxTypePara) == 49 * 4, "");
"""
    r = compile_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr


# --- mix kernels: cube on the AIC, vector on its two AIVs ----------------------------------------------


def mix_inputs():
    d = 32
    i, k = np.meshgrid(np.arange(d), np.arange(d), indexing="ij")
    a = (1.0 / (1 + (i + k) % 7)).astype(np.float16)
    b = ((i * 3 + k) % 5 - 2).astype(np.float16)
    return a.astype(np.float64), b.astype(np.float64)


def test_mix_kernel_cube_then_vector_through_a_cross_core_flag():
    exe = build(CPP / "mix_cube_harness.cpp")
    r = subprocess.run([str(exe), "3", "ok"], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    out = np.frombuffer(r.stdout, np.float32).reshape(3, 32, 32)
    a, b = mix_inputs()
    for blk in range(3):
        np.testing.assert_allclose(out[blk], 2 * (a @ b), rtol=1e-6, atol=1e-5)


def test_mix_kernel_wait_never_satisfied_is_a_deadlock_error():
    exe = build(CPP / "mix_cube_harness.cpp")
    r = subprocess.run([str(exe), "1", "no_set"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3
    assert "CrossCoreWaitFlag: deadlock: waits for cross-core flag 5" in r.stderr, r.stderr
