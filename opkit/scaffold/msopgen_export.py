"""op.yaml -> msOpGen operator prototype JSON (`opkit export-msopgen`; the mapping: docs/msopgen.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from opkit import writes
from opkit.dtypes import MSOPGEN_EXPORT
from opkit.errors import SpecError, UsageError
from opkit.spec import Spec, load


def msopgen_from_spec(spec: Spec) -> list[dict[str, Any]]:
    """The msOpGen prototype (a one-operator list) of a spec: dtype and format columns, attrs."""
    def tensor(p: Any) -> dict[str, Any]:
        return {"name": p.name, "param_type": p.param, "format": list(p.formats),
                "type": [MSOPGEN_EXPORT.get(d, d) for d in p.dtypes]}

    attrs = []
    for a in spec.attrs:
        item: dict[str, Any] = {"name": a.name, "param_type": "required" if a.required else
                                "optional", "type": a.type}
        if not a.required and a.default is not None:
            item["default_value"] = a.default
        attrs.append(item)
    return [{"op": spec.op_type, "input_desc": [tensor(p) for p in spec.inputs],
             "output_desc": [tensor(p) for p in spec.outputs], "attr": attrs}]


def export_msopgen(op_dir_or_yaml: str | Path, out: Path | None = None, force: bool = False) -> Path:
    """Write the msOpGen prototype of a package; never replaces an existing file without ``force``.

    ``out`` defaults to ``<package>/<name>.json``; an existing directory receives ``<name>.json``.
    """
    spec = load(op_dir_or_yaml, check_files=False)
    target = Path(out) if out is not None else spec.dir / f"{spec.name}.json"
    if target.is_dir():
        target = target / f"{spec.name}.json"
    writes.check(target, force, "--out")
    try:
        text = json.dumps(msopgen_from_spec(spec), indent=4, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        bad = [a.name for a in spec.attrs if isinstance(a.default, float) and not math.isfinite(a.default)]
        raise SpecError([f"{spec.path}: attrs: the default of {', '.join(bad) or 'an attr'} is not finite; "
                         "JSON (and msOpGen) cannot hold NaN or infinity"]) from None
    if not target.parent.is_dir():
        raise UsageError(f"{target.parent}: no such directory")
    writes.write_text(target, text, force, "--out")
    return target
