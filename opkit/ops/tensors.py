"""The arrays a Python call passes and gets back: NumPy arrays, or CPU torch tensors when torch is installed.

opkit has no torch dependency: a value is a torch tensor only when the ``torch`` module is already imported
(a caller holding a tensor has imported it). bfloat16 travels as ``ml_dtypes.bfloat16`` arrays in NumPy (a
runtime dependency of opkit) and as ``torch.bfloat16`` tensors in torch.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from opkit.errors import UsageError
from opkit.numerics import np_dtype


def _torch() -> Any:
    return sys.modules.get("torch")


def is_torch(value: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def is_tensor(value: Any) -> bool:
    """An array the API takes for one tensor: a NumPy array or scalar, or a torch tensor."""
    return isinstance(value, (np.ndarray, np.generic)) or is_torch(value)


def describe(value: Any) -> str:
    """What a value is, for a message: ``float64 array``, ``torch.float16 tensor``, ``list``."""
    if isinstance(value, (np.ndarray, np.generic)):
        return f"a {np.asarray(value).dtype} array"
    if is_torch(value):
        return f"a {value.dtype} tensor"
    return f"a {type(value).__name__}"


def to_numpy(value: Any, where: str) -> np.ndarray:
    """A tensor argument as a NumPy array (no copy where possible; torch bfloat16 as ml_dtypes bfloat16)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    torch = _torch()
    device = getattr(value.device, "type", str(value.device))
    if device != "cpu":
        raise UsageError(f"{where}: a torch tensor on '{value.device}'; the simulator takes CPU tensors "
                         "(pass tensor.cpu())")
    t = value.detach()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16).view(np_dtype("bfloat16"))
    try:
        return t.numpy()
    except TypeError as exc:  # a dtype NumPy has no counterpart for (torch.float8_*, quantized types)
        raise UsageError(f"{where}: {value.dtype} tensors have no NumPy counterpart ({exc})") from None


def from_numpy(arr: np.ndarray | list[np.ndarray], as_torch: bool) -> Any:
    """An output as the caller's kind of array: NumPy, or a CPU torch tensor (bfloat16 as torch.bfloat16); a list
    output (``param: dynamic``) as a list of them, one per tensor of the list."""
    if isinstance(arr, (list, tuple)):
        return [from_numpy(a, as_torch) for a in arr]
    arr = np.asarray(arr)
    if not as_torch:
        return arr
    torch = _torch()
    arr = np.ascontiguousarray(arr)
    if arr.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(arr.copy())
