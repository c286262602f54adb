"""YAML for op specs: YAML 1.2 core-schema scalars, line numbers kept, duplicate keys refused.

PyYAML implements YAML 1.1, where ``1e-20`` is a string and ``off`` a boolean. Specs are read with
the YAML 1.2 core schema instead: ``true``/``false`` are the only booleans, ``1e-20`` is a float,
``0o17``/``0x1f`` are integers. Every value's position is kept so that errors name ``file:line``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from opkit.errors import SpecError

Path_ = tuple  # a path into the document: keys and list indices

_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_NAN = re.compile(r"^\.(nan|NaN|NAN)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"", "~", "null", "Null", "NULL"}

_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN_TAG = "opkit:plain"


class _Composer(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Composes nodes only (with libyaml when PyYAML has it); plain scalars are resolved later by the
    YAML 1.2 core rules."""

    yaml_implicit_resolvers: dict = {}

    def resolve(self, kind, value, implicit):  # type: ignore[override]
        if kind is yaml.ScalarNode and implicit and implicit[0]:
            return _PLAIN_TAG
        return super().resolve(kind, value, implicit)


@dataclass
class Document:
    """A loaded YAML document with the line of every value."""

    data: Any
    file: str
    lines: dict[Path_, int] = field(default_factory=dict)
    values: int = field(default=0, repr=False, compare=False)  # values built so far (the expansion bound)

    def line(self, path: Path_) -> int:
        """The line of the value at ``path``, or of its nearest enclosing value."""
        p = tuple(path)
        while p not in self.lines and p:
            p = p[:-1]
        return self.lines.get(p, 1)

    def where(self, path: Path_) -> str:
        return f"{self.file}:{self.line(path)}"


def format_path(path: Path_) -> str:
    """``('inputs', 1, 'dtypes', 2)`` -> ``inputs[1].dtypes[2]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _scalar(node: yaml.ScalarNode, where: str) -> Any:
    value = node.value
    tag = node.tag
    if tag == _PLAIN_TAG:
        if value in _NULL:
            return None
        if value in _BOOL:
            return _BOOL[value]
        number = _number(value)
        return value if number is None else number
    if tag == _STR_TAG or tag == "!":
        return value
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        if value not in _BOOL:
            raise SpecError([f"{where}: {value!r} is not a boolean (use true or false)"])
        return _BOOL[value]
    if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        number = _number(value)
        if number is None:
            raise SpecError([f"{where}: {value!r} is not a number"])
        return float(number) if tag.endswith("float") else number
    raise SpecError([f"{where}: unsupported YAML tag {tag!r} (plain values only)"])


def _number(value: str) -> int | float | None:
    if _INT.match(value):
        return int(value)
    if _OCT.match(value):
        return int(value[2:], 8)
    if _HEX.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN.match(value):
        return math.nan
    return None


# Bounds on what one document may cost to load: its size, and the values it expands to (aliases can make
# a few lines stand for billions of values: the "billion laughs").
MAX_DOCUMENT_BYTES = 4 << 20
MAX_VALUES = 200_000


def _build(node: yaml.Node, path: Path_, doc: Document, depth: int = 0) -> Any:
    line = node.start_mark.line + 1
    doc.lines[path] = line
    where = f"{doc.file}:{line}"
    if depth > 64:
        raise SpecError([f"{where}: nesting deeper than 64 levels"])
    doc.values += 1
    if doc.values > MAX_VALUES:
        raise SpecError([f"{where}: the document expands to more than {MAX_VALUES} values (YAML aliases "
                         "repeating large parts?); write the values out, or keep them smaller"])
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, where)
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), doc, depth + 1) for i, item in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            kline = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError([f"{doc.file}:{kline}: {format_path(path)}: a key must be a plain name"])
            if key_node.tag == "tag:yaml.org,2002:merge" or key_node.value == "<<":
                raise SpecError([f"{doc.file}:{kline}: {format_path(path)}: YAML merge keys (<<) are not supported"])
            key = key_node.value
            if key in out:
                raise SpecError([
                    f"{doc.file}:{kline}: {format_path(path + (key,))}: duplicate key '{key}' "
                    f"(first given on line {first_line[key]}); remove one of them"
                ])
            first_line[key] = kline
            out[key] = _build(value_node, path + (key,), doc, depth + 1)
        return out
    raise SpecError([f"{where}: unsupported YAML node"])  # pragma: no cover


def load_text(text: str, file: str) -> Document:
    """Parse one YAML document; syntax errors become a SpecError naming file and line."""
    doc = Document(data=None, file=file)
    if len(text) > MAX_DOCUMENT_BYTES:
        raise SpecError([f"{file}:1: the document is {len(text)} characters long, more than the {MAX_DOCUMENT_BYTES} "
                         "opkit reads; an op.yaml is a few kilobytes"])
    try:
        loader = _Composer(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = exc.problem or exc.context or "invalid YAML"
        raise SpecError([f"{file}:{line}: invalid YAML: {what}"]) from None
    except yaml.YAMLError as exc:
        raise SpecError([f"{file}:1: invalid YAML: {exc}"]) from None
    if node is None:
        doc.data = None
        return doc
    doc.data = _build(node, (), doc)
    return doc


def load_file(path: Path) -> Document:
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise SpecError([f"{path}:1: the file is {path.stat().st_size} bytes, more than the "
                             f"{MAX_DOCUMENT_BYTES} opkit reads; an op.yaml is a few kilobytes"])
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror or exc}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([f"{path}:{line}: not UTF-8 text"]) from None
    return load_text(text, str(path))


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # a value used twice is written twice, never as &id001/*id001
        return True


def _str_presenter(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Quote strings that YAML 1.1 readers (or humans) would take for another type.
    style = None
    if value in _BOOL or value in _NULL or value.lower() in {"on", "off", "yes", "no", "y", "n"} or (
        _FLOAT.match(value) or _INT.match(value) or _INF.match(value) or _NAN.match(value)
    ):
        style = "'"
    return dumper.represent_scalar(_STR_TAG, value, style=style)


_Dumper.add_representer(str, _str_presenter)


def _flow_list(dumper: yaml.SafeDumper, value: list) -> yaml.Node:
    flow = all(not isinstance(v, (dict, list)) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(list, _flow_list)


def dump(data: Any) -> str:
    """YAML text that ``load_text`` reads back to the same data."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
