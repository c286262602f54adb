"""Golden reference of FlashAttentionScore (the training forward), with input generators and costs.

FlashAttentionScore (ops-transformer: attention/flash_attention_score) computes, per batch b and
query head n1 (key/value head n2 = n1 // G with G = N1 / N2: GQA/MQA),

    S   = scale * (Q K^T + pse)            pse_type 1 (the default)
    S   = scale * (Q K^T) + pse            pse_type 0, 2, 3 (2/3: pse generated from slopes)
    S[masked] = -inf
    P   = softmax_rows(S)
    P'  = P * keep / keep_prob             keep: bit of drop_mask, 1 = keep (keep_prob < 1 only)
    out = P' V

and returns, per query row, softmax_max = max_j S and softmax_sum = sum_j exp(S - max), float32,
replicated 8 times along a trailing axis (what FlashAttentionScoreGrad reads back).

Masks (true = do not attend; i query row, j key column, delta = S2 - S1, local to each batch in TND):

    mode 0  the given atten_mask, and the band from the top-left corner: j - i > next or i - j > pre
    mode 1  the given atten_mask only
    mode 2  j > i                                   (atten_mask: the compressed 2048 x 2048 triangle)
    mode 3  j > i + delta                           (compressed)
    mode 4  band from the bottom-right corner: j - i > next + delta or i - j > pre - delta (compressed)
    mode 5  j > i + delta, except j < prefix[b]    (atten_mask [B|1, 1, S1, S2], not read)
    mode 6  as mode 5                               (compressed [3072, 2048])

Without atten_mask nothing is masked, whatever sparse_mode, pre_tockens and next_tockens say (as in
ops-transformer). Modes 7 and 8 (TND split-query causal) are refused.

A fully masked row (every column masked) gets attention_out 0, softmax_max -FLT_MAX and softmax_sum
+FLT_MAX: ops-transformer's invalid-row result (inner_precise 2, switched on by itself e.g. for mode 3
with S1 > S2), which opkit's kernel produces whatever inner_precise says. With those values the
backward's exp(S - max) / sum is 0 for the row.

Dropout reads drop_mask as one bit per element of the [B, N1, S1, S2] score tensor (TND: batch by
batch, [N1, Sq_b, Skv_b] each), in row-major order, element e in bit e % 8 of byte e // 8 (least
significant bit first, as Ascend C's DropOut reads a bit mask; docs/simulator.md).

opkit calls ``flash_attention_score`` with float64 arrays holding exactly the values the kernel
receives; everything is computed in float64, per (batch, head) and per block of query rows, so that
S1 = S2 = 8192 needs a few tens of MB.
"""

from __future__ import annotations

import numpy as np

FLT_MAX = float(np.finfo(np.float32).max)
ROW_BLOCK = 512  # query rows per block of the golden's computation
LAYOUTS = ("BSH", "SBH", "BSND", "BNSD", "TND")
COMPRESSED_MODES = (2, 3, 4, 6, 7, 8)


class GoldenError(ValueError):
    """An input combination the operator does not define (the tiling refuses it too)."""


# --- layouts -------------------------------------------------------------------------------------

def _cum_to_lengths(cum, name):
    cum = [int(c) for c in np.asarray(cum).reshape(-1)]
    prev, out = 0, []
    for i, c in enumerate(cum):
        if c < prev:
            raise GoldenError(f"{name}[{i}] = {c} is smaller than {name}[{i - 1}] = {prev}: "
                              "the list holds cumulative lengths")
        out.append((prev, c))
        prev = c
    return out


