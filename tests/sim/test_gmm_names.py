"""Names grouped_matmul's kernel uses beside the Matmul API: the operator forms on LocalTensor (CANN's
"symbol override": `dst = a + b` and -, *, /, &, |, <, >, ==, !=, <=, >=), the typed Ceil/CeilAlign
that make the kernel's own `AlignUp<T>(T, T)` over `Ceil(m, n)` resolve, and AscendAntiQuant with
AntiQuantShapeInfo. Each checks the documented behaviour."""

from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest
from sim_util import CPP, VecRunner, build, compile_snippet, marked_line

rng = np.random.default_rng(11)
HARNESS = CPP / "gmm_names_harness.cpp"
DT = {"f16": np.float16, "f32": np.float32, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32}


@pytest.fixture(scope="module")
def names(tmp_path_factory) -> VecRunner:
    return VecRunner(build(HARNESS), tmp_path_factory.mktemp("gmm_names"))


ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@pytest.mark.parametrize("op,dt", [(op, dt) for op in ARITH for dt in ("f16", "f32", "i16", "i32")
                                   if op != "div" or dt in ("f16", "f32")])  # Div takes half and float only
def test_arithmetic_operator_form_runs_the_instruction_over_the_destination(names, op, dt):
    t = DT[dt]
    n, total = 200, 256  # the destination's size is the count: the elements past it stay untouched
    if dt.startswith("f"):
        a, b = rng.uniform(-8, 8, total).astype(t), rng.uniform(0.5, 4, total).astype(t)
    else:
        a, b = rng.integers(-300, 300, total).astype(t), rng.integers(1, 50, total).astype(t)
    sentinel = np.full(total, 7, t)
    out, _, _ = names(op, sentinel, a, b, dt=dt, n=n)
    want = ARITH[op](a[:n].astype(np.float64), b[:n].astype(np.float64)).astype(t)
    if dt.startswith("f"):
        np.testing.assert_allclose(out[:n].astype(np.float64), want.astype(np.float64), rtol=2e-3 if dt == "f16" else 1e-6)
    else:
        assert np.array_equal(out[:n], want)
    assert np.all(out[n:] == 7)


@pytest.mark.parametrize("dt", ["i16", "u16", "i32", "u32"])
@pytest.mark.parametrize("op", ["and", "or"])
def test_bitwise_operator_form_covers_every_bit_of_32_bit_integers(names, op, dt):
    t = DT[dt]
    n = 128
    info = np.iinfo(t)
    a = rng.integers(info.min, info.max, n, dtype=np.int64).astype(t)
    b = rng.integers(info.min, info.max, n, dtype=np.int64).astype(t)
    out, _, _ = names(op, np.zeros(n, t), a, b, dt=dt, n=n)
    assert np.array_equal(out, a & b if op == "and" else a | b)


