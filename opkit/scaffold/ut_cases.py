"""Test cases mined from an operator library's own host unit tests.

ops-transformer's tiling unit tests (``tests/ut/op_host/test_<op>_tiling.cpp``) describe each case
as a ``gert::TilingContextPara`` — the op type, every input and output as
``{{storage shape, origin shape}, ge::DT_*, ge::FORMAT_*}``, the attrs as
``{"name", AnyValue::CreateFrom<type>(value)}`` — followed by the tiling key the test expects and
whether the tiling must succeed. ``opkit adopt`` turns the successful ones into op.yaml cases, so
every tiling-key path the library tests gets a case of its own.

This is a reader of C++ initialiser lists, not a C++ parser: a case it cannot read is skipped with
the reason (``UtScan.skipped``), never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opkit.dtypes import DTYPES

_GE_TO_NAME = {d.ge: d.name for d in DTYPES.values()}
_GE_TO_NAME.update({"DT_BFLOAT16": "bfloat16", "DT_FLOAT32": "float32"})

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)[uUlLfF]*)'
    r"|(?P<name>[A-Za-z_][\w]*(?:\s*::\s*[A-Za-z_]\w*)*)|(?P<op>[{}()<>,&*\-+]))"
)
_TEST_HEAD = re.compile(r"\b(?:TEST_F|TEST)\s*\(\s*\w+\s*,\s*(\w+)\s*\)")
_PARA = re.compile(r"\bTilingContextPara\s+(\w+)\s*\(")
_KEY = re.compile(r"\bexpectTilingKey\s*=\s*(\d+)")
_EXEC = re.compile(r"\bExecuteTestCase(WithoutTilingKey)?\s*\(\s*(\w+)\s*,\s*ge::GRAPH_(SUCCESS|FAILED)"
                   r"\s*(?:,\s*(\d+))?")


@dataclass
class UtTensor:
    shape: list[int] | None  # None: not given (an absent optional input)
    dtype: str | None  # the spec's dtype name; None when the test's dtype is not one opkit knows
    format: str


@dataclass
class UtCase:
    name: str
    file: Path
    line: int
    op_type: str
    inputs: list[UtTensor]
    outputs: list[UtTensor]
    attrs: dict[str, Any]
    tiling_key: int | None
    success: bool


@dataclass
class UtScan:
    cases: list[UtCase] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: test: why"


class _Unreadable(ValueError):
    pass


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _strip_comments(text: str) -> str:
    """Comments blanked out (newlines kept, so offsets still give line numbers); strings untouched."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Reader:
    """Recursive descent over one argument list: braces give lists, calls give (name, targs, args)."""

    def __init__(self, text: str, pos: int) -> None:
        self.text, self.pos = text, pos

    def peek(self) -> tuple[str, str]:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            raise _Unreadable(f"unexpected text {self.text[self.pos:self.pos + 20]!r}")
        kind = m.lastgroup or "op"
        return kind, m.group(kind)

    def take(self) -> tuple[str, str]:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            raise _Unreadable(f"unexpected text {self.text[self.pos:self.pos + 20]!r}")
        self.pos = m.end()
        kind = m.lastgroup or "op"
        return kind, m.group(kind)

    def expect(self, op: str) -> None:
        kind, tok = self.take()
        if tok != op:
            raise _Unreadable(f"expected {op!r}, found {tok!r}")

    def items(self, close: str) -> list[Any]:
        out: list[Any] = []
        if self.peek()[1] == close:
            self.take()
            return out
        while True:
            out.append(self.value())
            kind, tok = self.take()
            if tok == close:
                return out
            if tok != ",":
                raise _Unreadable(f"expected ',' or {close!r}, found {tok!r}")
            if self.peek()[1] == close:  # a trailing comma
                self.take()
                return out

    def value(self) -> Any:
        """One value; integer arithmetic of literals (``8 * 128``, ``16 * 1024 + 2``) is folded, ``*`` first."""
        v = self._product()
        while _is_int(v) and (op := self._operator("+-")) is not None:
            w = self._product()
            if not _is_int(w):
                raise _Unreadable(f"'{op}' between a number and something else")
            v = v + w if op == "+" else v - w
        return v

    def _product(self) -> Any:
        v = self.primary()
        while _is_int(v) and self._operator("*") is not None:
            w = self.primary()
            if not _is_int(w):
                raise _Unreadable("'*' between a number and something else")
            v *= w
        return v

    def _operator(self, ops: str) -> str | None:
        """The binary operator (one of ``ops``) at the reading position, taken; else None."""
        m = re.compile(r"\s*([" + re.escape(ops) + r"])").match(self.text, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group(1)

    def primary(self) -> Any:
        kind, tok = self.take()
        if tok == "{":
            return self.items("}")
        if tok in {"&", "*"}:
            return self.value()
        if tok == "-":
            v = self.value()
            if isinstance(v, (int, float)):
                return -v
            raise _Unreadable("'-' before a non-number")
        if kind == "str":
            return bytes(tok[1:-1], "utf-8").decode("unicode_escape")
        if kind == "num":
            t = tok.rstrip("uUlLfF") if not tok.lower().startswith("0x") else tok.rstrip("uUlL")
            return int(t, 0) if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)", t) else float(t)
        if kind == "name":
            name = re.sub(r"\s+", "", tok)
            targs: list[str] = []
            if self.peek()[1] == "<":
                start = self.pos
                depth = 0
                while True:
                    _, t = self.take()
                    depth += {"<": 1, ">": -1}.get(t, 0)
                    if depth == 0:
                        break
                targs = [re.sub(r"\s+", "", self.text[start:self.pos].strip()[1:-1])]
            if self.peek()[1] == "(":
                self.take()
                return ("call", name, targs, self.items(")"))
            if name in {"true", "false"}:
                return name == "true"
            return ("name", name)
        raise _Unreadable(f"unexpected {tok!r}")


