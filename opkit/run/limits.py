"""Resource limits checked before a case runs: a case whose tensors cannot fit is refused with its size.

The limit on a case's memory defaults to half of the machine's physical memory; ``OPKIT_MAX_CASE_MEMORY``
or ``opkit verify --max-case-memory`` set it (``8G``, ``512M``, a number of bytes).
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

from opkit.errors import UsageError
from opkit.spec import Case, Spec

ENV = "OPKIT_MAX_CASE_MEMORY"
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.I)
_GOLDEN_ITEMSIZE = 8  # the golden sees float inputs widened to float64


def parse_size(text: str, what: str) -> int:
    """``8G``, ``512M``, ``1.5g``, ``1000000`` -> bytes; a UsageError naming ``what`` otherwise."""
    m = _SIZE.match(str(text))
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"{what} {text!r}: expected a size > 0 such as 8G, 512M or a number of bytes")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def human(n: float) -> str:
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def machine_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_limit() -> tuple[int, str]:
    """(bytes, where it comes from)."""
    env = os.environ.get(ENV)
    if env:
        return parse_size(env, ENV), ENV
    mem = machine_memory()
    if mem is None:
        return 16 << 30, "the default 16 GB"
    return mem // 2, "half of this machine's memory"


def _shapes(value: Any) -> list[list[int]]:
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return value
    return [value] if isinstance(value, list) else []


def case_bytes(spec: Spec, case: Case, column: int) -> tuple[int, str]:
    """(bytes the case's inputs take as device arrays plus the golden's float64 copies, the largest input)."""
    from opkit.numerics import np_dtype

    total, largest, label = 0, -1, ""
    for p in spec.inputs:
        for shape in _shapes(case.shapes.get(p.name)):
            n = math.prod(int(d) for d in shape)
            itemsize = 2 if p.dtypes[column] == "bfloat16" else _itemsize(np_dtype, p.dtypes[column])
            size = n * (itemsize + _GOLDEN_ITEMSIZE)
            total += size
            if n > largest:
                largest, label = n, f"{p.name} {list(shape)} {p.dtypes[column]}"
    return total, label


def _itemsize(np_dtype: Any, dtype: str) -> int:
    import numpy as np

    return int(np.dtype(np_dtype(dtype)).itemsize)


def check_case(spec: Spec, case: Case, column: int, limit: int | None = None) -> None:
    """An OpkitError when the case's tensors exceed the limit (``limit`` or :func:`default_limit`)."""
    need, largest = case_bytes(spec, case, column)
    source = "--max-case-memory"
    if limit is None:
        limit, source = default_limit()
    if need > limit:
        raise UsageError(f"case '{case.name}' needs about {human(need)} for its inputs alone (largest: {largest}), "
                         f"more than the limit of {human(limit)} ({source}); make the case smaller or raise the "
                         f"limit with --max-case-memory or {ENV}")
