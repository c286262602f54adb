"""Which (pipe, API) records the simulator can put in a trace, read from its headers.

The simulator writes one trace ``op`` record per instruction through
``opkit::sim::trace(pipe, bytes, repeats, api, dtype)`` (``impl/opkit/sim_trace.h``). The API
name reaches that call as a string literal, through a local variable, or through the parameters
of helpers (``copy_in(..., "DataCopy", loc)``, ``run_masked(#NAME, ...)`` in a macro), and the
pipe likewise (``P_MTE2``, ``int pipe = cond ? P_V : P_MTE1``). :func:`traced_apis` follows them:

1. the headers are preprocessed with the build's compiler (``-E``, once per architecture the
   headers branch on), so macros are expanded and ``#NAME`` is a literal;
2. every function body of the simulator's headers is found, with its parameters and defaults;
3. from ``trace`` outwards, a function that passes one of its parameters on into the API or pipe
   argument of a tracing function becomes a tracing function itself, until nothing changes;
4. every call of a tracing function whose API and pipe arguments resolve to literals (directly,
   through locals assigned in the function, or through defaults) is a traced (pipe, API).

A call whose API or pipe cannot be resolved so (a member, a computed string) is reported in
``unresolved``: the performance model's table test (tests/test_perf_api_table.py) fails on it,
so a new API can never reach the trace without the table knowing it.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from opkit.errors import OpkitError

# __NPU_ARCH__ values the headers are read under (the chips' architectures in opkit/data/socs.yaml)
ARCHS = (2201, 2002)
TRACE = "trace"  # opkit::sim::trace(int pipe, uint64_t bytes, uint64_t repeats, const char* api = "", dtype)
_TRACE_PIPE, _TRACE_API = 0, 3

_TOKEN = re.compile(r"""
    (?P<raw>R"(?P<delim>[^(\s]*)\((?s:.*?)\)(?P=delim)")
  | (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\.|[^'\\\n])*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|'(?=\w)|[eEpP][+-])*)
  | (?P<op>::|->|&&|\|\||==|!=|<=|>=|<<=|>>=|<<|>>|\+\+|--|[-+*/%&|^!~=<>?:;,.(){}\[\]#@$\\])
  | (?P<ws>\s+)
""", re.X)
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype", "static_assert",
             "noexcept", "throw", "new", "delete", "alignas", "typeid", "co_return", "operator"}
_QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&"}
_SCOPES = {"namespace", "class", "struct", "union", "enum", "extern"}
_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Tok:
    kind: str  # str, chr, id, num, op
    text: str
    pos: int


@dataclass(frozen=True)
class Site:
    file: str  # relative to the include folder
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class TracedApis:
    """What the headers can trace: (pipe, API) -> the call sites that trace it; and what could not be
    resolved (site, which argument, the argument's text)."""

    apis: dict[tuple[str, str], list[Site]] = field(default_factory=dict)
    unresolved: list[tuple[Site, str, str]] = field(default_factory=list)
    # instructions issued on a pipe (``issue(P_...)``) that no trace record follows: (site, function)
    untraced: list[tuple[Site, str]] = field(default_factory=list)


@dataclass
class _Func:
    name: str
    params: list[tuple[str, list[Tok]]]  # (name, default tokens)
    body: list[Tok]
    assigns: dict[str, list[list[Tok]]]  # local name -> the expressions assigned to it
    pos: int = 0  # where its body opens


# A tracing function's argument: literals it always has, and (param index, default literals) it takes from
# its caller.
_Arg = tuple[frozenset[str], frozenset[tuple[int, frozenset[str]]]]


def _tokens(text: str) -> list[Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws" or kind == "delim":
            continue
        if kind == "raw":
            kind = "str"
        out.append(Tok(kind or "op", m.group(0), m.start()))
    return out


def _match(toks: list[Tok], i: int) -> int:
    """Index of the bracket closing the one at ``i`` (len(toks) when unbalanced)."""
    want, depth = _OPEN[toks[i].text], 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if t == toks[i].text:
            depth += 1
        elif t == want:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _match_back(toks: list[Tok], j: int) -> int:
    """Index of the bracket opening the ``)``/``]``/``}`` at ``j`` (-1 when unbalanced)."""
    close = toks[j].text
    opener = {v: k for k, v in _OPEN.items()}[close]
    depth = 0
    for i in range(j, -1, -1):
        t = toks[i].text
        if t == close:
            depth += 1
        elif t == opener:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split(toks: list[Tok], angles: bool = False) -> list[list[Tok]]:
    """Top-level comma-separated pieces (template angle brackets count as brackets when ``angles``)."""
    parts: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        s = t.text
        if s in ("(", "[", "{") or (angles and s == "<"):
            depth += 1
        elif s in (")", "]", "}") or (angles and s == ">"):
            depth -= 1
        elif angles and s == ">>":
            depth -= 2
        if s == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return parts if parts != [[]] else []


def _param(toks: list[Tok]) -> tuple[str, list[Tok]]:
    depth, eq = 0, len(toks)
    for k, t in enumerate(toks):
        if t.text in ("(", "[", "{", "<"):
            depth += 1
        elif t.text in (")", "]", "}", ">"):
            depth -= 1
        elif t.text == "=" and depth == 0:
            eq = k
            break
    decl = toks[:eq]
    if any(t.text == "[" for t in decl):
        decl = decl[: next(k for k, t in enumerate(decl) if t.text == "[")]
    ids = [t.text for t in decl if t.kind == "id"]
    return (ids[-1] if ids else ""), toks[eq + 1:]


def _signature(toks: list[Tok], brace: int) -> tuple[str, list[tuple[str, list[Tok]]]] | None:
    """(name, parameters) of the function whose body opens at ``brace``; None when it is no function."""
    j = brace - 1
    while j >= 0:  # trailing return type, qualifiers, noexcept(...)
        t = toks[j].text
        if t in _QUALIFIERS:
            j -= 1
        elif t == ")" and j > 0:
            o = _match_back(toks, j)
            if o > 0 and toks[o - 1].text in ("noexcept", "throw"):
                j = o - 2
                continue
            break
        elif toks[j].kind == "id" or t in ("::", "<", ">", "*"):
            k = j  # `-> type`
            while k >= 0 and (toks[k].kind == "id" or toks[k].text in ("::", "<", ">", "*", ",")):
                k -= 1
            if k >= 0 and toks[k].text == "->":
                j = k - 1
                continue
            return None
        else:
            return None
    if j < 0 or toks[j].text != ")":
        return None
    while True:
        o = _match_back(toks, j)
        if o <= 0:
            return None
        name_at = o - 1
        name = toks[name_at].text
        before = toks[name_at - 1].text if name_at > 0 else ""
        if toks[name_at].kind == "id" and before in (",", ":") and before != "::":
            # a member initialiser of a constructor: walk back to the constructor's own parameter list
            k = name_at - 1
            while k >= 0 and toks[k].text == ",":
                p = k - 1
                if p >= 0 and toks[p].text in (")", "}"):
                    ob = _match_back(toks, p)
                    k = ob - 2
                else:
                    return None
            if k < 0 or toks[k].text != ":":
                return None
            j = k - 1
            while j >= 0 and toks[j].text in _QUALIFIERS:
                j -= 1
            if j < 0 or toks[j].text != ")":
                return None
            continue
        if toks[name_at].kind != "id":
            name = ""  # a lambda at namespace scope
        elif name in _KEYWORDS:
            return None
        params = [_param(p) for p in _split(toks[o + 1:j], angles=True)]
        return name, params


def _assignments(body: list[Tok]) -> dict[str, list[list[Tok]]]:
    out: dict[str, list[list[Tok]]] = defaultdict(list)
    for k, t in enumerate(body):
        if t.text != "=" or k == 0 or body[k - 1].kind != "id":
            continue
        if k > 1 and body[k - 2].text in (".", "->"):
            continue
        expr, depth = [], 0
        for u in body[k + 1:]:
            if u.text in ("(", "[", "{"):
                depth += 1
            elif u.text in (")", "]", "}"):
                depth -= 1
                if depth < 0:
                    break
            elif u.text in (";", ",") and depth == 0:
                break
            expr.append(u)
        out[body[k - 1].text].append(expr)
    return out


def _functions(toks: list[Tok]) -> list[_Func]:
    funcs: list[_Func] = []
    k = 0
    stack: list[bool] = []  # per open brace: is it (inside) a function body
    while k < len(toks):
        t = toks[k]
        if t.text == "{":
            if stack and stack[-1]:
                stack.append(True)
            else:
                sig = _signature(toks, k)
                if sig is not None:
                    end = _match(toks, k)
                    body = toks[k + 1:end]
                    funcs.append(_Func(sig[0], sig[1], body, _assignments(body), t.pos))
                    k = end + 1
                    continue
                stack.append(False)
        elif t.text == "}" and stack:
            stack.pop()
        k += 1
    return funcs


def _calls(body: list[Tok]):
    """(callee name, argument token lists, token of the name) of every call in a function body."""
    for k, t in enumerate(body):
        if t.kind != "id" or t.text in _KEYWORDS or k + 1 >= len(body):
            continue
        j = k + 1
        if body[j].text == "<":  # explicit template arguments
            depth = 0
            while j < len(body):
                s = body[j].text
                if s == "<":
                    depth += 1
                elif s == ">":
                    depth -= 1
                elif s == ">>":
                    depth -= 2
                elif s in (";", "{", "}", "&&", "||"):
                    break
                if depth <= 0:
                    break
                j += 1
            if j >= len(body) or depth != 0:
                continue
            j += 1
        if j < len(body) and body[j].text == "(":
            end = _match(body, j)
            args = _split(body[j + 1:end])
            yield t.text, args, t
            prev = body[k - 1] if k > 0 else None
            if prev is not None and prev.kind == "id" and prev.text not in _KEYWORDS and j == k + 1:
                yield prev.text, args, t  # `Type name(args)`: a constructor call


def _literal(t: Tok) -> str:
    s = t.text
    return s[s.index('"') + 1:-1]


def _ternary(expr: list[Tok]) -> list[list[Tok]] | None:
    """The two branches of a top-level ``cond ? a : b`` (the condition carries no value), else None."""
    depth, q = 0, -1
    for k, t in enumerate(expr):
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.text == "?" and q < 0:
            q = k
    if q < 0:
        return None
    depth, nested = 0, 0
    for k in range(q + 1, len(expr)):
        t = expr[k].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t == "?":
            nested += 1
        elif depth == 0 and t == ":":
            if nested == 0:
                return [expr[q + 1:k], expr[k + 1:]]
            nested -= 1
    return None


def _resolve(expr: list[Tok], f: _Func, kind: str, lits: dict[str, frozenset[str]],
             seen: frozenset[str] = frozenset()) -> _Arg:
    """Literals and parameters the value of an expression in ``f`` can carry (``kind`` api: string literals;
    pipe: the P_* constants). A ternary's condition, and the arguments of a call, carry nothing; a call of a
    function that only returns string literals (``lits``) carries those."""
    consts: set[str] = set()
    params: set[tuple[int, frozenset[str]]] = set()
    branches = _ternary(expr)
    if branches is not None:
        for b in branches:
            c, p = _resolve(b, f, kind, lits, seen)
            consts |= c
            params |= p
        return frozenset(consts), frozenset(params)
    names = [p[0] for p in f.params]
    k = 0
    while k < len(expr):
        t = expr[k]
        if t.kind == "id" and k + 1 < len(expr) and expr[k + 1].text in ("(", "<"):
            if kind == "api" and t.text in lits:
                consts |= lits[t.text]
            close = _call_end(expr, k + 1)
            if close is not None:  # a call: its arguments are not the value
                k = close + 1
                continue
        if kind == "api" and t.kind == "str":
            s = _literal(t)
            while k + 1 < len(expr) and expr[k + 1].kind == "str":  # adjacent literals concatenate
                k += 1
                s += _literal(expr[k])
            consts.add(s)
        elif t.kind == "id" and kind == "pipe" and re.fullmatch(r"P_[A-Z0-9]+", t.text):
            consts.add(t.text[2:])
        elif t.kind == "id" and (k == 0 or expr[k - 1].text not in (".", "->", "::")):
            if t.text in f.assigns and t.text not in seen:
                for e in f.assigns[t.text]:
                    c, p = _resolve(e, f, kind, lits, seen | {t.text})
                    consts |= c
                    params |= p
            if t.text in names:
                i = names.index(t.text)
                dflt = _resolve(f.params[i][1], f, kind, lits, seen | {t.text})[0] if f.params[i][1] else frozenset()
                params.add((i, frozenset(dflt)))
        k += 1
    return frozenset(consts), frozenset(params)


def _call_end(expr: list[Tok], j: int) -> int | None:
    """Index of the ``)`` ending a call whose name is just before ``j`` (``(`` or template ``<...>(``)."""
    if expr[j].text == "<":
        depth = 0
        while j < len(expr):
            s = expr[j].text
            depth += 1 if s == "<" else -1 if s == ">" else -2 if s == ">>" else 0
            if depth <= 0 or s in (";", "{", "}"):
                break
            j += 1
        if depth != 0 or j + 1 >= len(expr):
            return None
        j += 1
    if expr[j].text != "(":
        return None
    end = _match(expr, j)
    return end if end < len(expr) else None


def _literal_functions(funcs: list[_Func]) -> dict[str, frozenset[str]]:
    """Functions whose every ``return`` returns one string literal (``kind_name(Kind)``): name -> literals."""
    out: dict[str, set[str]] = {}
    bad: set[str] = set()
    for f in funcs:
        rets = [k for k, t in enumerate(f.body) if t.text == "return"]
        if not rets or not f.name:
            continue
        got = set()
        for k in rets:
            if k + 2 < len(f.body) and f.body[k + 1].kind == "str" and f.body[k + 2].text == ";":
                got.add(_literal(f.body[k + 1]))
            else:
                bad.add(f.name)
        out.setdefault(f.name, set()).update(got)
    return {k: frozenset(v) for k, v in out.items() if k not in bad and v}


def _site(offset: int, index: list[tuple[int, str, int]]) -> Site:
    """The header line of a character offset of the joined text (``index``: (offset, file, line) per line)."""
    lo, hi = 0, len(index) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if index[mid][0] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return Site(index[lo][1], index[lo][2])


def _header_text(preprocessed: str, include_dir: Path) -> tuple[str, list[tuple[int, str, int]]]:
    """The preprocessed lines that come from the simulator's headers, joined, and where each came from."""
    root = str(include_dir.resolve())
    marker = re.compile(r'^# (\d+) "([^"]*)"')
    keep, index, out, pos = False, [], [], 0
    cur, line = "", 0
    for raw in preprocessed.splitlines():
        m = marker.match(raw)
        if m:
            line, path = int(m.group(1)), m.group(2)
            full = str(Path(path).resolve()) if path and not path.startswith("<") else ""
            keep = full.startswith(root + "/")
            cur = full[len(root) + 1:] if keep else ""
            continue
        if keep:
            index.append((pos, cur, line))
            out.append(raw)
            pos += len(raw) + 1
        line += 1
    return "\n".join(out), index


def preprocess(include_dir: Path, arch: int, cxx: str | None = None) -> str:
    """Every header of ``include_dir`` in one translation unit, preprocessed for ``__NPU_ARCH__`` ``arch``."""
    from opkit.build.toolchain import find_compiler

    compiler = cxx or find_compiler().path
    headers = sorted(p.relative_to(include_dir) for p in include_dir.rglob("*.h"))
    with tempfile.TemporaryDirectory(prefix="opkit-apis-") as tmp:
        tu = Path(tmp) / "all_headers.cpp"
        tu.write_text("".join(f'#include "{h.as_posix()}"\n' for h in headers), encoding="utf-8")
        r = subprocess.run([compiler, "-E", "-std=c++17", f"-I{include_dir}", f"-D__NPU_ARCH__={arch}", str(tu)],
                           capture_output=True, text=True)
    if r.returncode != 0:
        tail = "\n".join(r.stderr.strip().splitlines()[-6:])
        raise OpkitError(f"{include_dir}: the simulator's headers do not preprocess (arch {arch}):\n{tail}")
    return r.stdout


def scan(text: str, index: list[tuple[int, str, int]]) -> TracedApis:
    """The traced (pipe, API) pairs of preprocessed header text (see the module docstring)."""
    funcs = _functions(_tokens(text))
    lits = _literal_functions(funcs)
    trace_api: _Arg = (frozenset(), frozenset({(_TRACE_API, frozenset({""}))}))
    trace_pipe: _Arg = (frozenset(), frozenset({(_TRACE_PIPE, frozenset())}))
    tracers: dict[str, set[tuple[_Arg, _Arg]]] = {TRACE: {(trace_api, trace_pipe)}}
    calls = [(f, list(_calls(f.body))) for f in funcs]
    found: dict[tuple[str, str], set[Site]] = defaultdict(set)
    unresolved: dict[tuple[Site, str], str] = {}
    for _ in range(64):
        changed = False
        for f, fcalls in calls:
            for name, args, at in fcalls:
                for api, pipe in list(tracers.get(name, ())):
                    got = [_bind(arg, args, f, kind, lits) for arg, kind in ((api, "api"), (pipe, "pipe"))]
                    (ac, ap), (pc, pp) = got
                    if ap or pp:
                        if f.name and (got[0], got[1]) not in tracers.setdefault(f.name, set()):
                            tracers[f.name].add((got[0], got[1]))
                            changed = True
                        continue
                    site = _site(at.pos, index)
                    for what, consts in (("API", ac), ("pipe", pc)):
                        if not consts:
                            unresolved[(site, what)] = " ".join(x.text for x in _arg_tokens(args, api if what ==
                                                                                           "API" else pipe))
                    for p in pc:
                        for a in ac:
                            found[(p, a)].add(site)
        if not changed:
            break
    # a tracing function that takes its API or pipe from a parameter and that no header calls: kernels would
    # name the API, which the table cannot know
    called = {name for _, fcalls in calls for name, _, _ in fcalls}
    for f in funcs:
        if f.name and f.name != TRACE and f.name not in called and tracers.get(f.name):
            unresolved[(_site(f.pos, index), "API")] = f"{f.name}(...) passes a parameter on to trace()"
    return TracedApis({k: sorted(v, key=lambda s: (s.file, s.line)) for k, v in sorted(found.items())},
                      [(s, what, text) for (s, what), text in sorted(unresolved.items(),
                                                                     key=lambda kv: (kv[0][0].file, kv[0][0].line))],
                      _untraced(funcs, calls, index))


def _untraced(funcs: list[_Func], calls: list[tuple[_Func, list]], index: list[tuple[int, str, int]]) -> list:
    """``issue(pipe)`` calls (an instruction on a pipe) with no call reaching ``trace`` after them, neither in
    their function nor after each call of that function: work the performance model would never see."""
    reach = {TRACE}
    changed = True
    while changed:
        changed = False
        for f, fcalls in calls:
            if f.name and f.name not in reach and any(n in reach for n, _, _ in fcalls):
                reach.add(f.name)
                changed = True

    def traced_after(fcalls: list, i: int) -> bool:
        return any(n in reach for n, _, _ in fcalls[i + 1:])

    out = []
    for f, fcalls in calls:
        for i, (name, _, at) in enumerate(fcalls):
            if name != "issue" or traced_after(fcalls, i):
                continue
            callers = [(g, k) for g, gcalls in calls for k, (n, _, _) in enumerate(gcalls) if n == f.name]
            if not f.name or not callers or not all(traced_after(gcalls, k) for g, gcalls in calls
                                                    for k, (n, _, _) in enumerate(gcalls) if n == f.name):
                out.append((_site(at.pos, index), f.name))
    return sorted(set(out), key=lambda u: (u[0].file, u[0].line))


def _arg_tokens(args: list[list[Tok]], arg: _Arg) -> list[Tok]:
    out: list[Tok] = []
    for i, _ in arg[1]:
        if i < len(args):
            out += args[i]
    return out


def _bind(arg: _Arg, args: list[list[Tok]], f: _Func, kind: str, lits: dict[str, frozenset[str]]) -> _Arg:
    """A tracing function's argument at one of its call sites in ``f``: what the caller passes, resolved in ``f``."""
    consts, params = set(arg[0]), set()
    for i, default in arg[1]:
        if i < len(args):
            c, p = _resolve(args[i], f, kind, lits)
        else:
            c, p = default, frozenset()
        consts |= c
        params |= p
    return frozenset(consts), frozenset(params)


@functools.lru_cache(maxsize=4)
def traced_apis(include_dir: Path | None = None) -> TracedApis:
    """Every (pipe, API) the simulator's headers can trace, under each architecture of :data:`ARCHS`."""
    from opkit import sim

    inc = Path(include_dir) if include_dir is not None else sim.include_dir()
    merged = TracedApis()
    seen_unresolved = set()
    for arch in ARCHS:
        text, index = _header_text(preprocess(inc, arch), inc)
        res = scan(text, index)
        for key, sites in res.apis.items():
            merged.apis[key] = sorted(set(merged.apis.get(key, [])) | set(sites), key=lambda s: (s.file, s.line))
        for u in res.unresolved:
            if u not in seen_unresolved:
                seen_unresolved.add(u)
                merged.unresolved.append(u)
        merged.untraced = sorted(set(merged.untraced) | set(res.untraced), key=lambda u: (u[0].file, u[0].line))
    merged.apis = dict(sorted(merged.apis.items()))
    return merged


__all__ = ["ARCHS", "Site", "TracedApis", "preprocess", "scan", "traced_apis"]
