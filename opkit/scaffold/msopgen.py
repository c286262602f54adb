"""msOpGen operator prototype JSON -> op.yaml (the mapping and the refusals: docs/msopgen.md).

A prototype file is a list of operator objects: ``op``, ``input_desc``/``output_desc`` (``name``,
``param_type``, ``format[]``, ``type[]``, read by column like op.yaml's ``dtypes``) and ``attr``.
Where msOpGen silently guesses (a later duplicate name wins, an unknown ``param_type`` becomes
``required``), import refuses with a message naming the file, line, operator and JSON path.
The other direction is ``opkit.scaffold.msopgen_export``.
"""

from __future__ import annotations

import difflib
import json
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opkit import naming, soc
from opkit.dtypes import DTYPE_NAMES, FORMATS, MSOPGEN_ALIASES, MSOPGEN_GROUPS
from opkit.errors import SpecError, UsageError
from opkit.scaffold.new import NewResult, new_package
from opkit.spec import load_string
from opkit.spec.load import RESERVED_TENSOR_NAMES, attr_value_problem
from opkit.spec.yamlio import dump, load_text

DEFAULT_SOCS = ["ascend910b"]

OP_KEYS = ("op", "input_desc", "output_desc", "attr", "language")
PARAM_KEYS = ("name", "param_type", "format", "type")
ATTR_KEYS = ("name", "param_type", "type", "default_value")
ATTR_TYPES = ("int", "bool", "float", "string", "list_int", "list_float", "list_bool", "list_list_int")
PARAM_TYPES = ("required", "optional", "dynamic")

# Known to msOpGen, not buildable by opkit.
_MSOPGEN_ONLY_DTYPES = {"qint8", "qint16", "qint32", "quint8", "quint16", "quint32", "complex32", "complex64",
                        "complex128", "string", "resource", "uint1", "int2", "int4", "variant"}
_MSOPGEN_ONLY_ATTR_TYPES = {"type", "list_string", "tensor", "list_tensor", "list_type", "data_type"}
_MSOPGEN_ONLY_FORMATS = set("""NC1C0HWPAD NHWC1C0 FSR_NCHW FRACTAL_DECONV C1HWNC0 FRACTAL_DECONV_TRANSPOSE
    FRACTAL_DECONV_SP_STRIDE_TRANS NC1HWC0_C04 FRACTAL_Z_C04 CHWN FRACTAL_DECONV_SP_STRIDE8_TRANS NC1KHKWHWC0 BN_WEIGHT
    FILTER_HWCK C1HWNCoC0 MD FRACTAL_ZZ DHWCN NDC1HWC0 FRACTAL_Z_3D CN NC DHWNC FRACTAL_Z_3D_TRANSPOSE FRACTAL_ZN_LSTM
    FRACTAL_ZN_RNN FRACTAL_Z_G NULL""".split())

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FAMILY = re.compile(r"^[a-z_][a-z0-9_]*$")

# A small placeholder shape per layout for the generated smoke case (msOpGen's JSON has no shapes).
_SMOKE_SHAPES: dict[str, list[int]] = {
    "ND": [8, 64], "NCHW": [1, 16, 8, 8], "NHWC": [1, 8, 8, 16], "HWCN": [3, 3, 16, 16],
    "NCDHW": [1, 16, 2, 8, 8], "NDHWC": [1, 2, 8, 8, 16], "NC1HWC0": [1, 1, 8, 8, 16],
    "FRACTAL_Z": [4, 1, 16, 16], "FRACTAL_NZ": [4, 4, 16, 16],
}
# A value of each attr type for a case that must give a required attr opkit cannot know (import, adopt).
PLACEHOLDER_VALUES: dict[str, Any] = {"int": 0, "float": 1.0, "bool": False, "string": "", "list_int": [],
                                "list_float": [], "list_bool": [], "list_list_int": []}


