"""op.yaml ``precision`` (and a case's): options of the chosen profile, per-output overrides."""

from __future__ import annotations

from typing import Any

from opkit.spec.sections import Checker

# The op.yaml precision keys each profile of opkit.verify.profiles reads (docs/precision.md, "Decisions");
# the loader refuses others, so that a key written for one profile never changes another silently.
PROFILE_OPTIONS: dict[str, tuple[str, ...]] = {
    "mixed": ("rtol", "atol", "pass_ratio"), "mere-mare": ("threshold",),
    "double-thousandths": ("rtol", "atol", "pass_ratio"), "msopst": ("rtol", "pass_ratio"),
    "eb": ("class", "rtol"), "ratio-vs-reference": ("level",),
}


def check(c: Checker, block: dict[str, Any], path: tuple, profile: str, outputs: list[str]) -> None:
    """Keys of a precision block that its profile (its own, else the enclosing block's) does not read,
    and per-output entries naming no output."""
    profile = block.get("profile", profile)
    allowed = PROFILE_OPTIONS[profile]
    for key in block:
        if key not in ("profile", "outputs") and key not in allowed:
            c.err(path + (key,), f"profile {profile} does not read '{key}' (it takes "
                  f"{', '.join(allowed)}; see docs/precision.md)")
    for name, sub in block.get("outputs", {}).items():
        if name not in outputs:
            c.err(path + ("outputs", name), f"'{name}' is not an output (outputs: {', '.join(outputs)})")
        elif "outputs" in sub:
            c.err(path + ("outputs", name, "outputs"), "per-output settings cannot hold 'outputs' again")
        else:
            check(c, sub, path + ("outputs", name), profile, outputs)
