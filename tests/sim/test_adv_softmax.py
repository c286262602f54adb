"""The SoftMax family (SoftMax, SimpleSoftMax, SoftmaxFlash, SoftmaxFlashV2), AdjustSoftMaxRes and DropOut
against NumPy models of their documented formulas: odd shapes (the last axis padded, several rows), half,
float and the half-source/float-statistics forms, ND and NZ, every template switch, the per-row outputs
with and without the block broadcast, the flash update over two chunks equal to a one-shot softmax,
DropOut's bit order, and the temporary-buffer rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sim_util import CPP, VecRunner, build, compile_snippet, marked_line

from opkit.build import program

DT = {"f16": np.float16, "f32": np.float32}
rng = np.random.default_rng(2024)


@pytest.fixture(scope="module")
def adv(tmp_path_factory) -> VecRunner:
    return VecRunner(build(CPP / "adv_softmax_harness.cpp"), tmp_path_factory.mktemp("adv"))


def pad32(n: int) -> int:
    return (n + 31) // 32 * 32


def per_block(dtype) -> int:
    return 32 // np.dtype(dtype).itemsize


def to_nz(x: np.ndarray) -> np.ndarray:
    m, k = x.shape
    c0 = per_block(x.dtype)
    return x.reshape(m, k // c0, c0).transpose(1, 0, 2).reshape(-1)


def from_nz(v: np.ndarray, m: int, k: int) -> np.ndarray:
    c0 = per_block(v.dtype)
    return v.reshape(k // c0, m, c0).transpose(1, 0, 2).reshape(m, k)


class Case:
    """One call: packs the inputs and the output area, runs the harness, unpacks the outputs."""

    def __init__(self, adv, op, m, k, dt="f32", mixed=False, kv=None, nz=False, brc=True, **params):
        self.adv, self.op, self.m, self.k, self.nz, self.brc = adv, op, m, k, nz, brc
        self.t = DT[dt]
        self.u = np.float32 if mixed else self.t
        self.params = dict(dt=dt, m=m, k=k, kv=kv or k, nz=int(nz), mixed=int(mixed),
                           cfg=params.pop("cfg", "normal" if brc else "nobrc"), **params)
        self.su = per_block(self.u) if brc else 1  # elements per row of max/sum
        self.se = per_block(self.t) if brc else 1  # expMax (source type)
        lay, off = {}, 0
        for name, n, ty in (("dst", m * k, self.t), ("max", m * self.su, self.u), ("sum", m * self.su, self.u),
                            ("em", m * self.se, self.t), ("rm", m * self.su, self.u)):
            lay[name] = (off, n, ty)
            off = pad32(off + n * np.dtype(ty).itemsize)
        self.lay, self.size = lay, off
        for name, (o, _, _) in lay.items():
            self.params[f"o_{name}"] = o

    def run(self, x, in_max=None, in_sum=None, expect_fail=False):
        src = to_nz(x.astype(self.t)) if self.nz else x.astype(self.t).ravel()
        ins = None
        if in_max is not None:
            a = np.repeat(np.asarray(in_max, self.u), self.su)
            b = np.repeat(np.asarray(in_sum, self.u), self.su)
            off = pad32(a.nbytes)
            ins = np.zeros(off + b.nbytes, np.uint8)
            ins[:a.nbytes] = a.view(np.uint8)
            ins[off:] = b.view(np.uint8)
            self.params.update(i_max=0, i_sum=off)
        out_init = np.zeros(self.size, np.uint8)
        r = self.adv(self.op, out_init, src, ins, expect_fail=expect_fail, **self.params)
        if expect_fail:
            return r
        out = r[0]
        res = {}
        for name, (o, n, ty) in self.lay.items():
            v = out[o:o + n * np.dtype(ty).itemsize].view(ty)
            res[name] = v
        d = res["dst"]
        res["dst"] = from_nz(d, self.m, self.k) if self.nz else d.reshape(self.m, self.k)
        for name, per in (("max", self.su), ("sum", self.su), ("em", self.se), ("rm", self.su)):
            blk = res[name].reshape(self.m, per)
            res[name + "_blk"] = blk
            res[name] = blk[:, 0]
        res["stderr"] = r[2].stderr
        res["raw"] = out
        return res


def close(got, want, dtype, rtol32=2e-6):
    want = np.asarray(want, np.float64)
    if np.dtype(dtype) == np.float16:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=1e-6)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol32, atol=1e-30)


def model(x, kv, kind="softmax", in_max=None, in_sum=None):
    """The documented formulas in float64, over the first kv columns (the padded ones computed too)."""
    x = x.astype(np.float64)
    rmax = x[:, :kv].max(axis=1)
    if kind == "simple":
        return {"dst": np.exp(x - in_max[:, None]) / in_sum[:, None]}
    update = in_max is not None
    mx = np.maximum(in_max, rmax) if update else rmax
    e = np.exp(x - mx[:, None])
    s = e[:, :kv].sum(axis=1)
    out = {"max": mx, "rmax": rmax}
    if update:
        em = np.exp(in_max - mx)
        s = em * in_sum + s
        out["em"] = em
    out["sum"] = s
    if kind == "v2":
        out["dst"] = e
    else:
        out["dst"] = e / s[:, None]
        if update:
            out["em"] = out["em"] * in_sum / s
    return out


SHAPES = {"f32": (5, 24, 21), "f16": (3, 48, 45)}  # rows, padded last axis, real last axis (oriSrcK)


# ---- SoftMax -------------------------------------------------------------------------------------

@pytest.mark.parametrize("tmp", [0, 1])
@pytest.mark.parametrize("dt,mixed", [("f32", False), ("f16", False), ("f16", True)])
@pytest.mark.parametrize("nz", [False, True])
def test_softmax_matches_numpy(adv, dt, mixed, nz, tmp):
    m, k, kv = SHAPES[dt]
    if nz:
        m, kv = 16, k  # NZ: H0 * H1 rows, the whole fractal width
    x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
    c = Case(adv, "SoftMax", m, k, dt, mixed, kv=kv, nz=nz, tmp=8192 if tmp else 0, ws=8192)
    r = c.run(x)
    want = model(x, kv)
    close(r["dst"], want["dst"], c.t)
    close(r["sum"], want["sum"], c.u)
    assert np.array_equal(r["max"], want["max"].astype(c.u))
    # every element of a row's 32-byte block holds the row's value
    assert np.array_equal(r["max_blk"], np.repeat(r["max"][:, None], per_block(c.u), axis=1))
    assert np.array_equal(r["sum_blk"], np.repeat(r["sum"][:, None], per_block(c.u), axis=1))


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_softmax_without_sum_and_max(adv, dt):
    m, k, kv = SHAPES[dt]
    x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
    for tmp in (0, 4096):
        r = Case(adv, "SoftMaxDst", m, k, dt, kv=kv, tmp=tmp, ws=4096).run(x)
        close(r["dst"], model(x, kv)["dst"], DT[dt])


def test_softmax_basic_block(adv):
    m, k = 8, 64
    x = rng.uniform(-4, 4, (m, k)).astype(np.float32)
    r = Case(adv, "SoftMax", m, k, "f32", basic=1, tmp=8192, ws=8192).run(x)
    close(r["dst"], model(x, k)["dst"], np.float32)


def test_softmax_basic_block_on_a_shape_that_is_not_one_is_an_error(adv):
    m, k, kv = SHAPES["f32"]
    r = Case(adv, "SoftMax", m, k, "f32", kv=kv, basic=1, tmp=8192, ws=8192).run(
        np.zeros((m, k), np.float32), expect_fail=True)
    assert "isBasicBlock is set but [5, 24]" in r.stderr and "IsBasicBlockInSoftMax" in r.stderr


def test_softmax_basic_block_outside_the_documented_range_warns(adv):
    m, k = 8, 64  # half: the basic path starts at 128 elements
    x = rng.uniform(-4, 4, (m, k)).astype(np.float16)
    r = Case(adv, "SoftMax", m, k, "f16", basic=1, tmp=8192, ws=8192).run(x)
    assert "outside the documented basic-block range" in r["stderr"]
    close(r["dst"], model(x, k)["dst"], np.float16)


def test_softmax_without_broadcast_mode_is_refused(adv):
    m, k, kv = SHAPES["f32"]
    r = Case(adv, "SoftMax", m, k, "f32", kv=kv, cfg="nobrc").run(np.zeros((m, k), np.float32), expect_fail=True)
    assert "SOFTMAX_OUTPUT_WITHOUT_BRC is reserved for SoftMax" in r.stderr


# ---- SimpleSoftMax -------------------------------------------------------------------------------

@pytest.mark.parametrize("dt,mixed", [("f32", False), ("f16", False), ("f16", True)])
@pytest.mark.parametrize("nz", [False, True])
def test_simple_softmax_uses_the_given_max_and_sum(adv, dt, mixed, nz):
    m, k, kv = SHAPES[dt]
    if nz:
        m = 16
    x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
    c = Case(adv, "Simple", m, k, dt, mixed, kv=kv, nz=nz, tmp=8192, ws=8192)
    in_max = rng.uniform(3, 5, m).astype(c.u)
    in_sum = rng.uniform(1, 9, m).astype(c.u)
    r = c.run(x, in_max, in_sum)
    close(r["dst"], model(x, kv, "simple", in_max.astype(np.float64), in_sum.astype(np.float64))["dst"], c.t)


# ---- SoftmaxFlash --------------------------------------------------------------------------------

@pytest.mark.parametrize("update", [0, 1])
@pytest.mark.parametrize("dt,mixed", [("f32", False), ("f16", True)])
def test_softmax_flash(adv, dt, mixed, update):
    m, k, kv = SHAPES[dt]
    x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
    c = Case(adv, "Flash", m, k, dt, mixed, kv=kv, update=update, tmp=16384, ws=16384)
    in_max = rng.uniform(-1, 5, m).astype(c.u)
    in_sum = rng.uniform(1, 9, m).astype(c.u)
    r = c.run(x, in_max, in_sum)
    want = model(x, kv, "flash", *((in_max.astype(np.float64), in_sum.astype(np.float64)) if update else ()))
    close(r["dst"], want["dst"], c.t)
    close(r["sum"], want["sum"], c.u)
    assert np.array_equal(r["max"], want["max"].astype(c.u))
    if update:
        close(r["em"], want["em"], c.t)


# ---- SoftmaxFlashV2 ------------------------------------------------------------------------------

@pytest.mark.parametrize("update", [0, 1])
@pytest.mark.parametrize("dt,mixed", [("f32", False), ("f16", False), ("f16", True)])
@pytest.mark.parametrize("layout", ["nd", "nd-nobrc", "nz"])
@pytest.mark.parametrize("tmp", [0, 1])
def test_softmax_flash_v2(adv, dt, mixed, update, layout, tmp):
    m, k, kv = SHAPES[dt]
    nz = layout == "nz"
    if nz:
        m, kv = 16, k
    x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
    c = Case(adv, "V2", m, k, dt, mixed, kv=kv, nz=nz, brc=layout != "nd-nobrc", update=update,
             tmp=16384 if tmp else 0, ws=16384)
    in_max = rng.uniform(-1, 5, m).astype(c.u)
    in_sum = rng.uniform(1, 9, m).astype(c.u)
    r = c.run(x, in_max, in_sum)
    want = model(x, kv, "v2", *((in_max.astype(np.float64), in_sum.astype(np.float64)) if update else ()))
    close(r["dst"], want["dst"], c.t)
    close(r["sum"], want["sum"], c.u)
    assert np.array_equal(r["max"], want["max"].astype(c.u))
    if update:
        close(r["em"], want["em"], c.t)
        assert np.array_equal(r["em_blk"], np.repeat(r["em"][:, None], c.se, axis=1))
    else:
        assert not r["em_blk"].any()  # expMax is only written with isUpdate
    if layout == "nd-nobrc":  # (m, 1): the rows' values back to back, nothing written after them
        for name in ("max", "sum"):
            off, n, ty = c.lay[name]
            end = off + n * np.dtype(ty).itemsize
            assert n == m and not r["raw"][end:pad32(end)].any(), name


def test_softmax_flash_v2_basic_block(adv):
    for dt, k in (("f32", 64), ("f16", 128)):
        m = 16
        x = rng.uniform(-4, 4, (m, k)).astype(DT[dt])
        c = Case(adv, "V2", m, k, dt, update=1, basic=1, tmp=32768, ws=32768)
        in_max = rng.uniform(-1, 5, m).astype(c.u)
        in_sum = rng.uniform(1, 9, m).astype(c.u)
        r = c.run(x, in_max, in_sum)
        want = model(x, k, "v2", in_max.astype(np.float64), in_sum.astype(np.float64))
        close(r["dst"], want["dst"], c.t)
        close(r["sum"], want["sum"], c.u)


@pytest.mark.parametrize("brc", [True, False])
def test_flash_v2_update_over_two_chunks_equals_a_one_shot_softmax(adv, brc):
    """The flash property: chunk 1 without update, chunk 2 with update from chunk 1's max and sum; the
    final max/sum are the whole row's, and rescaling chunk 1 by expMax gives softmax of the whole row."""
    m, k = 7, 40
    x = rng.uniform(-6, 6, (m, 2 * k)).astype(np.float32)
    x[2, k:] += 9  # one row whose max moves into the second chunk
    a = Case(adv, "V2", m, k, "f32", brc=brc, tmp=16384, ws=16384).run(x[:, :k])
    b = Case(adv, "V2", m, k, "f32", brc=brc, update=1, tmp=16384, ws=16384).run(x[:, k:], a["max"], a["sum"])
    whole = x.astype(np.float64)
    assert np.array_equal(b["max"], whole.max(axis=1).astype(np.float32))
    np.testing.assert_allclose(b["sum"], np.exp(whole - whole.max(axis=1)[:, None]).sum(axis=1), rtol=3e-6)
    got = np.concatenate([a["dst"] * b["em"][:, None], b["dst"]], axis=1) / b["sum"][:, None]
    want = np.exp(whole - whole.max(axis=1)[:, None])
    want /= want.sum(axis=1)[:, None]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-12)


