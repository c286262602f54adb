"""Vector APIs of the simulator against NumPy models (bit-exact where the hardware rounds once)."""

from __future__ import annotations

import numpy as np
import pytest

DT = {"f16": np.float16, "f32": np.float32, "s32": np.int32, "s16": np.int16, "u32": np.uint32, "u16": np.uint16}
rng = np.random.default_rng(1234)


def rand(dt: str, n: int, lo=-100.0, hi=100.0) -> np.ndarray:
    t = DT[dt]
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        return rng.integers(max(info.min, -30000), min(info.max, 30000), n, dtype=np.int64).astype(t)
    return rng.uniform(lo, hi, n).astype(t)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        return np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b))
    return np.array_equal(a, b)


BIN = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Max": np.maximum, "Min": np.minimum}


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("op", list(BIN))
def test_binary_count_float(vec, op, dt):
    n = 300
    a, b = rand(dt, n), rand(dt, n)
    if op == "Div":
        b[b == 0] = 1
    a[:4] = [np.nan, np.inf, -np.inf, 0]
    out, _, _ = vec(op, np.zeros(n, DT[dt]), a, b, dt=dt, n=n)
    # the vector unit rounds its destination once: float math rounded to the dtype
    want = BIN[op](a.astype(np.float32), b.astype(np.float32)).astype(DT[dt])
    assert same_bits(out, want)


@pytest.mark.parametrize("dt", ["s32", "s16"])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Max", "Min"])
def test_binary_count_int_wraps(vec, op, dt):
    n = 96
    a, b = rand(dt, n), rand(dt, n)
    out, _, _ = vec(op, np.zeros(n, DT[dt]), a, b, dt=dt, n=n)
    want = BIN[op](a.astype(np.int64), b.astype(np.int64)).astype(DT[dt])
    assert np.array_equal(out, want)


def test_count_leaves_tail_untouched(vec):
    n = 100
    a, b = rand("f16", 128), rand("f16", 128)
    dst = np.full(128, 7, np.float16)
    out, _, _ = vec("Add", dst, a, b, dt="f16", n=n)
    assert same_bits(out[:n], (a[:n] + b[:n]).astype(np.float16))
    assert np.all(out[n:] == 7)


