"""op.yaml ``inputs`` and ``outputs``: names, dtype columns, formats, conditional outputs."""

from __future__ import annotations

import re
from typing import Any

from opkit import naming
from opkit.spec.model import Attr, Condition, Param
from opkit.spec.sections import Checker
from opkit.spec.sections.attrs import attr_value_problem
from opkit.spec.yamlio import format_path, load_text

RESERVED_TENSOR_NAMES = {"workspace", "tiling"}
_COND = re.compile(r"^\s*(not\s+)?([a-z_][a-z0-9_]*)\s*(?:(==|!=)\s*(\S.*?))?\s*$")


def parse_condition(text: str, attrs: dict[str, Attr]) -> Condition | str:
    m = _COND.match(text)
    if not m:
        return f"'{text}' is not a condition (use 'attr', 'not attr', 'attr == value' or 'attr != value')"
    neg, name, op, raw = m.groups()
    if name not in attrs:
        return f"condition '{text}' names an unknown attr '{name}' (attrs: {', '.join(attrs) or 'none'})"
    if op is None:
        if attrs[name].type != "bool":
            return f"condition '{text}': attr '{name}' is {attrs[name].type}; compare it (e.g. '{name} == 1')"
        return Condition(name, "falsy" if neg else "truthy", None, text)
    if neg:
        return f"'{text}' mixes 'not' with a comparison"
    value: Any = load_text(raw, "<condition>").data
    problem = attr_value_problem(attrs[name].type, value)
    if problem:
        return f"condition '{text}': {problem} (attr '{name}')"
    return Condition(name, op, value, text)


def resolve_column(selector: Any, inputs: list[Param], outputs: list[Param], n_columns: int) -> int | str:
    """The dtype column a selector picks, or why it picks none or several.

    A selector is a dtype name (matched against the first tensor's column), a column index, or a
    {tensor: dtype} map; it must match exactly one column.
    """
    params = [*inputs, *outputs]
    if isinstance(selector, bool) or not isinstance(selector, (int, str, dict)):
        return f"{selector!r} is not a dtype column selector (give a dtype name, a column index or {{tensor: dtype}})"
    if isinstance(selector, int):
        if selector >= n_columns:
            return f"column {selector} does not exist (the spec has {n_columns} dtype column(s), 0..{n_columns - 1})"
        return selector
    if isinstance(selector, str):
        first = params[0]
        hits = [i for i, d in enumerate(first.dtypes) if d == selector]
        want = {first.name: selector}
    else:
        want = dict(selector)
        names = {p.name for p in params}
        unknown = [k for k in want if k not in names]
        if unknown:
            return f"unknown tensor '{unknown[0]}' in dtype selector (tensors: {', '.join(sorted(names))})"
        by_name = {p.name: p for p in params}
        hits = [i for i in range(n_columns) if all(by_name[k].dtypes[i] == v for k, v in want.items())]
    cols = "; ".join(
        f"{i}: " + ", ".join(f"{p.name}={p.dtypes[i]}" for p in params) for i in range(n_columns))
    if not hits:
        return f"no dtype column has {want} (columns are {cols})"
    if len(hits) > 1:
        return f"{want} matches columns {hits}; name more tensors to pick one (columns are {cols})"
    return hits[0]


