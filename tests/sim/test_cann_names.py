"""CANN names of the kernel side that real operators use: the lib/math APIs, Axpy, the mask helpers,
GetReduceMaxMinCount, the sort-structure helpers, scalar helpers, ListTensorDesc, the low-level
intrinsics, ASSERT, and the installed include paths. Each checks the documented behaviour."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sim_util import CPP, VecRunner, build, compile_snippet, marked_line

DT = {"f16": np.float16, "f32": np.float32}
rng = np.random.default_rng(77)
HARNESS = CPP / "names_harness.cpp"


@pytest.fixture(scope="module")
def names(tmp_path_factory) -> VecRunner:
    return VecRunner(build(HARNESS), tmp_path_factory.mktemp("names"))


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


# API -> (NumPy model in float64, input range)
MATH = {
    "Asin": (np.arcsin, (-0.99, 0.99)), "Acos": (np.arccos, (-0.99, 0.99)), "Atan": (np.arctan, (-20, 20)),
    "Asinh": (np.arcsinh, (-20, 20)), "Acosh": (np.arccosh, (1.0, 20)), "Atanh": (np.arctanh, (-0.95, 0.95)),
    "Sin": (np.sin, (-10, 10)), "Cos": (np.cos, (-10, 10)), "Tan": (np.tan, (-1.4, 1.4)),
    "Sinh": (np.sinh, (-5, 5)), "Cosh": (np.cosh, (-5, 5)), "Tanh": (np.tanh, (-6, 6)),
    "Erf": (_vec(math.erf), (-3, 3)), "Erfc": (_vec(math.erfc), (-3, 3)),
    "Floor": (np.floor, (-50, 50)), "Ceil": (np.ceil, (-50, 50)), "Round": (np.rint, (-50, 50)),
    "Trunc": (np.trunc, (-50, 50)), "Frac": (lambda x: x - np.trunc(x), (-50, 50)), "Sign": (np.sign, (-3, 3)),
    "Lgamma": (_vec(math.lgamma), (0.1, 20)),
    "Log": (np.log, (0.01, 100)), "Log2": (np.log2, (0.01, 100)), "Log10": (np.log10, (0.01, 100)),
}


def within_one_ulp(out: np.ndarray, want64: np.ndarray, dtype) -> bool:
    """Each result is the exact value rounded to the destination type, give or take one ulp of it."""
    want = want64.astype(dtype)
    step = np.spacing(np.abs(want)).astype(np.float64)
    return bool(np.all(np.abs(out.astype(np.float64) - want.astype(np.float64)) <= step))


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("op", list(MATH))
def test_math_api_matches_numpy_rounded_to_the_destination(names, op, dt):
    model, (lo, hi) = MATH[op]
    n = 256
    x = rng.uniform(lo, hi, n).astype(DT[dt])
    if op in ("Floor", "Ceil", "Round", "Trunc", "Frac", "Sign"):
        x[:6] = [2.5, -2.5, 0.5, -0.0, 3.0, 0.0]  # ties and signed zeros
    tmp = np.zeros(1024, np.uint8)
    for use_tmp in (0, 1):  # the sharedTmpBuffer form and the reserved-UB form give the same result
        out, _, _ = names(op, np.zeros(n, DT[dt]), x, None, tmp, dt=dt, n=n, tmp=use_tmp)
        want64 = model(x.astype(np.float64))
        assert within_one_ulp(out, want64, DT[dt]), (op, dt, use_tmp)
        if dt == "f16":  # one rounding to half: bit-exact against the exactly rounded value almost everywhere
            assert np.mean(out == want64.astype(np.float16)) > 0.97


def test_math_count_limits_the_elements_written(names):
    x = rng.uniform(-1, 1, 64).astype(np.float32)
    out, _, _ = names("Sin", np.full(64, 7.0, np.float32), x, dt="f32", n=40, tmp=0)
    assert within_one_ulp(out[:40], np.sin(x[:40].astype(np.float64)), np.float32)
    assert np.all(out[40:] == 7.0)


def test_exp_with_taylor_level(names):
    x = rng.uniform(-5, 5, 128).astype(np.float16)
    out, _, _ = names("ExpTaylor", np.zeros(128, np.float16), x, dt="f16", n=128)
    assert within_one_ulp(out, np.exp(x.astype(np.float64)), np.float16)


@pytest.mark.parametrize("op,pick", [("ClampMax", np.minimum), ("ClampMin", np.maximum)])
def test_clamp(names, op, pick):
    x = rng.uniform(-10, 10, 96).astype(np.float16)
    x[0] = np.nan
    out, _, _ = names(op, np.zeros(96, np.float16), x, None, np.zeros(256, np.uint8), dt="f16", n=96, s=1.5)
    assert np.isnan(out[0])  # NaN passes through
    assert np.array_equal(out[1:], pick(x[1:], np.float16(1.5)))


@pytest.mark.parametrize("form", ["PowerTT", "PowerTS", "PowerST"])
def test_power_forms(names, form):
    n = 128
    a = rng.uniform(0.1, 4, n).astype(np.float32)
    b = rng.uniform(-2, 3, n).astype(np.float32)
    out, _, _ = names(form, np.zeros(n, np.float32), a, b, dt="f32", n=n, s=1.75)
    base = a if form != "PowerST" else np.float64(1.75)
    expo = b if form != "PowerTS" else np.float64(1.75)
    want = np.power(np.asarray(base, np.float64), np.asarray(expo, np.float64)) * np.ones(n)
    assert np.allclose(out, want, rtol=4e-7, atol=0)


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_axpy_count_and_tmp_forms(names, dt):
    n = 200
    src = rng.uniform(-4, 4, n).astype(DT[dt])
    acc = rng.uniform(-4, 4, n).astype(DT[dt])
    want = (src.astype(np.float32) * np.float32(DT[dt](0.75)) + acc.astype(np.float32)).astype(DT[dt])
    for tmp in (0, 1):
        out, _, _ = names("Axpy", acc.copy(), src, None, np.zeros(256, np.uint8), dt=dt, n=n, tmp=tmp, s=0.75)
        assert np.array_equal(out, want)  # dst = src * scalar + dst, rounded once


def test_axpy_mask_repeat_form_leaves_masked_lanes(names):
    src = np.ones(256, np.float32)
    acc = np.full(256, 2.0, np.float32)
    # 16 lanes per repeat of 64 floats, 2 repeats at the default stride (8 blocks)
    out, _, _ = names("Axpy", acc.copy(), src, dt="f32", n=256, s=3.0, mask=16, rep=2)
    want = acc.copy()
    want[0:16] = 5.0
    want[64:80] = 5.0
    assert np.array_equal(out, want)


def test_axpy_mixed_half_source_float_destination(names):
    src = rng.uniform(-3, 3, 64).astype(np.float16)
    acc = rng.uniform(-3, 3, 64).astype(np.float32)
    out, _, _ = names("AxpyMixed", acc.copy(), src, dt="f16", n=64, s=0.5)
    assert np.array_equal(out, (src.astype(np.float32) * np.float32(0.5) + acc).astype(np.float32))


def test_axpy_dtype_pair_refused_at_compile_time(tmp_path):
    r = compile_snippet('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                        "void f(LocalTensor<half>& d, LocalTensor<float>& s) { Axpy(d, s, 1.0f, 16); }\n", tmp_path)
    assert r.returncode != 0 and "Axpy: supported (dst, src) dtypes" in r.stderr


@pytest.mark.parametrize("op,pick", [("ReduceMaxSpr", np.argmax), ("ReduceMinSpr", np.argmin)])
def test_get_reduce_max_min_count_reads_the_last_reduction(names, op, pick):
    x = rng.permutation(np.arange(100, dtype=np.float32)) - 50
    out, _, _ = names(op, np.zeros(8, np.float32), x, np.zeros(64, np.float32), dt="f32", n=100)
    k = int(pick(x))
    assert out[0] == x[k] and out[1].view(np.uint32) == k  # ReduceMax's own (value, index)
    assert out[2] == x[k] and out[3].view(np.uint32) == k  # the same pair from GetReduceMaxMinCount
    assert out[4] == x[k]  # the value-only form


@pytest.mark.parametrize("length", [5, 64, 100, 128])
def test_ascendc_utils_set_mask_drives_the_isSetMask_false_forms(names, length):
    a = rng.uniform(-1, 1, 128).astype(np.float16)
    b = rng.uniform(-1, 1, 128).astype(np.float16)
    out, _, _ = names("SetMaskAdd", np.zeros(128, np.float16), a, b, dt="f16", n=128, len=length)
    want = np.zeros(128, np.float16)
    want[:length] = (a[:length] + b[:length])  # the first `length` lanes of the one repeat
    assert np.array_equal(out, want)


def test_ascendc_utils_set_mask_high_low_words(names):
    a = np.ones(128, np.float16)
    b = np.ones(128, np.float16)
    out, _, _ = names("SetMaskHiLoAdd", np.zeros(128, np.float16), a, b, dt="f16", n=128, hi=1, lo=(1 << 63) | 1)
    assert np.nonzero(out)[0].tolist() == [0, 63, 64]


def test_intrinsic_set_vector_mask_and_counter_mode(names):
    a = np.ones(256, np.float16)
    b = np.full(256, 2.0, np.float16)
    out, _, _ = names("IntrinsicMaskAdd", np.zeros(256, np.float16), a, b, dt="f16", n=256, hi=0, lo=0b1010, cnt=7)
    assert np.nonzero(out[:128])[0].tolist() == [1, 3]  # normal mode: the bits of the mask register
    assert np.nonzero(out[128:])[0].tolist() == list(range(7))  # counter mode: the first 7 elements


def test_ceil_div_align_helpers(names):
    out, _, _ = names("CeilHelpers", np.zeros(8, np.int32), dt="s32", a=100, b=32)
    assert out[:6].tolist() == [4, 4, 128, 4, 4, 0]


def test_sort_len_and_offset(names):
    # A2/A3: one 8-byte (score, index) pair per element: 2 floats or 4 halfs per element
    out, _, _ = names("SortLen", np.zeros(8, np.int32), dt="s32", a=32)
    assert out[:4].tolist() == [64, 128, 64, 128]


def test_scalar_helpers_types_and_branch_hints(names):
    v = 0b1011000
    out, _, _ = names("Scalars", np.zeros(16, np.int32), dt="s32", v=v, f=2.7, q=9)
    assert out[0] == 3  # GetBitCount
    assert out[1] == 64 - 7  # CountLeadingZero
    assert out[2] == 3  # GetSFFValue<1>: lowest set bit
    assert out[3] == 61  # ScalarGetCountOfValue<0>
    assert out[4] == 56  # bits after the sign bit equal to it
    assert out[5] == 2703  # ToFloat(bfloat16_t(2.7)): 8 significant bits, 2.7 rounds to 2.703125
    assert out[6] == int(np.float32(np.float16(2.7)) * 1000)  # ToFloat(half)
    assert out[7] == 2  # Cast<float, int32_t, CAST_FLOOR>
    assert out[8] == -7  # int4b_t(9) wraps to 4 bits
    assert out[9] == 375  # float16_t 1.5, float32_t 2.25
    assert out[10] == 1  # likely/unlikely keep the condition's value


def test_list_tensor_desc_reads_the_packed_list(names):
    n = 16
    a = np.arange(n, dtype=np.float32)
    b = np.arange(n, dtype=np.float32) + 0.5
    out, _, _ = names("ListTensor", np.zeros(16, np.int32), a, b, dt="s32", n=n)
    assert out[0] == 2  # GetSize
    assert out[1:5].tolist() == [2, 2, n // 2, 1]  # tensor 0: dim, shape, pointer
    assert out[5:9].tolist() == [2, 1, n, 1]  # tensor 1
    assert out[9] == n and out[10] == 350  # GetDataObj of tensor 1: n elements, element 3 = 3.5


def test_list_tensor_desc_refuses_a_malformed_block(names):
    r = names("ListTensorBad", np.zeros(16, np.int32), np.zeros(16, np.float32), np.zeros(16, np.float32),
              dt="s32", n=16, expect_fail=True)
    assert "ListTensorDesc" in r.stderr and "malformed list tensor" in r.stderr


def test_intrinsics_block_index_and_forceinline(names):
    out, _, _ = names("Intrinsics", np.zeros(8, np.int32), dt="s32")
    assert out[:3].tolist() == [0, 1, 42]


def test_wait_flag_intrinsic_without_set_flag_is_a_hang(names):
    r = names("BadFlag", np.zeros(8, np.int32), dt="s32", expect_fail=True)
    assert "WaitFlag: waits for event (V->MTE3, ID 2) that no SetFlag has set" in r.stderr
    assert f"names_harness.cpp:{marked_line(HARNESS, 'badflag')}" in r.stderr


def test_assert_passes_and_fails_at_its_line(names):
    out, _, _ = names("Assert", np.zeros(8, np.int32), dt="s32", a=3)
    assert out[0] == 3
    r = names("Assert", np.zeros(8, np.int32), dt="s32", a=12, expect_fail=True)
    assert r.returncode == 3
    assert "ASSERT" in r.stderr and "assertion `x < 10` failed" in r.stderr
    assert f"names_harness.cpp:{marked_line(HARNESS, 'assert')}" in r.stderr


# Paths real operators include (ops-transformer op_kernel/ folders and CANN samples), as CANN installs them.
INSTALLED = [
    "kernel_operator.h", "kernel_operator_intf.h", "kernel_tensor.h", "kernel_tpipe.h", "kernel_utils.h",
    "kernel_operator_list_tensor_intf.h", "kernel_operator_vec_reduce_intf.h", "kernel_operator_data_copy_intf.h",
    "kernel_tiling/kernel_tiling.h", "lib/matmul_intf.h", "lib/matrix/matmul/tiling.h",
    "impl/dav_c220/kernel_operator_reg_others_impl.h", "lib/math/sin.h", "lib/math/power.h", "lib/math/clamp.h",
    "lib/activation/softmaxflashv2.h", "lib/activation/sigmoid.h", "lib/pad/broadcast.h", "lib/sort/sort.h",
    "lib/quantization/ascend_dequant.h", "lib/index/arithprogression.h", "lib/utils/init_global_memory.h",
    "basic_api/kernel_operator_intf.h", "adv_api/kernel_api.h", "kernel_log.h", "kernel_macros.h", "kernel_event.h",
    "kernel_common.h", "lib/reduce/sum.h", "lib/sort/topk.h", "lib/activation/softmax.h",
    "impl/dav_c220/kernel_operator_vec_reduce_impl.h",
]


@pytest.mark.parametrize("path", INSTALLED)
def test_installed_include_path_compiles_on_its_own(tmp_path, path):
    r = compile_snippet(f'#include "{path}"\nint main() {{ return 0; }}\n', tmp_path)
    assert r.returncode == 0, r.stderr


def test_likely_unlikely_defer_to_an_earlier_definition(tmp_path):
    code = ("#define likely(x) (x)\n#define unlikely(x) (x)\n#include \"kernel_operator.h\"\n"
            "int main() { return likely(0) + unlikely(0); }\n")
    r = compile_snippet(code, tmp_path)
    assert r.returncode == 0 and "redefined" not in r.stderr, r.stderr


def test_load_data_2d_params_is_the_legacy_spelling(tmp_path):
    code = ('#include "kernel_operator.h"\n'
            "static_assert(std::is_same<AscendC::LoadData2dParams, AscendC::LoadData2DParams>::value, \"alias\");\n"
            "int main() { AscendC::LoadData2dParams p(0, 2, 1, 0, 0, false, 0); return p.repeatTimes == 2 ? 0 : 1; }\n")
    r = compile_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr


def test_every_new_vector_api_has_a_cost_class():
    from opkit.perf import costs

    p = costs.chip_params("ascend910b2")
    for api in [*MATH, "Exp", "ClampMax", "ClampMin", "Power", "Axpy", "Sum"]:
        c = costs.op_cost({"pipe": "V", "api": api, "dtype": "float16", "bytes": 512, "repeats": 2}, "AIV", p)
        assert c.klass != "unknown", api


def test_muls_with_cann_template_spelling_uses_the_mask_register(names):
    x = rng.uniform(-2, 2, 64).astype(np.float32)
    out, _, _ = names("MulsNoSetMask", np.zeros(64, np.float32), x, dt="f32", n=64, lo=0xF0, s=3.0)
    want = np.zeros(64, np.float32)
    want[4:8] = x[4:8] * np.float32(3.0)  # lanes 4..7 of the register set before Muls<float, false>
    assert np.array_equal(out, want)


def test_concat_then_sort_orders_the_scores(names):
    scores = rng.permutation(32).astype(np.float32)
    idx = np.arange(32, dtype=np.uint32)
    out, _, _ = names("ConcatSort", np.zeros(64, np.float32), scores, idx, np.zeros(256, np.float32), dt="f32")
    pairs = out.view(np.uint32).reshape(32, 2)
    assert np.array_equal(pairs[:, 0].view(np.float32), np.sort(scores)[::-1])
    assert np.array_equal(pairs[:, 1], np.argsort(-scores, kind="stable").astype(np.uint32))


def test_mrgsort_array_form_reports_the_merged_counts(names):
    n = 8
    a = np.sort(rng.uniform(0, 1, n).astype(np.float32))[::-1]
    b = np.sort(rng.uniform(0, 1, n).astype(np.float32))[::-1]
    lists = np.zeros((2 * n, 2), np.uint32)
    lists[:n, 0] = a.view(np.uint32)
    lists[:n, 1] = np.arange(n)
    lists[n:, 0] = b.view(np.uint32)
    lists[n:, 1] = np.arange(n) + 100
    out, _, _ = names("MrgSortArray", np.zeros(4 * n + 8, np.float32), lists.view(np.float32).ravel(), dt="f32", n=n)
    merged = out[: 4 * n].view(np.uint32).reshape(2 * n, 2)
    assert np.array_equal(merged[:, 0].view(np.float32), np.sort(np.concatenate([a, b]))[::-1])
    assert out[4 * n: 4 * n + 2].view(np.uint32).tolist() == [n, n]  # sortedNum: every element of both lists


def test_broadcast_current_spelling(names):
    row = rng.uniform(-1, 1, 16).astype(np.float16)
    out, _, _ = names("BroadcastRow", np.zeros((4, 16), np.float16), row, dt="f16", m=4, k=16)
    assert np.array_equal(out, np.broadcast_to(row, (4, 16)))


def test_named_constants_and_bf16_round_trip(names):
    out, _, _ = names("Constants", np.zeros(8, np.int32), dt="s32")
    assert out.tolist() == [8, 16, 64, 8, 16, 1, 15, 24]


def test_ascendc_assert_runs_its_log_then_stops(names):
    out, _, r = names("AscendcAssert", np.zeros(8, np.int32), dt="s32", a=4)
    assert out[0] == 4 and "[INFO]" in r.stderr and "x = 4" in r.stderr
    r = names("AscendcAssert", np.zeros(8, np.int32), dt="s32", a=11, expect_fail=True)
    assert r.returncode == 3
    assert "[ERROR]" in r.stderr and "x is 11, must be below 10" in r.stderr
    assert "ASCENDC_ASSERT" in r.stderr and f"names_harness.cpp:{marked_line(HARNESS, 'ascendc_assert')}" in r.stderr


def test_data_copy_params_braces_pick_the_four_field_struct(tmp_path):
    # {count, len, srcStride, dstStride} is a DataCopyParams: DataCopyExtParams takes five fields (rsv too), as in CANN
    code = ('#include "kernel_operator.h"\nusing namespace AscendC;\n'
            "void f(LocalTensor<half>& l, GlobalTensor<half>& g) {\n"
            "    DataCopyPad(l, g, {1, static_cast<uint16_t>(64), 0, 0}, {false, 0, 0, 0});\n"
            "    DataCopyPad(l, g, {1, 64u, 0u, 0u, 0u}, {false, 0, 0, half(0)});\n}\n")
    r = compile_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr


def test_data_copy_pad_impl_entry_points_with_raw_addresses(names):
    rows, length = 3, 10
    x = rng.uniform(-1, 1, rows * length).astype(np.float16)
    out, _, _ = names("PadImplIn", np.zeros((rows, 16), np.float16), x, dt="s32", rows=rows, len=length, pad=7.0)
    want = np.full((rows, 16), 7.0, np.float16)
    want[:, :length] = x.reshape(rows, length)  # each row padded to 32 B with the pad value
    assert np.array_equal(out, want)
    src = rng.uniform(-1, 1, (rows, 16)).astype(np.float16)
    out, _, _ = names("PadImplOut", np.zeros(rows * length + 16, np.float16), src, dt="s32", rows=rows, len=length)
    assert np.array_equal(out[: rows * length], src[:, :length].ravel())  # the padding is not written to GM


def test_data_copy_pad_impl_refuses_an_address_outside_the_kernels_ub(names):
    r = names("PadImplBad", np.zeros(16, np.float16), np.zeros(64, np.float16), dt="s32", expect_fail=True)
    assert "DataCopyPadGm2UBImpl: UB address 190000 is outside the UB the kernel's buffers occupy" in r.stderr
    assert f"names_harness.cpp:{marked_line(HARNESS, 'padbad')}" in r.stderr


def _tree_sum(v: np.ndarray, dtype) -> np.ndarray:
    """The vector unit's reduction: adjacent pairs per 256-B repeat, rounded to the dtype after each add."""
    e = 256 // np.dtype(dtype).itemsize
    v = v.astype(dtype)
    while v.size > 1:
        parts = []
        for i in range(0, v.size, e):
            p = v[i:i + e]
            while p.size > 1:
                head = (p[0:p.size - p.size % 2:2].astype(np.float32) + p[1::2][: p.size // 2].astype(np.float32)).astype(dtype)
                p = np.concatenate([head, p[-1:]]) if p.size % 2 else head
            parts.append(p[0])
        v = np.array(parts, dtype)
    return v[0]


@pytest.mark.parametrize("dt,n", [("f32", 20), ("f32", 150), ("f16", 40)])
def test_sum_rows_over_the_valid_elements(names, dt, n):
    t = DT[dt]
    per = 32 // np.dtype(t).itemsize
    inner = (n + per - 1) // per * per
    outter = 3
    x = rng.uniform(-2, 2, (outter, inner)).astype(t)
    x[:, n:] = 1000  # padding past n is not summed
    for tmp in (0, 1):
        out, _, _ = names("SumRows", np.zeros(16, t), x.ravel(), None, np.zeros(256, np.uint8), dt=dt, outter=outter,
                          inner=inner, nn=n, tmp=tmp)
        want = np.array([_tree_sum(x[r, :n], t) for r in range(outter)], t)
        assert np.array_equal(out[:outter], want)


def test_sum_refuses_an_inner_that_is_not_n_aligned(names):
    r = names("SumRows", np.zeros(16, np.float32), np.zeros(64, np.float32), dt="f32", outter=2, inner=20, nn=20, tmp=0,
              expect_fail=True)
    assert "SumParams inner 20 must be n = 20 rounded up to 32 bytes (24)" in r.stderr


CCE_BIN = {"vadd": np.add, "vmul": np.multiply, "vmax": np.maximum}


@pytest.mark.parametrize("fn", [*CCE_BIN, "vadds", "vmuls", "vexp", "vabs", "vector_dup"])
def test_cce_vector_intrinsics_on_raw_addresses(names, fn):
    n = 128  # two repeats of 64 floats
    a = rng.uniform(-3, 3, n).astype(np.float32)
    b = rng.uniform(-3, 3, n).astype(np.float32)
    out, _, _ = names("Cce", np.zeros(n, np.float32), a, b, dt="f32", fn=fn, rep=2, s=1.5, hi=0, lo=(1 << 40) - 1)
    s = np.float32(1.5)
    full = {"vadds": a + s, "vmuls": a * s, "vexp": np.exp(a.astype(np.float64)).astype(np.float32), "vabs": np.abs(a),
            "vector_dup": np.full(n, s, np.float32)}.get(fn)
    if full is None:
        full = CCE_BIN[fn](a, b)
    on = np.tile(np.arange(64) < 40, 2)  # the mask register: the first 40 lanes of each repeat
    want = np.where(on, full, np.float32(0))
    assert np.allclose(out, want, rtol=1e-6, atol=0) if fn == "vexp" else np.array_equal(out, want)


def test_cce_vcadd_sums_each_repeat_and_refuses_other_modes(names):
    a = rng.uniform(-1, 1, 128).astype(np.float32)
    out, _, _ = names("Cce", np.zeros(8, np.float32), a, dt="f32", fn="vcadd", rep=2, mode=0)
    assert np.allclose(out[:2], [a[:64].sum(), a[64:].sum()], rtol=1e-5)
    r = names("Cce", np.zeros(8, np.float32), a, dt="f32", fn="vcadd", rep=2, mode=1, expect_fail=True)
    assert "vcadd: mode 1 is not modelled" in r.stderr and f"names_harness.cpp:{marked_line(HARNESS, 'vcadd')}" in r.stderr


GE_NAMES = {"float16": "DT_FLOAT16", "bfloat16": "DT_BF16", "float32": "DT_FLOAT", "float64": "DT_DOUBLE",
            "int8": "DT_INT8", "uint8": "DT_UINT8", "int16": "DT_INT16", "uint16": "DT_UINT16", "int32": "DT_INT32",
            "uint32": "DT_UINT32", "int64": "DT_INT64", "uint64": "DT_UINT64", "bool": "DT_BOOL",
            "complex64": "DT_COMPLEX64", "int4": "DT_INT4"}


def test_dtype_and_format_numbers_select_preprocessor_branches_as_cann_builds_them(tmp_path):
    """kernel_type.h: ``#if ORIG_DTYPE_X == DT_FLOAT16`` holds for the half column only (an undefined DT_FLOAT16
    would read as 0, DT_FLOAT's number, and pick the half branch for float32); the build's ORIG_DTYPE_<ARG> and
    FORMAT_<ARG> carry ge's numbers."""
    from opkit.dtypes import DTYPES, FORMAT_VALUES

    assert set(GE_NAMES) == set(DTYPES)
    checks = []
    for i, (name, d) in enumerate(DTYPES.items()):
        others = " || ".join(f"ORIG_DTYPE_{i} == {g}" for n, g in GE_NAMES.items() if n != name)
        checks.append(f"#define ORIG_DTYPE_{i} {d.ge_value}\n#if ORIG_DTYPE_{i} != {GE_NAMES[name]} || {others}\n"
                      f"#error {name}: ORIG_DTYPE picks the wrong branch\n#endif")
    for i, (name, v) in enumerate(FORMAT_VALUES.items()):
        checks.append(f"#define FORMAT_{i} {v}\n#if FORMAT_{i} != FORMAT_{name}\n#error format {name}\n#endif")
    r = compile_snippet('#include "kernel_operator.h"\n' + "\n".join(checks) + "\n", tmp_path)
    assert r.returncode == 0, r.stderr


def test_host_headers_after_the_kernel_header_keep_ges_enums(tmp_path):
    """A unit that includes kernel_operator.h and then graph/types.h (host code) gets ge's enumerators back."""
    r = compile_snippet('#include "kernel_operator.h"\n#include "graph/types.h"\n'
                        "static_assert(ge::DT_FLOAT16 == 1 && ge::FORMAT_ND == 2, \"ge enums\");\n"
                        "#ifdef DT_FLOAT16\n#error the macro hides ge::DT_FLOAT16\n#endif\n", tmp_path)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("fn,red", [("vcgadd", np.sum), ("vcgmax", np.max), ("vcgmin", np.min)])
def test_cce_block_reductions_one_result_per_enabled_block(names, fn, red):
    # the first 40 lanes of each 64-float repeat are enabled: blocks 0..4 give one result each, at r * 8 + block
    a = rng.uniform(-3, 3, 128).astype(np.float32)
    out, _, _ = names("Cce", np.zeros(16, np.float32), a, dt="f32", fn=fn, rep=2, hi=0, lo=(1 << 40) - 1)
    want = np.zeros(16, np.float32)
    for r in range(2):
        for b in range(5):
            want[r * 8 + b] = red(a[r * 64 + b * 8: r * 64 + b * 8 + 8])
    assert np.allclose(out, want, rtol=1e-6, atol=0) if fn == "vcgadd" else np.array_equal(out, want)


def test_kernel_and_host_tiling_headers_in_one_translation_unit(tmp_path):
    """CANN's samples put the kernel and its host tiling in one file (kernel_operator.h and
    tiling/tiling_api.h together): the two header sets must not clash."""
    r = compile_snippet('#include "kernel_operator.h"\n#include "tiling/tiling_api.h"\n'
                        'int main() { matmul_tiling::MultiCoreMatmulTiling t; (void)t; return 0; }\n', tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