def lanes_model(E, rep, mask_bits, strides, esz):
    """(repeat, lane) -> element offset per operand, as documented for the high-dim API."""
    epb = 32 // esz
    res = []
    for r in range(rep):
        for e in range(E):
            if not mask_bits[e]:
                continue
            res.append([r * rs * epb + (e // epb) * bs * epb + e % epb for (bs, rs) in strides])
    return res


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_binary_mask_repeat_strides(vec, dt):
    esz = np.dtype(DT[dt]).itemsize
    E = 256 // esz
    m0, m1 = 0xF0F0_1234_8001_FFFF, 0x0000_FFFF_0F0F_0001
    bits = [(m0 >> i) & 1 for i in range(64)] + ([(m1 >> i) & 1 for i in range(64)] if E == 128 else [])
    rep = 3
    db, s0b, s1b, dr, s0r, s1r = 2, 1, 1, 16, 8, 0
    size = 3 * 16 * (32 // esz) + 16 * 32 // esz
    a, b = rand(dt, size), rand(dt, size)
    dst = np.full(size, -5, DT[dt])
    params = dict(dt=dt, rep=rep, m0=m0, m1=m1, db=db, s0b=s0b, s1b=s1b, dr=dr, s0r=s0r, s1r=s1r)
    out, _, _ = vec("Add", dst, a, b, **params)
    want = dst.copy()
    for od, o0, o1 in lanes_model(E, rep, bits, [(db, dr), (s0b, s0r), (s1b, s1r)], esz):
        want[od] = (np.float32(a[o0]) + np.float32(b[o1])).astype(DT[dt])
    assert same_bits(out, want)


def test_continuous_mask_and_counter_mode(vec):
    E, rep = 128, 2
    a, b = rand("f16", 512), rand("f16", 512)
    dst = np.full(512, 3, np.float16)
    out, _, _ = vec("Mul", dst, a, b, dt="f16", rep=rep, mask=100)
    want = dst.copy()
    for r in range(rep):
        sl = slice(r * E, r * E + 100)
        want[sl] = (a[sl] * b[sl]).astype(np.float16)
    assert same_bits(out, want)
    # counter mode: the mask is the total element count, repeatTime is ignored
    out, _, _ = vec("Mul", dst, a, b, dt="f16", rep=1, mask=300, counter=1)
    want = dst.copy()
    want[:300] = (a[:300] * b[:300]).astype(np.float16)
    assert same_bits(out, want)


UN = {
    "Exp": np.exp, "Ln": np.log, "Abs": np.abs, "Sqrt": np.sqrt,
    "Rsqrt": lambda x: np.float32(1) / np.sqrt(x), "Reciprocal": lambda x: np.float32(1) / x,
    "Relu": lambda x: np.where(np.isnan(x), x, np.maximum(x, np.float32(0))),
}


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("op", list(UN))
def test_unary(vec, op, dt):
    n = 256
    a = rand(dt, n, -8, 8)
    if op in ("Ln", "Sqrt", "Rsqrt"):
        a = np.abs(a)
    a[:3] = [np.nan, 0, -0.0] if op not in ("Ln", "Sqrt", "Rsqrt") else [np.nan, 0, np.inf]
    with np.errstate(all="ignore"):
        out, _, _ = vec(op, np.zeros(n, DT[dt]), a, dt=dt, n=n)
        want = UN[op](a.astype(np.float32)).astype(DT[dt])
    if op in ("Exp", "Ln"):  # transcendental: libm vs NumPy may differ by one float32 ulp
        np.testing.assert_allclose(out.astype(np.float64), want.astype(np.float64), rtol=2e-3 if dt == "f16" else 2e-6)
    else:
        assert same_bits(out, want)


def test_unary_masked(vec):
    a = rand("f32", 256, 0.5, 4)
    dst = np.full(256, 9, np.float32)
    out, _, _ = vec("Sqrt", dst, a, dt="f32", rep=2, mask=10, sr=16, dr=8)
    want = dst.copy()
    for r in range(2):
        want[r * 64: r * 64 + 10] = np.sqrt(a[r * 128: r * 128 + 10])
    assert same_bits(out, want)


@pytest.mark.parametrize("dt", ["f16", "f32", "s32"])
@pytest.mark.parametrize("op", ["Adds", "Muls", "Maxs", "Mins"])
def test_scalar_ops(vec, op, dt):
    n = 128
    a = rand(dt, n)
    s = 3 if dt == "s32" else 2.7
    out, _, _ = vec(op, np.zeros(n, DT[dt]), a, dt=dt, n=n, s=s)
    f = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum}[op]
    if dt == "s32":
        want = f(a.astype(np.int64), s).astype(np.int32)
    else:
        sc = np.float32(DT[dt](s))  # the scalar is converted to the tensor dtype first
        want = f(a.astype(np.float32), sc).astype(DT[dt])
    assert same_bits(out, want)


def _shift_model(a: np.ndarray, n: int, left: bool, round_en: bool = False) -> np.ndarray:
    """Shifts as documented for A2: logical for unsigned types; arithmetic for signed ones, where a
    left shift keeps the sign bit (int16 0xAAAA << 1 == 0xD554) and a rounding right shift adds the
    last bit shifted out."""
    bits = a.dtype.itemsize * 8
    u = a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.uint64)
    full = (1 << bits) - 1
    signed = np.issubdtype(a.dtype, np.signedinteger)
    if left:
        moved = (u << np.uint64(n)) & np.uint64(full) if n < bits else np.zeros_like(u)
        if signed:
            sign = np.uint64(1 << (bits - 1))
            moved = (u & sign) | (moved & ~sign & np.uint64(full))
        return moved.astype(a.view(np.dtype(f"u{a.dtype.itemsize}")).dtype).view(a.dtype)
    if not signed:
        return (u >> np.uint64(n)).astype(a.dtype) if n < bits else np.zeros_like(a)
    v = a.astype(np.int64)
    r = v >> n if n < bits else np.where(v < 0, -1, 0)
    if round_en and 0 < n <= bits:
        r = r + ((v >> (n - 1)) & 1)
    return r.astype(a.dtype)


def test_shift_documented_examples(vec):
    a = np.full(16, -21846, np.int16)  # 0b1010101010101010
    out, _, _ = vec("ShiftLeft", np.zeros(16, np.int16), a, dt="s16", n=16, s=1)
    assert np.all(out.view(np.uint16) == 0b1101010101010100)
    out, _, _ = vec("ShiftLeft", np.zeros(16, np.int16), a, dt="s16", n=16, s=3)
    assert np.all(out.view(np.uint16) == 0b1101010101010000)
    out, _, _ = vec("ShiftLeft", np.zeros(16, np.uint16), a.view(np.uint16), dt="u16", n=16, s=1)
    assert np.all(out == 0b0101010101010100)
    out, _, _ = vec("ShiftRight", np.zeros(16, np.int16), a, dt="s16", n=16, s=3)
    assert np.all(out.view(np.uint16) == 0b1111010101010101)
    out, _, _ = vec("ShiftRight", np.zeros(16, np.uint16), a.view(np.uint16), dt="u16", n=16, s=1)
    assert np.all(out == 0b0101010101010101)
    x = np.full(128, 17, np.int16)  # 17 >> 5 with rounding: bit 4 is 1, so 0 + 1
    out, _, _ = vec("ShiftRight", np.zeros(128, np.int16), x, dt="s16", rep=1, mask=128, s=5, round=1)
    assert np.all(out == 1)
    out, _, _ = vec("ShiftRight", np.zeros(128, np.int16), x, dt="s16", rep=1, mask=128, s=5, round=0)
    assert np.all(out == 0)


@pytest.mark.parametrize("dt", ["s16", "u16", "s32", "u32"])
@pytest.mark.parametrize("count", [0, 1, 7, 15, 16])
def test_shifts_against_the_model(vec, dt, count):
    n = 128
    info = np.iinfo(DT[dt])
    a = rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True).astype(DT[dt])
    count = count * (2 if dt in ("s32", "u32") else 1)
    for op, left in (("ShiftLeft", True), ("ShiftRight", False)):
        out, _, _ = vec(op, np.zeros(n, DT[dt]), a, dt=dt, n=n, s=count)
        assert np.array_equal(out, _shift_model(a, count, left)), (op, dt, count)
    if dt.startswith("s"):
        per = 256 // a.dtype.itemsize
        out, _, _ = vec("ShiftRight", np.zeros(n, DT[dt]), a, dt=dt, rep=n // per, mask=per, s=count, round=1)
        assert np.array_equal(out, _shift_model(a, count, False, round_en=True)), (dt, count)


def test_shift_count_out_of_range_is_refused(vec):
    r = vec("ShiftLeft", np.zeros(16, np.int16), np.ones(16, np.int16), dt="s16", n=16, s=17, expect_fail=True)
    assert "shift count 17 is outside [0, 16]" in r.stderr


def test_duplicate_and_bf16_duplicate(vec):
    out, _, _ = vec("Duplicate", np.zeros(64, np.float16), dt="f16", n=50, s=1.5)
    assert np.all(out[:50] == 1.5) and np.all(out[50:] == 0)
    out, _, _ = vec("Duplicate", np.zeros(64, np.uint16), dt="bf16", n=64, s=-2.25)
    assert np.all(out == 0xC010)  # bfloat16 bits of -2.25
    out, _, _ = vec("Duplicate", np.zeros(256, np.float32), dt="f32", rep=2, mask=8, db=2, dr=16, s=4)
    want = np.zeros(256, np.float32)
    want[0:8] = 4
    want[128:136] = 4
    assert np.array_equal(out, want)


def test_compare_select(vec):
    n = 256
    a, b = rand("f16", n), rand("f16", n)
    a[:8] = b[:8]
    a[8] = np.nan
    for mode, f in [("lt", np.less), ("eq", np.equal), ("ne", np.not_equal), ("ge", np.greater_equal)]:
        out, _, _ = vec("Compare", np.zeros(n // 8, np.uint8), a, b, dt="f16", n=n, cmp=mode)
        assert np.array_equal(np.unpackbits(out, bitorder="little").astype(bool), f(a, b)), mode
    out, _, _ = vec("CompareScalar", np.zeros(n // 8, np.uint8), a, dt="f16", n=n, cmp="gt", s=10)
    assert np.array_equal(np.unpackbits(out, bitorder="little").astype(bool), a > np.float16(10))
    sel = rng.integers(0, 256, n // 8, dtype=np.uint8)
    bits = np.unpackbits(sel, bitorder="little").astype(bool)
    out, _, _ = vec("Select", np.zeros(n, np.float16), a, b, sel, dt="f16", n=n)
    assert same_bits(out, np.where(bits, a, b))
    out, _, _ = vec("SelectScalar", np.zeros(n, np.float16), a, None, sel, dt="f16", n=n, s=-1)
    assert same_bits(out, np.where(bits, a, np.float16(-1)))


def test_compare_and_select_mask_forms(vec):
    E, rep = 64, 2
    a, b = rand("f32", 256), rand("f32", 256)
    out, _, _ = vec("CompareMasked", np.zeros(16, np.uint8), a, b, dt="f32", cmp="gt", mask=40, rep=rep, s0r=16, s1r=8)
    bits = np.unpackbits(out, bitorder="little").astype(bool)
    for r in range(rep):
        want = np.zeros(E, bool)
        want[:40] = a[r * 128: r * 128 + 40] > b[r * 64: r * 64 + 40]
        assert np.array_equal(bits[r * E:(r + 1) * E], want)
    sel = rng.integers(0, 256, 16, dtype=np.uint8)
    sbits = np.unpackbits(sel, bitorder="little").astype(bool)
    dst = np.full(128, -7, np.float32)
    for mode in (0, 2):
        out, _, _ = vec("SelectMasked", dst, a, b, sel, dt="f32", mode=mode, mask=50, rep=rep)
        want = dst.copy()
        for r in range(rep):
            for e in range(50):
                bit = sbits[e] if mode == 0 else sbits[r * E + e]
                want[r * E + e] = a[r * E + e] if bit else b[r * E + e]
        assert np.array_equal(out, want), mode


def test_compare_count_not_256_bytes_is_refused(vec):
    r = vec("Compare", np.zeros(8, np.uint8), rand("f16", 64), rand("f16", 64), dt="f16", n=64, expect_fail=True)
    assert "multiple of 256 B" in r.stderr


def tree_sum(v, dt, sat=False):
    v = list(v.astype(DT[dt]))
    while len(v) > 1:
        nxt = []
        for i in range(0, len(v) - 1, 2):
            s = np.float32(v[i]) + np.float32(v[i + 1])
            if sat and np.isfinite(v[i]) and np.isfinite(v[i + 1]):
                s = np.clip(s, -65504, 65504)
            nxt.append(DT[dt](s))
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return v[0]


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_reduce_sum_tree_per_repeat(vec, dt):
    n = 700
    a = rand(dt, n, -2, 2)
    out, _, _ = vec("ReduceSum", np.zeros(16, DT[dt]), a, np.zeros(n, DT[dt]), dt=dt, n=n)
    E = 256 // np.dtype(DT[dt]).itemsize
    parts = np.array([tree_sum(a[i:i + E], dt, dt == "f16") for i in range(0, n, E)], DT[dt])
    while len(parts) > 1:
        parts = np.array([tree_sum(parts[i:i + E], dt, dt == "f16") for i in range(0, len(parts), E)], DT[dt])
    assert same_bits(out[:1], parts[:1])
    assert abs(float(out[0]) - float(a.astype(np.float64).sum())) < (0.5 if dt == "f16" else 1e-3)


def test_fp16_sum_saturates_at_65504(vec):
    a = np.array([60000, 60000, -30000, 100] + [0] * 12, np.float16)
    out, _, _ = vec("BlockReduceSum", np.zeros(16, np.float16), a, dt="f16", rep=1, mask=16)
    # documented example: 60000 + 60000 saturates to 65504 (not inf), -30000 + 100 = -29900, then
    # 65504 - 29900; every partial is an fp16 value, so the last sum rounds to 35584 (nearest even)
    want = np.float16(np.float32(np.float16(65504)) + np.float32(np.float16(-29900)))
    assert float(out[0]) == float(want) == 35584.0


@pytest.mark.parametrize("op,f", [("ReduceMax", np.argmax), ("ReduceMin", np.argmin)])
def test_reduce_max_min_index(vec, op, f):
    n = 333
    a = rand("f32", n)
    a[200] = a[100] = 500 if op == "ReduceMax" else -500  # ties -> first index
    out, _, _ = vec(op, np.zeros(8, np.float32), a, np.zeros(n, np.float32), dt="f32", n=n, idx=1)
    assert out[0] == a[f(a)]
    assert out[1:2].view(np.uint32)[0] == f(a) == 100
    out16, _, _ = vec(op, np.zeros(16, np.float16), a.astype(np.float16), np.zeros(n, np.float16), dt="f16", n=n, idx=1)
    assert out16[1:2].view(np.uint16)[0] == 100


def test_whole_block_pair_reduce(vec):
    a = rand("f32", 256, -4, 4)
    out, _, _ = vec("WholeReduceSum", np.zeros(8, np.float32), a, dt="f32", rep=4, mask=64, dr=2)
    for r in range(4):
        assert out[2 * r] == tree_sum(a[r * 64:(r + 1) * 64], "f32")
        assert out[2 * r + 1] == 0
    out, _, _ = vec("WholeReduceMax", np.zeros(8, np.float32), a, dt="f32", rep=4, mask=64, dr=1)
    for r in range(4):
        seg = a[r * 64:(r + 1) * 64]
        assert out[2 * r] == seg.max() and out[2 * r:2 * r + 2].view(np.uint32)[1] == np.argmax(seg)
    out, _, _ = vec("BlockReduceMax", np.zeros(16, np.float32), a, dt="f32", rep=2, mask=64)
    assert np.array_equal(out, a[:128].reshape(16, 8).max(axis=1))
    out, _, _ = vec("PairReduceSum", np.zeros(64, np.float32), a, dt="f32", rep=2, mask=64)
    assert np.array_equal(out, (a[:128:2] + a[1:128:2]).astype(np.float32))


def test_brcb(vec):
    a = rand("f32", 16)
    out, _, _ = vec("Brcb", np.zeros(128, np.float32), a, dt="f32", rep=2, db=1, dr=8)
    assert np.array_equal(out, np.repeat(a, 8))


def test_gather_mask_builtin_and_user(vec):
    a = rand("f32", 128)
    out, rsvd, _ = vec("GatherMask", np.zeros(128, np.float32), a, dt="f32", pattern=1, reduce=0, rep=2, mask=0)
    assert rsvd == 64 and np.array_equal(out[:64], a[0:128:2])
    out, rsvd, _ = vec("GatherMask", np.zeros(128, np.float32), a, dt="f32", pattern=6, reduce=1, rep=1, mask=128)
    assert rsvd == 32 and np.array_equal(out[:32], a[3::4])
    pat = rng.integers(0, 2**32, 2, dtype=np.uint64).astype(np.uint32)
    out, rsvd, _ = vec("GatherMask", np.zeros(64, np.float32), a, pat, dt="f32", reduce=1, rep=1, mask=64, pr=0)
    bits = np.unpackbits(pat.view(np.uint8), bitorder="little").astype(bool)
    assert rsvd == bits.sum() and np.array_equal(out[:rsvd], a[:64][bits])


def test_gather_bytes_offsets(vec):
    a = rand("f16", 64)
    idx = rng.integers(0, 64, 48).astype(np.uint32)
    out, _, _ = vec("Gather", np.zeros(48, np.float16), a, idx * 2, dt="f16", n=48, base=0)
    assert same_bits(out, a[idx])
    r = vec("Gather", np.zeros(48, np.float16), a, idx * 2 + 1, dt="f16", n=48, base=0, expect_fail=True)
    assert "multiple of 2" in r.stderr


def test_arith_progression(vec):
    out, _, _ = vec("ArithProgression", np.zeros(40, np.float32), dt="f32", n=40, first=1.5, diff=0.25)
    assert np.array_equal(out, (1.5 + 0.25 * np.arange(40)).astype(np.float32))
    out, _, _ = vec("ArithProgression", np.zeros(32, np.int32), dt="s32", n=32, first=-3, diff=2)
    assert np.array_equal(out, -3 + 2 * np.arange(32))


def pairs(buf: np.ndarray, dt: str):
    raw = buf.view(np.uint8).reshape(-1, 8)
    sc = raw[:, : np.dtype(DT[dt]).itemsize].copy().view(DT[dt]).ravel()
    ix = raw[:, 4:8].copy().view(np.uint32).ravel()
    return sc, ix


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_sort32_and_full_sort(vec, dt):
    n = 64
    s = rand(dt, n)
    s[5] = s[6]  # equal scores keep their order
    idx = np.arange(n, dtype=np.uint32) + 1000
    out, _, _ = vec("Sort32", np.zeros(n * 8, np.uint8), s, idx, dt=dt, rep=2)
    sc, ix = pairs(out, dt)
    for g in range(2):
        seg = s[g * 32:(g + 1) * 32]
        order = np.argsort(-seg.astype(np.float64), kind="stable")
        assert np.array_equal(ix[g * 32:(g + 1) * 32], idx[g * 32:(g + 1) * 32][order])
        assert same_bits(sc[g * 32:(g + 1) * 32], seg[order])
    out, _, _ = vec("SortFull", np.zeros(n * 8, np.uint8), s, idx, np.zeros(n * 8, np.uint8), dt=dt, rep=2)
    sc, ix = pairs(out, dt)
    order = np.argsort(-s.astype(np.float64), kind="stable")
    assert np.array_equal(ix, idx[order])


def test_mrgsort_four_lists(vec):
    lens = [5, 3, 7, 2]
    lists = []
    for k, L in enumerate(lens):
        sc = np.sort(rand("f32", L))[::-1].astype(np.float32)
        raw = np.zeros((L, 2), np.uint32)
        raw[:, 0] = sc.view(np.uint32)
        raw[:, 1] = np.arange(L) + 100 * k
        lists.append(raw)
    src = np.concatenate(lists).ravel()
    total = sum(lens)
    out, rsvd, _ = vec("MrgSort", np.zeros(total * 2, np.uint32), src, dt="f32", l0=5, l1=3, l2=7, l3=2, valid=15)
    sc = out.reshape(-1, 2)[:, 0].view(np.float32)
    ix = out.reshape(-1, 2)[:, 1]
    allsc = np.concatenate([lst[:, 0].view(np.float32) for lst in lists])
    allix = np.concatenate([lst[:, 1] for lst in lists])
    order = np.argsort(-allsc.astype(np.float64), kind="stable")
    assert np.array_equal(ix, allix[order]) and np.array_equal(sc, allsc[order])
    assert [(rsvd >> (16 * i)) & 0xFFFF for i in range(4)] == lens


def test_sigmoid_rounds_each_step(vec):
    a = rand("f16", 128, -6, 6)
    out, _, _ = vec("Sigmoid", np.zeros(128, np.float16), a, dt="f16", n=128)
    t = (-a.astype(np.float32)).astype(np.float16)
    t = np.exp(t.astype(np.float32)).astype(np.float16)
    t = (t.astype(np.float32) + 1).astype(np.float16)
    want = (np.float32(1) / t.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=1e-3)
    ref = 1 / (1 + np.exp(-a.astype(np.float64)))
    assert np.max(np.abs(out - ref)) < 2e-3


def test_vector_copy_strided(vec):
    a = rand("s16", 512)
    out, _, _ = vec("Copy", np.zeros(256, np.int16), a, dt="s16", rep=2, mask=128, sb=2, sr=16, db=1, dr=8)
    want = np.zeros(256, np.int16)
    for r in range(2):
        for e in range(128):
            want[r * 128 + e] = a[r * 256 + (e // 16) * 32 + e % 16]
    assert np.array_equal(out, want)


@pytest.mark.parametrize("op", ["Gelu", "FasterGelu", "Silu"])
def test_activation_apis(vec, op):
    a = rand("f32", 256, -6, 6)
    out, _, _ = vec(op, np.zeros(256, np.float32), a, dt="f32", n=256)
    x = a.astype(np.float64)
    ref = {"Gelu": x / (1 + np.exp(-1.59576912 * (x + 0.044715 * x ** 3))),
           "FasterGelu": x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x))),
           "Silu": x / (1 + np.exp(-x))}[op]
    np.testing.assert_allclose(out, ref, rtol=2e-5, atol=1e-6)


def test_reduce_masked_forms(vec):
    a = rand("f32", 512, -4, 4)
    out, _, _ = vec("ReduceSumMasked", np.zeros(8, np.float32), a, np.zeros(512, np.float32), dt="f32", mask=20, rep=3, sr=16)
    parts = np.array([tree_sum(np.concatenate([a[r * 128: r * 128 + 20], np.zeros(44, np.float32)]), "f32") for r in range(3)],
                     np.float32)
    assert out[0] == tree_sum(parts, "f32")
    out, _, _ = vec("ReduceMaxMasked", np.zeros(8, np.float32), a, np.zeros(512, np.float32), dt="f32", mask=20, rep=3, sr=16)
    sel = np.concatenate([np.arange(r * 128, r * 128 + 20) for r in range(3)])
    best = sel[np.argmax(a[sel])]
    assert out[0] == a[best] and out[1:2].view(np.uint32)[0] == best


def test_broadcast_last_axis(vec):
    a = rand("f32", 8)
    out, _, _ = vec("BroadCast2", np.zeros(8 * 16, np.float32), a, dt="f32", r=8, c=16)
    assert np.array_equal(out.reshape(8, 16), np.repeat(a[:, None], 16, axis=1))


@pytest.mark.parametrize("scalar_first", [0, 1])
def test_select_with_bytes_mask(vec, scalar_first):
    r, c, mc = 4, 16, 32
    a = rand("f16", r * c)
    m = rng.integers(0, 2, (r, mc)).astype(np.uint8)
    out, _, _ = vec("SelectBytes", np.zeros(r * c, np.float16), a, None, m, dt="f16", r=r, c=c, mc=mc, s=-3,
                    scalar_first=scalar_first)
    zero = m[:, :c].ravel() == 0
    if scalar_first:
        want = np.where(zero, np.float16(-3), a)  # mask 0 -> the first source (here the scalar)
    else:
        want = np.where(zero, a, np.float16(-3))
    assert same_bits(out, want.astype(np.float16))


@pytest.mark.parametrize("update", [0, 1])
def test_softmax_flash_v2(vec, update):
    m, k, kv, B = 4, 64, 60, 8
    x = rand("f32", m * k, -3, 3).reshape(m, k)
    in_max = rand("f32", m, -1, 4)
    in_sum = rand("f32", m, 1, 5)
    ins = np.concatenate([np.repeat(in_max, B), np.repeat(in_sum, B)]).astype(np.float32)
    out, _, _ = vec("SoftmaxFlashV2", np.zeros(m * k + 3 * m * B, np.float32), x.ravel(), ins, dt="f32", m=m, k=k, kv=kv,
                    update=update)
    y = out[:m * k].reshape(m, k)
    mx = out[m * k:m * k + m * B].reshape(m, B)
    sm = out[m * k + m * B:m * k + 2 * m * B].reshape(m, B)
    em = out[m * k + 2 * m * B:].reshape(m, B)
    rmax = x[:, :kv].max(axis=1)
    new_max = np.maximum(in_max, rmax) if update else rmax
    want_y = np.exp(x.astype(np.float64) - new_max[:, None])
    rsum = want_y[:, :kv].sum(axis=1)
    assert np.array_equal(mx, np.repeat(new_max[:, None], B, axis=1).astype(np.float32))
    np.testing.assert_allclose(y, want_y, rtol=1e-6)
    if update:
        want_em = np.exp(in_max.astype(np.float64) - new_max)
        np.testing.assert_allclose(em[:, 0], want_em, rtol=1e-6)
        np.testing.assert_allclose(sm[:, 0], in_sum * want_em + rsum, rtol=1e-5)
    else:
        np.testing.assert_allclose(sm[:, 0], rsum, rtol=1e-5)
        assert np.all(em == 0)
    assert np.all(sm == sm[:, :1])


def test_mrgsort_repeat_times(vec):
    L, rep = 8, 2
    lists = []
    for r in range(rep):
        for k in range(4):
            sc = np.sort(rand("f32", L))[::-1].astype(np.float32)
            raw = np.zeros((L, 2), np.uint32)
            raw[:, 0] = sc.view(np.uint32)
            raw[:, 1] = np.arange(L) + 100 * k + 1000 * r
            lists.append(raw)
    src = np.concatenate(lists).ravel()
    out, _, _ = vec("MrgSort", np.zeros(rep * 4 * L * 2, np.uint32), src, dt="f32", l0=L, l1=L, l2=L, l3=L, valid=15, rep=rep)
    got = out.reshape(rep, 4 * L, 2)
    for r in range(rep):
        part = np.concatenate(lists[4 * r: 4 * r + 4])
        order = np.argsort(-part[:, 0].view(np.float32).astype(np.float64), kind="stable")
        assert np.array_equal(got[r], part[order])
    r = vec("MrgSort", np.zeros(rep * 4 * L * 2, np.uint32), src, dt="f32", l0=L, l1=L, l2=L, l3=L - 1, valid=15, rep=rep,
            expect_fail=True)
    assert "equal length" in r.stderr


@pytest.mark.parametrize("dt,scalar", [("f16", 0), ("f32", 0), ("f16", 1)])
def test_ascend_dequant(vec, dt, scalar):
    m, n, cc = 4, 8, 6
    x = rng.integers(-5000, 5000, (m, n)).astype(np.int32)
    scale = rng.uniform(-0.01, 0.01, 8).astype(np.float32)
    nd = (n * np.dtype(DT[dt]).itemsize + 31) // 32 * 32 // np.dtype(DT[dt]).itemsize
    dst = np.full(m * nd, 7, DT[dt])
    out, _, _ = vec("Dequant", dst, x.ravel(), scale, dt=dt, m=m, nn=n, cc=cc, scalar=scalar, s=0.5)
    out = out.reshape(m, nd)
    sc = np.float32(0.5) if scalar else scale[:cc]
    want = (x[:, :cc].astype(np.float32) * sc).astype(DT[dt])
    assert same_bits(out[:, :cc], want)
    assert np.all(out[:, cc:] == 7)  # columns past calCount are not written