def _tensor(v: Any) -> UtTensor:
    if not (isinstance(v, list) and len(v) >= 2 and isinstance(v[0], list)):
        raise _Unreadable("a tensor is not {{shapes}, dtype, format}")
    shapes = v[0]
    storage = shapes[0] if shapes and isinstance(shapes[0], list) else shapes
    if not all(isinstance(d, int) for d in storage):
        raise _Unreadable("a shape holds something other than integers")
    dtype = v[1][1].split("::")[-1] if isinstance(v[1], tuple) and v[1][0] == "name" else None
    fmt = v[2][1].split("::")[-1] if len(v) > 2 and isinstance(v[2], tuple) else "FORMAT_ND"
    return UtTensor(list(storage) if storage else None, _GE_TO_NAME.get(dtype or ""),
                    fmt.removeprefix("FORMAT_"))


def _attr_value(v: Any) -> Any:
    if isinstance(v, tuple) and v[0] == "call" and v[1].endswith("CreateFrom") and len(v[3]) == 1:
        targ = v[2][0] if v[2] else ""
        raw = v[3][0]
        if isinstance(raw, tuple):
            raise _Unreadable(f"attr value {raw[1] if len(raw) > 1 else raw} is not a literal")
        if "bool" in targ:
            return bool(raw)
        if "float" in targ or "double" in targ:
            return float(raw)
        if targ.startswith("std::vector") and isinstance(raw, list):
            return raw
        return raw
    if isinstance(v, (int, float, str, bool)):
        return v
    raise _Unreadable("an attr value is not AnyValue::CreateFrom<T>(literal)")


