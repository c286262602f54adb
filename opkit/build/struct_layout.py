"""Byte layouts of plain tiling structs, for decoding tiling data field by field.

A ``BEGIN_TILING_DATA_DEF`` class reports its layout through ``harness describe``. A plain C++ struct
that host and kernel share (``context->GetTilingData<T>()`` on the host, ``GET_TILING_DATA_WITH_STRUCT``
in the kernel, the style of opkit's own packages and of flash_attention_score) has no such record:
its layout is read from debug information instead. A probe translation unit that includes the headers
defining the struct is compiled with ``-g`` and the package's host flags, and gdb's ``ptype /o``
prints every member's offset and size, nested structs included. The result has the shape of
``describe``'s ``tiling_data_classes`` (class, size, fields with kind, type, offset, size, count), so
one decoder reads both.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from opkit.build.cache import digest, sim_digest, tree_files
from opkit.build.program import include_dirs_of, source_folder_headers
from opkit.sim import include_dir

_HOST_USE = re.compile(r"GetTilingData\s*<\s*([A-Za-z_][\w:]*)\s*>")
_KERNEL_USE = re.compile(r"(?:GET_TILING_DATA_WITH_STRUCT|REGISTER_TILING_DEFAULT)\s*\(\s*([A-Za-z_][\w:]*)")
_ROW = re.compile(r"^/\*\s*(\d+)(:\s*\d+)?\s*\|\s*(\d+)\s*\*/\s*(.*)$")
_MEMBER = re.compile(r"^(?P<type>.+?)\s*\b(?P<name>\w+)\s*(?P<dims>(?:\[\d+\])*)\s*;$")
_CLOSE = re.compile(r"^}\s*(\w+)\s*(?P<dims>(?:\[\d+\])*)\s*;$")
_TOTAL = re.compile(r"total size \(bytes\):\s*(\d+)")
_HEADER_EXT = {".h", ".hpp", ".hh", ".hxx"}


def struct_names(host_sources: list[Path], kernel_dir: Path) -> list[str]:
    """The plain structs a package's tiling writes: ``GetTilingData<T>`` in its host sources, else
    the struct its kernel reads (``GET_TILING_DATA_WITH_STRUCT``, ``REGISTER_TILING_DEFAULT``)."""
    def scan(files: list[Path], pattern: re.Pattern[str]) -> list[str]:
        found: list[str] = []
        for f in files:
            try:
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for m in pattern.finditer(text):
                if m.group(1) not in found:
                    found.append(m.group(1))
        return found

    names = scan(host_sources, _HOST_USE)
    if not names and kernel_dir.is_dir():
        names = scan(sorted(p for p in kernel_dir.rglob("*") if p.suffix in _HEADER_EXT | {".cpp"}), _KERNEL_USE)
    return names


def defining_headers(names: list[str], folders: list[Path]) -> list[Path]:
    """The headers under ``folders`` that define one of the structs (``struct T {`` or ``class T {``)."""
    bare = [n.rpartition("::")[2] for n in names]
    pattern = re.compile(r"\b(?:struct|class)\s+(?:" + "|".join(map(re.escape, bare)) + r")\b[^;{()]*\{")
    out: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for p in sorted(folder.rglob("*")):
            if p.suffix in _HEADER_EXT and p not in out:
                try:
                    if pattern.search(p.read_text(encoding="utf-8", errors="replace")):
                        out.append(p)
                except OSError:
                    continue
    return out


def parse_ptype(text: str, name: str) -> dict[str, dict[str, Any]]:
    """The layouts in gdb's ``ptype /o`` output of struct ``name``: the struct and every struct it nests,
    each with offsets relative to itself (gdb prints them from the start of the outermost one)."""
    classes: dict[str, dict[str, Any]] = {}
    # each open struct: [type name, absolute offset, size, fields]
    stack: list[list[Any]] = []
    for raw in text.splitlines():
        line = raw.strip()
        total = _TOTAL.search(line)
        if total and stack and stack[-1][2] is None:
            stack[-1][2] = int(total.group(1))
            continue
        m = _ROW.match(line)
        if m is None:
            if line.startswith("/*") and "type =" in line and line.endswith("{"):  # the outermost struct
                stack.append([name, 0, None, []])
                continue
            close = _CLOSE.match(line)
            if close and len(stack) > 1:
                cls, off, size, fields = stack.pop()
                classes.setdefault(cls, {"class": cls, "size": size, "fields": fields})
                parent = stack[-1]
                count = _count(close.group("dims"))
                kind = "struct" if count == 1 else "struct_array"
                parent[3].append({"name": close.group(1), "kind": kind, "type": cls, "offset": off - parent[1],
                                  "size": size * count if size else 0, "count": count})
            continue
        off, bits, size, rest = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4).strip()
        if rest.endswith("{"):
            kind, _, tname = rest[:-1].strip().partition(" ")
            tname = tname.strip() or kind
            stack.append([tname.rpartition("::")[2], off, size, []])
            continue
        if not stack or bits or "(" in rest:
            continue  # bit-fields and function pointers: not decoded
        mm = _MEMBER.match(rest)
        if mm is None:
            continue
        count = _count(mm.group("dims"))
        tname = " ".join(mm.group("type").replace("const ", "").split())
        agg = re.match(r"^(?:struct|class|union)\s+([\w:]+)$", tname)  # a struct member gdb does not expand
        if agg:
            kind, tname = ("struct_array" if mm.group("dims") else "struct"), agg.group(1).rpartition("::")[2]
        else:
            kind = "array" if mm.group("dims") else "scalar"
        stack[-1][3].append({"name": mm.group("name"), "kind": kind, "type": tname, "offset": off - stack[-1][1],
                             "size": size, "count": count})
    if stack:
        cls, _, size, fields = stack[0]
        classes[cls] = {"class": cls, "size": size if size is not None else 0, "fields": fields}
    return classes


def _probe_inputs(headers: list[Path], flags: list[str]) -> list[Path]:
    """What the probe's layout depends on: the defining headers, the headers beside them, and every source under
    the flags' include folders (a struct's members may come from a header it includes, a family's common folder
    among them); the simulator's own include tree counts through its digest instead."""
    sim_root = include_dir().resolve()
    files = list(headers)
    for h in headers:
        files += source_folder_headers(h)
    for d in include_dirs_of(flags):
        if not d.resolve().is_relative_to(sim_root):
            files += tree_files(d)
    return files


def _count(dims: str) -> int:
    n = 1
    for d in re.findall(r"\[(\d+)\]", dims or ""):
        n *= int(d)
    return n


def plain_layouts(names: list[str], headers: list[Path], flags: list[str], compiler: str, work: Path,
                  timeout_s: float = 120.0) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Layouts of the structs ``names`` (and what they nest) defined in ``headers``, read from a probe
    compiled with ``flags`` into ``work``; notes say what could not be read."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return {}, ["gdb is not installed: the layout of a plain tiling struct is read from debug information "
                    "with gdb (install gdb to see its fields)"]
    if not headers:
        return {}, [f"no header under op_host/ or op_kernel/ defines {', '.join(names)}"]
    source = "".join(f'#include "{h}"\n' for h in headers)
    key = digest(_probe_inputs(headers, flags), headers[0].parent, [compiler, *flags, source, sim_digest()])
    obj = work / f"layout-{key}.o"
    if not obj.is_file():
        work.mkdir(parents=True, exist_ok=True)
        src = work / f"layout-{key}.cpp"
        src.write_text(source, encoding="utf-8")
        r = subprocess.run([compiler, *flags, "-g", "-fno-eliminate-unused-debug-types", "-c", str(src), "-o",
                            str(obj)], capture_output=True, text=True, timeout=timeout_s)
        if r.returncode != 0:
            tail = " | ".join(r.stderr.strip().splitlines()[-3:])
            return {}, [f"the headers defining {', '.join(names)} do not compile alone ({tail})"]
    layouts: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for name in names:
        text = ""
        for candidate in (name, name.rpartition("::")[2]):
            r = subprocess.run([gdb, "-batch", "-nx", "-ex", f"ptype /o {candidate}", str(obj)], capture_output=True,
                               text=True, timeout=timeout_s)
            if "type =" in r.stdout:
                text = r.stdout
                break
        if not text:
            notes.append(f"gdb found no layout of {name} in the probe")
            continue
        for cls, lay in parse_ptype(text, name.rpartition("::")[2]).items():
            layouts.setdefault(cls, lay)
    return layouts, notes