def _tname(value: Any) -> str:
    """A JSON-ish name for a value's type, for messages."""
    if isinstance(value, bool):
        return "a boolean"
    kinds = ((type(None), "null"), ((int, float), "a number"), (str, "a string"), (list, "a list"), (dict, "an object"))
    return next((name for t, name in kinds if isinstance(value, t)), type(value).__name__)


def _jpath(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "(operator)"


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.7)
    return f"; did you mean '{close[0]}'?" if close else ""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(file: str, lines: Mapping[tuple, int] | None, path: tuple) -> str:
    """``file:line`` of the value at ``path`` (or of the nearest enclosing one) when lines are known."""
    while lines and path and path not in lines:
        path = path[:-1]
    return f"{file}:{lines[path]}" if lines and path in lines else file


class _Problems:
    def __init__(self, file: str, op: str, lines: Mapping[tuple, int] | None = None, base: tuple = ()) -> None:
        self.file, self.op, self.lines, self.base = file, op, lines, base
        self.items: list[str] = []

    def add(self, path: tuple, text: str) -> None:
        where = _where(self.file, self.lines, self.base + path)
        self.items.append(f"{where}: {self.op}: {_jpath(path)}: {text}")

    def raise_if_any(self) -> None:
        if self.items:
            raise SpecError(self.items)


# --- Reading the file and picking the operator ----------------------------------------------------

class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            where = next((f" (in the object with {k} '{out[k]}')" for k in ("name", "op")
                          if isinstance(out.get(k), str)), "")
            raise _DuplicateKey(f"duplicate key '{key}'{where}; JSON readers keep only the last one, remove one")
        out[key] = value
    return out


def _json_lines(text: str, file: str) -> dict[tuple, int]:
    """The line of every value of a JSON text, by path (JSON read as YAML; {} when that fails)."""
    try:  # tabs only ever separate tokens in valid JSON; YAML does not allow them there
        return load_text(text.replace("\t", " "), file).lines
    except (SpecError, RecursionError, ValueError):
        return {}


def _read(path: str | Path) -> tuple[Any, str]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{p}: cannot read the msOpGen prototype: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([f"{p}:{line}: not UTF-8 text"]) from None
    try:
        return json.loads(text, object_pairs_hook=_pairs), text
    except json.JSONDecodeError as exc:
        raise SpecError([f"{p}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}"]) from None
    except _DuplicateKey as exc:
        try:  # the YAML reader names the line of the second key
            load_text(text.replace("\t", " "), str(p))
        except SpecError as yaml_exc:
            if "duplicate key" in yaml_exc.message:
                raise SpecError([yaml_exc.message.replace(" (first given on", "; JSON readers keep only the last "
                                                          "one (first given on")]) from None
        except (RecursionError, ValueError):
            pass
        raise SpecError([f"{p}: invalid prototype: {exc}"]) from None
    except RecursionError:
        raise SpecError([f"{p}: invalid prototype: JSON nested too deeply"]) from None


def read_msopgen_json(path: str | Path) -> Any:
    """Parse an msOpGen prototype file; syntax errors name the file, line and column."""
    return _read(path)[0]