@pytest.mark.parametrize("basic", [0, 1])
def test_flash_v2_in_place_as_flash_attention_calls_it(adv, basic):
    """FlashAttention's form: src == dst, max/sum updated in place, (m, 1) statistics, isCheckTiling false,
    the tiling from SoftMaxFlashV2TilingFuncImpl for the tmp buffer, no SoftMaxShapeInfo."""
    m, k = 8, 128
    x = rng.uniform(-6, 6, (m, 2 * k)).astype(np.float32)
    c = Case(adv, "V2FA", m, k, "f32", brc=False, basic=basic, tmp=8192)

    def step(chunk, update, mx=None, sm=None):
        area = np.zeros(c.size, np.uint8)
        area[:chunk.nbytes] = chunk.view(np.uint8).ravel()
        if update:
            for name, v in (("max", mx), ("sum", sm)):
                o = c.lay[name][0]
                area[o:o + 4 * m] = v.astype(np.float32).view(np.uint8)
        out, _, r = adv("V2FA", area, np.zeros(32, np.uint8), update=update, **c.params)
        assert "warning" not in r.stderr, r.stderr
        get = {n: out[o:o + cnt * np.dtype(ty).itemsize].view(ty) for n, (o, cnt, ty) in c.lay.items()}
        return get["dst"].reshape(m, k), get["max"], get["sum"], get["em"]

    y1, m1, s1, _ = step(x[:, :k].copy(), 0)
    y2, m2, s2, e2 = step(x[:, k:].copy(), 1, m1, s1)
    whole = x.astype(np.float64)
    assert np.array_equal(m2, whole.max(axis=1).astype(np.float32))
    got = np.concatenate([y1 * e2[:, None], y2], axis=1) / s2[:, None]
    want = np.exp(whole - whole.max(axis=1)[:, None])
    np.testing.assert_allclose(got, want / want.sum(axis=1)[:, None], rtol=1e-5, atol=1e-12)