CMP = {"lt": np.less, "gt": np.greater, "eq": np.equal, "ne": np.not_equal, "le": np.less_equal, "ge": np.greater_equal}


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("op", list(CMP))
def test_comparison_operator_form_writes_one_bit_per_source_element(names, op, dt):
    t = DT[dt]
    n = 128 if dt == "f16" else 64  # whole 256-byte repeats of the source
    a = rng.integers(-4, 4, n).astype(t)
    b = rng.integers(-4, 4, n).astype(t)
    b[:8] = a[:8]  # some ties, so ==, <= and >= see equal elements
    out, _, _ = names(op, np.zeros(32, np.uint8), a, b, dt=dt, n=n)
    bits = np.unpackbits(out[: n // 8], bitorder="little").astype(bool)
    assert np.array_equal(bits, CMP[op](a, b))
    assert np.all(out[n // 8:] == 0)


def test_bitwise_operator_form_refuses_floating_point(tmp_path):
    r = compile_snippet('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                        "void f(LocalTensor<half>& d, LocalTensor<half>& a, LocalTensor<half>& b) { d = a & b; }\n",
                        tmp_path)
    assert r.returncode != 0 and "Ascend C And: this dtype" in r.stderr, r.stderr[-2000:]


def test_comparison_operator_form_refuses_integer_sources_on_a2(tmp_path):
    r = compile_snippet('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                        "void f(LocalTensor<uint8_t>& d, LocalTensor<int32_t>& a, LocalTensor<int32_t>& b) { d = a < b; }\n",
                        tmp_path)
    assert r.returncode != 0 and "comparison operators on LocalTensor take half or float" in r.stderr, r.stderr[-2000:]


def test_plain_assignment_of_local_tensors_is_unchanged(names, tmp_path):
    r = compile_snippet('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                        "void f(LocalTensor<half>& d, LocalTensor<half>& a) { d = a; LocalTensor<half> c(a); d = c; }\n",
                        tmp_path)
    assert r.returncode == 0, r.stderr


CEIL_PROGRAM = r"""
#include "kernel_operator.h"
#include <cstdio>
#include <type_traits>
using namespace AscendC;
// grouped_matmul_utils.h's own helper: one T for both operands
template <typename T> inline T AlignUp(T a, T base) { return (a + base - 1) / base * base; }
static_assert(std::is_same<decltype(Ceil(int32_t(1), int32_t(1))), int32_t>::value, "Ceil<int32_t> returns int32_t");
static_assert(std::is_same<decltype(Ceil(uint64_t(1), uint64_t(1))), uint64_t>::value, "Ceil<uint64_t> returns uint64_t");
static_assert(std::is_same<decltype(Ceil(uint32_t(1), uint32_t(1))), uint32_t>::value, "the uint32_t form");
static_assert(std::is_same<decltype(Ceil(uint32_t(1), int32_t(1))), uint32_t>::value, "mixed: the uint32_t form");
static_assert(std::is_same<decltype(CeilAlign(int64_t(1), int64_t(1))), int64_t>::value, "CeilAlign<T> returns T");
int main(int argc, char**) {
    int32_t m = 100 + argc, n = 16;  // not constant-folded
    std::printf("%d %d %llu %lld %u\n", AlignUp(Ceil(m, n), 4), Ceil(-m, n),
                (unsigned long long)Ceil(uint64_t(1) << 40 | 1, uint64_t(1) << 20), (long long)CeilAlign(int64_t(m), int64_t(n)),
                Ceil(uint32_t(m), uint32_t(n)));
    if (argc > 1) std::printf("%d\n", Ceil(m, 0));
    return 0;
}
"""


def test_typed_ceil_returns_its_operands_type_and_rounds_up(tmp_path):
    src = tmp_path / "ceil_program.cpp"
    src.write_text(CEIL_PROGRAM, encoding="utf-8")
    exe = build(src)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # m = 101: Ceil(101, 16) = 7, aligned up to 4 -> 8; Ceil(-101, 16) = (-101 + 15) / 16 = -5 (C++ division);
    # (2^40 + 1) / 2^20 rounded up = 2^20 + 1; CeilAlign(101, 16) = 112
    assert r.stdout.split() == ["8", "-5", str((1 << 20) + 1), "112", "7"]
    bad = subprocess.run([str(exe), "x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "Ceil" in bad.stderr and "divisor must be larger than 0" in bad.stderr, bad.stderr


AQ = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def antiquant_model(src, off, scale, groups, transpose, dt):
    """dst = scale * (src + offset) with offset/scale shared by each group of K / groups along K (the Ascend C
    API reference's formula). half: the Add and the Mul each rounded to half; bfloat16: float math, one rounding."""
    t = AQ[dt]
    rows, cols = src.shape
    k = cols if transpose else rows
    gs = k // groups
    o = np.repeat(off, gs, axis=1 if transpose else 0)
    s = np.repeat(scale, gs, axis=1 if transpose else 0)
    if dt == "f16":
        return ((src.astype(np.float16) + o.astype(np.float16)).astype(np.float16) * s.astype(np.float16)).astype(np.float16)
    return ((src.astype(np.float32) + o.astype(np.float32)) * s.astype(np.float32)).astype(t)


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("groups", [1, 4])  # per channel, per group (K / 4 elements along K share a parameter)
@pytest.mark.parametrize("with_offset", [True, False])
@pytest.mark.parametrize("tmp", [0, 1])
def test_ascend_antiquant_per_channel_and_per_group(names, dt, transpose, groups, with_offset, tmp):
    t = AQ[dt]
    K, N = 64, 48
    shape = (N, K) if transpose else (K, N)
    pshape = (N, groups) if transpose else (groups, N)
    src = rng.integers(-128, 128, shape).astype(np.int8)
    off = rng.uniform(-3, 3, pshape).astype(t) if with_offset else np.zeros(pshape, t)
    scale = rng.uniform(-0.2, 0.2, pshape).astype(t)
    dst = np.zeros(K * N + 1024 // np.dtype(t).itemsize, t)  # the tail serves as sharedTmpBuffer (tmp=1)
    out, _, _ = names("antiquant", dst, src, off.ravel(), scale.ravel(), dt=dt, k=K, nn=N, g=groups,
                      tr=int(transpose), off=int(with_offset), tmp=tmp)
    want = antiquant_model(src, off, scale, groups, transpose, dt)
    got = out[: K * N].reshape(shape)
    assert np.array_equal(got.astype(np.float32), want.astype(np.float32))


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_ascend_antiquant_default_shape_is_one_row_per_channel(names, dt):
    t = AQ[dt]
    K, N = 32, 64
    src = rng.integers(-128, 128, (K, N)).astype(np.int8)
    off, scale = rng.uniform(-2, 2, (1, N)).astype(t), rng.uniform(0.01, 0.1, (1, N)).astype(t)
    out, _, _ = names("antiquant", np.zeros(K * N, t), src, off.ravel(), scale.ravel(), dt=dt, k=K, nn=N, g=1, info=0, off=1)
    assert np.array_equal(out.reshape(K, N).astype(np.float32), antiquant_model(src, off, scale, 1, False, dt).astype(np.float32))


@pytest.mark.parametrize("with_offset", [True, False])
def test_ascend_antiquant_per_tensor_values(names, with_offset):
    K, N = 32, 32
    src = rng.integers(-128, 128, (K, N)).astype(np.int8)
    so, ss = (1.5 if with_offset else 0.0), 0.125
    out, _, _ = names("antiquant", np.zeros(K * N, np.float16), src, None, None, dt="f16", k=K, nn=N, g=1, scalar=1,
                      so=so, ss=ss, off=int(with_offset), tmp=1)
    want = ((src.astype(np.float16) + np.float16(so)).astype(np.float16) * np.float16(ss)).astype(np.float16)
    assert np.array_equal(out.reshape(K, N), want)


def test_ascend_antiquant_refuses_a_scale_that_does_not_fit_src(names):
    K, N = 64, 48
    src = np.zeros((K, N), np.int8)
    p = np.zeros(3 * N, np.float16)  # 3 groups do not divide K = 64
    r = names("antiquant", np.zeros(K * N, np.float16), src, p, p, dt="f16", k=K, nn=N, g=3, off=1, expect_fail=True)
    assert "offset has 3 rows, which does not divide K = 64" in r.stderr
    assert f"gmm_names_harness.cpp:{marked_line(HARNESS, 'aq')}" in r.stderr


def test_ascend_antiquant_without_tmp_buffer_needs_the_reserved_ub(tmp_path):
    code = """#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k() {
    TPipe pipe; TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 2048); pipe.InitBuffer(b, 4096); pipe.InitBuffer(c, 190000);
    LocalTensor<int8_t> src = a.Get<int8_t>(); LocalTensor<half> dst = b.Get<half>();
    LocalTensor<half> p = c.Get<half>(); p.SetSize(64);
    Duplicate(src.ReinterpretCast<int16_t>(), int16_t(0), 1024); Duplicate(p, half(1.0f), 64);
    PipeBarrier<PIPE_V>();
    AscendAntiQuant<int8_t, half, false>(dst, src, p, p, 32);
}
int main() { ICPU_RUN_KF(k, 1); return 0; }
"""
    src = tmp_path / "aq_reserved.cpp"
    src.write_text(code, encoding="utf-8")
    r = subprocess.run([str(build(src))], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "AscendAntiQuant" in r.stderr and "reserved UB" in r.stderr, r.stderr


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("groups", [1, 2])
def test_ascend_antiquant_int4_sources_unpack_low_nibble_first(names, transpose, groups):
    K, N = 128, 32
    shape = (N, K) if transpose else (K, N)
    pshape = (N, groups) if transpose else (groups, N)
    q = rng.integers(-8, 8, shape).astype(np.int8)
    u = (q.ravel().astype(np.int16) & 0xF).astype(np.uint8)
    packed = (u[0::2] | (u[1::2] << 4)).astype(np.uint8)
    off, scale = rng.uniform(-2, 2, pshape).astype(np.float16), rng.uniform(-0.5, 0.5, pshape).astype(np.float16)
    out, _, _ = names("antiquant", np.zeros(K * N, np.float16), packed, off.ravel(), scale.ravel(), dt="f16", k=K, nn=N,
                      g=groups, tr=int(transpose), off=1, tmp=0, int4=1)
    assert np.array_equal(out.reshape(shape), antiquant_model(q, off, scale, groups, transpose, "f16"))


RM = {"CAST_NONE": (0, np.rint), "CAST_RINT": (1, np.rint), "CAST_FLOOR": (2, np.floor), "CAST_CEIL": (3, np.ceil),
      "CAST_ROUND": (4, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)), "CAST_TRUNC": (5, np.trunc)}


def pack_int4(q: np.ndarray) -> np.ndarray:
    """Two int4 values per byte, element 2i in the low nibble of byte i."""
    u = (q.astype(np.int16) & 0xF).astype(np.uint8)
    return (u[0::2] | (u[1::2] << 4)).astype(np.uint8)


@pytest.mark.parametrize("mode", list(RM))
def test_cast_half_to_int4_rounds_saturates_and_packs_low_nibble_first(names, mode):
    n = 256
    x = rng.uniform(-10, 10, n).astype(np.float16)
    x[:8] = [2.5, -2.5, 0.5, -0.5, 7.4, -8.6, 100, -100]  # ties and values beyond [-8, 7]
    rm, model = RM[mode]
    out, _, _ = names("cast_to_int4", np.full(n // 2 + 32, 0x5A, np.uint8), x, dt="f16", n=n, rm=rm)
    want = np.clip(model(x.astype(np.float64)), -8, 7).astype(np.int8)
    assert np.array_equal(out[: n // 2], pack_int4(want))
    assert np.all(out[n // 2:] == 0x5A)  # only count / 2 bytes are written


def test_cast_int4_to_half_is_exact(names):
    n = 128
    q = np.tile(np.arange(-8, 8, dtype=np.int8), n // 16)
    out, _, _ = names("cast_from_int4", np.zeros(n, np.float16), pack_int4(q), dt="f16", n=n)
    assert np.array_equal(out, q.astype(np.float16))


def test_cast_to_int4_refuses_an_odd_count(names):
    r = names("cast_to_int4", np.zeros(64, np.uint8), np.zeros(64, np.float16), dt="f16", n=63, rm=1, expect_fail=True)
    assert "even count" in r.stderr and f"gmm_names_harness.cpp:{marked_line(HARNESS, 'cast4')}" in r.stderr


def test_cast_from_float_to_int4_is_not_an_a2_pair(tmp_path):
    bad_mode = compile_snippet('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                               "void f(LocalTensor<int4b_t>& d, LocalTensor<float>& s) { Cast(d, s, RoundMode::CAST_RINT, 64); }\n",
                               tmp_path)
    assert bad_mode.returncode != 0 and "Ascend C Cast: this (dst = T, src = U) dtype pair" in bad_mode.stderr


INT4_MMAD = r'''
#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mmad_int4(GM_ADDR c) {
    TPipe pipe;
    TBuf<TPosition::A2> a;
    TBuf<TPosition::B2> b;
    TBuf<TPosition::CO1> acc;
    pipe.InitBuffer(a, 512);
    pipe.InitBuffer(b, 512);
    pipe.InitBuffer(acc, 1024);
    MmadParams p;
    p.m = 16;
    p.n = 16;
    p.k = 64;
    Mmad(acc.Get<int32_t>(), a.Get<int4b_t>(), b.Get<int4b_t>(), p);  // @mmad_int4
}

int main() {
    uint8_t* c = (uint8_t*)GmAlloc(1024);
    opkit::sim::set_kernel_type(KERNEL_TYPE_AIC_ONLY);
    ICPU_RUN_KF(mmad_int4, 1, c);
    return 0;
}
'''


def test_int4_mmad_is_declared_as_cann_declares_it_and_refused_at_run_time(tmp_path):
    """grouped_matmul's a8w4 path calls Mmad(int32 <- int4 x int4), which Atlas A2 documents: it compiles; running it
    ends in one diagnostic at the call (the L0A/L0B model holds whole-byte elements), never in a wrong result."""
    src = tmp_path / "mmad_int4.cpp"
    src.write_text(INT4_MMAD)
    r = subprocess.run([str(build(src))], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "Mmad: int4b_t operands (int4 x int4 -> int32, documented for this chip) are not simulated yet" in r.stderr
    line = next(i for i, t in enumerate(INT4_MMAD.splitlines(), 1) if t.rstrip().endswith("// @mmad_int4"))
    assert f"mmad_int4.cpp:{line}" in r.stderr


LOCAL_AT = r'''
#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void local_at(GM_ADDR out) {
    LocalTensor<half> a(TPosition::VECIN, 0, 64);          // bytes [0, 128) of UB
    LocalTensor<half> b(TPosition::VECOUT, 128, 64);       // bytes [128, 256)
    Duplicate(a, half(2.0f), 64);
    PipeBarrier<PIPE_V>();
    Adds(b, a, half(1.0f), 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    GlobalTensor<half> g;
    g.SetGlobalBuffer((__gm__ half*)out, 64);
    DataCopy(g, b, 64);
    if (std::getenv("BAD")) {
        LocalTensor<half> c(TPosition::VECIN, 16, 64);    // @local_at_misaligned
    }
}

int main() {
    uint8_t* out = (uint8_t*)GmAlloc(128);
    ICPU_RUN_KF(local_at, 1, out);
    fwrite(out, 1, 128, stdout);
    return 0;
}
'''


def test_a_local_tensor_at_an_address_is_the_local_memory_there(tmp_path):
    """LocalTensor(pos, addr, tileSize) (grouped_matmul_antiquant_a8w4_pre.h): the tensor is the bytes at addr of
    that position's memory, under CreateTensor's rules (32-byte aligned address and length)."""
    import os

    src = tmp_path / "local_at.cpp"
    src.write_text(LOCAL_AT)
    exe = build(src)
    r = subprocess.run([str(exe)], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert (np.frombuffer(r.stdout, np.float16) == 3.0).all()
    bad = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env={**os.environ, "BAD": "1"})
    assert bad.returncode != 0 and "addr 16 is not 32-byte aligned" in bad.stderr
    line = next(i for i, t in enumerate(LOCAL_AT.splitlines(), 1) if t.rstrip().endswith("// @local_at_misaligned"))
    assert f"local_at.cpp:{line}" in bad.stderr
