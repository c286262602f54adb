"""op.yaml ``attrs``: types, defaults, required; the value check other modules reuse."""

from __future__ import annotations

import math
from typing import Any

from opkit.spec.model import Attr
from opkit.spec.sections import Checker

INT64 = (-(2**63), 2**63 - 1)


def attr_value_problem(atype: str, value: Any, *, int64: bool = False, finite: bool = False) -> str | None:
    """Why ``value`` is not a value of attr type ``atype``; ``int64`` also bounds integers to int64,
    ``finite`` refuses infinite and NaN floats."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and (not int64 or INT64[0] <= v <= INT64[1])

    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and (not finite or math.isfinite(v))

    checks = {
        "float": is_num, "int": is_int, "bool": lambda v: isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "list_int": lambda v: isinstance(v, list) and all(is_int(x) for x in v),
        "list_float": lambda v: isinstance(v, list) and all(is_num(x) for x in v),
        "list_bool": lambda v: isinstance(v, list) and all(isinstance(x, bool) for x in v),
        "list_list_int": lambda v: isinstance(v, list) and all(
            isinstance(x, list) and all(is_int(y) for y in x) for x in v),
    }
    if not checks[atype](value):
        return f"{value!r} is not a value of type {atype}"
    return None


def check(c: Checker, d: dict[str, Any]) -> dict[str, Attr]:
    attrs: dict[str, Attr] = {}
    for i, a in enumerate(d.get("attrs", [])):
        path = ("attrs", i)
        if a["name"] in attrs:
            c.err(path + ("name",), f"attr '{a['name']}' is declared twice")
            continue
        required = bool(a.get("required", "default" not in a))
        if "default" in a:
            if required:
                c.err(path + ("required",), "a required attr cannot have a default; drop one of them")
            p = attr_value_problem(a["type"], a["default"])
            if p:
                c.err(path + ("default",), p)
        attrs[a["name"]] = Attr(a["name"], a["type"], a.get("default"), required, a.get("description", ""))
    return attrs