def test_flash_v2_reduce_max_form(adv):
    m, k, kv = SHAPES["f32"]
    x = rng.uniform(-4, 4, (m, k)).astype(np.float32)
    c = Case(adv, "V2Rmax", m, k, "f32", kv=kv, brc=False, update=1, tmp=16384, ws=16384)
    in_max = rng.uniform(-1, 5, m).astype(np.float32)
    in_sum = rng.uniform(1, 9, m).astype(np.float32)
    r = c.run(x, in_max, in_sum)
    want = model(x, kv, "v2", in_max.astype(np.float64), in_sum.astype(np.float64))
    assert np.array_equal(r["rm"], want["rmax"].astype(np.float32))
    assert np.array_equal(r["max"], want["max"].astype(np.float32))
    close(r["sum"], want["sum"], np.float32)
    # in SOFTMAX_NORMAL that form does nothing (documented), and says so
    c = Case(adv, "V2Rmax", m, k, "f32", kv=kv, brc=True, update=1, tmp=16384, ws=16384)
    r = c.run(x, in_max, in_sum)
    assert not r["dst"].any() and not r["max"].any()
    assert "computes and stores nothing" in r["stderr"]


def test_flash_v2_without_broadcast_on_nz_is_refused(adv):
    r = Case(adv, "V2", 16, 24, "f32", nz=True, brc=False).run(np.zeros((16, 24), np.float32), expect_fail=True)
    assert "does not apply to NZ data" in r.stderr


