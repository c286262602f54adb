"""FlashAttentionScore package (ops/attention/flash_attention_score): spec, golden, cross-checks, cost model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import as_golden_input, make_inputs
from opkit.spec import load
from opkit.verify.golden import custom_generators, load_module, run_golden

PKG = Path(__file__).resolve().parents[1] / "ops" / "attention" / "flash_attention_score"
FLT_MAX = float(np.finfo(np.float32).max)


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.fixture(scope="module")
def golden(spec):
    return load_module(spec)


def _golden_inputs(spec, case, column):
    raw = make_inputs(spec, case, column, custom_generators(spec))
    return {k: as_golden_input(v) for k, v in raw.items()}


# --- an independent reference ------------------------------------------------------------------------
# Dense attention over the whole [B, N1, S1, S2] score tensor at once, written from the operator's
# documentation (not from golden.py): layouts by einsum strings, masks as whole boolean tensors.

def to_bnsd(t, layout, heads):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return np.einsum("bsnd->bnsd", t)
    if layout == "BSH":
        b, s, h = t.shape
        return np.einsum("bsnd->bnsd", t.reshape(b, s, heads, h // heads))
    if layout == "SBH":
        s, b, h = t.shape
        return np.einsum("sbnd->bnsd", t.reshape(s, b, heads, h // heads))
    raise AssertionError(layout)


def from_bnsd(t, layout):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return np.einsum("bnsd->bsnd", t)
    b, n, s, d = t.shape
    if layout == "BSH":
        return np.einsum("bnsd->bsnd", t).reshape(b, s, n * d)
    return np.einsum("bnsd->sbnd", t).reshape(s, b, n * d)  # SBH


def sparse_mask(s1, s2, mode, pre, nxt, given=None, prefix=None):
    """[B or 1, N or 1, S1, S2] True = masked, from the table of sparse modes."""
    i, j = np.ogrid[:s1, :s2]
    d = s2 - s1
    if mode == 0:
        m = ((j - i) > nxt) | ((i - j) > pre)
        return m[None, None] | given
    if mode == 1:
        return given
    if mode == 2:
        return (j > i)[None, None]
    if mode == 3:
        return (j > i + d)[None, None]
    if mode == 4:
        return (((j - i) > nxt + d) | ((i - j) > pre - d))[None, None]
    if mode in (5, 6):
        p = np.asarray(prefix)[:, None, None, None]
        return (j > i + d)[None, None] & ~(j[None, None] < p)
    raise AssertionError(mode)


def reference(q, k, v, scale, layout, n1, pse=None, pse_type=1, mask=None, keep=None, keep_prob=1.0):
    """(out in layout, max [B,N1,S1], sum [B,N1,S1]) with the documented invalid-row result."""
    Q = to_bnsd(q, layout, n1)
    n2 = k.shape[2] // (q.shape[2] // n1) if layout in ("BSH", "SBH") else k.shape[{"BNSD": 1, "BSND": 2}[layout]]
    K, V = to_bnsd(k, layout, n2), to_bnsd(v, layout, n2)
    g = n1 // n2
    K, V = np.repeat(K, g, axis=1), np.repeat(V, g, axis=1)
    s = np.einsum("bnid,bnjd->bnij", Q, K)
    if pse is None:
        s = scale * s
    elif pse_type == 1:
        s = scale * (s + pse)
    else:
        s = scale * s + pse
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    dead = np.isneginf(s).all(axis=-1)
    m = np.where(dead, 0.0, s.max(axis=-1))
    e = np.exp(s - m[..., None])
    total = e.sum(axis=-1)
    p = e / np.where(dead, 1.0, total)[..., None]
    if keep is not None:
        p = np.where(keep, p / keep_prob, 0.0)
    out = np.einsum("bnij,bnjd->bnid", p, V)
    out[dead] = 0.0
    return from_bnsd(out, layout), np.where(dead, -FLT_MAX, m), np.where(dead, FLT_MAX, total)


def _check(res, out, m, total):
    np.testing.assert_allclose(res["attention_out"], out, rtol=1e-12, atol=1e-12)
    assert res["softmax_max"].shape == m.shape + (8,)
    for r in range(8):
        np.testing.assert_allclose(res["softmax_max"][..., r], m, rtol=1e-13, atol=0)
        np.testing.assert_allclose(res["softmax_sum"][..., r], total, rtol=1e-12, atol=0)


# --- the spec ----------------------------------------------------------------------------------------

def test_spec_interface_is_ops_transformers(spec):
    assert spec.op_type == "FlashAttentionScore" and spec.family == "attention" and spec.kernel == "mix"
    assert [p.name for p in spec.inputs] == [
        "query", "key", "value", "real_shift", "drop_mask", "padding_mask", "atten_mask", "prefix",
        "actual_seq_qlen", "actual_seq_kvlen", "q_start_idx", "kv_start_idx", "d_scale_q", "d_scale_k", "d_scale_v",
        "query_rope", "key_rope"]
    assert [p.name for p in spec.outputs] == ["softmax_max", "softmax_sum", "softmax_out", "attention_out"]
    assert [a.name for a in spec.attrs] == [
        "scale_value", "keep_prob", "pre_tockens", "next_tockens", "head_num", "input_layout", "inner_precise",
        "sparse_mode", "pse_type", "seed", "offset", "out_dtype", "softmax_out_layout"]
    assert spec.n_columns == 10
    assert spec.column(0)["query"] == "float16" and spec.column(0)["atten_mask"] == "uint8"
    assert spec.column(4)["real_shift"] == "float32" and spec.column(4)["query"] == "float16"
    assert spec.column(9)["query"] == "float32" and spec.column(9)["atten_mask"] == "bool"
    assert all(spec.column(c)["softmax_max"] == "float32" for c in range(10))


def test_cases_cover_layouts_modes_and_pse(spec):
    small = [c for c in spec.cases if "full" not in c.tags]
    assert {c.attrs["input_layout"] for c in small} == {"BSH", "SBH", "BSND", "BNSD", "TND"}
    assert {c.attrs.get("sparse_mode", 0) for c in small if "atten_mask" in c.shapes} >= {0, 1, 2, 3, 4}
    assert {c.attrs.get("pse_type", 1) for c in small if "real_shift" in c.shapes} == {0, 1, 2, 3}
    assert any(c.attrs.get("keep_prob", 1.0) < 1 for c in small)
    assert all(len(c.columns) == 1 for c in small)  # one dtype column each keeps the default run short
    big = [c for c in spec.cases if "full" in c.tags]
    assert any(c.shapes["query"][2] >= 8192 for c in big)


# --- the golden against the independent reference, on the package's cases ---------------------------

SMALL_CASES = ["bnsd_smoke", "bsnd_bf16", "bsh_gqa", "sbh_mqa", "causal_left_up", "causal_right_down",
               "causal_invalid_rows", "band", "default_mask_band", "all_mask", "pse_type1", "pse_type0_bcast",
               "pse_alibi", "pse_alibi_sqrt", "dropout", "dropout_unaligned_causal", "multi_block_band",
               "multi_block_pse_dropout", "tails", "d256", "large_logits", "bnsd_fp32", "pse_type1_bcast",
               "pse_type1_unfolded"]


@pytest.mark.parametrize("name", SMALL_CASES)
def test_golden_equals_dense_reference(spec, golden, name):
    case = spec.case(name)
    a = {**{x.name: x.default for x in spec.attrs if x.default is not None}, **case.attrs}
    g = _golden_inputs(spec, case, case.columns[0])
    layout, n1 = a["input_layout"], a["head_num"]
    qb = to_bnsd(g["query"], layout, n1)
    b, _, s1, _ = qb.shape
    s2 = g["key"].shape[{"BNSD": 2, "BSND": 1, "BSH": 1, "SBH": 0}[layout]]
    mask = None
    if g.get("atten_mask") is not None:
        given = g["atten_mask"].astype(bool)
        given = given if given.ndim == 4 else given[None, None]
        mask = sparse_mask(s1, s2, a["sparse_mode"], a["pre_tockens"], a["next_tockens"], given, g.get("prefix"))
    pse = g.get("real_shift")
    if pse is not None and a["pse_type"] in (2, 3):
        slopes = pse if pse.ndim == 2 else np.broadcast_to(pse, (b, n1))
        dist = np.abs(np.arange(s2)[None, :] - np.arange(s1)[:, None]).astype(float)
        dist = np.sqrt(dist) if a["pse_type"] == 3 else dist
        pse = -slopes[:, :, None, None] * dist
    keep = None
    if a["keep_prob"] < 1:
        bits = np.unpackbits(g["drop_mask"].astype(np.uint8), bitorder="little")
        keep = bits[: b * n1 * s1 * s2].reshape(b, n1, s1, s2).astype(bool)
    out, m, total = reference(g["query"], g["key"], g["value"], a["scale_value"], layout, n1, pse, a["pse_type"],
                              mask, keep, a["keep_prob"])
    res = run_golden(spec, case, make_inputs(spec, case, case.columns[0], custom_generators(spec)))
    _check(res, out, m, total)
    assert res["softmax_out"].size == 0


def test_invalid_rows_case_has_fully_masked_rows(spec, golden):
    case = spec.case("causal_invalid_rows")
    res = run_golden(spec, case, make_inputs(spec, case, 0, custom_generators(spec)))
    dead = 160 - 96
    assert np.all(res["attention_out"][0, 0, :dead] == 0)
    assert np.all(res["softmax_max"][0, 0, :dead] == -FLT_MAX)
    assert np.all(res["softmax_sum"][0, 0, :dead] == FLT_MAX)
    assert np.all(np.isfinite(res["softmax_max"][0, 0, dead:]))


def test_tnd_equals_per_batch_bnsd(spec, golden):
    """Each TND batch is its own attention problem; the empty one contributes no rows."""
    case = spec.case("tnd_varlen")
    g = _golden_inputs(spec, case, 0)
    res = golden.flash_attention_score(**g, **case.attrs)
    cq, ck = [0, *g["actual_seq_qlen"].astype(int)], [0, *g["actual_seq_kvlen"].astype(int)]
    assert res["attention_out"].shape == (30, 2, 64) and res["softmax_max"].shape == (30, 2, 8)
    for bi in range(4):
        q = g["query"][cq[bi]:cq[bi + 1]].transpose(1, 0, 2)[None]
        k = g["key"][ck[bi]:ck[bi + 1]].transpose(1, 0, 2)[None]
        v = g["value"][ck[bi]:ck[bi + 1]].transpose(1, 0, 2)[None]
        if q.shape[2] == 0:
            continue
        out, m, _ = reference(q, k, v, 0.125, "BNSD", 2)
        np.testing.assert_allclose(res["attention_out"][cq[bi]:cq[bi + 1]], out[0].transpose(1, 0, 2), rtol=1e-12)
        np.testing.assert_allclose(res["softmax_max"][cq[bi]:cq[bi + 1], :, 0], m[0].T, rtol=1e-13)


def test_row_blocks_do_not_change_the_result(golden):
    """The per-block computation (ROW_BLOCK rows at a time) equals a single block, masks and dropout included."""
    rng = np.random.default_rng(7)
    q, k, v = rng.normal(size=(1, 2, 70, 16)), rng.normal(size=(1, 2, 50, 16)), rng.normal(size=(1, 2, 50, 8))
    drop = rng.integers(0, 256, size=(1 * 2 * 70 * 50 + 7) // 8, dtype=np.uint8)
    mask = np.triu(np.ones((2048, 2048), bool), 1)
    kw = dict(head_num=2, input_layout="BNSD", scale_value=0.3, keep_prob=0.7, drop_mask=drop, atten_mask=mask,
              sparse_mode=3)
    a = golden.flash_attention_score(q, k, v, row_block=9, **kw)
    b = golden.flash_attention_score(q, k, v, row_block=4096, **kw)
    for name in ("attention_out", "softmax_max", "softmax_sum"):
        np.testing.assert_allclose(a[name], b[name], rtol=1e-13, atol=1e-14)


def test_dropout_bit_order_is_lsb_first(golden):
    """Byte 0b00000001 keeps element 0 only: the least significant bit is the first element."""
    q = np.zeros((1, 1, 1, 4))
    k = np.zeros((1, 1, 8, 4))
    v = np.arange(8, dtype=float).reshape(1, 1, 8, 1) * np.ones((1, 1, 8, 4))
    res = golden.flash_attention_score(q, k, v, drop_mask=np.array([0b00000100], np.uint8), keep_prob=0.5,
                                       head_num=1, input_layout="BNSD")
    # uniform softmax 1/8; only element 2 kept, scaled by 1/0.5
    np.testing.assert_allclose(res["attention_out"][0, 0, 0], np.full(4, 2.0 * (1 / 8) / 0.5))


def test_no_mask_ignores_sparse_mode(golden):
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(1, 1, 8, 4)), rng.normal(size=(1, 1, 8, 4)), rng.normal(size=(1, 1, 8, 4))
    a = golden.flash_attention_score(q, k, v, head_num=1, input_layout="BNSD", sparse_mode=2, pre_tockens=0,
                                     next_tockens=0)
    b = golden.flash_attention_score(q, k, v, head_num=1, input_layout="BNSD")
    np.testing.assert_array_equal(a["attention_out"], b["attention_out"])


@pytest.mark.parametrize("kw,words", [
    (dict(keep_prob=0.5), "needs drop_mask"),
    (dict(keep_prob=0.0), "outside (0, 1]"),
    (dict(sparse_mode=7, atten_mask=np.zeros((2048, 2048), bool)), "sparse_mode 7"),
    (dict(input_layout="NSD"), "not one of"),
])
def test_golden_refuses_undefined_combinations(golden, kw, words):
    q = np.zeros((1, 1, 4, 4))
    args = dict(head_num=1, input_layout="BNSD")
    args.update(kw)
    with pytest.raises(golden.GoldenError, match=words.replace("(", r"\(").replace(")", r"\)")):
        golden.flash_attention_score(q, q, q, **args)


def test_flops_count_only_unmasked_work(spec, golden):
    shapes = {"query": [1, 32, 8192, 128], "key": [1, 32, 8192, 128], "value": [1, 32, 8192, 128]}
    attrs = {"input_layout": "BNSD", "head_num": 32}
    dense = golden.flops(shapes, {"query": "float16"}, attrs)
    assert dense == 4 * 32 * 8192 * 8192 * 128
    causal = golden.flops({**shapes, "atten_mask": [2048, 2048]}, {"query": "float16"}, {**attrs, "sparse_mode": 2})
    assert causal == pytest.approx(dense * (8192 + 1) / (2 * 8192), rel=1e-9)
    assert golden.hbm_bytes(shapes, {"query": "float16"}, attrs) > 4 * 2 * 32 * 8192 * 128


# --- the host tiling (op_host/), through `opkit tiling`: the host side only ---------------------------

def _tiling(case, *attrs, soc=None):
    """(exit code, JSON result or None, stderr) of `opkit tiling --json` on a case of the package."""
    import json
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "opkit", "tiling", str(PKG), "--case", case, "--json", "-j", "1"]
    for a in attrs:
        cmd += ["--attr", a]
    if soc:
        cmd += ["--soc", soc]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    try:
        out = json.loads(p.stdout) if p.returncode == 0 else None
    except json.JSONDecodeError:
        out = None
    return p.returncode, out, p.stdout + p.stderr


def test_tiling_output_shapes_per_layout():
    for case, shapes in {
        "bsh_gqa": {"softmax_max": [1, 4, 64, 8], "attention_out": [1, 64, 256]},
        "sbh_mqa": {"softmax_max": [2, 4, 48, 8], "attention_out": [48, 2, 256]},
        "tnd_varlen": {"softmax_max": [30, 2, 8], "attention_out": [30, 2, 64]},
        "tails": {"softmax_sum": [1, 2, 100, 8], "attention_out": [1, 2, 100, 40], "softmax_out": [0, 0, 0, 0]},
    }.items():
        rc, res, text = _tiling(case)
        assert rc == 0, text
        for name, shape in shapes.items():
            assert res["output_shapes"][name] == shape, (case, name)


def test_tiling_band_key_and_core_split():
    rc, res, text = _tiling("causal_left_up")
    assert rc == 0, text
    f = res["fields"]
    assert f["sparseMode"] == 2 and f["nextTokens"] == 0 and f["maskShape"] == 5  # compressed mask
    assert f["G"] == 1 and f["S1"] == 128 and f["S2"] == 192 and f["s1Base"] == 64
    # 2 heads x 2 S1 blocks: 4 tasks in 2 pairs, the pairs split over the AIC blocks (two vector cores each)
    assert f["tasksTotal"] == 2 * 2 and f["coreNum"] % 2 == 0
    starts = f["taskStart"][: f["coreNum"] // 2 + 1]
    assert starts[0] == 0 and starts[-1] == 2 and starts == sorted(starts)
    key = res["tiling_key"]
    assert (key >> 20) & 7 == 3 and (key >> 18) & 3 == 0 and (key >> 32) & 1 == 1 and (key >> 25) & 15 == 2
    rc, res, text = _tiling("bsnd_bf16")
    assert rc == 0, text
    assert (res["tiling_key"] >> 20) & 7 == 1 and (res["tiling_key"] >> 18) & 3 == 2 and res["tiling_key"] >> 32 == 0
    f = res["fields"]
    assert (f["qStrideS"], f["qStrideN"], f["kStrideS"]) == (2 * 64, 64, 2 * 64)  # BSND rows are N * D apart


@pytest.mark.parametrize("case,attrs,words", [
    ("causal_left_up", ["sparse_mode=5"], "sparse_mode 5 (prefix) is not implemented"),
    ("causal_left_up", ["sparse_mode=7"], "sparse_mode 7 (TND split-query causal) is not implemented"),
    ("bnsd_smoke", ["keep_prob=0.5"], "needs drop_mask"),
    ("bnsd_smoke", ["keep_prob=1.5"], "keep_prob = 1.5 must be in (0, 1]"),
    ("bsh_gqa", ["head_num=3"], "not a positive multiple of head_num = 3"),
    ("bnsd_smoke", ["input_layout=NSD"], "input_layout 'NSD' is not supported"),
    ("band", ["pre_tockens=-20", "next_tockens=4"], "leave no band"),
    ("pse_type1", ["pse_type=2"], "takes slopes real_shift"),
    ("default_mask_band", ["sparse_mode=2"], "takes the compressed atten_mask [2048, 2048]"),
])
def test_tiling_refuses_with_a_clear_message(case, attrs, words):
    rc, _, text = _tiling(case, *attrs)
    assert rc == 1, text
    # shape errors stop InferShape (it reads the layout first), the others the tiling
    assert ("FlashAttentionScore tiling error" in text or "FlashAttentionScore InferShape error" in text), text
    assert words in text, text


def test_tiling_vector_buffers_follow_the_features():
    # no mask, pse or dropout: no auxiliary rows; the scratch holds the row reductions of one chunk's rows
    # (rounded up to 8, at least 16: [rp, 64] + [rp, 32] + [rp] + [rp, 8] floats) and is 32-byte whole
    rc, res, text = _tiling("bnsd_smoke")
    assert rc == 0, text
    f = res["fields"]
    rp = max(16, -(-f["vecRows"] // 8) * 8)
    assert 0 < f["vecRows"] <= f["s1Base"] and f["vecRows"] * f["s2Base"] >= f["d2Align"]
    assert f["auxRows"] == 0 and f["smTmpBytes"] >= rp * 105 * 4 and f["smTmpBytes"] % 32 == 0
    assert f["bitPitch"] % 32 == 0 and f["bitPitch"] * 8 >= f["s2Base"]
    # dropout with S2 = 77: rows of drop_mask start inside a byte, so the kernel realigns them
    rc, res, text = _tiling("dropout_unaligned_causal")
    assert rc == 0, text
    f = res["fields"]
    assert f["auxRows"] == 16 and f["dropAligned"] == 0 and f["dropBytes"] == 770 and f["hasDrop"] == 1
    rc, res, text = _tiling("dropout")
    assert rc == 0, text
    assert res["fields"]["dropAligned"] == 1
    # the band of modes 2-4 is set by Duplicate on each row's masked range: no work buffers, so a causal
    # step's chunks are those of the unmasked case; a given mask (modes 0, 1) is read into them
    for case in ("causal_left_up", "causal_right_down", "multi_block_band"):
        rc, res, text = _tiling(case)
        assert rc == 0, text
        f = res["fields"]
        assert f["sparseMode"] >= 2 and f["auxRows"] == 0, case
    rc, res, text = _tiling("default_mask_band")
    assert rc == 0, text
    f = res["fields"]
    assert f["sparseMode"] == 0 and f["auxRows"] > 0


def test_tiling_folds_the_scale_into_q_only_when_exact():
    # scale * Q exact in the input dtype: a power-of-two scale of magnitude <= 1, or fp32 inputs
    for case, attrs, fold in [("bnsd_smoke", [], 1), ("tails", [], 0), ("bnsd_fp32", [], 1),
                              ("bnsd_smoke", ["scale_value=0.0883883"], 0), ("bnsd_smoke", ["scale_value=2.0"], 0),
                              ("bnsd_smoke", ["scale_value=-0.5"], 1), ("pse_type1_unfolded", [], 0)]:
        rc, res, text = _tiling(case, *attrs)
        assert rc == 0, text
        assert res["fields"]["foldScale"] == fold, (case, attrs)


def test_tiling_reads_a_broadcast_pse_row_with_one_batch():
    # [1, N1, 1, S2] with B = 1 is the broadcast row, not a [1, N1, S1, S2] tensor
    rc, res, text = _tiling("pse_type1_bcast")
    assert rc == 0, text
    assert res["fields"]["pseShape"] == 2  # fas::PSE_BN1S
    rc, res, text = _tiling("pse_type1")
    assert rc == 0, text
    assert res["fields"]["pseShape"] == 3  # fas::PSE_1NSS: with B = 1 the full tensor is [1, N1, S1, S2]


def test_unfused_chain_materialises_the_scores(golden):
    from opkit.perf.costs import chip_params
    from opkit.perf.unfused import check_steps, model_chain, peak_intermediate_bytes

    shapes = {"query": [4, 1024, 1024], "key": [4, 1024, 1024], "value": [4, 1024, 1024]}
    attrs = {"input_layout": "BSH", "head_num": 16}
    steps = check_steps(golden.unfused_chain(shapes, {"query": "float16"}, attrs))
    assert [s["op"] for s in steps] == ["bmm_qk", "scale", "softmax", "bmm_pv"]
    scores = 4 * 16 * 1024 * 1024 * 2
    assert steps[0]["writes"] == {"scores": scores} and steps[-1]["reads"]["probs"] == scores
    assert [s["unit"] for s in steps] == ["cube", "vector", "vector", "cube"]
    own = ["query", "key", "value", "softmax_max", "softmax_sum", "attention_out"]
    assert peak_intermediate_bytes(steps, own) == 2 * scores  # an input and an output score tensor at once
    model = model_chain(steps, chip_params("ascend910b2"), own)
    # the matmuls at the cube peak: their roofline is the HBM traffic, not vector arithmetic
    assert model["steps"][0]["bound_by"] == "hbm" and model["steps"][-1]["bound_by"] == "hbm"
    masked = golden.unfused_chain({**shapes, "atten_mask": [2048, 2048]}, {"query": "float16"},
                                  {**attrs, "sparse_mode": 2, "keep_prob": 0.9})
    assert [s["op"] for s in masked] == ["bmm_qk", "scale", "mask", "softmax", "dropout", "bmm_pv"]
    # the compressed band template stands for an S1 x S2 mask: the chain reads that, not the 2048 x 2048 template
    assert masked[2]["reads"]["atten_mask"] == 1024 * 1024
    full = golden.unfused_chain({**shapes, "atten_mask": [4, 1, 1024, 1024]}, {"query": "float16"},
                                {**attrs, "sparse_mode": 0})
    assert full[2]["reads"]["atten_mask"] == 4 * 1024 * 1024  # a mask given in full is read as given
    from opkit.errors import OpkitError
    with pytest.raises(OpkitError, match="'unit' must be 'vector' or 'cube'"):
        check_steps([{**steps[0], "unit": "tensor"}])