def split_batches(t, layout, heads, name, cum=None):
    """Per batch, the tensor as [N, S, D] (a view where the layout allows)."""
    if layout == "BNSD":
        return [t[b] for b in range(t.shape[0])]
    if layout == "BSND":
        return [t[b].transpose(1, 0, 2) for b in range(t.shape[0])]
    if layout == "BSH":
        b_, s, h = t.shape
        return [t[b].reshape(s, heads, h // heads).transpose(1, 0, 2) for b in range(b_)]
    if layout == "SBH":
        s, b_, h = t.shape
        return [t[:, b].reshape(s, heads, h // heads).transpose(1, 0, 2) for b in range(b_)]
    if layout == "TND":
        if cum is None:
            raise GoldenError(f"input_layout TND needs the cumulative sequence lengths of {name}")
        return [t[lo:hi].transpose(1, 0, 2) for lo, hi in _cum_to_lengths(cum, name)]
    raise GoldenError(f"input_layout '{layout}' is not one of {', '.join(LAYOUTS)}")


def heads_of(query, key, layout, head_num):
    """(N1, N2, D) from the query and key shapes in the given layout."""
    if layout in ("BSH", "SBH"):
        if query.shape[2] % head_num:
            raise GoldenError(f"H = {query.shape[2]} of the query is not a multiple of head_num = {head_num}")
        d = query.shape[2] // head_num
        if key.shape[2] % d:
            raise GoldenError(f"H = {key.shape[2]} of the key is not a multiple of D = {d}")
        return head_num, key.shape[2] // d, d
    axis = {"BSND": 2, "BNSD": 1, "TND": 1}[layout]
    return query.shape[axis], key.shape[axis], query.shape[-1]


def merge_batches(per_batch, layout):
    """The inverse of split_batches for the output: a list of [N, S, D] back into the layout."""
    if layout == "BNSD":
        return np.stack(per_batch)
    if layout == "BSND":
        return np.stack([o.transpose(1, 0, 2) for o in per_batch])
    if layout == "BSH":
        return np.stack([o.transpose(1, 0, 2).reshape(o.shape[1], -1) for o in per_batch])
    if layout == "SBH":
        return np.stack([o.transpose(1, 0, 2).reshape(o.shape[1], -1) for o in per_batch], axis=1)
    return np.concatenate([o.transpose(1, 0, 2) for o in per_batch], axis=0)  # TND


# --- masks ---------------------------------------------------------------------------------------

def band_mask(rows, s1, s2, sparse_mode, pre, nxt, prefix_b=None):
    """The logical mask of the sparse mode for the query rows ``rows`` ([len(rows), S2], True = masked)
    or None where only the given atten_mask applies."""
    i = np.asarray(rows)[:, None]
    j = np.arange(s2)[None, :]
    delta = s2 - s1
    if sparse_mode == 0:
        return (j - i > nxt) | (i - j > pre)
    if sparse_mode == 1:
        return None
    if sparse_mode == 2:
        return j > i
    if sparse_mode == 3:
        return j > i + delta
    if sparse_mode == 4:
        return (j - i > nxt + delta) | (i - j > pre - delta)
    if sparse_mode in (5, 6):
        return (j > i + delta) & ~(j < prefix_b)
    raise GoldenError(f"sparse_mode {sparse_mode} is not supported (modes 0 to 6; 7 and 8, the TND split-query "
                      "causal modes, are not implemented)")


def given_mask_rows(atten_mask, b, n1, rows, s2, layout):
    """The rows of the given (uncompressed) atten_mask for batch b, head n1 ([len(rows), S2])."""
    m = atten_mask
    if m.ndim == 2:
        return m[rows, :s2]
    if m.ndim == 4:
        return m[b if m.shape[0] > 1 else 0, n1 if m.shape[1] > 1 else 0][rows, :s2]
    raise GoldenError(f"atten_mask has {m.ndim} dims; expected [S1, S2] or [B|1, N1|1, S1, S2]")


# --- pse -----------------------------------------------------------------------------------------

def pse_rows(real_shift, pse_type, b, n1, rows, s2, q_start, kv_start):
    """The position bias added for batch b, head n1, query rows ``rows`` ([len(rows), S2])."""
    if pse_type in (2, 3):
        slopes = real_shift
        slope = slopes[b, n1] if slopes.ndim == 2 else slopes[n1]
        dist = np.abs(np.arange(s2)[None, :] + kv_start - np.asarray(rows)[:, None] - q_start).astype(np.float64)
        return -slope * (np.sqrt(dist) if pse_type == 3 else dist)
    p = real_shift
    if p.ndim != 4:
        raise GoldenError(f"real_shift has {p.ndim} dims; pse_type {pse_type} takes [B|1, N1, S1|1, S2]")
    p = p[b if p.shape[0] > 1 else 0, n1]
    return p[0:1, :s2] if p.shape[0] == 1 else p[rows, :s2]


# --- dropout -------------------------------------------------------------------------------------

def keep_bits(drop_mask, start, count):
    """``count`` bits of drop_mask from bit ``start`` on, least significant bit of each byte first."""
    flat = np.asarray(drop_mask).reshape(-1).astype(np.uint8)
    first, last = start // 8, (start + count + 7) // 8
    if last > flat.size:
        raise GoldenError(f"drop_mask holds {flat.size} bytes, fewer than the {last} the scores need (one bit per "
                          "element of [B, N1, S1, S2])")
    bits = np.unpackbits(flat[first:last], bitorder="little")
    return bits[start - first * 8: start - first * 8 + count].astype(bool)


# --- the operator --------------------------------------------------------------------------------

def _attend_block(q, k, v, scale, pse, pse_type, masked, keep, keep_prob):
    """One block of query rows of one head: (out, max, sum), with the invalid-row result."""
    s = q @ k.T
    if pse is not None and pse_type == 1:
        s = scale * (s + pse)
    elif pse is not None:
        s = scale * s + pse
    else:
        s = scale * s
    if masked is not None:
        s = np.where(masked, -np.inf, s)
    with np.errstate(invalid="ignore"):
        m = s.max(axis=1, keepdims=True)
    invalid = ~np.isfinite(m[:, 0]) & (m[:, 0] < 0) if s.shape[1] else np.ones(s.shape[0], bool)
    m_safe = np.where(invalid[:, None], 0.0, m) if s.shape[1] else np.zeros((s.shape[0], 1))
    e = np.exp(s - m_safe)
    denom = e.sum(axis=1, keepdims=True)
    p = e / np.where(invalid[:, None], 1.0, denom)
    if keep is not None:
        p = p * keep / keep_prob
    out = p @ v
    out[invalid] = 0.0
    mx = np.where(invalid, -FLT_MAX, m_safe[:, 0])
    sm = np.where(invalid, FLT_MAX, denom[:, 0])
    return out, mx, sm


def flash_attention_score(query, key, value, real_shift=None, drop_mask=None, padding_mask=None, atten_mask=None,
                          prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, q_start_idx=None,
                          kv_start_idx=None, d_scale_q=None, d_scale_k=None, d_scale_v=None, query_rope=None,
                          key_rope=None, scale_value=1.0, keep_prob=1.0, pre_tockens=2147483647,
                          next_tockens=2147483647, head_num=1, input_layout="BSH", inner_precise=0, sparse_mode=0,
                          pse_type=1, seed=0, offset=0, out_dtype=0, softmax_out_layout="", row_block=ROW_BLOCK):
    """attention_out, softmax_max, softmax_sum (float64) and the empty softmax_out placeholder."""
    layout = str(input_layout).upper()
    if layout not in LAYOUTS:
        raise GoldenError(f"input_layout '{input_layout}' is not one of {', '.join(LAYOUTS)}")
    if not 0.0 < keep_prob <= 1.0:
        raise GoldenError(f"keep_prob = {keep_prob} is outside (0, 1]")
    if keep_prob < 1.0 and drop_mask is None:
        raise GoldenError("keep_prob < 1 needs drop_mask (the kernel draws no random numbers)")
    if query_rope is not None or key_rope is not None or d_scale_q is not None:
        raise GoldenError("query_rope/key_rope and d_scale_q/k/v (fp8) are not supported")
    n1, n2, d = heads_of(query, key, layout, int(head_num))
    if n1 % n2:
        raise GoldenError(f"N1 = {n1} query heads is not a multiple of N2 = {n2} key/value heads")
    g = n1 // n2
    qs = split_batches(np.asarray(query, np.float64), layout, n1, "actual_seq_qlen", actual_seq_qlen)
    ks = split_batches(np.asarray(key, np.float64), layout, n2, "actual_seq_kvlen", actual_seq_kvlen)
    vs = split_batches(np.asarray(value, np.float64), layout, n2, "actual_seq_kvlen", actual_seq_kvlen)
    if len(qs) != len(ks):
        raise GoldenError(f"{len(qs)} query batches against {len(ks)} key batches")
    has_mask = atten_mask is not None
    mask = None if not has_mask else np.asarray(atten_mask).astype(bool)
    pse = None if real_shift is None else np.asarray(real_shift, np.float64)
    if pse is not None and layout == "TND" and pse_type in (0, 1):
        raise GoldenError("input_layout TND takes real_shift only as slopes (pse_type 2 or 3)")
    if pse is not None and pse_type in (0, 1) and pse.ndim == 4 and pse.shape[2] not in (1, qs[0].shape[1]):
        raise GoldenError(f"real_shift rows {pse.shape[2]}: the compressed alibi form is not supported")
    q0 = 0 if q_start_idx is None else int(np.asarray(q_start_idx).reshape(-1)[0])
    kv0 = 0 if kv_start_idx is None else int(np.asarray(kv_start_idx).reshape(-1)[0])
    prefix_l = None if prefix is None else [int(x) for x in np.asarray(prefix).reshape(-1)]
    if has_mask and sparse_mode in (5, 6) and prefix_l is None:
        raise GoldenError(f"sparse_mode {sparse_mode} needs prefix")
    outs, maxes, sums = [], [], []
    bit = 0
    for b, (qb, kb, vb) in enumerate(zip(qs, ks, vs, strict=True)):
        s1, s2 = qb.shape[1], kb.shape[1]
        ob = np.zeros((n1, s1, vb.shape[2]))
        mb = np.zeros((n1, s1))
        lb = np.zeros((n1, s1))
        for h in range(n1):
            kh, vh = kb[h // g], vb[h // g]
            for r0 in range(0, s1, row_block):
                rows = np.arange(r0, min(s1, r0 + row_block))
                masked = None
                if has_mask:
                    pb = None if prefix_l is None else prefix_l[b]
                    masked = band_mask(rows, s1, s2, int(sparse_mode), int(pre_tockens), int(next_tockens), pb)
                    if sparse_mode in (0, 1):
                        given = given_mask_rows(mask, b, h, rows, s2, layout)
                        masked = given if masked is None else (masked | given)
                p = None if pse is None else pse_rows(pse, int(pse_type), b, h, rows, s2, q0, kv0)
                keep = None
                if keep_prob < 1.0:
                    start = bit + (h * s1 + r0) * s2
                    keep = keep_bits(drop_mask, start, len(rows) * s2).reshape(len(rows), s2)
                o, m, sm = _attend_block(qb[h, rows], kh, vh, float(scale_value), p, int(pse_type), masked, keep,
                                         float(keep_prob))
                ob[h, rows], mb[h, rows], lb[h, rows] = o, m, sm
        bit += n1 * s1 * s2
        outs.append(ob)
        maxes.append(mb)
        sums.append(lb)
    return {
        "softmax_max": _stats(maxes, layout),
        "softmax_sum": _stats(sums, layout),
        "softmax_out": np.zeros((0, 0, 0, 0)),
        "attention_out": merge_batches(outs, layout),
    }


def _stats(per_batch, layout):
    """[B, N1, S1, 8] (TND: [T, N1, 8]) replicated softmax statistics."""
    if layout == "TND":
        t = np.concatenate([x.T for x in per_batch], axis=0)
        return np.repeat(t[:, :, None], 8, axis=2)
    return np.repeat(np.stack(per_batch)[..., None], 8, axis=3)


# --- input generators (op.yaml: init: {name: {custom: fn}}) -------------------------------------

def causal_mask_2048(shape, dtype, rng, attrs):
    """The compressed lower-triangle mask of sparse modes 2, 3, 4: True above the diagonal."""
    return np.triu(np.ones(shape, dtype=bool), k=1)


def prefix_mask_3072(shape, dtype, rng, attrs):
    """The compressed mask of sparse mode 6: the 2048 x 2048 triangle over a 1024 x 2048 block whose
    left half is 0 and right half 1."""
    m = np.zeros(shape, dtype=bool)
    m[:2048] = np.triu(np.ones((2048, shape[1]), dtype=bool), k=1)
    m[2048:, shape[1] // 2:] = True
    return m


def _cumulative(lengths, shape):
    if list(shape) != [len(lengths)]:
        raise GoldenError(f"this generator makes {len(lengths)} lengths, the case's shape is {list(shape)}")
    return np.cumsum(np.asarray(lengths, dtype=np.int64))


# cumulative lengths of the TND cases (the names tell the per-batch lengths)
def seq_q_5_0_17_8(shape, dtype, rng, attrs):
    return _cumulative([5, 0, 17, 8], shape)


def seq_kv_9_0_17_3(shape, dtype, rng, attrs):
    return _cumulative([9, 0, 17, 3], shape)


def slopes_alibi(shape, dtype, rng, attrs):
    """ALiBi slopes 2^(-8 (n + 1) / N1) for pse_type 2/3 ([N1] or [B, N1])."""
    n = shape[-1]
    s = 2.0 ** (-8.0 * (np.arange(n) + 1) / n)
    return np.broadcast_to(s, shape).copy()


# --- cost model ----------------------------------------------------------------------------------

def _dims(shapes, attrs):
    layout = str(attrs.get("input_layout", "BSH")).upper()
    q, k, v = shapes["query"], shapes["key"], shapes["value"]
    hn = int(attrs.get("head_num", 1))
    if layout == "BSH":
        b, s1, s2, n1, d = q[0], q[1], k[1], hn, q[2] // hn
        d2 = v[2] // (k[2] // d) if d else 0
    elif layout == "SBH":
        b, s1, s2, n1, d = q[1], q[0], k[0], hn, q[2] // hn
        d2 = v[2] // (k[2] // d) if d else 0
    elif layout == "BSND":
        b, s1, s2, n1, d, d2 = q[0], q[1], k[1], q[2], q[3], v[3]
    elif layout == "BNSD":
        b, s1, s2, n1, d, d2 = q[0], q[2], k[2], q[1], q[3], v[3]
    else:  # TND: an upper bound, as if every batch had the longest sequences
        b, s1, s2, n1, d, d2 = 1, q[0], k[0], q[1], q[2], v[2]
    return b, n1, s1, s2, d, d2


def attended_fraction(s1, s2, attrs, has_mask):
    """The share of the S1 x S2 scores that the sparse mode leaves to compute."""
    if not has_mask or s1 == 0 or s2 == 0:
        return 1.0
    mode = int(attrs.get("sparse_mode", 0))
    if mode in (1,):
        return 1.0
    rows = np.arange(s1)
    try:
        m = band_mask(rows, s1, s2, mode, int(attrs.get("pre_tockens", 2147483647)),
                      int(attrs.get("next_tockens", 2147483647)), 0)
    except GoldenError:
        return 1.0
    return float((~m).sum()) / (s1 * s2)


def flops(shapes, dtypes, attrs):
    """Q K^T and P V multiply-adds (2 flops each) over the scores the sparse mode computes."""
    b, n1, s1, s2, d, d2 = _dims(shapes, attrs)
    frac = attended_fraction(s1, s2, attrs, "atten_mask" in shapes and shapes.get("atten_mask") is not None)
    return int(2 * b * n1 * s1 * s2 * (d + d2) * frac)


def hbm_bytes(shapes, dtypes, attrs):
    """Q, K, V read once, attention_out written, softmax_max/sum written (fp32 x 8)."""
    item = 4 if dtypes.get("query") == "float32" else 2
    b, n1, s1, s2, d, d2 = _dims(shapes, attrs)
    n2 = int(np.prod(shapes["key"])) // max(1, b * s2 * d)
    return int(item * (b * n1 * s1 * d + b * n2 * s2 * (d + d2) + b * n1 * s1 * d2) + 2 * 4 * 8 * b * n1 * s1)


def unfused_chain(shapes, dtypes, attrs):
    """The chain of primitive operators the fused kernel replaces, one launch each (docs/perf.md §7).

    As a framework runs attention without the fused kernel, every [B, N1, S1, S2] score tensor in
    the input dtype through HBM:

      Q K^T (cube) -> scale (+ pse) (+ mask) -> softmax (also writing softmax_max / softmax_sum) ->
      dropout (keep_prob < 1) -> P V (cube)

    query, key, value, real_shift, atten_mask, drop_mask, softmax_max, softmax_sum and attention_out
    are the op's own tensors; scores, scaled, probs and dropped are intermediates. The matmuls count
    all S1 x S2 scores (an unfused chain computes the masked ones too); operation counts: 1 per score
    for the scale, pse add and mask, 5 for the softmax (max, subtract, exp, sum, divide), 1 for dropout.
    """
    item = 4 if dtypes.get("query") == "float32" else 2
    dt = dtypes.get("query", "float16")
    b, n1, s1, s2, d, d2 = _dims(shapes, attrs)
    n2 = int(np.prod(shapes["key"])) // max(1, b * s2 * d)
    scores = b * n1 * s1 * s2
    sb = scores * item

    def step(op, reads, writes, fl, unit="vector"):
        return {"op": op, "reads": reads, "writes": writes, "flops": int(fl), "dtype": dt, "unit": unit}

    chain = [step("bmm_qk", {"query": b * n1 * s1 * d * item, "key": b * n2 * s2 * d * item}, {"scores": sb},
                  2 * scores * d, "cube")]
    cur = "scores"
    pse = shapes.get("real_shift")
    if pse is not None:
        pse_item = 4 if dtypes.get("real_shift") == "float32" else 2
        chain.append(step("add_pse", {cur: sb, "real_shift": int(np.prod(pse)) * pse_item}, {"biased": sb}, scores))
        cur = "biased"
    chain.append(step("scale", {cur: sb}, {"scaled": sb}, scores))
    cur = "scaled"
    mask = shapes.get("atten_mask")
    if mask is not None:
        # sparse modes 2-4 take a compressed 2048 x 2048 band template: an unfused chain applies the S1 x S2 mask it
        # stands for, one byte per score of a [S1, S2] mask shared by every batch and head
        mask_bytes = s1 * s2 if int(attrs.get("sparse_mode", 0)) in (2, 3, 4) else int(np.prod(mask))
        chain.append(step("mask", {cur: sb, "atten_mask": mask_bytes}, {"masked": sb}, scores))
        cur = "masked"
    stats = b * n1 * s1 * 8 * 4
    chain.append(step("softmax", {cur: sb}, {"probs": sb, "softmax_max": stats, "softmax_sum": stats}, 5 * scores))
    cur = "probs"
    if float(attrs.get("keep_prob", 1.0)) < 1.0:
        chain.append(step("dropout", {cur: sb, "drop_mask": (scores + 7) // 8}, {"dropped": sb}, scores))
        cur = "dropped"
    chain.append(step("bmm_pv", {cur: sb, "value": b * n2 * s2 * d2 * item}, {"attention_out": b * n1 * s1 * d2 * item},
                      2 * scores * d2, "cube"))
    return chain
