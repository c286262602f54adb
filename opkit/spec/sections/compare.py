"""op.yaml ``compare`` (and a case's override of it): a comparison hook of golden.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opkit.spec.model import CompareHook, Param
from opkit.spec.sections import Checker
from opkit.spec.sections.golden import golden_problem

HOOK_ARGS = {"actual", "golden", "inputs", "attrs", "dtypes", "check"}


def compare_hook(c: Checker, raw: dict[str, Any], path: tuple, base: CompareHook | None, outputs: list[Param],
                 golden_file: str, spec_dir: Path | None) -> CompareHook | None:
    """The hook of op.yaml's top-level ``compare`` (base None) or of a case's override of it."""
    if raw is False:
        return None
    if raw is True:
        c.err(path, "true is not a comparison hook: give a mapping ({function: NAME, ...}) or false to switch the "
              "package's hook off for this case")
        return base
    if base is None and "function" not in raw:
        c.err(path, "a case cannot adjust a comparison hook the package does not declare: give 'function'")
        return None
    function = raw.get("function", base.function if base else "")
    names = [o.name for o in outputs]
    if "outputs" in raw:
        hooked = tuple(raw["outputs"])
        for j, name in enumerate(hooked):
            if name not in names:
                c.err(path + ("outputs", j), f"'{name}' is not an output (outputs: {', '.join(names)})")
        if len(set(hooked)) != len(hooked):
            c.err(path + ("outputs",), f"lists an output twice: {list(hooked)}")
    else:
        hooked = base.outputs if base else tuple(names)
    options = {**(base.options if base else {}), **raw.get("options", {})}
    bad = sorted(k for k in options if k in HOOK_ARGS)
    if bad:
        c.err(path + ("options",), f"{', '.join(bad)}: verify passes these itself; choose other option names")
    if spec_dir is not None and ("function" in raw or "options" in raw):
        problem = golden_problem(spec_dir, golden_file, function, HOOK_ARGS | set(options))
        if problem:
            c.err(path + ("function" if "function" in raw else "options",),
                  "comparison hook: " + problem.replace("golden file", "file"))
    return CompareHook(function, hooked, options, golden_file)