def test_flash_v2_half_rounds_once_from_float(adv):
    """Half sources are computed in float and rounded once: exp(x - max) of half data equals float32's
    result rounded to half."""
    m, k = 2, 32
    x = rng.uniform(-3, 3, (m, k)).astype(np.float16)
    r = Case(adv, "V2", m, k, "f16", tmp=8192, ws=8192).run(x)
    x32 = x.astype(np.float32)
    want = np.exp(x32 - x32.max(axis=1, keepdims=True)).astype(np.float16)
    assert np.max(np.abs(r["dst"].astype(np.float32) - want.astype(np.float32))
                  / np.spacing(want.astype(np.float32))) <= 1


# ---- tiling checks and the temporary-buffer rule -------------------------------------------------

@pytest.mark.parametrize("op", ["SoftMax", "V2"])
def test_constant_shape_config(adv, op):
    """SoftmaxConfig {true, 5, 21}: the rows and the real last axis are compile-time constants; the
    padded last axis is 21 rounded up to 32 bytes; no SoftMaxShapeInfo is needed."""
    m, k, kv = 5, 24, 21
    x = rng.uniform(-4, 4, (m, k)).astype(np.float32)
    r = Case(adv, op, m, k, "f32", cfg="const", noinfo=1, tmp=8192, ws=8192).run(x)
    want = model(x, kv, "v2" if op == "V2" else "softmax")
    close(r["dst"], want["dst"], np.float32)
    close(r["sum"], want["sum"], np.float32)


