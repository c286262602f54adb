"""`.npz` data files: keys are tensor names; bfloat16 travels as uint16 bit patterns (design §9), int4 as one int8
value per element (unpacked)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from opkit.errors import OpkitError
from opkit.numerics import int_range_problem, np_dtype


def to_npz_array(value: np.ndarray, dtype: str) -> np.ndarray:
    """What goes into an .npz for a tensor of spec dtype ``dtype``."""
    arr = np.asarray(value)
    if dtype == "bfloat16":
        return arr.astype(np_dtype("bfloat16")).view(np.uint16)
    return arr.astype(np_dtype(dtype))


def from_npz_array(arr: np.ndarray, dtype: str, where: str, notice=None) -> np.ndarray:
    """A tensor read from an .npz, as the device dtype ``dtype``; refuses lossy or odd conversions."""
    notice = notice or (lambda msg: print(msg, file=sys.stderr))
    if dtype == "bfloat16":
        if arr.dtype == np.uint16:
            return arr.view(np_dtype("bfloat16"))
        if arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
            return arr.view(np.uint16).view(np_dtype("bfloat16"))
        if arr.dtype in (np.float32, np.float64):
            notice(f"{where}: {arr.dtype} data for a bfloat16 tensor rounded to nearest even")
            return arr.astype(np_dtype("bfloat16"))
        raise OpkitError(f"{where}: {arr.dtype} data cannot feed a bfloat16 tensor "
                         "(give uint16 bit patterns, or float32 values to be rounded)")
    want = np_dtype(dtype)
    problem = int_range_problem(arr, dtype)  # int4: unpacked values, one per int8
    if problem:
        raise OpkitError(f"{where}: {problem} (give one value per element, unpacked)")
    if arr.dtype == want:
        return arr
    if arr.dtype.kind == "f" and want.kind == "f":
        notice(f"{where}: {arr.dtype} data rounded to {dtype}")
        return arr.astype(want)
    raise OpkitError(f"{where}: {arr.dtype} data cannot feed a {dtype} tensor (convert it first)")


def save(path: Path, tensors: dict[str, Any], dtypes: dict[str, str]) -> None:
    np.savez(path, **{k: to_npz_array(v, dtypes[k]) for k, v in tensors.items() if v is not None})


def load(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise OpkitError(f"{path}: not a readable .npz file ({exc})") from None
