"""op.yaml ``dims``: limits on the shape symbols."""

from __future__ import annotations

from typing import Any

from opkit.spec.model import DimLimit, Param
from opkit.spec.sections import Checker


def check(c: Checker, raw: dict[str, Any], params: list[Param]) -> dict[str, DimLimit]:
    symbols: set[str] = set()
    for prm in params:
        for d in prm.shape or ():
            if isinstance(d, str):
                symbols.update(p[3:] if p.startswith("...") else p for p in d.split("|") if not p.isdigit())
    limits = {}
    for name, lim in raw.items():
        path = ("dims", name)
        if name not in symbols:
            c.err(path, f"no tensor shape uses the symbol '{name}' (symbols: {', '.join(sorted(symbols)) or 'none'})")
            continue
        d = DimLimit(name, lim.get("min", 1), lim.get("max"), lim.get("multiple_of", 1), lim.get("sweep", True),
                     lim.get("description", ""))
        if d.max is not None and d.max < d.min:
            c.err(path, f"max {d.max} is below min {d.min}")
        limits[name] = d
    return limits