def test_check_tiling_recomputes_a_tiling_made_for_another_shape(adv):
    m, k, kv = SHAPES["f32"]
    x = rng.uniform(-4, 4, (m, k)).astype(np.float32)
    r = Case(adv, "SoftMax", m, k, "f32", kv=kv, tl="other", tmp=8192, ws=8192).run(x)
    close(r["dst"], model(x, kv)["dst"], np.float32)
    r = Case(adv, "SoftMax", m, k, "f32", kv=kv, tl="other", cfg="nocheck", tmp=8192, ws=8192).run(x, expect_fail=True)
    assert "the tiling was made for [13, 24] but the source is [5, 24]" in r.stderr
    assert "isCheckTiling" in r.stderr


@pytest.mark.parametrize("op,minimum,fn", [("SoftMax", (8 + 24 + 64) * 4, "GetSoftMaxMinTmpSize"),
                                           ("Simple", (8 + 24 + 64) * 4, "GetSoftMaxMinTmpSize"),
                                           ("V2", (8 + 64) * 4, "GetSoftMaxFlashV2MinTmpSize")])
def test_too_small_shared_tmp_buffer_names_the_api_the_size_and_the_minimum(adv, op, minimum, fn):
    m, k, kv = SHAPES["f32"]
    c = Case(adv, op, m, k, "f32", kv=kv, tmp=96, ws=96)
    r = c.run(np.zeros((m, k), np.float32), np.zeros(m), np.ones(m), expect_fail=True)
    api = {"Simple": "SimpleSoftMax", "V2": "SoftmaxFlashV2"}.get(op, op)
    assert f"{api}: sharedTmpBuffer holds 96 B" in r.stderr
    assert f"needs at least {minimum} B ({fn})" in r.stderr
    assert f"adv_softmax_harness.cpp:{marked_line(CPP / 'adv_softmax_harness.cpp', 'tmp_' + op)}" in r.stderr


