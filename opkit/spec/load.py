"""Load and check an op.yaml: schema first, then the rules a schema cannot say; build typed objects."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path
from typing import Any

from opkit import naming, soc
from opkit.dtypes import DTYPES
from opkit.errors import SpecError
from opkit.spec.model import Attr, Case, CompareHook, Condition, DimLimit, Param, PerfCase, SocTarget, Spec
from opkit.spec.schema import schema_problems
from opkit.spec.yamlio import Document, format_path, load_file, load_text

RESERVED_TENSOR_NAMES = {"workspace", "tiling"}
_COND = re.compile(r"^\s*(not\s+)?([a-z_][a-z0-9_]*)\s*(?:(==|!=)\s*(\S.*?))?\s*$")


class _Checker:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.problems: list[str] = []

    def err(self, path: tuple, text: str) -> None:
        self.problems.append(f"{self.doc.where(path)}: {format_path(path)}: {text}")


INT64 = (-(2**63), 2**63 - 1)


def attr_value_problem(atype: str, value: Any, *, int64: bool = False, finite: bool = False) -> str | None:
    """Why ``value`` is not a value of attr type ``atype``; ``int64`` also bounds integers to int64,
    ``finite`` refuses infinite and NaN floats."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and (not int64 or INT64[0] <= v <= INT64[1])

    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and (not finite or math.isfinite(v))

    checks = {
        "float": is_num, "int": is_int, "bool": lambda v: isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "list_int": lambda v: isinstance(v, list) and all(is_int(x) for x in v),
        "list_float": lambda v: isinstance(v, list) and all(is_num(x) for x in v),
        "list_bool": lambda v: isinstance(v, list) and all(isinstance(x, bool) for x in v),
        "list_list_int": lambda v: isinstance(v, list) and all(
            isinstance(x, list) and all(is_int(y) for y in x) for x in v),
    }
    if not checks[atype](value):
        return f"{value!r} is not a value of type {atype}"
    return None


def _parse_condition(text: str, attrs: dict[str, Attr]) -> Condition | str:
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
    if isinstance(selector, bool):
        return f"{selector!r} is not a dtype column selector"
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


def _bind_shape(sym: tuple, shape: list[int], bound: dict[str, Any]) -> str | None:
    """Check a concrete shape against a symbolic one, binding symbols; None when it fits.

    A dim is a size, a symbol (``S``), alternatives (``B|1``), or ``...R``: any number of dims,
    bound as a whole (two tensors with ``...R`` must have the same dims there).
    """
    rest = [i for i, s in enumerate(sym) if isinstance(s, str) and s.startswith("...")]
    if len(rest) > 1:
        return f"the spec's shape {list(sym)} has more than one '...' dim"
    if rest:
        r = rest[0]
        n_rest = len(shape) - (len(sym) - 1)
        if n_rest < 0:
            return f"has rank {len(shape)} but the spec's shape {list(sym)} needs at least {len(sym) - 1}"
        key = sym[r]
        dims = tuple(shape[r:r + n_rest])
        if key in bound and bound[key] != dims:
            return f"dims {list(dims)} ({key}) differ from {list(bound[key])} bound by an earlier tensor"
        bound[key] = dims
        sym = sym[:r] + sym[r + 1:]
        shape = list(shape[:r]) + list(shape[r + n_rest:])
    if len(sym) != len(shape):
        return f"has rank {len(shape)} but the spec's shape {list(sym)} has rank {len(sym)}"
    for i, (s, v) in enumerate(zip(sym, shape, strict=True)):
        if isinstance(s, int):
            if s != v:
                return f"dim {i} is {v} but the spec fixes it to {s}"
            continue
        parts = s.split("|")
        if any(p.isdigit() and int(p) == v for p in parts):
            continue
        symbols = [p for p in parts if not p.isdigit()]
        if any(bound.get(p) == v for p in symbols):
            continue
        free = [p for p in symbols if p not in bound]
        if free:
            bound[free[0]] = v
            continue
        bound_txt = ", ".join(f"{p}={bound[p]}" for p in symbols)
        return f"dim {i} is {v} but {s} is bound to {bound_txt} by an earlier tensor"
    return None


