"""Low-precision number formats on the host: NumPy dtypes, bf16 via ml_dtypes, ulps and limits."""

from __future__ import annotations

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
