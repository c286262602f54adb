"""Low-precision number formats on the host: NumPy dtypes, bf16 via ml_dtypes, ulps and limits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from opkit.dtypes import DTYPES


@dataclass(frozen=True)
class FloatFormat:
    mantissa_bits: int  # explicit fraction bits
    min_exp: int  # exponent of the smallest normal number
    max_value: float
    smallest_normal: float
    smallest_subnormal: float


FLOAT_FORMATS = {
    "float16": FloatFormat(10, -14, 65504.0, 2.0**-14, 2.0**-24),
    "bfloat16": FloatFormat(7, -126, float(np.finfo(np.float32).max) * (1 - 2.0**-8) / (1 - 2.0**-24),
                            2.0**-126, 2.0**-133),
    "float32": FloatFormat(23, -126, float(np.finfo(np.float32).max), 2.0**-126, 2.0**-149),
    "float64": FloatFormat(52, -1022, float(np.finfo(np.float64).max), 2.0**-1022, 2.0**-1074),
}


def np_dtype(name: str) -> np.dtype:
    """The NumPy dtype holding values of a spec dtype (bfloat16 through ml_dtypes)."""
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(DTYPES[name].numpy)


def ulp(values: np.ndarray, dtype: str) -> np.ndarray:
    """The unit in the last place of each value in the float format ``dtype`` (as float64)."""
    fmt = FLOAT_FORMATS[dtype]
    a = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        _, e = np.frexp(a)  # a = m * 2**e with m in [0.5, 1)
    exp = np.where(a > 0, np.maximum(e.astype(np.int64) - 1, fmt.min_exp), fmt.min_exp)
    return np.ldexp(1.0, (exp - fmt.mantissa_bits).astype(np.int32))


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """Values rounded (to nearest even) into ``dtype``'s NumPy representation."""
    return np.asarray(values).astype(np_dtype(dtype))


def int_range_problem(values: np.ndarray, dtype: str) -> str | None:
    """Why ``values`` cannot be a packed integer tensor of ``dtype`` (a value outside int4's [-8, 7], say), or None."""
    lo_hi = DTYPES[dtype].value_range
    arr = np.asarray(values)
    if lo_hi is None or arr.size == 0:
        return None
    if arr.dtype.kind not in "iub":
        return f"{dtype} values must be integers (got {arr.dtype})"
    lo, hi = int(arr.min()), int(arr.max())
    if lo < lo_hi[0] or hi > lo_hi[1]:
        bad = lo if lo < lo_hi[0] else hi
        return f"{dtype} holds values in [{lo_hi[0]}, {lo_hi[1]}]; got {bad}"
    return None


def to_device(values: np.ndarray, dtype: str) -> np.ndarray:
    """The bytes the kernel reads for a tensor of ``dtype``, as a flat array: the values themselves, or for a packed
    type (int4) two elements per byte, element 2i in the low nibble and 2i+1 in the high one (an odd count leaves the
    last high nibble 0), as CANN stores DT_INT4."""
    arr = np.ascontiguousarray(values)
    d = DTYPES[dtype]
    if not d.packed:
        return arr
    problem = int_range_problem(arr, dtype)
    if problem:
        raise ValueError(problem)
    per_byte = 8 // d.bits
    mask = (1 << d.bits) - 1
    flat = arr.reshape(-1).astype(np.int64) & mask
    pad = (-flat.size) % per_byte
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, dtype=np.int64)])
    lanes = flat.reshape(-1, per_byte)
    out = np.zeros(lanes.shape[0], dtype=np.uint8)
    for k in range(per_byte):
        out |= (lanes[:, k] << (k * d.bits)).astype(np.uint8)
    return out


def from_device(raw: np.ndarray, dtype: str, count: int) -> np.ndarray:
    """``count`` elements of ``dtype`` from the device bytes ``raw`` (the inverse of :func:`to_device`), flat."""
    d = DTYPES[dtype]
    if not d.packed:
        return np.asarray(raw).view(np_dtype(dtype))[:count]
    per_byte = 8 // d.bits
    mask = (1 << d.bits) - 1
    b = np.asarray(raw).view(np.uint8).astype(np.int16)
    lanes = np.stack([(b >> (k * d.bits)) & mask for k in range(per_byte)], axis=1).reshape(-1)[:count]
    if d.kind == "int":  # sign-extend
        lanes = np.where(lanes >= (1 << (d.bits - 1)), lanes - (1 << d.bits), lanes)
    return lanes.astype(np_dtype(dtype))


def tensor_bytes(dtype: str, shape: Sequence[int]) -> int:
    """Bytes of a tensor of ``dtype`` and ``shape`` on the device (int4: packed two per byte)."""
    return device_bytes(int(np.prod(shape, dtype=np.int64)), dtype)


def device_bytes(count: int, dtype: str) -> int:
    """Bytes ``count`` elements of ``dtype`` take on the device (int4: two per byte, rounded up)."""
    d = DTYPES[dtype]
    if d.packed:
        return (count * d.bits + 7) // 8
    return count * np_dtype(dtype).itemsize
