"""Names grouped_matmul's kernel uses beside the Matmul API: the operator forms on LocalTensor (CANN's
"symbol override": `dst = a + b` and -, *, /, &, |, <, >, ==, !=, <=, >=) and the typed Ceil/CeilAlign
that make the kernel's own `AlignUp<T>(T, T)` over `Ceil(m, n)` resolve. Each checks the documented behaviour."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from sim_util import CPP, VecRunner, build, compile_snippet

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
