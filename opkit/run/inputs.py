"""Seeded inputs of a case: distributions, special values, rounding to the input's dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from opkit.dtypes import DTYPES
from opkit.errors import OpkitError
from opkit.numerics import FLOAT_FORMATS, int_range_problem, np_dtype
from opkit.spec import Case, Param, Spec

DEFAULT_SPECIAL_FRACTION = 0.01


def _special_value(token: Any, dtype: str) -> float:
    if not isinstance(token, str):
        return float(token)
    fmt = FLOAT_FORMATS.get(dtype)
    table = {"nan": np.nan, "inf": np.inf, "+inf": np.inf, "-inf": -np.inf, "zero": 0.0, "-zero": -0.0}
    if token in table:
        return table[token]
    if fmt is None:  # pragma: no cover - the loader refuses these for integer tensors
        raise OpkitError(f"special value '{token}' needs a float tensor")
    return {
        "huge": fmt.max_value / 2, "-huge": -fmt.max_value / 2, "tiny": fmt.smallest_normal,
        "denormal": fmt.smallest_subnormal,
    }[token]


def _draw(dist: Any, shape: tuple[int, ...], dtype: str, rng: np.random.Generator,
          custom: Callable[[str], Callable[..., Any]] | None, attrs: dict[str, Any]) -> np.ndarray:
    kind = np.dtype(np_dtype(dtype)).kind if dtype != "bfloat16" else "f"
    if kind == "c":  # complex: real and imaginary parts drawn independently from the distribution
        parts = [_draw(dist, shape, "float32", rng, custom, attrs) for _ in range(2)] if not _is_custom(dist) else None
        if parts is not None:
            return parts[0] + 1j * parts[1]
    if dist is None:
        dist = "uniform" if kind == "f" else "randint"
    if isinstance(dist, str):
        dist = {"uniform": {"uniform": [-1.0, 1.0]}, "normal": {"normal": [0.0, 1.0]},
                "randint": {"randint": list(DTYPES[dtype].value_range or ((0, 10) if kind in "ub" else (-10, 10)))},
                "zeros": {"constant": 0}, "ones": {"constant": 1}}[dist]
    (name, arg), = dist.items()
    if name == "uniform":
        return rng.uniform(arg[0], arg[1], size=shape)
    if name == "normal":
        return rng.normal(arg[0], arg[1], size=shape)
    if name == "randint":
        if kind == "b":
            return rng.integers(0, 2, size=shape).astype(bool)
        return rng.integers(arg[0], arg[1], size=shape, endpoint=True)
    if name == "constant":
        return np.full(shape, arg)
    if custom is None:
        raise OpkitError(f"init {{custom: {arg}}} needs golden.py's generators, and this run was given none "
                         "(pass make_inputs the lookup opkit.verify.golden.custom_generators(spec) returns)")
    fn = custom(arg)
    out = np.asarray(fn(shape, dtype, rng, dict(attrs)))
    if out.shape != shape:
        raise OpkitError(f"custom generator {arg}() returned shape {list(out.shape)}, expected {list(shape)}")
    return out


def _is_custom(dist: Any) -> bool:
    return isinstance(dist, dict) and "custom" in dist


def _sprinkle(values: np.ndarray, special: Any, dtype: str, rng: np.random.Generator) -> np.ndarray:
    tokens = special["values"] if isinstance(special, dict) else special
    fraction = special.get("fraction", DEFAULT_SPECIAL_FRACTION) if isinstance(special, dict) else \
        DEFAULT_SPECIAL_FRACTION
    if values.dtype.kind == "c":  # special values go into the real part
        flat = values.astype(np.complex128).reshape(-1)
    elif values.dtype.kind == "f":
        flat = values.astype(np.float64).reshape(-1)
    else:
        flat = values.reshape(-1).copy()
    if flat.size == 0:
        return values
    count = min(flat.size, max(len(tokens), int(round(fraction * flat.size))))
    where = rng.choice(flat.size, size=count, replace=False)
    part = "float32" if dtype == "complex64" else dtype
    for i, pos in enumerate(where):
        value = _special_value(tokens[i % len(tokens)], part)
        flat[pos] = value + 1j * flat[pos].imag if flat.dtype.kind == "c" else value
    return flat.reshape(values.shape)


def make_tensor(param: Param, shape: list[int], column: int, case: Case, rng: np.random.Generator,
                custom: Callable[[str], Callable[..., Any]] | None = None) -> np.ndarray:
    """One input tensor in its device dtype (float16, ml_dtypes bfloat16, float32, ints...)."""
    dtype = param.dtypes[column]
    raw = _draw(case.init.get(param.name), tuple(shape), dtype, rng, custom, case.attrs)
    if param.name in case.special:
        raw = _sprinkle(np.asarray(raw), case.special[param.name], dtype, rng)
    problem = int_range_problem(np.asarray(raw), dtype)  # a packed type (int4) cannot wrap silently
    if problem:
        raise OpkitError(f"case '{case.name}', input '{param.name}': {problem} (its init draws outside the range)")
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(raw).astype(np_dtype(dtype))


def make_inputs(spec: Spec, case: Case, column: int,
                custom: Callable[[str], Callable[..., Any]] | None = None, rank: int | None = None) -> dict[str, Any]:
    """Every input of a case in one dtype column; absent optional inputs are None.

    Each input has its own generator stream, seeded by (case seed, column, input index), so adding
    an input or a column never changes the data of the others. A rank of a multi-rank case (``rank``)
    adds the rank to the seed: every rank draws its own, independent data.
    """
    out: dict[str, Any] = {}
    for p in spec.inputs:
        if p.name not in case.shapes:
            out[p.name] = None
            continue
        rng = np.random.default_rng([case.seed, column, p.index] + ([] if rank is None else [rank]))
        shape = case.shapes[p.name]
        if p.param == "dynamic":
            out[p.name] = [make_tensor(p, s, column, case, rng, custom) for s in shape]
        else:
            out[p.name] = make_tensor(p, shape, column, case, rng, custom)
    return out


def make_rank_inputs(spec: Spec, case: Case, column: int,
                     custom: Callable[[str], Callable[..., Any]] | None = None) -> list[dict[str, Any]]:
    """A multi-rank case's inputs: one mapping per rank, in rank order (``case.world_size`` of them)."""
    return [make_inputs(spec, case, column, custom, rank=r) for r in range(case.world_size or 1)]


def as_golden_input(value: Any) -> Any:
    """What the golden receives: floats widened to float64 (exactly the device values), ints as they are."""
    if value is None:
        return None
    if isinstance(value, list):
        return [as_golden_input(v) for v in value]
    arr = np.asarray(value)
    if arr.dtype.kind == "f" or arr.dtype.name == "bfloat16":
        return arr.astype(np.float64)
    if arr.dtype.kind == "c":
        return arr.astype(np.complex128)
    return arr