def _entries(data: Any, file: str, lines: Mapping[tuple, int] | None = None) -> list[dict[str, Any]]:
    """The operator objects of a prototype file (a list, or one object as msOpGen also accepts)."""
    single = isinstance(data, dict)
    if single:
        data = [data]
    if not isinstance(data, list):
        raise SpecError([f"{file}: (top level): expected a list of operator objects "
                         f"([{{\"op\": \"MyOp\", ...}}]), found {_tname(data)}"])
    if not data:
        raise SpecError([f"{file}: (top level): the list is empty; it should hold one object per operator"])
    problems = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(data):
        at, op_at = ("(top level)", "op") if single else (f"[{i}]", f"[{i}].op")
        file_at = _where(file, lines, () if single else (i,))
        if not isinstance(entry, dict):
            problems.append(f"{file_at}: [{i}]: expected an operator object, found {_tname(entry)}")
        elif "op" not in entry:
            problems.append(f"{file_at}: {at}: the operator object has no \"op\" (its OpType, e.g. \"AddCustom\")")
        elif not isinstance(entry["op"], str):
            problems.append(f"{file_at}: {op_at}: expected the OpType as a string, found {_tname(entry['op'])}")
        elif entry["op"] in seen:
            first = seen[entry["op"]]
            problems.append(f"{_where(file, lines, (i, 'op'))}: [{i}].op: operator '{entry['op']}' is defined "
                            f"twice (also at [{first}]); "
                            "msOpGen would silently use the last one, opkit asks you to remove one")
        else:
            seen[entry["op"]] = i
    if problems:
        raise SpecError(problems)
    return data


def list_operators(data: Any, file: str) -> list[str]:
    """The OpTypes a parsed prototype file defines, in file order."""
    return [e["op"] for e in _entries(data, file)]


def _select(data: Any, file: str, op: str | None, lines: Mapping[tuple, int] | None) -> tuple[dict[str, Any], tuple]:
    """The chosen operator object and its path in the file."""
    entries = _entries(data, file, lines)
    names = [e["op"] for e in entries]
    if op is None and len(entries) > 1:
        raise UsageError(f"{file} defines {len(entries)} operators ({', '.join(names)}); pick one with --op")
    if op is not None and op not in names:
        raise UsageError(f"{file}: no operator '{op}' (it defines: {', '.join(names)}){_suggest(op, names)}")
    i = 0 if op is None else names.index(op)
    return entries[i], () if isinstance(data, dict) else (i,)


def _check_socs(socs: list[str] | None) -> list[str]:
    if socs is None:
        return list(DEFAULT_SOCS)
    if isinstance(socs, str) or not isinstance(socs, list) or not socs:
        raise UsageError("socs must be a non-empty list of SoC names (e.g. ['ascend910b'])")
    keys = soc.opdef_keys()
    out: list[str] = []
    for s in socs:
        if not isinstance(s, str):
            raise UsageError(f"SoC {s!r} is not a name (expected one of {', '.join(keys)})")
        key = s.strip().lower()
        if key not in keys:
            try:
                key = str(soc.chip(key)["opdef_key"])  # a chip name stands for its OpDef key
            except KeyError:
                raise UsageError(f"unknown SoC '{s}' (OpDef keys: {', '.join(keys)}; chips: "
                                 f"{', '.join(soc.chips())})") from None
        if key not in out:
            out.append(key)
    return out


# --- Field conversion -----------------------------------------------------------------------------

def _check_keys(obj: dict, allowed: tuple[str, ...], path: tuple, pr: _Problems) -> None:
    for key in obj:
        if key not in allowed:
            pr.add(path + (key,), f"unknown field '{key}' (fields: {', '.join(allowed)}){_suggest(str(key), allowed)}")


def _name(value: Any, path: tuple, pr: _Problems, what: str) -> str | None:
    """The name of a tensor or attr (kept as msOpGen spells it), or None after reporting why not."""
    if not isinstance(value, str):
        pr.add(path, f"expected the {what} name as a string, found {_tname(value)}")
        return None
    name = value.strip()
    if not _IDENT.match(name):
        pr.add(path, f"{value!r} is not a usable {what} name (letters, digits and '_', not starting with a digit)")
        return None
    return name


def _string_list(value: Any, path: tuple, pr: _Problems, what: str) -> list[str] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        pr.add(path, f"expected a list of {what}s, found {_tname(value)}")
        return None
    if not value:
        pr.add(path, f"the list is empty; give at least one {what}")
        return None
    out = []
    for k, item in enumerate(value):
        if not isinstance(item, str):
            pr.add(path + (k,), f"expected a {what} name as a string, found {_tname(item)}")
            return None
        out.append(item.strip())
    return out