def _golden_problem(spec_dir: Path, file: str, func: str, passes: set[str] | None = None) -> str | None:
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


HOOK_ARGS = {"actual", "golden", "inputs", "attrs", "dtypes", "check"}


def _compare_hook(c: _Checker, raw: dict[str, Any], path: tuple, base: CompareHook | None, outputs: list[Param],
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
        problem = _golden_problem(spec_dir, golden_file, function, HOOK_ARGS | set(options))
        if problem:
            c.err(path + ("function" if "function" in raw else "options",),
                  "comparison hook: " + problem.replace("golden file", "file"))
    return CompareHook(function, hooked, options, golden_file)


def _dim_limits(c: _Checker, raw: dict[str, Any], params: list[Param]) -> dict[str, DimLimit]:
    symbols: set[str] = set()
    for prm in params:
        for d in prm.shape or ():
            if isinstance(d, str):
                symbols.update(p[3:] if p.startswith("...") else p for p in d.split("|") if not p.isdigit())
    limits = {}
    for name, lim in raw.items():
        path = ("dims", name)
        if name not in symbols:
            c.err(path, f"no tensor shape uses the symbol '{name}' (symbols: {', '.join(sorted(symbols)) or 'none'})")
            continue
        d = DimLimit(name, lim.get("min", 1), lim.get("max"), lim.get("multiple_of", 1), lim.get("sweep", True),
                     lim.get("description", ""))
        if d.max is not None and d.max < d.min:
            c.err(path, f"max {d.max} is below min {d.min}")
        limits[name] = d
    return limits


def shape_roles(sym: tuple, shape: list[int], bound: dict[str, Any]) -> list[tuple[str, int | None] | None]:
    """For each dim of ``shape`` (which fits ``sym`` under ``bound``, the case's bound symbols): the
    symbol it takes its size from — ``(S, None)``, or ``(R, i)`` for dim i of a ``...R`` group — or None
    for a fixed size or a literal alternative (the ``1`` of ``B|1``)."""
    rest = [i for i, s in enumerate(sym) if isinstance(s, str) and s.startswith("...")]
    if rest:
        r = rest[0]
        n_rest = len(shape) - (len(sym) - 1)
        head = shape_roles(sym[:r], list(shape[:r]), bound)
        tail = shape_roles(sym[r + 1:], list(shape[r + n_rest:]), bound)
        return [*head, *[(sym[r][3:], i) for i in range(n_rest)], *tail]
    roles: list[tuple[str, int | None] | None] = []
    for s, v in zip(sym, shape, strict=True):
        if isinstance(s, int):
            roles.append(None)
            continue
        parts = s.split("|")
        if any(p.isdigit() and int(p) == v for p in parts):
            roles.append(None)
            continue
        roles.append(next(((p, None) for p in parts if not p.isdigit() and bound.get(p) == v), None))
    return roles


def _precision_problems(c: _Checker, block: dict[str, Any], path: tuple, profile: str, outputs: list[str]) -> None:
    """Keys of a precision block that its profile (its own, else the enclosing block's) does not read,
    and per-output entries naming no output."""
    from opkit.verify.profiles import PROFILE_OPTIONS

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
            _precision_problems(c, sub, path + ("outputs", name), profile, outputs)


def build(doc: Document, check_files: bool = True) -> Spec:
    """Check a loaded document and build the Spec; raises SpecError listing every problem."""
    if not isinstance(doc.data, dict):
        raise SpecError([f"{doc.file}:1: (top level): expected a mapping of spec fields, found "
                         f"{'an empty document' if doc.data is None else type(doc.data).__name__}"])
    problems = schema_problems(doc)
    if problems:
        raise SpecError(problems)
    d = doc.data
    c = _Checker(doc)

    name = d["name"]
    problem = naming.name_problem(name)
    if problem:
        c.err(("name",), problem)
    op_type = d.get("op_type") or naming.op_type_of(name)
    if "op_type" in d and not problem:
        problem2 = naming.op_type_problem(op_type, name)
        if problem2:
            c.err(("op_type",), problem2)

    # SoCs are checked after the columns are known.
    attrs: dict[str, Attr] = {}
    for i, a in enumerate(d.get("attrs", [])):
        path = ("attrs", i)
        if a["name"] in attrs:
            c.err(path + ("name",), f"attr '{a['name']}' is declared twice")
            continue
        required = bool(a.get("required", "default" not in a))
        if "default" in a:
            if required:
                c.err(path + ("required",), "a required attr cannot have a default; drop one of them")
            p = attr_value_problem(a["type"], a["default"])
            if p:
                c.err(path + ("default",), p)
        attrs[a["name"]] = Attr(a["name"], a["type"], a.get("default"), required, a.get("description", ""))

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
            if group == "outputs" and kind == "optional":
                c.err(path + ("param",), "outputs cannot be optional (mark a conditional output with 'when')")
            when = None
            if "when" in p:
                parsed = _parse_condition(p["when"], attrs)
                if isinstance(parsed, str):
                    c.err(path + ("when",), parsed)
                else:
                    when = parsed
            shape = tuple(p["shape"]) if "shape" in p else None
            params.append(Param(pname, dtypes, formats, kind, shape, group == "outputs", i,
                                p.get("description", ""), when))
    inputs = [p for p in params if not p.is_output]
    outputs = [p for p in params if p.is_output]
    if c.problems:
        raise SpecError(c.problems)

    # Duplicate columns would register the same kernel twice.
    cols = [tuple(p.dtypes[k] for p in params) for k in range(n_columns or 0)]
    for k, col in enumerate(cols):
        if col in cols[:k]:
            c.err(("inputs", 0, "dtypes", k) if inputs else ("outputs", 0, "dtypes", k),
                  f"dtype column {k} repeats column {cols.index(col)} ({', '.join(col)})")

    socs: list[SocTarget] = []
    keys = soc.opdef_keys()
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
        socs.append(SocTarget(key, columns))

    golden_file, golden_func = d["golden"].rsplit(":", 1)
    if check_files:
        gp = _golden_problem(doc_dir(doc), golden_file, golden_func)
        if gp:
            c.err(("golden",), gp)
    spec_dir = doc_dir(doc) if check_files else None
    hook = _compare_hook(c, d["compare"], ("compare",), None, outputs, golden_file, spec_dir) \
        if "compare" in d else None
    limits = _dim_limits(c, d.get("dims", {}), params)
    out_names = [o.name for o in outputs]
    _precision_problems(c, d.get("precision", {}), ("precision",), "mixed", out_names)
    base_profile = d.get("precision", {}).get("profile", "mixed")

    cases: list[Case] = []
    by_input = {p.name: p for p in inputs}
    for i, raw in enumerate(d["cases"]):
        path = ("cases", i)
        if any(x.name == raw["name"] for x in cases):
            c.err(path + ("name",), f"case name '{raw['name']}' is used twice")
        shapes = raw["shapes"]
        bound: dict[str, int] = {}
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
                    p = _bind_shape(prm.shape, one, {} if is_list else bound)
                    if p:
                        c.err(sub, f"shape {one} {p}")
        _precision_problems(c, raw.get("precision", {}), path + ("precision",), base_profile, out_names)
        for sym_name, value in bound.items():
            lim = limits.get(sym_name.removeprefix("..."))
            problem = next((p for v in (value if isinstance(value, tuple) else (value,))
                            for p in [lim.problem(v) if lim else None] if p), None)
            if problem:
                c.err(path + ("shapes",), problem)
        for prm in inputs:
            if prm.param in ("required", "dynamic") and prm.name not in shapes:
                c.err(path + ("shapes",), f"no shape for required input '{prm.name}'")
        if "dtype" in raw:
            col = resolve_column(raw["dtype"], inputs, outputs, n_columns or 0)
            if isinstance(col, str):
                c.err(path + ("dtype",), col)
                col = 0
            columns = (col,)
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
        for section in ("init", "special"):
            for key, val in raw.get(section, {}).items():
                if key not in by_input:
                    c.err(path + (section, key), f"'{key}' is not an input (inputs: {', '.join(by_input)})")
                elif section == "init" and isinstance(val, dict) and "custom" in val and check_files:
                    gp = _golden_problem(doc_dir(doc), golden_file, val["custom"])
                    if gp:
                        c.err(path + (section, key, "custom"), gp.replace("golden file", "custom generator: file"))
                elif section == "special":
                    kinds = {by_input[key].dtype(k).kind for k in columns}
                    vals = val["values"] if isinstance(val, dict) else val
                    if kinds - {"float"} and any(
                            isinstance(v, str) and v not in ("zero",) or isinstance(v, float) and not math.isfinite(v)
                            for v in vals):
                        c.err(path + (section, key), f"'{key}' is an integer tensor: it cannot hold {vals}")
        cases.append(Case(
            name=raw["name"], shapes=shapes, columns=columns, attrs=case_attrs,
            tags=tuple(raw.get("tags", [])), init=dict(raw.get("init", {})),
            special=dict(raw.get("special", {})), seed=raw.get("seed", 0),
            precision=dict(raw.get("precision", {})), description=raw.get("description", ""), index=i,
            compare=_compare_hook(c, raw["compare"], path + ("compare",), hook, outputs, golden_file, spec_dir)
            if "compare" in raw else hook,
            dims={k.removeprefix("..."): v for k, v in bound.items()}))

    perf = []
    chip_names = soc.chips()
    for i, p in enumerate(d.get("perf", [])):
        if not any(x.name == p["case"] for x in cases):
            c.err(("perf", i, "case"), f"no case named '{p['case']}' (cases: {', '.join(x.name for x in cases)})")
        if "soc" in p and p["soc"] not in chip_names and p["soc"] not in keys:
            c.err(("perf", i, "soc"), f"'{p['soc']}' is not a chip (expected one of {', '.join(chip_names)})")
        perf.append(PerfCase(p["case"], p.get("soc")))

    for prm in params:
        for k, dt in enumerate(prm.dtypes):
            if dt not in DTYPES:  # pragma: no cover - the schema already refuses these
                c.err((("outputs" if prm.is_output else "inputs"), prm.index, "dtypes", k), f"unknown dtype {dt}")

    if c.problems:
        raise SpecError(c.problems)
    return Spec(
        path=Path(doc.file), name=name, op_type=op_type, family=d["family"], summary=d.get("summary", ""),
        socs=socs, kernel=d["kernel"], inputs=inputs, outputs=outputs, attrs=list(attrs.values()),
        golden_file=golden_file, golden_func=golden_func, cases=cases,
        precision=dict(d.get("precision", {})), perf=perf, doc=doc, raw=d, compare=hook, dims=limits)


def doc_dir(doc: Document) -> Path:
    return Path(doc.file).parent


def load(path: str | Path, check_files: bool = True) -> Spec:
    """Load the op.yaml at ``path`` (a file, or a package folder holding one)."""
    p = Path(path)
    if p.is_dir():
        p = p / "op.yaml"
    if not p.is_file():
        raise SpecError([f"{p}: no such spec file (an operator package is a folder holding op.yaml)"])
    return build(load_file(p), check_files=check_files)


def load_string(text: str, file: str = "op.yaml", check_files: bool = False) -> Spec:
    return build(load_text(text, file), check_files=check_files)