def check(c: Checker, d: dict[str, Any], attrs: dict[str, Attr]) -> tuple[list[Param], int | None]:
    """Every input and output, and the number of dtype columns."""
    params: list[Param] = []
    names_seen: dict[str, tuple] = {}
    n_columns = None
    first_path = None
    for group in ("inputs", "outputs"):
        for i, p in enumerate(d[group]):
            path = (group, i)
            pname = p["name"]
            if pname in names_seen:
                c.err(path + ("name",), f"'{pname}' is already the name of {format_path(names_seen[pname])}")
            elif pname in RESERVED_TENSOR_NAMES or pname in naming.CPP_KEYWORDS:
                c.err(path + ("name",), f"'{pname}' cannot name a tensor: the kernel signature uses it")
            elif pname in attrs:
                c.err(path + ("name",), f"'{pname}' is also the name of an attr")
            clash = next((n for n in names_seen if n != pname and n.upper() == pname.upper()), None)
            if clash:
                c.err(path + ("name",), f"'{pname}' and '{clash}' both give the build macro DTYPE_{pname.upper()}; "
                      "rename one")
            names_seen[pname] = path + ("name",)
            dtypes = tuple(p["dtypes"])
            if n_columns is None:
                n_columns, first_path = len(dtypes), path + ("dtypes",)
            elif len(dtypes) != n_columns:
                c.err(path + ("dtypes",),
                      f"has {len(dtypes)} dtype(s) but {format_path(first_path)} has {n_columns}: dtype lists "
                      "are columns (column k of every input and output is one supported combination, as in "
                      "OpDef) and must all have the same length")
            if "format" in p and "formats" in p:
                c.err(path + ("formats",), "give either 'format' (one for every column) or 'formats', not both")
            formats = tuple(p["formats"]) if "formats" in p else (p.get("format", "ND"),) * len(dtypes)
            if len(formats) != len(dtypes):
                c.err(path + ("formats",), f"has {len(formats)} format(s) for {len(dtypes)} dtype column(s)")
            kind = p.get("param", "required")
            # An optional output (OPTIONAL in the OpDef, as ops-transformer's routing ops register some): the
            # kernel gets its buffer in every run, as a caller that asks for it would give; a case checks it
            # where the golden returns it. 'when' ties an output to an attr condition instead.
            when = None
            if "when" in p:
                parsed = parse_condition(p["when"], attrs)
                if isinstance(parsed, str):
                    c.err(path + ("when",), parsed)
                else:
                    when = parsed
            shape = tuple(p["shape"]) if "shape" in p else None
            inplace, ref = p.get("inplace"), p.get("ref")
            if inplace is not None and ref is not None:
                c.err(path + ("ref",), "give either 'inplace' (no OpDef output) or 'ref' (an OpDef output of the "
                      "input's name), not both")
            elif inplace is not None or ref is not None:
                key, target_name = ("inplace", inplace) if inplace is not None else ("ref", ref)
                target = _written_input(c, path, key, target_name, params, dtypes, when)
                if target is not None:
                    shape = shape if shape is not None else target.shape
                    taken = next((q for q in params if q.is_output and target_name in (q.inplace, q.ref)), None)
                    if taken is not None:
                        c.err(path + (key,), f"'{target_name}' already holds output '{taken.name}'; one input's buffer "
                              "holds one result")
            untouched = p.get("untouched")
            if untouched is not None and (group != "outputs" or inplace is not None or ref is not None):
                c.err(path + ("untouched",), "only an output the kernel owns has an 'untouched' mask (an input, an "
                      "in-place or a reference-form output starts from the input's values, which are never poisoned)")
                untouched = None
            params.append(Param(pname, dtypes, formats, kind, shape, group == "outputs", i,
                                p.get("description", ""), when, inplace, ref, untouched))
    return params, n_columns


def _written_input(c: Checker, path: tuple, key: str, name: str, params: list[Param], dtypes: tuple[str, ...],
                   when: Condition | None) -> Param | None:
    """The input an in-place or reference-form output is written into, or None after reporting why not."""
    target = next((q for q in params if not q.is_output and q.name == name), None)
    if target is None:
        c.err(path + (key,), f"'{name}' is not an input (inputs: "
              f"{', '.join(q.name for q in params if not q.is_output) or 'none'})")
    elif target.param == "dynamic":
        c.err(path + (key,), f"'{name}' is a dynamic (list) input; an in-place result needs one tensor")
    elif target.dtypes != dtypes:
        c.err(path + ("dtypes",), f"is written in place into '{name}', whose dtypes are "
              f"{list(target.dtypes)}: give the same columns")
    elif when is not None:
        c.err(path + ("when",), "an in-place result cannot be conditional")
    else:
        return target
    return None


def check_columns(c: Checker, params: list[Param], n_columns: int | None) -> None:
    """Duplicate columns would register the same kernel twice (columns differing only in a format, ND against
    FRACTAL_NZ say, are distinct, as in OpDef)."""
    inputs = [p for p in params if not p.is_output]
    cols = [tuple(p.dtypes[k] for p in params) for k in range(n_columns or 0)]
    keys = [(col, tuple(p.formats[k] for p in params)) for k, col in enumerate(cols)]
    for k, col in enumerate(cols):
        if keys[k] in keys[:k]:
            c.err(("inputs", 0, "dtypes", k) if inputs else ("outputs", 0, "dtypes", k),
                  f"dtype column {k} repeats column {keys.index(keys[k])} ({', '.join(col)})")
