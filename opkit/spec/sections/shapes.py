"""Symbolic shapes (``[B, N, S|1, ...R]``): fitting a concrete shape, and which symbol sizes each dim."""

from __future__ import annotations

from typing import Any


def bind_shape(sym: tuple, shape: list[int], bound: dict[str, Any]) -> str | None:
    """Check a concrete shape against a symbolic one, binding symbols; None when it fits.

    A dim is a size, a symbol (``S``), alternatives (``B|1``), or ``...R``: any number of dims,
    bound as a whole (two tensors with ``...R`` must have the same dims there).
    """
    rest = [i for i, s in enumerate(sym) if isinstance(s, str) and s.startswith("...")]
    if len(rest) > 1:
        return f"the spec's shape {list(sym)} has more than one '...' dim"
    if rest:
        r = rest[0]
        n_rest = len(shape) - (len(sym) - 1)
        if n_rest < 0:
            return f"has rank {len(shape)} but the spec's shape {list(sym)} needs at least {len(sym) - 1}"
        key = sym[r]
        dims = tuple(shape[r:r + n_rest])
        if key in bound and bound[key] != dims:
            return f"dims {list(dims)} ({key}) differ from {list(bound[key])} bound by an earlier tensor"
        bound[key] = dims
        sym = sym[:r] + sym[r + 1:]
        shape = list(shape[:r]) + list(shape[r + n_rest:])
    if len(sym) != len(shape):
        return f"has rank {len(shape)} but the spec's shape {list(sym)} has rank {len(sym)}"
    for i, (s, v) in enumerate(zip(sym, shape, strict=True)):
        if isinstance(s, int):
            if s != v:
                return f"dim {i} is {v} but the spec fixes it to {s}"
            continue
        parts = s.split("|")
        if any(p.isdigit() and int(p) == v for p in parts):
            continue
        symbols = [p for p in parts if not p.isdigit()]
        if any(bound.get(p) == v for p in symbols):
            continue
        free = [p for p in symbols if p not in bound]
        if free:
            bound[free[0]] = v
            continue
        bound_txt = ", ".join(f"{p}={bound[p]}" for p in symbols)
        return f"dim {i} is {v} but {s} is bound to {bound_txt} by an earlier tensor"
    return None


def shape_roles(sym: tuple, shape: list[int], bound: dict[str, Any]) -> list[tuple[str, int | None] | None]:
    """For each dim of ``shape`` (which fits ``sym`` under ``bound``, the case's bound symbols): the
    symbol it takes its size from — ``(S, None)``, or ``(R, i)`` for dim i of a ``...R`` group — or None
    for a fixed size or a literal alternative (the ``1`` of ``B|1``)."""
    rest = [i for i, s in enumerate(sym) if isinstance(s, str) and s.startswith("...")]
    if rest:
        r = rest[0]
        n_rest = len(shape) - (len(sym) - 1)
        head = shape_roles(sym[:r], list(shape[:r]), bound)
        tail = shape_roles(sym[r + 1:], list(shape[r + n_rest:]), bound)
        return [*head, *[(sym[r][3:], i) for i in range(n_rest)], *tail]
    roles: list[tuple[str, int | None] | None] = []
    for s, v in zip(sym, shape, strict=True):
        if isinstance(s, int):
            roles.append(None)
            continue
        parts = s.split("|")
        if any(p.isdigit() and int(p) == v for p in parts):
            roles.append(None)
            continue
        roles.append(next(((p, None) for p in parts if not p.isdigit() and bound.get(p) == v), None))
    return roles


def concrete_shape(sym: tuple, dims: dict[str, Any]) -> list[int] | None:
    """The shape a symbolic shape takes under a case's bound symbols (``Case.dims``); None when a symbol is
    unbound. An alternative (``B|1``) takes its first bound symbol, else its first literal."""
    out: list[int] = []
    for s in sym:
        if isinstance(s, int):
            out.append(s)
        elif s.startswith("..."):
            if s[3:] not in dims:
                return None
            out.extend(dims[s[3:]])
        else:
            parts = s.split("|")
            hit = next((dims[p] for p in parts if not p.isdigit() and p in dims), None)
            if hit is None:
                hit = next((int(p) for p in parts if p.isdigit()), None)
            if hit is None:
                return None
            out.append(int(hit))
    return out