def _dtype(raw: str, path: tuple, pr: _Problems) -> str | None:
    if raw in MSOPGEN_ALIASES:
        return MSOPGEN_ALIASES[raw]
    if raw.lower() in MSOPGEN_GROUPS:
        pr.add(path, f"'{raw}' is a type group, which msOpGen expands to many dtypes (some that opkit cannot "
                     "build); list the concrete dtypes instead, one per column (e.g. [\"fp16\", \"float\"])")
    elif raw.lower() in _MSOPGEN_ONLY_DTYPES:
        pr.add(path, f"'{raw}' is a dtype msOpGen knows but opkit cannot build (opkit supports: "
                     f"{', '.join(DTYPE_NAMES)})")
    else:
        low = raw.lower()
        hint = f"; did you mean '{low}'?" if low in MSOPGEN_ALIASES else _suggest(raw, list(MSOPGEN_ALIASES))
        pr.add(path, f"{raw!r} is not a dtype msOpGen knows (expected one of {', '.join(MSOPGEN_ALIASES)}){hint}")
    return None


def _format(raw: str, path: tuple, pr: _Problems) -> str | None:
    if raw in FORMATS:
        return raw
    if raw.upper() in FORMATS:
        pr.add(path, f"'{raw}' is not a format; formats are upper case: '{raw.upper()}'")
    elif raw in _MSOPGEN_ONLY_FORMATS:
        pr.add(path, f"'{raw}' is a format msOpGen knows but opkit does not support (opkit supports: "
                     f"{', '.join(FORMATS)})")
    else:
        pr.add(path, f"{raw!r} is not a format msOpGen knows (expected one of {', '.join(FORMATS)})"
                     f"{_suggest(raw, FORMATS)}")
    return None


def _param(entry: Any, path: tuple, pr: _Problems, is_output: bool) -> dict[str, Any] | None:
    """One input_desc/output_desc item -> {name, dtypes, formats, param}."""
    if not isinstance(entry, dict):
        pr.add(path, f"expected a tensor object ({{\"name\": ..., \"type\": [...], \"format\": [...]}}), "
                     f"found {_tname(entry)}")
        return None
    _check_keys(entry, PARAM_KEYS, path, pr)
    if "name" not in entry:
        pr.add(path, "the tensor has no \"name\"")
        return None
    name = _name(entry["name"], path + ("name",), pr, "tensor")
    kind = entry.get("param_type", "required")
    if kind not in PARAM_TYPES:
        pr.add(path + ("param_type",), f"{_short(kind)} is not a param_type (expected one of {', '.join(PARAM_TYPES)})")
        kind = None
    if "type" not in entry:
        pr.add(path, "the tensor has no \"type\" (its dtypes, one per column, e.g. [\"fp16\", \"float\"])")
        return None
    types = _string_list(entry["type"], path + ("type",), pr, "dtype")
    formats = ["ND"] if "format" not in entry else _string_list(entry["format"], path + ("format",), pr, "format")
    if types is None or formats is None:
        return None
    dtypes = [_dtype(t, path + ("type", k), pr) for k, t in enumerate(types)]
    fmts = [_format(f, path + ("format", k), pr) for k, f in enumerate(formats)]
    if len(dtypes) != len(fmts):
        if len(fmts) == 1:
            fmts = fmts * len(dtypes)
        elif len(dtypes) == 1:
            dtypes = dtypes * len(fmts)
        else:
            pr.add(path + ("format",), f"has {len(fmts)} formats for {len(dtypes)} types: give one format per type, "
                                       "or a single format for every type (a single type is likewise repeated)")
            return None
    if name is None or kind is None or None in dtypes or None in fmts:
        return None
    return {"name": name, "dtypes": dtypes, "formats": fmts, "param": kind}


