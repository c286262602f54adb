"""op.yaml ``perf``: cases whose modelled time is reported, on a chip."""

from __future__ import annotations

from typing import Any

from opkit import soc
from opkit.spec.model import Case, PerfCase
from opkit.spec.sections import Checker


def check(c: Checker, d: dict[str, Any], cases: list[Case]) -> list[PerfCase]:
    perf = []
    chip_names = soc.chips()
    keys = soc.opdef_keys()
    for i, p in enumerate(d.get("perf", [])):
        if not any(x.name == p["case"] for x in cases):
            c.err(("perf", i, "case"), f"no case named '{p['case']}' (cases: {', '.join(x.name for x in cases)})")
        if "soc" in p and p["soc"] not in chip_names and p["soc"] not in keys:
            c.err(("perf", i, "soc"), f"'{p['soc']}' is not a chip (expected one of {', '.join(chip_names)})")
        perf.append(PerfCase(p["case"], p.get("soc")))
    return perf
