"""op.yaml ``cases``: shapes against the symbolic ones, dtype column, attrs, init and special values."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from opkit.spec.model import Attr, Case, CompareHook, DimLimit, Param
from opkit.spec.sections import Checker, precision
from opkit.spec.sections.attrs import attr_value_problem
from opkit.spec.sections.compare import compare_hook
from opkit.spec.sections.golden import golden_problem
from opkit.spec.sections.shapes import bind_shape
from opkit.spec.sections.tensors import resolve_column


def _shapes(c: Checker, raw: dict[str, Any], path: tuple, by_input: dict[str, Param],
            outputs: list[Param]) -> dict[str, Any]:
    """Check the case's shapes; returns the symbols they bind."""
    shapes = raw["shapes"]
    bound: dict[str, Any] = {}
    for key, shp in shapes.items():
        if key not in by_input:
            out_names = [o.name for o in outputs]
            extra = " (output shapes come from InferShape)" if key in out_names else ""
            c.err(path + ("shapes", key), f"'{key}' is not an input{extra} (inputs: {', '.join(by_input)})")
            continue
        prm = by_input[key]
        is_list = bool(shp) and isinstance(shp[0], list)
        if prm.param == "dynamic" and not is_list and shp:
            c.err(path + ("shapes", key), f"'{key}' is a dynamic (list) input: give a list of shapes")
            continue
        if prm.param != "dynamic" and is_list:
            c.err(path + ("shapes", key), f"'{key}' is not a dynamic input: give one shape")
            continue
        if prm.shape is not None:
            for j, one in enumerate(shp if is_list else [shp]):
                sub = path + ("shapes", key) + ((j,) if is_list else ())
                p = bind_shape(prm.shape, one, {} if is_list else bound)
                if p:
                    c.err(sub, f"shape {one} {p}")
    return bound


def _values(c: Checker, raw: dict[str, Any], path: tuple, by_input: dict[str, Param], columns: tuple[int, ...],
            golden_file: str, spec_dir: Path | None) -> None:
    """The case's ``init`` generators and ``special`` values."""
    for section in ("init", "special"):
        for key, val in raw.get(section, {}).items():
            if key not in by_input:
                c.err(path + (section, key), f"'{key}' is not an input (inputs: {', '.join(by_input)})")
            elif section == "init" and isinstance(val, dict) and "custom" in val and spec_dir is not None:
                gp = golden_problem(spec_dir, golden_file, val["custom"])
                if gp:
                    c.err(path + (section, key, "custom"), gp.replace("golden file", "custom generator: file"))
            elif section == "special":
                kinds = {by_input[key].dtype(k).kind for k in columns}
                vals = val["values"] if isinstance(val, dict) else val
                if kinds - {"float", "complex"} and any(
                        isinstance(v, str) and v not in ("zero",) or isinstance(v, float) and not math.isfinite(v)
                        for v in vals):
                    c.err(path + (section, key), f"'{key}' is an integer tensor: it cannot hold {vals}")


def _world_sizes(c: Checker, raw: dict[str, Any], path: tuple, family: str) -> list[int | None]:
    """The case's world sizes (``world_size``: a number, or a list making one case per number); [None] for a
    one-device case. A multi-rank family (``mc2``) needs one on every case."""
    ws = raw.get("world_size")
    if ws is None:
        if family == "mc2":
            c.err(path, f"case '{raw['name']}' gives no world_size: an mc2 (multi-rank) operator's case names "
                        "how many ranks it runs on (world_size: 2, or a list such as [2, 4, 8] to run it at each)")
        return [None]
    return list(ws) if isinstance(ws, list) else [ws]


def check(c: Checker, d: dict[str, Any], inputs: list[Param], outputs: list[Param], attrs: dict[str, Attr],
          n_columns: int | None, limits: dict[str, DimLimit], hook: CompareHook | None, golden_file: str,
          spec_dir: Path | None) -> list[Case]:
    cases: list[Case] = []
    by_input = {p.name: p for p in inputs}
    out_names = [o.name for o in outputs]
    base_profile = d.get("precision", {}).get("profile", "mixed")
    for i, raw in enumerate(d["cases"]):
        path = ("cases", i)
        if any(x.name == raw["name"] for x in cases):
            c.err(path + ("name",), f"case name '{raw['name']}' is used twice")
        bound = _shapes(c, raw, path, by_input, outputs)
        precision.check(c, raw.get("precision", {}), path + ("precision",), base_profile, out_names)
        for sym_name, value in bound.items():
            lim = limits.get(sym_name.removeprefix("..."))
            problem = next((p for v in (value if isinstance(value, tuple) else (value,))
                            for p in [lim.problem(v) if lim else None] if p), None)
            if problem:
                c.err(path + ("shapes",), problem)
        for prm in inputs:
            if prm.param in ("required", "dynamic") and prm.name not in raw["shapes"]:
                c.err(path + ("shapes",), f"no shape for required input '{prm.name}'")
        if "dtype" in raw:
            col = resolve_column(raw["dtype"], inputs, outputs, n_columns or 0)
            if isinstance(col, str):
                c.err(path + ("dtype",), col)
                col = 0
            columns: tuple[int, ...] = (col,)
        else:
            columns = tuple(range(n_columns or 0))
        case_attrs = {a.name: a.default for a in attrs.values()}
        for key, val in raw.get("attrs", {}).items():
            if key not in attrs:
                c.err(path + ("attrs", key), f"unknown attr '{key}' (attrs: {', '.join(attrs) or 'none'})")
                continue
            p = attr_value_problem(attrs[key].type, val)
            if p:
                c.err(path + ("attrs", key), p)
            case_attrs[key] = val
        for a in attrs.values():
            if a.required and a.name not in raw.get("attrs", {}):
                c.err(path + ("attrs",), f"no value for required attr '{a.name}'")
        _values(c, raw, path, by_input, columns, golden_file, spec_dir)
        sizes = _world_sizes(c, raw, path, d.get("family", ""))
        case_hook = compare_hook(c, raw["compare"], path + ("compare",), hook, outputs, golden_file, spec_dir) \
            if "compare" in raw else hook
        for ws in sizes:
            name = raw["name"] if len(sizes) == 1 else f"{raw['name']}.r{ws}"
            if len(sizes) > 1 and (any(x.name == name for x in cases)
                                   or any(r.get("name") == name for r in d["cases"] if r is not raw)):
                c.err(path + ("world_size",), f"case '{raw['name']}' at world size {ws} is named '{name}', "
                                              "which another case already uses")
            cases.append(Case(
                name=name, shapes=raw["shapes"], columns=columns, attrs=case_attrs,
                tags=tuple(raw.get("tags", [])), init=dict(raw.get("init", {})),
                special=dict(raw.get("special", {})), seed=raw.get("seed", 0), tiling_key=raw.get("tiling_key"),
                precision=dict(raw.get("precision", {})), description=raw.get("description", ""), index=i,
                compare=case_hook,
                dims={k.removeprefix("..."): v for k, v in bound.items()}, world_size=ws))
    return cases
