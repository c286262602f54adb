"""SoC data: one table (``opkit/data/socs.yaml``) for the simulator and the performance model.

Names accepted everywhere a SoC is asked for:

* a chip name (``ascend910b2``, ``ascend910b4``, ``ascend910_9382``, ``ascend310p3``), or
* an OpDef key (``ascend910b``, ``ascend910_93``, ``ascend310p``), which stands for that key's
  default chip (``ascend910b`` -> ``ascend910b2``).

``chip(name)`` returns a flat dict of plain values (sizes in bytes, clock in MHz, bandwidth in
GB/s) plus ``sources``: per field, the source key and any ``decision`` taken where sources
disagree.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

DATA_FILE = Path(__file__).resolve().parent / "data" / "socs.yaml"

_META_FIELDS = ("source", "decision", "note")


@functools.lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    with DATA_FILE.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict) or "chips" not in data or "opdef_keys" not in data:
        raise ValueError(f"{DATA_FILE}: missing 'chips' or 'opdef_keys'")
    return data


def _split(entry: Any) -> tuple[Any, dict[str, Any] | None]:
    """Return (value, provenance) for a `{value: .., source: ..}` entry or a bare value."""
    if isinstance(entry, dict) and "value" in entry:
        meta = {k: entry[k] for k in _META_FIELDS if k in entry}
        return entry["value"], meta
    return entry, None


@functools.cache
def _resolved(chip_name: str) -> dict[str, Any]:
    raw = _raw()
    spec = raw["chips"][chip_name]
    arch = spec["arch"]
    arch_values = raw["arches"][arch]
    out: dict[str, Any] = {"name": chip_name}
    sources: dict[str, dict[str, Any]] = {}
    for src in (arch_values, spec):
        for key, entry in src.items():
            value, meta = _split(entry)
            out[key] = value
            if meta is not None:
                sources[key] = meta
    key_info = raw["opdef_keys"][out["opdef_key"]]
    out["soc_version"] = key_info["soc_version"]
    out["is_default"] = key_info["default_chip"] == chip_name
    out["sources"] = sources
    return out


def opdef_keys() -> list[str]:
    """OpDef SoC keys (``ascend910b``, ``ascend910_93``, ``ascend310p``)."""
    return list(_raw()["opdef_keys"])


def unmodelled_keys() -> list[str]:
    """OpDef SoC keys of current CANN the simulator has no chip data for (``ascend910_95``, ...)."""
    return list(_raw().get("unmodelled_keys", {}))


def known_keys() -> list[str]:
    """Every OpDef SoC key op.yaml accepts: the modelled ones first."""
    return opdef_keys() + unmodelled_keys()


def is_modelled(opdef_key: str) -> bool:
    return opdef_key in _raw()["opdef_keys"]


def key_note(opdef_key: str) -> str:
    """What the table says of a key (its note), modelled or not."""
    raw = _raw()
    entry = raw["opdef_keys"].get(opdef_key) or raw.get("unmodelled_keys", {}).get(opdef_key) or {}
    return str(entry.get("note", ""))


def chips() -> list[str]:
    """All chip names in the table."""
    return list(_raw()["chips"])


def default_chip(opdef_key: str) -> str:
    """The chip used when only an OpDef key is given."""
    keys = _raw()["opdef_keys"]
    if opdef_key not in keys:
        raise KeyError(
            f"unknown OpDef SoC key {opdef_key!r}; valid keys: {', '.join(keys)}"
        )
    return str(keys[opdef_key]["default_chip"])


def resolve(name: str) -> str:
    """Map a chip name or an OpDef key to a chip name; KeyError listing valid names otherwise."""
    raw = _raw()
    norm = name.strip().lower() if isinstance(name, str) else name
    if norm in raw["chips"]:
        return str(norm)
    if norm in raw["opdef_keys"]:
        return default_chip(str(norm))
    if norm in raw.get("unmodelled_keys", {}):
        raise KeyError(
            f"the simulator does not model {norm} ({key_note(str(norm))}); modelled OpDef keys: "
            f"{', '.join(opdef_keys())}; chips: {', '.join(chips())}"
        )
    raise KeyError(
        f"unknown SoC {name!r}; valid chips: {', '.join(chips())}; "
        f"valid OpDef keys: {', '.join(opdef_keys())}"
    )


def chip(name: str) -> dict[str, Any]:
    """Flat description of a chip (by chip name or OpDef key). Returns a fresh copy."""
    return copy.deepcopy(_resolved(resolve(name)))


def chips_for(opdef_key: str) -> list[str]:
    """Chip names that belong to one OpDef key."""
    default_chip(opdef_key)  # validates
    return [c for c, spec in _raw()["chips"].items() if spec["opdef_key"] == opdef_key]


def sources() -> dict[str, str]:
    """Source keys used in the table and what they point to."""
    return dict(_raw().get("sources", {}))


__all__ = [
    "DATA_FILE",
    "chip",
    "chips",
    "chips_for",
    "default_chip",
    "is_modelled",
    "key_note",
    "known_keys",
    "opdef_keys",
    "resolve",
    "sources",
    "unmodelled_keys",
]
