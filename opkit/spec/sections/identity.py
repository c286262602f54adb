"""op.yaml ``name`` and ``op_type``."""

from __future__ import annotations

from typing import Any

from opkit import naming
from opkit.spec.sections import Checker


def check(c: Checker, d: dict[str, Any]) -> tuple[str, str]:
    """(name, OpType); the OpType defaults to the CamelCase of the name."""
    name = d["name"]
    problem = naming.name_problem(name)
    if problem:
        c.err(("name",), problem)
    op_type = d.get("op_type") or naming.op_type_of(name)
    if "op_type" in d and not problem:
        problem2 = naming.op_type_problem(op_type, name)
        if problem2:
            c.err(("op_type",), problem2)
    return name, op_type