def _attrs(v: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in v:
        if isinstance(item, tuple) and item[0] == "call" and len(item[3]) == 2:  # OpAttr("name", value)
            item = item[3]
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise _Unreadable("an attr is not {\"name\", value}")
        out[item[0]] = _attr_value(item[1])
    return out


_LOCAL = re.compile(r"(?:\bconst(?:expr)?\s+)?\b(?:std::)?(?:vector\s*<[\w:\s<>]*>|u?int(?:8|16|32|64)_t|int|"
                    r"float|double|bool|(?:std::)?string|auto)\s+(\w+)\s*(?==\s*[^=]|\{)")


def _locals(text: str, start: int, end: int) -> dict[str, Any]:
    """Variables a test declares with a literal value before its TilingContextPara
    (``std::vector<int64_t> splits = {1024, 128};``, ``int64_t b = 4;``), by name."""
    out: dict[str, Any] = {}
    for m in _LOCAL.finditer(text, start, end):
        pos = m.end() + 1 if text[m.end()] == "=" else m.end()
        r = _Reader(text, pos)
        try:
            value = r.value()
            if not re.match(r"\s*;", text[r.pos:]):
                continue
        except _Unreadable:
            continue
        out[m.group(1)] = _bind(value, out)
    return out


def _bind(v: Any, local: dict[str, Any]) -> Any:
    """``v`` with every bare name a local variable holds replaced by its value."""
    if isinstance(v, tuple) and v[0] == "name" and v[1] in local:
        return local[v[1]]
    if isinstance(v, tuple) and v[0] == "call":
        return (v[0], v[1], v[2], [_bind(a, local) for a in v[3]])
    if isinstance(v, list):
        return [_bind(a, local) for a in v]
    return v


def scan_file(path: Path, op_type: str | None = None) -> UtScan:
    """Every TilingContextPara case of one test file (of ``op_type`` when given)."""
    scan = UtScan()
    text = _strip_comments(path.read_text(encoding="utf-8", errors="replace"))
    heads = list(_TEST_HEAD.finditer(text))
    for i, head in enumerate(heads):
        body_end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end():body_end]
        line = text.count("\n", 0, head.start()) + 1
        where = f"{path.name}:{line}: {head.group(1)}"
        para = _PARA.search(body)
        if not para:
            continue
        try:
            local = _locals(text, head.end(), head.end() + para.start())
            args = _bind(_Reader(text, head.end() + para.end()).items(")"), local)
            if len(args) < 3 or not isinstance(args[0], str):
                raise _Unreadable("expected (\"OpType\", {inputs}, {outputs}, ...)")
            if op_type is not None and args[0] != op_type:
                continue
            inputs = [_tensor(t) for t in args[1]]
            outputs = [_tensor(t) for t in args[2]]
            attrs = _attrs(args[3]) if len(args) > 3 and isinstance(args[3], list) else {}
        except _Unreadable as exc:
            scan.skipped.append(f"{where}: {exc}")
            continue
        ex = _EXEC.search(body)
        if not ex:
            scan.skipped.append(f"{where}: no ExecuteTestCase(..., ge::GRAPH_SUCCESS|FAILED, ...) after the context")
            continue
        key = _KEY.search(body)
        if ex.group(1):  # ExecuteTestCaseWithoutTilingKey: the test checks no key
            tiling_key = None
        else:
            tiling_key = int(ex.group(4)) if ex.group(4) else (int(key.group(1)) if key else None)
        scan.cases.append(UtCase(head.group(1), path, line, args[0], inputs, outputs, attrs, tiling_key,
                                 ex.group(3) == "SUCCESS"))
    return scan


def find_ut_cases(folder: Path, op_type: str) -> UtScan:
    """The tiling unit-test cases of an operator folder (``tests/ut/op_host/**/*tiling*.cpp``)."""
    scan = UtScan()
    ut = folder / "tests" / "ut" / "op_host"
    for path in sorted(ut.rglob("*.cpp")) if ut.is_dir() else []:
        if "tiling" not in path.name:
            continue
        one = scan_file(path, op_type)
        scan.cases += one.cases
        scan.skipped += one.skipped
    return scan