def _default(atype: str, value: Any, path: tuple, pr: _Problems) -> tuple[bool, Any]:
    """(ok, value) for an attr default_value; numbers/bools written as strings are accepted."""
    if isinstance(value, str) and atype != "string":
        text = value.strip()
        try:
            value = json.loads(text.lower() if text.lower() in ("true", "false") or atype.endswith("bool") else text)
        except (ValueError, RecursionError):
            pr.add(path, f"{_short(value)} is not a value of type {atype}")
            return False, None

    ok = attr_value_problem(atype, value, int64=True, finite=True) is None
    if not ok:
        extra = "" if atype in ("bool", "string", "list_bool") else " (integers must fit in int64, floats be finite)"
        pr.add(path, f"{_short(value)} is not a value of type {atype}{extra}")
        return False, None
    return True, float(value) if atype == "float" else [float(x) for x in value] if atype == "list_float" else value


def _attr(entry: Any, path: tuple, pr: _Problems) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        pr.add(path, f"expected an attr object ({{\"name\": ..., \"type\": ...}}), found {_tname(entry)}")
        return None
    _check_keys(entry, ATTR_KEYS, path, pr)
    if "name" not in entry or "type" not in entry:
        pr.add(path, f"the attr has no \"{'name' if 'name' not in entry else 'type'}\" (an attr needs a name and "
                     f"a type: {', '.join(ATTR_TYPES)})")
        return None
    name = _name(entry["name"], path + ("name",), pr, "attr")
    atype = entry["type"]
    if not isinstance(atype, str):
        pr.add(path + ("type",), f"expected the attr type as a string, found {_tname(atype)}")
        return None
    atype = atype.strip()
    if atype not in ATTR_TYPES:
        if atype in _MSOPGEN_ONLY_ATTR_TYPES:
            pr.add(path + ("type",), f"attr type '{atype}' is known to msOpGen but opkit does not support it "
                                     f"(opkit supports: {', '.join(ATTR_TYPES)})")
        else:
            pr.add(path + ("type",), f"{atype!r} is not an attr type (expected one of {', '.join(ATTR_TYPES)})"
                                     f"{_suggest(atype, ATTR_TYPES)}")
        return None
    kind = entry.get("param_type", "required")
    if kind not in ("required", "optional"):
        pr.add(path + ("param_type",), f"{_short(kind)} is not an attr param_type (expected required or optional)")
        return None
    out: dict[str, Any] = {"type": atype, "required": kind == "required"}
    if kind == "required" and "default_value" in entry:
        pr.add(path + ("default_value",), "a required attr takes no default_value (msOpGen ignores it); drop "
                                          "default_value or make the attr optional")
        return None
    if kind == "optional" and "default_value" not in entry:
        pr.add(path, "an optional attr needs a default_value (the value OpDef registers when the caller gives none)")
        return None
    if kind == "optional":
        ok, out["default"] = _default(atype, entry["default_value"], path + ("default_value",), pr)
        if not ok:
            return None
    if name is None:
        return None
    out["name"] = name
    return out


def _list_field(op_obj: dict, key: str, pr: _Problems, required: bool) -> list[Any]:
    if key not in op_obj:
        if required:
            pr.add((), f"no \"{key}\": an operator needs at least one output")
        return []
    value = op_obj[key]
    if not isinstance(value, list):
        pr.add((key,), f"expected a list, found {_tname(value)}")
        return []
    if required and not value:
        pr.add((key,), "the list is empty: an operator needs at least one output")
    return value