def test_tiling_whose_block_overruns_the_tmp_buffer_is_an_error(adv):
    m, k, kv = SHAPES["f32"]
    row = (8 + 24 + 64) * 4  # one row of SoftMax scratch
    r = Case(adv, "SoftMax", m, k, "f32", kv=kv, tmp=2 * row, ws=5 * row).run(
        np.zeros((m, k), np.float32), expect_fail=True)
    assert f"with this tiling (blocks of 5 rows) SoftMax uses {5 * row} B of scratch, past the {2 * row}-B " \
           "sharedTmpBuffer" in r.stderr
    # the same tmp buffer with a tiling made for it is fine
    Case(adv, "SoftMax", m, k, "f32", kv=kv, tmp=2 * row, ws=2 * row).run(np.ones((m, k), np.float32))


def test_scratch_from_the_ub_above_the_kernel_buffers_must_fit(adv):
    m, k = 64, 256
    c = Case(adv, "SoftMax", m, k, "f32", ws=1 << 20)
    c.params["fill"] = 196352 - 8192 - m * k * 4 - c.size - 256  # leaves the reserved area and a little more
    r = c.run(np.zeros((m, k), np.float32), expect_fail=True)
    assert "without a sharedTmpBuffer SoftMax takes its" in r.stderr and "pass a sharedTmpBuffer" in r.stderr


# ---- AdjustSoftMaxRes ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt,dt2,step", [("f32", "f32", 0), ("f16", "f32", 0), ("f32", "f16", 0), ("f32", "f32", 1)])
def test_adjust_softmax_res(adv, dt, dt2, step):
    m, k = 6, 32
    res = rng.uniform(0, 1, (m, k)).astype(DT[dt])
    mx = rng.uniform(-3, 3, m).astype(DT[dt2])
    flag = DT[dt2](-np.inf) if dt2 == "f16" else np.frombuffer(np.uint32(0xFF7FFFFF).tobytes(), np.float32)[0]
    mx[[1, 4]] = flag
    per = 1 if step else per_block(DT[dt2])
    from_bits = int(np.frombuffer(np.asarray(flag, DT[dt2]).tobytes(), np.uint16 if dt2 == "f16" else np.uint32)[0])
    out, hit, _ = adv("Adjust", res.ravel(), None, np.repeat(mx, per), dt=dt, dt2=dt2, m=m, k=k, step=step,
                      **{"from": from_bits, "to": 0.25})
    want = res.copy()
    want[[1, 4]] = 0.25
    assert np.array_equal(out.reshape(m, k), want) and hit == 1
    out, hit, _ = adv("Adjust", res.ravel(), None, np.repeat(mx, per), dt=dt, dt2=dt2, m=m, k=k, step=step,
                      **{"from": 0x12345, "to": 0.25})
    assert np.array_equal(out.reshape(m, k), res) and hit == 0


# ---- DropOut -------------------------------------------------------------------------------------

def test_dropout_byte_mode_documented_example(adv):
    x = np.arange(32, dtype=np.float32)
    mask = np.array([0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1,
                     0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0], np.uint8)
    out, _, _ = adv("DropOut", np.zeros(32, np.float32), x, None, mask, dt="f32", rows=1, sn=32, mn=32, keep=0.5,
                    tmp=512)
    want = [0, 2, 0, 0, 0, 0, 0, 0, 16, 0, 20, 22, 24, 0, 28, 30, 0, 0, 36, 0, 0, 42, 44, 46, 48, 0, 52, 0, 56, 58, 60, 0]
    assert np.array_equal(out, np.array(want, np.float32))


