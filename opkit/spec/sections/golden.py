"""op.yaml ``golden``: the NumPy reference, checked by reading golden.py (never importing it)."""

from __future__ import annotations

import ast
from pathlib import Path


def golden_problem(spec_dir: Path, file: str, func: str, passes: set[str] | None = None) -> str | None:
    """Why ``file`` (in the package) does not define ``func``; None when it does.

    With ``passes``, the keyword arguments the function will be called with: each must be one of
    its parameters (unless it takes ``**kwargs``) and each parameter without a default must be among
    them.
    """
    target = (spec_dir / file).resolve()
    try:
        target.relative_to(spec_dir.resolve())
    except ValueError:
        return f"golden file '{file}' lies outside the package folder"
    if not target.is_file():
        return f"golden file '{file}' does not exist in {spec_dir}"
    try:
        tree = ast.parse(target.read_text(encoding="utf-8"), filename=str(target))
    except SyntaxError as exc:
        return f"golden file '{file}' does not parse: line {exc.lineno}: {exc.msg}"
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if func not in defs:
        return f"golden file '{file}' defines no function '{func}' (it defines: {', '.join(sorted(defs)) or 'none'})"
    if passes is None:
        return None
    args = defs[func].args
    if args.posonlyargs or args.vararg:
        return f"{file}:{defs[func].lineno}: {func}() is called with keyword arguments only; drop its '/' or '*args'"
    named = args.args + args.kwonlyargs
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults) + list(args.kw_defaults)
    params = {a.arg for a in named}
    needed = [a.arg for a, d in zip(named, defaults, strict=True) if d is None]
    unknown = sorted(passes - params) if args.kwarg is None else []
    missing = [n for n in needed if n not in passes]
    if unknown:
        return (f"{file}:{defs[func].lineno}: {func}() has no parameter {', '.join(repr(n) for n in unknown)} "
                f"(it takes {', '.join(a.arg for a in named) or 'none'}; add them or '**kwargs')")
    if missing:
        return (f"{file}:{defs[func].lineno}: {func}() needs {', '.join(repr(n) for n in missing)}, which verify "
                f"does not pass (it passes {', '.join(sorted(passes))}); give them defaults or set them in 'options'")
    return None