def _convert(op_obj: dict[str, Any], op: str, pr: _Problems) -> tuple[list[dict], list[dict], list[dict]]:
    _check_keys(op_obj, OP_KEYS, (), pr)
    language = op_obj.get("language", "cpp")
    if language != "cpp":
        pr.add(("language",), f"{_short(language)}: opkit generates Ascend C operators only (language \"cpp\")")
    raw_in = _list_field(op_obj, "input_desc", pr, required=False)
    raw_out = _list_field(op_obj, "output_desc", pr, required=True)
    raw_attr = _list_field(op_obj, "attr", pr, required=False)
    params: list[tuple[tuple, dict | None]] = []
    for group, items in (("input_desc", raw_in), ("output_desc", raw_out)):
        for i, item in enumerate(items):
            params.append(((group, i), _param(item, (group, i), pr, group == "output_desc")))
    attrs = [((("attr", i)), _attr(item, ("attr", i), pr)) for i, item in enumerate(raw_attr)]

    # Names: unique over tensors and attrs (also as DTYPE_<NAME> macros), none the kernel signature uses.
    seen: dict[str, tuple[tuple, str]] = {}
    for path, p in [*params, *attrs]:
        if p is None:
            continue
        where = path + ("name",)
        key = p["name"].upper()
        if key in seen:
            first, other = seen[key]
            same = "" if other == p["name"] else f" ('{other}' and '{p['name']}' both give DTYPE_{key})"
            pr.add(where, f"'{p['name']}' is already the name of {_jpath(first)}{same}; msOpGen would silently "
                          "keep the later one, opkit asks for distinct names")
            continue
        seen[key] = (where, p["name"])
        if path[0] != "attr" and (p["name"] in RESERVED_TENSOR_NAMES or p["name"] in naming.CPP_KEYWORDS):
            pr.add(where, f"'{p['name']}' cannot name a tensor: the kernel signature uses it")

    # Columns: every type list the same length, no column repeated.
    good = [(path, p) for path, p in params if p is not None]
    if good:
        first_path, first = good[0]
        for path, p in good[1:]:
            if len(p["dtypes"]) != len(first["dtypes"]):
                pr.add(path + ("type",), f"has {len(p['dtypes'])} type column(s) but {_jpath(first_path)}.type has "
                       f"{len(first['dtypes'])}: msOpGen reads type lists by column (column k of every input and "
                       "output is one supported combination), so all must have the same length")
        if not pr.items:
            n = len(first["dtypes"])
            cols = [tuple(p["dtypes"][k] for _, p in good) for k in range(n)]
            for k, col in enumerate(cols):
                if col in cols[:k]:
                    j = cols.index(col)
                    pr.add(first_path + ("type", k), f"column {k} repeats the dtypes of column {j} ({', '.join(col)})"
                           "; opkit builds one kernel per dtype column, so two columns with the same dtypes cannot "
                           "both be kept, even when their formats differ: remove one")
    pr.raise_if_any()
    ins = [p for path, p in params if path[0] == "input_desc" and p is not None]
    outs = [p for path, p in params if path[0] == "output_desc" and p is not None]
    return ins, outs, [a for _, a in attrs if a is not None]


def tensor_yaml(p: dict[str, Any]) -> dict[str, Any]:
    """op.yaml's entry of a tensor given as name, dtypes, formats and param (msOpGen import, adopt)."""
    out: dict[str, Any] = {"name": p["name"], "dtypes": list(p["dtypes"])}
    fmts = p["formats"]
    if len(set(fmts)) > 1:
        out["formats"] = list(fmts)
    elif fmts[0] != "ND":
        out["format"] = fmts[0]
    if p["param"] != "required":
        out["param"] = p["param"]
    return out