def test_dropout_bit_order_is_least_significant_bit_first(adv):
    """Element j of a row is bit j % 8 of mask byte j / 8, as CANN's DropOut sample golden reads a byte
    (the reversed binary string) and as Select, which CANN's DropOut uses, reads its mask: 169 =
    0b1010_1001 keeps elements 0, 3, 5 and 7."""
    x = np.arange(1, 9, dtype=np.float32)
    out, _, _ = adv("DropOut", np.zeros(8, np.float32), x, None, np.array([169], np.uint8), dt="f32", rows=1, sn=8,
                    mn=1, keep=0.5, tmp=512)
    assert np.array_equal(out, np.array([1, 0, 0, 4, 0, 6, 0, 8], np.float32) * 2)
    for j in range(8):  # one bit at a time
        out, _, _ = adv("DropOut", np.zeros(8, np.float32), x, None, np.array([1 << j], np.uint8), dt="f32",
                        rows=1, sn=8, mn=1, keep=0.5, mode=3)
        assert np.flatnonzero(out).tolist() == [j]


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_dropout_modes_match_numpy(adv, dt):
    t = DT[dt]
    rows, sn = 3, 32
    x = rng.uniform(-4, 4, (rows, sn)).astype(t)
    keep = rng.random((rows, sn)) < 0.6
    scale = t(1 / 0.7)
    want = np.where(keep, (x.astype(np.float32) * np.float32(scale)).astype(t), t(0))
    packed = np.packbits(keep, axis=1, bitorder="little")  # least significant bit first
    cases = {  # mode -> (mask bytes, maskLastAxis)
        2: (keep.astype(np.uint8).ravel(), sn),
        1: (np.pad(keep.astype(np.uint8), ((0, 0), (0, 32))).ravel(), sn + 32),
        3: (packed.ravel(), sn // 8),
        4: (np.pad(packed, ((0, 0), (0, 12))).ravel(), sn // 8 + 12),
    }
    for mode, (mask, mn) in cases.items():
        for m_arg in (mode, 0):  # the explicit mode and the one inferred from the shape (unambiguous here)
            out, _, _ = adv("DropOut", np.zeros(rows * sn, t), x.ravel(), None, mask, dt=dt, rows=rows, sn=sn, mn=mn,
                            keep=0.7, mode=m_arg, tmp=1024)
            assert np.array_equal(out.reshape(rows, sn), want), (mode, m_arg)


def test_dropout_init_bit_mode_needs_dropout_bit_mode_init(adv):
    x = np.arange(1, 9, dtype=np.float32)
    args = dict(dt="f32", rows=1, sn=8, mn=1, keep=0.5, mode=3, tmp=512, initmode=1)
    _, _, r = adv("DropOut", np.zeros(8, np.float32), x, None, np.array([0xFF], np.uint8), **args)
    assert "DropOutBitModeInit was not called on this core first" in r.stderr
    out, _, r = adv("DropOut", np.zeros(8, np.float32), x, None, np.array([0xFF], np.uint8), init=1, **args)
    assert "DropOutBitModeInit" not in r.stderr and np.array_equal(out, x * 2)


def test_dropout_argument_errors(adv):
    x = np.ones(32, np.float32)
    m = np.ones(32, np.uint8)
    r = adv("DropOut", np.zeros(32, np.float32), x, None, m, dt="f32", rows=1, sn=32, mn=32, keep=0.5, tmp=256,
            expect_fail=True)
    assert "DropOut: sharedTmpBuffer holds 256 B; DropOut needs at least 512 B (GetDropOutMinTmpSize)" in r.stderr
    r = adv("DropOut", np.zeros(32, np.float32), x, None, m, dt="f32", rows=1, sn=32, mn=32, keep=1.0,
            expect_fail=True)
    assert "keepProb is 1; it must lie in (0, 1)" in r.stderr
    r = adv("DropOut", np.zeros(32, np.float32), x, None, m, dt="f32", rows=1, sn=32, mn=33, mode=1, keep=0.5,
            expect_fail=True)
    assert "maskLastAxis 33 must be even" in r.stderr


# ---- Broadcast -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["f16", "f32", "u8"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("tmp", [0, 256])
def test_broadcast_2d(adv, dt, axis, tmp):
    t = {"u8": np.uint8}.get(dt, DT.get(dt))
    r, c = 5, 64
    src = (rng.uniform(0, 100, c if axis == 0 else r)).astype(t)
    out, _, _ = adv("Broadcast", np.zeros(r * c, t), src, dt=dt, r=r, c=c, axis=axis, tmp=tmp)
    want = np.broadcast_to(src[None, :] if axis == 0 else src[:, None], (r, c))
    assert np.array_equal(out.reshape(r, c), want)


def test_broadcast_documented_constraints(adv):
    r = adv("Broadcast", np.zeros(5 * 12, np.float32), np.ones(12, np.float32), dt="f32", r=5, c=12, axis=0,
            expect_fail=True)
    assert "srcShape[1] = 12 x 4 B must be 32-byte aligned" in r.stderr
    r = adv("Broadcast", np.zeros(5 * 64, np.float32), np.ones(8, np.float32), dt="f32", r=5, c=64, axis=1, overlap=1,
            expect_fail=True)
    assert "overlap; Broadcast does not support that" in r.stderr


# ---- host tiling ---------------------------------------------------------------------------------

def test_dropout_host_tmp_sizes():
    """Two vector repeats at least; at most two float copies of the source (CANN's own unit test: [2, 8]
    float gives 512 / 512)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim_host"))
    import sim_host_util

    exe = program.compile_program([CPP / "adv_host_tiling_check.cpp"], chip=sim_host_util.CHIP, opt=sim_host_util.OPT,
                                  flags=["-Wall", "-Wextra", "-Werror"]).exe
    kv = sim_host_util.key_values(exe)
    want = {"f32_2x8": (512, 512), "f16_16x64": (2 * 16 * 64 * 4, 512), "f32_3x40": (2 * 3 * 40 * 4, 512)}
    for name, (mx, mn) in want.items():
        assert (int(kv[f"{name}.max"]), int(kv[f"{name}.min"])) == (mx, mn), name
        assert (int(kv[f"{name}.max1"]), int(kv[f"{name}.min1"])) == (mx, mn), name
    r = subprocess.run([str(exe), "bad"], capture_output=True, text=True)
    assert r.returncode != 0 and "typeSize is 8; DropOut supports 2 (half) and 4 (float)" in r.stderr


# ---- headers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["lib/activation/softmax.h", "lib/activation/simplesoftmax.h",
                                  "lib/activation/softmaxflash.h", "lib/activation/softmaxflashv2.h",
                                  "lib/activation/softmax_utils.h", "lib/filter/dropout.h",
                                  "adv_api/activation/softmax.h", "adv_api/filter/dropout.h"])
def test_installed_paths_compile_on_their_own(tmp_path, path):
    r = compile_snippet(f'#include "{path}"\nint main() {{ return 0; }}\n', tmp_path)
    assert r.returncode == 0, r.stderr


def test_kernel_side_flash_v2_tiling_is_constexpr(tmp_path):
    code = ('#include "kernel_operator.h"\n'
            "constexpr AscendC::SoftMaxShapeInfo s{64, 128, 64, 128};\n"
            "constexpr SoftMaxTiling t = AscendC::SoftMaxFlashV2TilingFunc(s, 2, 4, 16 * 1024, true);\n"
            "static_assert(t.srcM == 64 && t.srcK == 128 && t.outMaxK == 8, \"fields\");\n"
            "static_assert(t.splitM > 0 && t.splitM < 64 && t.splitM % 8 == 0, \"rows split to fit\");\n"
            "static_assert(AscendC::SOFTMAX_DEFAULT_CFG.mode == AscendC::SoftmaxMode::SOFTMAX_NORMAL, \"cfg\");\n"
            "static_assert(AscendC::DROPOUT_MODE_BIT_MISALIGN == 4, \"modes\");\n"
            "int main() { return 0; }\n")
    r = compile_snippet(code, tmp_path)
    assert r.returncode == 0, r.stderr


def test_every_api_has_a_cost_class():
    from opkit.perf import costs

    p = costs.chip_params("ascend910b2")
    for api in ("SoftMax", "SimpleSoftMax", "SoftmaxFlash", "SoftmaxFlashV2", "AdjustSoftMaxRes", "DropOut"):
        c = costs.op_cost({"pipe": "V", "api": api, "dtype": "float32", "bytes": 512, "repeats": 2}, "AIV", p)
        assert c.klass != "unknown", api
