"""TopK and SoftMax (advanced APIs) on the simulator (tests/sim/cpp/topk_harness.cpp): the documented
behaviour of the TopK page (both modes, given or generated indices, largest or smallest, finished rows,
the k_pad row stride, ties, NaN, scratch from tmpLocal or from the free UB) and its parameter rules;
SoftMax's row-wise result and its sum/max outputs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

HARNESS = CPP / "topk_harness.cpp"
DT = {"f16": np.float16, "f32": np.float32}
rng = np.random.default_rng(11)


@pytest.fixture(scope="module")
def exe() -> Path:
    return build(HARNESS)


def tiling(inner: int, outter: int, size: int, init: bool, small: bool, largest: bool) -> tuple[int, int]:
    """(tmpLocalSize, sortRepeat) as TopKTilingFunc fills them on a 2201 chip (tests/sim_host/test_topk_tiling.py)."""
    if not small:
        tls = inner * (16 // size) + (0 if init else inner * 4 // size)
        return tls, inner // 32
    pairs = inner * outter * 8 // size
    tls = pairs + (0 if largest else inner * outter) + 64 // size + (0 if init else inner * outter * 4 // size)
    return tls, 0


def run_topk(exe, tmp_path, x, k, *, n=None, idx=None, fin=None, small=False, largest=True, tmp=True, dt="f32",
             tls=None, srep=None, vlen=None, ilen=None, tmpbytes=None, expect_fail=False, **extra):
    t = DT[dt]
    outter, inner = x.shape
    n = inner if n is None else n
    size = np.dtype(t).itemsize
    per = 32 // size
    sv = k if small else (k + per - 1) // per * per
    si = k if small else (k + 7) // 8 * 8
    vlen = vlen if vlen is not None else -(-sv * outter // per) * per
    ilen = ilen if ilen is not None else -(-si * outter // 8) * 8
    d_tls, d_srep = tiling(inner, outter, size, idx is not None, small, largest)
    tls = d_tls if tls is None else tls
    srep = d_srep if srep is None else srep
    (tmp_path / "in0.bin").write_bytes(x.astype(t).tobytes())
    ix = idx if idx is not None else np.zeros(x.size, np.int32)
    (tmp_path / "in1.bin").write_bytes(np.resize(ix.astype(np.int32), x.size).tobytes())
    f = np.zeros(32, np.uint8)
    if fin is not None:
        f[: len(fin)] = fin
    (tmp_path / "in2.bin").write_bytes(f.tobytes())
    params = dict(dt=dt, mode="small" if small else "normal", init=int(idx is not None), finish=int(fin is not None),
                  largest=int(largest), tmp=int(tmp), tmpbytes=tmpbytes or max(tls * size, 32), k=k, inner=inner, n=n, outter=outter,
                  tls=tls, srep=srep, vlen=vlen, ilen=ilen, outbytes=vlen * size + ilen * 4, **extra)
    r = subprocess.run([str(exe), str(tmp_path), "TopK", *[f"{a}={b}" for a, b in params.items()]], capture_output=True,
                       text=True, timeout=120)
    if expect_fail:
        assert r.returncode == 3, r.stderr
        return r
    assert r.returncode == 0, r.stderr
    raw = (tmp_path / "out.bin").read_bytes()
    vals = np.frombuffer(raw[: vlen * size], t)
    inds = np.frombuffer(raw[vlen * size:], np.int32)
    return vals, inds, sv, si, r


def model(x, k, idx=None, largest=True, fin=None, n=None, shared_idx=True):
    """The TopK page: a stable sort of every element of each row (NaN first), the first k; finished rows get index n."""
    outter, inner = x.shape
    vals, inds = [], []
    for j in range(outter):
        row = x[j].astype(np.float64)
        key = np.where(np.isnan(row), -np.inf, -row if largest else row)
        key = np.where(np.isnan(row), -np.inf, key)
        order = np.argsort(key, kind="stable")[:k]
        ids = (idx[:inner] if shared_idx else idx[j * inner:(j + 1) * inner]) if idx is not None else np.arange(inner)
        vals.append(x[j][order])
        got = ids[order].astype(np.int32)
        if fin is not None and fin[j]:
            got = np.full(k, n if n is not None else inner, np.int32)
        inds.append(got)
    return vals, inds


@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("tmp", [True, False])
def test_normal_mode_rows_at_k_pad_with_generated_indices(exe, tmp_path, dt, largest, tmp):
    x = rng.uniform(-5, 5, (3, 96)).astype(DT[dt])
    k = 10
    vals, inds, sv, si, _ = run_topk(exe, tmp_path, x, k, dt=dt, largest=largest, tmp=tmp)
    wv, wi = model(x, k, largest=largest)
    for j in range(3):
        assert np.array_equal(vals[j * sv: j * sv + k], wv[j])
        assert np.array_equal(inds[j * si: j * si + k], wi[j])
        assert np.all(vals[j * sv + k:(j + 1) * sv] == -7) and np.all(inds[j * si + k:(j + 1) * si] == -7)


def test_given_indices_padding_sorts_too_and_ties_keep_position_order(exe, tmp_path):
    # n = 40 real values padded to inner 64 with -inf; the shared index row (one for all rows) is user data
    x = np.full((2, 64), -np.inf, np.float32)
    x[0, :40] = rng.integers(0, 5, 40)  # many ties
    x[1, :40] = rng.uniform(-1, 1, 40)
    idx = np.arange(64, dtype=np.int32) + 1000
    vals, inds, sv, si, _ = run_topk(exe, tmp_path, x, 12, n=40, idx=idx)
    wv, wi = model(x, 12, idx=idx)
    for j in range(2):
        assert np.array_equal(vals[j * sv: j * sv + 12], wv[j]) and np.array_equal(inds[j * si: j * si + 12], wi[j])
    # ties: the earlier element first
    row = x[0, :40]
    top = inds[:12] - 1000
    assert all(top[i] < top[i + 1] for i in range(11) if row[top[i]] == row[top[i + 1]])


def test_nan_sorts_first_in_both_orders(exe, tmp_path):
    x = rng.uniform(-1, 1, (1, 32)).astype(np.float32)
    x[0, 7] = np.nan
    for largest in (True, False):
        vals, inds, _, _, _ = run_topk(exe, tmp_path, x, 3, largest=largest)
        assert np.isnan(vals[0]) and inds[0] == 7


def test_finished_rows_get_the_invalid_index_n(exe, tmp_path):
    x = rng.uniform(-1, 1, (3, 32)).astype(np.float32)
    vals, inds, sv, si, _ = run_topk(exe, tmp_path, x, 4, n=30, fin=[0, 1, 0], idx=np.arange(32, dtype=np.int32))
    wv, wi = model(x, 4, idx=np.arange(32), fin=[0, 1, 0], n=30)
    for j in range(3):
        assert np.array_equal(vals[j * sv: j * sv + 4], wv[j]) and np.array_equal(inds[j * si: j * si + 4], wi[j])
    assert np.all(inds[si: si + 4] == 30)


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_small_mode_packs_k_per_row_with_per_row_indices(exe, tmp_path, dt):
    x = rng.uniform(-3, 3, (4, 32)).astype(DT[dt])
    idx = rng.permutation(128).astype(np.int32)
    vals, inds, _, _, _ = run_topk(exe, tmp_path, x, 6, idx=idx, small=True, dt=dt, largest=False)
    wv, wi = model(x, 6, idx=idx, largest=False, shared_idx=False)
    assert np.array_equal(vals[:24], np.concatenate(wv)) and np.array_equal(inds[:24], np.concatenate(wi))


def test_source_overlapping_the_destination_runs_row_by_row_with_a_warning(exe, tmp_path):
    # one row, values and indices in place, as moe_gating_top_k_softmax's k-full-load path calls it
    x = rng.uniform(-1, 1, (1, 64)).astype(np.float32)
    idx = np.arange(64, dtype=np.int32)
    vals, inds, _, _, r = run_topk(exe, tmp_path, x, 8, idx=idx, vlen=64, ilen=64, inplace=1)
    wv, wi = model(x, 8, idx=idx)
    assert np.array_equal(vals[:8], wv[0]) and np.array_equal(inds[:8], wi[0])
    assert "a destination overlaps a source, which the TopK page does not support" in r.stderr


LINE_TMP = "topk_harness.cpp:{}".format
ERRORS = [
    (dict(k=40, n=32), r"TopK: k is 40; it must lie in \[1, topKInfo.n = 32\]"),
    (dict(k=4, n=33), r"topKInfo.n is 33; it must lie in \[1, topKInfo.inner = 32\]"),
    (dict(k=4, srep=2), r"the TopkTiling was computed for rows of 64 elements \(sortRepeat 2 x 32\), but topKInfo.inner "
                        r"is 32"),
    (dict(k=4, tls=0), r"TopkTiling.tmpLocalSize is 0: the tiling was not filled by TopKTilingFunc"),
    (dict(k=12, vlen=8), r"dstValueLocal holds 8 elements; k_pad \(k rounded up to 32 bytes\) x topKInfo.outter = 16 x 1"),
    # 352 bytes of buffers, then all but 608 of the UB's 196352: the stack form needs 160 floats
    (dict(k=4, tmp=False, fill_ub=196352 - 352 - 608), r"the pop stack buffer is insufficient: TopK needs 640 bytes of "
                                                       r"scratch \(TopkTiling.tmpLocalSize 160 elements of 4 B\) above "
                                                       r"the kernel's buffers, but only 608 bytes are free"),
]


@pytest.mark.parametrize("params,message", ERRORS)
def test_parameter_rules_end_the_run(exe, tmp_path, params, message):
    params = dict(params)
    x = rng.uniform(-1, 1, (1, 32)).astype(np.float32)
    r = run_topk(exe, tmp_path, x, params.pop("k"), expect_fail=True, **params)
    assert re.search(message, r.stderr), r.stderr
    where = "topk_tmp" if params.get("tmp", True) else "topk_stack"
    assert LINE_TMP(marked_line(HARNESS, where)) in r.stderr


def test_a_tmp_buffer_smaller_than_the_tiling_asks_writes_past_it(exe, tmp_path):
    x = rng.uniform(-1, 1, (1, 32)).astype(np.float32)
    d_tls, _ = tiling(32, 1, 4, False, False, True)
    *_, r = run_topk(exe, tmp_path, x, 4, tmpbytes=d_tls * 4 - 64)
    assert "tmpLocal local tensor out of bounds: writes UB bytes" in r.stderr


def run_softmax(exe, tmp_path, x, ori, expect_fail=False, **params):
    m, k = x.shape
    t = x.dtype
    b = 32 // t.itemsize
    (tmp_path / "in0.bin").write_bytes(x.tobytes())
    args = dict(dt="f16" if t == np.float16 else "f32", m=m, k=k, ori=ori, outbytes=(m * k + 2 * m * b) * t.itemsize,
                **params)
    r = subprocess.run([str(exe), str(tmp_path), "SoftMax", *[f"{a}={v}" for a, v in args.items()]], capture_output=True,
                       text=True, timeout=120)
    if expect_fail:
        assert r.returncode == 3, r.stderr
        return r
    assert r.returncode == 0, r.stderr
    if params.get("unwritten"):
        assert "SoftMax: reads UB bytes that were never written" in r.stderr
    out = np.frombuffer((tmp_path / "out.bin").read_bytes(), t)
    return out[: m * k].reshape(m, k), out[m * k: m * k + m * b].reshape(m, b), out[m * k + m * b:].reshape(m, b)


@pytest.mark.parametrize("dt", [np.float32, np.float16])
@pytest.mark.parametrize("form", [dict(tmp=0), dict(tmp=1), dict(stats=1)])
def test_softmax_rows_over_the_valid_columns(exe, tmp_path, dt, form):
    x = rng.uniform(-4, 4, (3, 64)).astype(dt)
    ori = 50
    y, s, mx = run_softmax(exe, tmp_path, x, ori, **form)
    x64 = x.astype(np.float64)
    rmax = x64[:, :ori].max(axis=1, keepdims=True)
    e = np.exp(x64 - rmax)
    rsum = e[:, :ori].sum(axis=1, keepdims=True)
    tol = 2e-3 if dt == np.float16 else 1e-6
    assert np.allclose(y.astype(np.float64), e / rsum, rtol=tol, atol=tol)
    assert np.allclose(y[:, :ori].astype(np.float64).sum(axis=1), 1.0, atol=20 * tol)
    if form.get("stats"):
        assert np.all(mx == rmax.astype(dt)) and np.allclose(s.astype(np.float64), np.repeat(rsum, s.shape[1], 1), rtol=tol)


def test_softmax_unwritten_padding_spoils_only_its_own_columns(exe, tmp_path):
    # the last row's 8 padding columns are never written: the valid results of every row still are
    x = rng.uniform(-4, 4, (2, 64)).astype(np.float32)
    y, _, _ = run_softmax(exe, tmp_path, x, 56, tmp=1, unwritten=8, copy_short=8)
    e = np.exp(x[:, :56].astype(np.float64) - x[:, :56].max(axis=1, keepdims=True))
    assert np.allclose(y[:, :56], e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    r = run_softmax(exe, tmp_path, x, 56, tmp=1, unwritten=8, expect_fail=True)  # those 8 results reach GM
    assert "never-written UB bytes would reach GM" in r.stderr and f"topk_harness.cpp:{marked_line(HARNESS, 'softmax_out')}" in r.stderr
