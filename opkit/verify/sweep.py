"""``opkit verify --sweep``: extra cases whose dims are 2^k and 2^k - 1, inside op.yaml's limits.

The ecosystem's case-generation rule (docs/precision.md) asks for dimension values 2^k and 2^k - 1:
powers of two are what tilings are written for, one less is where tails and masks go wrong. A
sweep starts from a base case and changes one shape symbol at a time (every tensor that uses the
symbol changes together), keeping the case's attrs, dtype column, init, seed and precision:

- the symbols are those the base case binds (``T`` and ``E`` of ``x: [T, E]``; each dim of a
  ``...R`` group on its own, named ``R.0``, ``R.1``, ...), except those op.yaml's ``dims`` marks
  ``sweep: false``;
- a symbol's values are 2^k and 2^k - 1 within [min, max] of its ``dims`` entry (min defaults to
  1; max defaults to the largest value a case of the spec gives it — cases tagged ``full`` only
  when the run includes them — so an undeclared symbol is never swept beyond what the run would
  run anyway), multiples of ``multiple_of``, without the base case's own value; at most
  ``per_dim`` of them, spread evenly from the smallest to the largest;
- a value that would give an input more than ``MAX_ELEMENTS`` elements is left out.

Each derived case goes through the spec loader's checks like a written one, is named
``sweep_<case>_<dim>=<value>`` and tagged ``sweep``. The base cases are the cases --tags and -k
select, or, without either, the first case tagged ``smoke`` (else the first case).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any

from opkit.errors import UsageError
from opkit.spec import Case, Spec
from opkit.spec.load import build, shape_roles
from opkit.spec.yamlio import Document

PER_DIM = 8
MAX_ELEMENTS = 2**24


def powers_of_two_and_one_less(lo: int, hi: int, multiple_of: int = 1) -> list[int]:
    """Every 2^k and 2^k - 1 in [lo, hi] that is a multiple of ``multiple_of``, ascending."""
    values = set()
    k = 0
    while 2**k - 1 <= hi:
        for v in (2**k - 1, 2**k):
            if lo <= v <= hi and v % multiple_of == 0:
                values.add(v)
        k += 1
    return sorted(values)


def spread(values: list[int], n: int) -> list[int]:
    """At most ``n`` of ``values``, evenly spaced, always with the first and the last."""
    if len(values) <= n:
        return list(values)
    if n == 1:
        return [values[-1]]
    picks = {round(i * (len(values) - 1) / (n - 1)) for i in range(n)}
    return [values[i] for i in sorted(picks)]


def _symbols(case: Case) -> list[tuple[str, str, int | None, int]]:
    """(label, symbol, position in a ...R group or None, current value) of every dim the case binds."""
    out = []
    for name, value in case.dims.items():
        if isinstance(value, tuple):
            for i, v in enumerate(value):
                out.append((name if len(value) == 1 else f"{name}.{i}", name, i, v))
        else:
            out.append((name, name, None, value))
    return out


def _largest(spec: Spec, symbol: str, position: int | None, full: bool) -> int:
    found = []
    for c in spec.cases:
        if "full" in c.tags and not full:
            continue
        v = c.dims.get(symbol)
        if isinstance(v, tuple):
            found += list(v) if position is None else list(v[position:position + 1])
        elif v is not None:
            found.append(v)
    return max(found, default=1)


def _reshaped(spec: Spec, case: Case, symbol: str, position: int | None, value: int) -> dict[str, Any]:
    """The case's shapes with every dim bound to ``symbol`` (at ``position`` of a group) set to ``value``."""
    bound = {(f"...{k}" if isinstance(v, tuple) else k): v for k, v in case.dims.items()}
    by_name = {p.name: p for p in spec.inputs}
    shapes = copy.deepcopy(case.shapes)
    for name, shape in shapes.items():
        prm = by_name[name]
        if prm.shape is None or prm.param == "dynamic":
            continue
        for d, role in enumerate(shape_roles(prm.shape, shape, bound)):
            if role is not None and role[0] == symbol and (position is None or role[1] in (None, position)):
                shape[d] = value
    return shapes


def sweep_cases(spec: Spec, base: Case, per_dim: int = PER_DIM, full: bool = False) -> tuple[list[Case], list[str]]:
    """The sweep of one base case, and a note for each dim left unswept (why); ``full``: the run
    includes the cases tagged full."""
    raws: list[tuple[str, dict[str, Any]]] = []
    notes: list[str] = []
    raw_base = spec.raw["cases"][base.index]
    for label, symbol, position, current in _symbols(base):
        limit = spec.dims.get(symbol)
        if limit is not None and not limit.sweep:
            notes.append(f"{label}: not swept (op.yaml dims.{symbol}.sweep is false)")
            continue
        lo = limit.min if limit else 1
        hi = limit.max if limit and limit.max is not None else _largest(spec, symbol, position, full)
        values = [v for v in powers_of_two_and_one_less(lo, hi, limit.multiple_of if limit else 1) if v != current]
        for v in spread(values, per_dim):
            shapes = _reshaped(spec, base, symbol, position, v)
            sizes = [math.prod(s) for s in shapes.values() if s and not isinstance(s[0], list)]
            if max(sizes, default=0) > MAX_ELEMENTS:
                notes.append(f"{label}={v}: left out (an input would hold more than {MAX_ELEMENTS} elements)")
                continue
            raw = {k: copy.deepcopy(v2) for k, v2 in raw_base.items()
                   if k not in ("name", "tags", "shapes", "tiling_key")}  # another shape may take another key
            raws.append((f"sweep_{base.name}_{label}={v}", {"name": f"sweep-{len(raws)}", "tags": ["sweep"],
                                                             "shapes": shapes, **raw}))
        if not values:
            notes.append(f"{label}: no 2^k or 2^k-1 value other than {current} in [{lo}, {hi}]")
    if not raws:
        return [], notes
    data = dict(spec.raw)
    data["cases"] = [*spec.raw["cases"], *(r for _, r in raws)]
    derived = build(Document(data, str(spec.path), spec.doc.lines if spec.doc else {}), check_files=False)
    n = len(spec.raw["cases"])
    return [dataclasses.replace(c, name=name, base=base.name, index=base.index)
            for (name, _), c in zip(raws, derived.cases[n:], strict=True)], notes


def sweep_bases(spec: Spec, cases: list[Case], narrowed: bool) -> list[Case]:
    """The cases to sweep from: the selected ones when --tags or -k narrowed the selection, else the
    first case tagged ``smoke`` (or the first case when none is)."""
    if narrowed:
        return cases
    return [c for c in cases if "smoke" in c.tags][:1] or cases[:1]


def sweep_all(spec: Spec, bases: list[Case], per_dim: int = PER_DIM, full: bool = False) -> list[Case]:
    """Every base's sweep; a UsageError saying why when nothing can be swept."""
    if per_dim < 1:
        raise UsageError(f"--sweep-values {per_dim}: give at least 1 value per dim")
    out: list[Case] = []
    notes: list[str] = []
    for base in bases:
        cases, why = sweep_cases(spec, base, per_dim, full)
        out += cases
        notes += [f"case '{base.name}': {w}" for w in why] or ([] if cases else [
            f"case '{base.name}': its shapes bind no symbol (give op.yaml inputs symbolic shapes such as [N, D])"])
    if not out:
        raise UsageError(f"--sweep: nothing to sweep in {spec.name}"
                         + (f" ({'; '.join(notes)})" if notes else " (no case selected)"))
    return out
