"""Interface drift, caught before compiling: the kernel entry and the host sources against op.yaml.

An input removed from op.yaml but not from the kernel would otherwise end in "too few arguments to
function" inside a generated file, and a tiling reading an input index that no longer exists in
``GRAPH_FAILED`` at run time. Two cheap static checks name the mismatch instead:

* the kernel entry (``__global__ __aicore__ void NAME(...)`` in ``op_kernel/NAME.cpp``) takes one GM
  parameter per input and per output of op.yaml, in order, then ``workspace`` and ``tiling``;
* every ``GetInputShape(i)`` / ``GetInputDesc(i)`` / ``GetInputTensor(i)`` / ``GetOptionalInputShape(i)``
  / ``GetDynamicInputShape(i, k)`` and ``GetOutputShape(i)`` / ``GetOutputDesc(i)`` in ``op_host/*.cpp``
  with a literal index (or a constant defined in the same file) reads an index op.yaml declares.
"""

from __future__ import annotations

import re
from pathlib import Path

from opkit.build.kernel_entry import kernel_source
from opkit.build.toolchain import BuildError
from opkit.spec import Spec

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_HOST_CALL = re.compile(r"\bGet(Optional|Dynamic)?(Input|Output)(Shape|Desc|Tensor|StorageShape)"
                        r"\s*\(\s*([A-Za-z_]\w*|\d+)")
_CONSTANT = r"(?:#define\s+{0}\s+\(?\s*(\d+)|\b{0}\s*(?:=|\{{)\s*(\d+))"


def _strip(text: str) -> str:
    """Comments replaced by blanks of the same line count (so offsets still give lines)."""
    return _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def entry_params(spec: Spec) -> tuple[list[str], int] | None:
    """(parameter names, line) of the kernel entry, or None when it cannot be found."""
    return entry_params_in(kernel_source(spec), spec.name)


def entry_params_in(src: Path, name: str) -> tuple[list[str], int] | None:
    """(parameter names, line) of the kernel entry ``name`` in the file ``src``, or None."""
    try:
        text = _strip(src.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    m = re.search(r"__global__\s+__aicore__\s+void\s+" + re.escape(name) + r"\s*\(([^)]*)\)", text)
    if m is None:
        return None
    raw = [p.strip() for p in m.group(1).split(",") if p.strip()]
    names = [re.split(r"[\s*&]+", p)[-1] if re.search(r"\w", p) else p for p in raw]
    return names, _line(text, m.start())


def _declared(spec: Spec) -> str:
    ins = ", ".join(p.name for p in spec.inputs) or "none"
    outs = ", ".join(o.name for o in spec.outputs) or "none"
    return f"{_plural(len(spec.inputs), 'input')} ({ins}) and {_plural(len(spec.outputs), 'output')} ({outs})"


def check_entry(spec: Spec) -> list[str]:
    found = entry_params(spec)
    if found is None:
        return []
    names, line = found
    expected = [p.name for p in spec.inputs] + [o.name for o in spec.device_outputs] + ["workspace", "tiling"]
    if len(names) == len(expected):
        return []
    return [f"{kernel_source(spec)}:{line}: op.yaml declares {_declared(spec)}, so the kernel entry {spec.name} takes "
            f"{len(expected)} GM parameters ({', '.join(expected)}); it takes {len(names)}: ({', '.join(names)}). "
            "Make op.yaml and the kernel entry agree"]


def check_host(spec: Spec, sources: list[Path] | None = None) -> list[str]:
    """Problems of the host sources the build compiles (``sources``; default: op_host/ as the build finds it)."""
    if sources is None:
        from opkit.build.options import host_sources

        sources = host_sources(spec)[0]
    problems = []
    counts = {"Input": len(spec.inputs), "Output": len(spec.device_outputs)}
    for src in sources:
        try:
            text = _strip(src.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        for m in _HOST_CALL.finditer(text):
            kind, token = m.group(2), m.group(4)
            if token.isdigit():
                index = int(token)
            else:
                c = re.search(_CONSTANT.format(re.escape(token)), text)
                if c is None:
                    continue
                index = int(c.group(1) or c.group(2))
            if index >= counts[kind]:
                call = f"{m.group(0)})" if token.isdigit() else f"{m.group(0)}) ({token} = {index})"
                names = spec.inputs if kind == "Input" else spec.device_outputs
                listed = ", ".join(f"{i}: {p.name}" for i, p in enumerate(names)) or "none"
                problems.append(f"{src}:{_line(text, m.start())}: {call} reads {kind.lower()} index {index}, but "
                                f"op.yaml declares {_plural(counts[kind], kind.lower())} ({listed}); update the "
                                "host code or op.yaml")
    return problems


def check(spec: Spec, host_sources: list[Path] | None = None) -> list[str]:
    """Raise a BuildError naming every mismatch between op.yaml and the kernel entry's parameters (a kernel
    that cannot be called right); return the host code's reads of input/output indices op.yaml does not
    declare, as warnings: such a read may sit on a path the op never takes (a branch for an input another
    op of the family has), so only a run that reaches it shows whether it matters."""
    problems = check_entry(spec)
    if problems:
        raise BuildError(f"{spec.name}: the sources do not match op.yaml's interface:\n" + "\n".join(problems))
    return check_host(spec, host_sources)


__all__ = ["check", "check_entry", "check_host", "entry_params", "entry_params_in"]
