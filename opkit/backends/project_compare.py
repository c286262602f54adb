"""How opkit's CANN project differs from the one ``msopgen gen`` writes for the same operator.

``differences(ours, theirs, op_type)`` compares the two project folders on what decides the build, not on
the text of the files:

* **CMakePresets.json**: every cache variable msOpGen's ``default`` preset sets is set by opkit too, and the
  ones whose value decides what is built (``SAME_VALUE``) have the same type and value (booleans compared as
  CMake reads them, paths resolved); the rest (the install prefix, the Python, the cross compiler) are
  machine paths each tool fills in its own way;
* **files**: the top-level entries (``build.sh``, ``CMakeLists.txt``, ``framework/``, ``op_host/``,
  ``op_kernel/``...) and, in ``op_host/`` and ``op_kernel/``, the ``CMakeLists.txt`` and the kernel entry
  ``op_kernel/<op>.cpp``. msOpGen's stubs for the user's code (``op_host/<op>.cpp`` with the OpDef,
  InferShape and tiling; ``<op>_tiling.h``) stand for the package's own files, so opkit's project must
  have a host source that registers the OpDef (``OP_ADD``) and a tiling header, under whatever names;
* **CMake targets**: the operator-project calls of every CMakeLists.txt (``npu_op_package``,
  ``npu_op_library`` with its type, ``npu_op_kernel_library``, ``npu_op_kernel_sources`` with its OpType,
  ``npu_op_code_gen``, ``npu_op_package_add``, ``add_subdirectory``): each of msOpGen's is in opkit's.

The answer is a list of sentences, one per difference (empty: the projects agree on all of it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from opkit.naming import snake_of

SAME_VALUE = ("CMAKE_BUILD_TYPE", "ENABLE_SOURCE_PACKAGE", "ENABLE_BINARY_PACKAGE", "ASCEND_COMPUTE_UNIT",
              "vendor_name", "ENABLE_CROSS_COMPILE", "ASCEND_PACK_SHARED_LIBRARY", "ASCEND_CANN_PACKAGE_PATH")
# the calls that make targets or wire the project, keyed by what identifies one call
TARGET_CALLS = ("npu_op_package", "npu_op_library", "npu_op_kernel_library", "npu_op_kernel_sources",
                "npu_op_code_gen", "npu_op_package_add", "add_subdirectory")
_CALL = re.compile(r"^\s*(" + "|".join(TARGET_CALLS) + r")\s*\(", re.M)
_TRUE = {"1", "on", "yes", "true", "y"}
_FALSE = {"0", "off", "no", "false", "n", ""}


def _presets(root: Path) -> dict[str, dict]:
    data = json.loads((root / "CMakePresets.json").read_text(encoding="utf-8"))
    presets = data.get("configurePresets", [])
    preset = next((p for p in presets if p.get("name") == "default"), presets[0] if presets else {})
    return {k: (v if isinstance(v, dict) else {"value": v}) for k, v in preset.get("cacheVariables", {}).items()}


def _value(name: str, var: dict) -> object:
    v = str(var.get("value", ""))
    kind = str(var.get("type", "")).upper()
    if kind == "BOOL" and v.lower() in _TRUE | _FALSE:
        return v.lower() in _TRUE
    if kind == "PATH" or name == "ASCEND_CANN_PACKAGE_PATH":
        return str(Path(v).resolve()) if v.startswith("/") else v
    if name == "ASCEND_COMPUTE_UNIT":
        return tuple(sorted(u for u in v.split(";") if u))
    return v


def preset_differences(ours: Path, theirs: Path) -> list[str]:
    mine, ref = _presets(ours), _presets(theirs)
    out = [f"CMakePresets.json: msOpGen sets {k}, opkit does not" for k in ref if k not in mine]
    for k in SAME_VALUE:
        if k in ref and k in mine:
            a, b = _value(k, mine[k]), _value(k, ref[k])
            ta, tb = str(mine[k].get("type", "")).upper(), str(ref[k].get("type", "")).upper()
            if a != b or (ta and tb and ta != tb):
                out.append(f"CMakePresets.json: {k} is {mine[k].get('value')!r} ({ta or 'no type'}) in opkit's "
                           f"project, {ref[k].get('value')!r} ({tb or 'no type'}) in msOpGen's")
    return out


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()
            and not p.relative_to(root).parts[0].startswith("build_out")}


def file_differences(ours: Path, theirs: Path, op_type: str) -> list[str]:
    snake = snake_of(op_type)
    mine, ref = _files(ours), _files(theirs)
    out = []
    top_mine = {p.split("/")[0] for p in mine} | {p.name for p in ours.iterdir()}
    for entry in sorted({p.name for p in theirs.iterdir()}):
        if entry not in top_mine:
            out.append(f"msOpGen's project has {entry}{'/' if (theirs / entry).is_dir() else ''} at its top, "
                       "opkit's has not")
    stubs = {f"op_host/{snake}.cpp", f"op_host/{snake}_tiling.h", f"op_kernel/{snake}_tiling.h"}
    for rel in sorted(p for p in ref if p.split("/")[0] in ("op_host", "op_kernel")):
        if rel in stubs or rel in mine:
            continue
        out.append(f"msOpGen writes {rel}; opkit's project has no {rel}")
    if f"op_host/{snake}.cpp" in ref:  # msOpGen's OpDef stub: the package's own host sources stand for it
        host = [p for p in mine if p.startswith("op_host/") and p.endswith((".cpp", ".cc"))]
        if not any("OP_ADD(" in (ours / p).read_text(encoding="utf-8", errors="replace") for p in host):
            out.append(f"msOpGen's op_host/{snake}.cpp registers the OpDef (OP_ADD); no op_host source of "
                       "opkit's project does")
    if ref & {f"op_host/{snake}_tiling.h", f"op_kernel/{snake}_tiling.h"}:
        if not any(re.search(r"tiling[^/]*\.h$", p) for p in mine if p.split("/")[0] in ("op_host", "op_kernel")):
            out.append("msOpGen writes a tiling header (<op>_tiling.h); opkit's project has none in op_host/ or "
                       "op_kernel/")
    return out


def _args(text: str, start: int) -> list[str]:
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    body = re.sub(r"#[^\n]*", "", text[start:i - 1])
    return [a.strip('"') for a in re.findall(r'"[^"]*"|[^\s"]+', body)]


def targets(root: Path) -> set[tuple[str, ...]]:
    """The project's operator-project calls, each as (function, what identifies it)."""
    found: set[tuple[str, ...]] = set()
    for f in sorted(root.rglob("CMakeLists.txt")):
        if "build_out" in f.relative_to(root).parts:
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        for m in _CALL.finditer(text):
            fn, args = m.group(1), _args(text, m.end())
            if not args:
                continue
            if fn == "npu_op_library":
                found.add((fn, args[0], args[1] if len(args) > 1 else ""))
            elif fn == "npu_op_kernel_sources":
                found.add((fn, args[0], args[args.index("OP_TYPE") + 1] if "OP_TYPE" in args[:-1] else ""))
            elif fn == "npu_op_package_add":
                libs = args[args.index("LIBRARY") + 1:] if "LIBRARY" in args else []
                found.update((fn, args[0], lib) for lib in libs)
            elif fn == "npu_op_code_gen":
                found.add((fn, args[args.index("PACKAGE") + 1] if "PACKAGE" in args[:-1] else ""))
            else:
                found.add((fn, args[0]))
    return found


def target_differences(ours: Path, theirs: Path) -> list[str]:
    mine = targets(ours)
    return [f"msOpGen's project calls {c[0]}({' '.join(c[1:])}); opkit's does not" for c in sorted(targets(theirs))
            if c not in mine]


def differences(ours: Path, theirs: Path, op_type: str) -> list[str]:
    """Every difference that matters between opkit's project ``ours`` and msOpGen's ``theirs`` (module text)."""
    return preset_differences(ours, theirs) + file_differences(ours, theirs, op_type) + target_differences(ours,
                                                                                                          theirs)
