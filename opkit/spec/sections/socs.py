"""op.yaml ``socs``: OpDef SoC keys and the dtype columns each supports."""

from __future__ import annotations

from typing import Any

from opkit import soc
from opkit.spec.model import Param, SocTarget
from opkit.spec.sections import Checker
from opkit.spec.sections.tensors import resolve_column


def check(c: Checker, d: dict[str, Any], inputs: list[Param], outputs: list[Param],
          n_columns: int | None) -> list[SocTarget]:
    socs: list[SocTarget] = []
    keys = soc.known_keys()
    for i, s in enumerate(d["socs"]):
        key = s if isinstance(s, str) else s["soc"]
        path = ("socs", i) if isinstance(s, str) else ("socs", i, "soc")
        if key not in keys:
            c.err(path, f"'{key}' is not an OpDef SoC key (expected one of {', '.join(keys)})")
            continue
        if any(t.key == key for t in socs):
            c.err(path, f"SoC '{key}' is listed twice")
            continue
        columns = None
        if isinstance(s, dict) and "columns" in s:
            picked = []
            for j, sel in enumerate(s["columns"]):
                r = resolve_column(sel, inputs, outputs, n_columns or 0)
                if isinstance(r, str):
                    c.err(("socs", i, "columns", j), r)
                else:
                    picked.append(r)
            columns = tuple(sorted(set(picked)))
        socs.append(SocTarget(key, columns, soc.is_modelled(key)))
    # Modelled SoCs first: a command that picks the package's first SoC picks one it can run.
    return sorted(socs, key=lambda t: not t.modelled)
