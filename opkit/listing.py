"""`opkit list`: one row per operator package."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opkit.discover import packages_under
from opkit.errors import SpecError


@dataclass
class Row:
    path: Path
    family: str
    name: str
    op_type: str
    dtypes: str
    socs: str
    cases: str
    status: str  # "valid" or the first problem

    @property
    def valid(self) -> bool:
        return self.status == "valid"


def _text(raw: dict, key: str, default: str = "?") -> str:
    v = raw.get(key)
    return v if isinstance(v, str) else default


def list_packages(root: Path) -> list[Row]:
    from opkit.spec import load
    from opkit.spec.yamlio import load_file

    rows = []
    for d in packages_under(root):
        try:
            spec = load(d)
        except SpecError as exc:
            raw: dict = {}
            try:
                data = load_file(d / "op.yaml").data
                raw = data if isinstance(data, dict) else {}
            except SpecError:
                pass
            rows.append(Row(d, _text(raw, "family", d.parent.name), _text(raw, "name", d.name),
                            _text(raw, "op_type"), "?", "?", "?", exc.problems[0]))
            continue
        rows.append(Row(
            d, spec.family, spec.name, spec.op_type, ", ".join(spec.dtypes_used()),
            ", ".join(s.key if s.modelled else f"{s.key} (not modelled)" for s in spec.socs), str(len(spec.cases)),
            "valid"))
    return rows