def spec_from_msopgen(data: Any, file: str, op: str | None = None, family: str = "custom",
                      socs: list[str] | None = None, *, lines: Mapping[tuple, int] | None = None) -> str:
    """op.yaml text for one operator of a parsed msOpGen prototype file.

    ``file`` is only used in messages (with the line of each problem when ``lines`` maps JSON paths
    to lines). ``op`` picks the operator when the file defines several. The text is checked by the
    spec loader before it is returned.
    """
    if not isinstance(family, str) or not _FAMILY.match(family):
        raise UsageError(f"invalid family {family!r}: use a snake_case slug such as 'moe' or 'attention'")
    soc_keys = _check_socs(socs)
    op_obj, base = _select(data, file, op, lines)
    op_type: str = op_obj["op"]
    pr = _Problems(file, op_type, lines, base)
    name = naming.snake_of(op_type)
    type_problem = naming.op_type_problem(op_type, name)
    if type_problem:
        pr.add(("op",), f"cannot be imported: {type_problem}")
    elif naming.name_problem(name):
        pr.add(("op",), f"OpType {op_type} gives the op name '{name}', which opkit refuses: "
               f"{naming.name_problem(name)}")
    pr.raise_if_any()
    inputs, outputs, attrs = _convert(op_obj, op_type, pr)

    shapes: dict[str, Any] = {}
    for p in inputs:
        shape = list(_SMOKE_SHAPES.get(p["formats"][0], [8, 64]))
        shapes[p["name"]] = [shape, list(shape)] if p["param"] == "dynamic" else shape
    smoke: dict[str, Any] = {"name": "smoke", "tags": ["smoke"], "shapes": shapes}
    required_attrs = {a["name"]: PLACEHOLDER_VALUES[a["type"]] for a in attrs if a["required"]}
    if required_attrs:
        smoke["attrs"] = required_attrs
    out_yaml = [tensor_yaml(p) for p in outputs]
    if not inputs:  # nothing to copy the output shape from: give InferShape a fixed one
        for o, p in zip(out_yaml, outputs, strict=True):
            o["shape"] = list(_SMOKE_SHAPES.get(p["formats"][0], [8, 64]))
    spec: dict[str, Any] = {
        "name": name, "op_type": op_type, "family": family,
        "summary": f"{op_type}, imported from the msOpGen prototype {Path(file).name}.",
        "socs": soc_keys, "kernel": "vector", "inputs": [tensor_yaml(p) for p in inputs], "outputs": out_yaml,
        "attrs": [{"name": a["name"], "type": a["type"], **({"default": a["default"]} if "default" in a else {})}
                  for a in attrs],
        "golden": f"golden.py:{name}", "cases": [smoke],
    }
    header = [
        "# yaml-language-server: $schema=https://opkit.dev/schemas/op.schema.json",
        f"# Imported from the msOpGen prototype {Path(file).name} (operator {op_type}).",
        "# msOpGen's JSON has no shapes, math or test cases: tensors carry no symbolic shape yet, the smoke",
        "# case uses placeholder shapes, and golden.py and the kernel still need the computation.",
    ]
    if required_attrs:
        header.append(f"# Placeholder values for required attrs in the smoke case: {', '.join(required_attrs)}.")
    text = "\n".join(header) + "\n" + dump(spec)
    try:
        load_string(text, file=f"{file} ({op_type}) as op.yaml")
    except SpecError as exc:  # a gap in the checks above; still one clear error, never a traceback
        raise SpecError([f"{file}: {op_type}: the converted spec is not valid: {m}" for m in exc.problems]) from None
    return text


def import_msopgen(json_path: str | Path, *, op: str | None = None, family: str | None = None,
                   directory: str | Path | None = None, force: bool = False, cwd: str | Path | None = None,
                   socs: list[str] | None = None) -> NewResult:
    """Scaffold an operator package from an msOpGen prototype file (generic compute, see `opkit new`)."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    path = Path(json_path)
    data, source = _read(path if path.is_absolute() else here / path)
    text = spec_from_msopgen(data, str(json_path), op=op, family=family or "custom", socs=socs,
                             lines=_json_lines(source, str(json_path)))
    with tempfile.TemporaryDirectory(prefix="opkit-import-") as tmp:
        spec_file = Path(tmp) / "op.yaml"
        spec_file.write_text(text, encoding="utf-8")
        return new_package(spec_file=spec_file, family=family, directory=directory, force=force, cwd=here)
