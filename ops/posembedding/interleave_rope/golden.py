"""Golden reference of InterleaveRope, with its cost model and input generators.

InterleaveRope (ops-transformer: posembedding/interleave_rope/README.md) takes x of shape
[B, N, S, D] whose last axis holds D/2 interleaved pairs (x[2t], x[2t+1]). It first brings the
pairs into half-split order,

    q = concat(x[..., 0::2], x[..., 1::2])              # q[t] = x[2t], q[D/2 + t] = x[2t + 1]

and then applies rotate-half rotary embedding with tables that are already in half-split order:

    y = q * cos + RotateHalf(q) * sin,   RotateHalf(q) = concat(-q[..., D/2:], q[..., :D/2])

so that, per pair t (r = x[2t], i = x[2t+1]):

    y[t]       = r * cos[t]       - i * sin[t]
    y[D/2 + t] = i * cos[D/2 + t] + r * sin[D/2 + t]

y stays in half-split order. cos and sin broadcast over N, and over B and/or S where they have 1.

opkit calls ``interleave_rope`` with float64 arrays holding exactly the values the kernel receives
(already rounded to the input dtype). The kernel computes in float32 and rounds once to the output
dtype; the golden computes in float64.
"""

from __future__ import annotations

import numpy as np

from opkit.dtypes import DTYPES

ROPE_BASE = 10000.0  # the frequency base of LLaMA-style rotary embeddings


def interleave_rope(x, cos, sin):
    """y = q * cos + RotateHalf(q) * sin with q the de-interleaved x (float64)."""
    x = np.asarray(x, dtype=np.float64)
    cos = np.asarray(cos, dtype=np.float64)
    sin = np.asarray(sin, dtype=np.float64)
    half = x.shape[-1] // 2
    q = np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)
    rotated = np.concatenate([-q[..., half:], q[..., :half]], axis=-1)
    with np.errstate(invalid="ignore", over="ignore"):
        return {"y": q * cos + rotated * sin}


# --- input generators (op.yaml: init: {cos: {custom: rope_cos}, sin: {custom: rope_sin}}) --------

def _angles(shape):
    """Rotation angles of a [Bc, 1, Sc, D] table in half-split order.

    Position p of batch b is b * 11 + s (decode tables, Sc = 1, thus give each batch its own
    position); column j rotates with frequency ROPE_BASE ** (-2 (j mod D/2) / D), so both halves
    of a row carry the same angles, as LLaMA-style cos/sin caches do.
    """
    bc, _, sc, d = shape
    half = d // 2
    pos = (np.arange(bc)[:, None] * 11 + np.arange(sc)[None, :]).astype(np.float64)  # [Bc, Sc]
    inv_freq = ROPE_BASE ** (-2.0 * np.arange(half, dtype=np.float64) / d)  # [D/2]
    theta = pos[..., None] * inv_freq  # [Bc, Sc, D/2]
    theta = np.concatenate([theta, theta], axis=-1)  # [Bc, Sc, D]
    return theta.reshape(bc, 1, sc, d)


def rope_cos(shape, dtype, rng, attrs):
    """A real cosine cache of the given [Bc, 1, Sc, D] shape (deterministic; rng unused)."""
    return np.cos(_angles(tuple(shape)))


def rope_sin(shape, dtype, rng, attrs):
    """The sine cache that goes with ``rope_cos`` for the same shape."""
    return np.sin(_angles(tuple(shape)))


# --- cost model (for opkit's performance model) ---------------------------------------------------

def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _itemsize(dtypes, name):
    return DTYPES[dtypes[name]].size


def flops(shapes, dtypes, attrs):
    """Arithmetic per call: two multiplies and one add per output element.

    The de-interleave and the sign of RotateHalf move or flip data and are not counted.
    """
    return 3 * _numel(shapes["x"])


def hbm_bytes(shapes, dtypes, attrs):
    """Compulsory global-memory traffic of the fused kernel.

    x is read once and y written once; cos and sin are read once each in their own (broadcast)
    shape. With the prefill tiling keys the kernel reads each cos/sin row once per position; with
    the row-split keys it re-reads them for every head, re-reads that L2 serves for any realistic
    table size, so they are not counted as HBM traffic.
    """
    n = _numel(shapes["x"])
    return (n * (_itemsize(dtypes, "x") + _itemsize(dtypes, "y"))
            + _numel(shapes["cos"]) * _itemsize(dtypes, "cos")
            + _numel(shapes["sin"]) * _itemsize(dtypes, "sin"))


def unfused_chain(shapes, dtypes, attrs):
    """The chain of primitive operators the fused kernel replaces, one launch each.

    opkit's ``unfused_chain`` hook (docs/perf.md, "Fused against unfused"): a list of steps
    {op, reads, writes, flops, dtype}, where reads/writes map tensor names to the bytes moved
    through global memory. x, cos, sin and y are the op's own tensors; q, a, r and b are
    intermediates, kept in the dtype of x (as a framework running the model in fp16/bf16 would
    keep them). The steps follow the formula:

      1. strided_gather  q = concat(x[..., 0::2], x[..., 1::2])     reads x, writes q
      2. mul             a = q * cos                                 reads q and cos, writes a
      3. rotate          r = concat(-q[..., D/2:], q[..., :D/2])    reads q, writes r
      4. mul             b = r * sin                                 reads r and sin, writes b
      5. add             y = a + b                                   reads a and b, writes y

    cos and sin are read once in their own (broadcast) shape, as in ``hbm_bytes``.
    """
    nb = _numel(shapes["x"]) * _itemsize(dtypes, "x")
    n = _numel(shapes["x"])
    nc = _numel(shapes["cos"]) * _itemsize(dtypes, "cos")
    ns = _numel(shapes["sin"]) * _itemsize(dtypes, "sin")
    dt = dtypes["x"]
    return [
        {"op": "strided_gather", "reads": {"x": nb}, "writes": {"q": nb}, "flops": 0, "dtype": dt},
        {"op": "mul", "reads": {"q": nb, "cos": nc}, "writes": {"a": nb}, "flops": n, "dtype": dt},
        {"op": "rotate", "reads": {"q": nb}, "writes": {"r": nb}, "flops": 0, "dtype": dt},
        {"op": "mul", "reads": {"r": nb, "sin": ns}, "writes": {"b": nb}, "flops": n, "dtype": dt},
        {"op": "add", "reads": {"a": nb, "b": nb}, "writes": {"y": nb}, "flops": n, "dtype": dt},
    ]
