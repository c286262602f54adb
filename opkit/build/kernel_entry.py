"""The generated launch shim: the entry the simulator harness calls to start a package's kernel.

A plain kernel (``extern "C" __global__ __aicore__ void op(...)``) is started with
``ICPU_SET_TILING_KEY`` and ``ICPU_RUN_KF``; it reads the key itself (``TILING_KEY_IS``).

A kernel written in the template tiling-key style (``template <uint32_t MODE, bool FLAG>
__global__ __aicore__ void op(...)`` with ``ASCENDC_TPL_ARGS_DECL``/``ASCENDC_TPL_SEL`` in a header
that host and kernel share) has one instantiation per combination the selections list, as CANN's
build makes them. The shim instantiates every such combination and picks the one whose key
(``GET_TPL_TILING_KEY``'s encoding) the tiling function chose. The combinations come from the
declarations the host sources register, read through the host-only harness's ``describe``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit.build.toolchain import BuildError
from opkit.spec import Spec

# The cores a launch starts: the kernel's own KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE(key, type), read
# from its sources by the build (inside the body they cannot be read before the launch), else by op.yaml's
# kernel type.
KERNEL_TYPES = {"vector": "KERNEL_TYPE_AIV_ONLY", "cube": "KERNEL_TYPE_AIC_ONLY", "mix": "KERNEL_TYPE_MIX_AIC_1_2"}
_TASK_TYPE = re.compile(r"\bKERNEL_TASK_TYPE_DEFAULT\s*\(\s*(KERNEL_TYPE_\w+)\s*\)"
                        r"|\bKERNEL_TASK_TYPE\s*\(\s*((?:[^,()]|\([^()]*\))+?)\s*,\s*(KERNEL_TYPE_\w+)\s*\)")
# The op.yaml kernel kind each declared kernel type launches as.
KIND_OF_TYPE = {"KERNEL_TYPE_AIV_ONLY": "vector", "KERNEL_TYPE_MIX_AIV_1_0": "vector", "KERNEL_TYPE_AIC_ONLY": "cube",
                "KERNEL_TYPE_MIX_AIC_1_0": "cube", "KERNEL_TYPE_MIX_AIC_1_1": "mix", "KERNEL_TYPE_MIX_AIC_1_2": "mix"}


def _uncommented(text: str) -> str:
    """C++ text with its comments blanked (so a commented-out declaration does not count)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


@dataclass(frozen=True)
class KernelTypes:
    """The kernel types a kernel declares: its default and one per tiling key (key expressions as written)."""

    default: str | None = None
    per_key: tuple[tuple[str, str], ...] = ()


def declared_kernel_types(files: list[Path]) -> KernelTypes:
    """KERNEL_TASK_TYPE_DEFAULT and KERNEL_TASK_TYPE(key, type) in the files a kernel entry compiles."""
    default, per_key = None, []
    for f in files:
        try:
            text = _uncommented(f.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        for m in _TASK_TYPE.finditer(text):
            if m.group(1):
                default = default or m.group(1)
            elif (m.group(2), m.group(3)) not in per_key:
                per_key.append((m.group(2), m.group(3)))
    return KernelTypes(default, tuple(per_key))


def kernel_type_warnings(spec: Spec, types: KernelTypes) -> list[str]:
    """op.yaml's ``kernel:`` against the kernel types the kernel declares (the launch follows the kernel)."""
    declared = sorted({t for t in [types.default, *(t for _, t in types.per_key)] if t})
    if not declared or any(KIND_OF_TYPE.get(t, spec.kernel) == spec.kernel for t in declared):
        return []
    return [f"{kernel_source(spec)}: the kernel declares {', '.join(declared)} but op.yaml says "
            f"kernel: {spec.kernel}; the launch follows the kernel's declaration (set op.yaml's kernel to match)"]


def _kernel_type_code(spec: Spec, types: KernelTypes) -> str:
    """The shim's choice of kernel type for the launch's tiling key (a key expression is evaluated after the
    kernel's own headers, so its macros and constants name keys as in the kernel)."""
    lines = [f"    int opkit_kernel_type = {types.default or KERNEL_TYPES[spec.kernel]};\n"]
    for key, ktype in types.per_key:
        expr = f"{key}ULL" if key.isdigit() else f"static_cast<uint64_t>({key})"
        lines.append(f"    if (tiling_key == {expr}) opkit_kernel_type = {ktype};\n")
    return "".join(lines) + "    opkit::sim::set_kernel_type(opkit_kernel_type);\n"

# Selector kinds that choose a build variant but are not template parameters of the kernel.
_NOT_PARAMS = {"kernel_type", "deterministic", "tiling_struct"}


# DTYPE_<ARG> of a complex64 tensor names CANN's kernel type: interleaved float32 (real, imaginary).
_COMPLEX64 = ("#ifndef OPKIT_SIM_COMPLEX64\n#define OPKIT_SIM_COMPLEX64\n"
              "struct complex64 {\n    float real;\n    float imag;\n};\n#endif\n")


def kernel_source(spec: Spec) -> Path:
    return spec.src_dir / "op_kernel" / f"{spec.name}.cpp"


def is_template_kernel(spec: Spec) -> bool:
    """True when the kernel entry is a function template (the template tiling-key style)."""
    try:
        text = kernel_source(spec).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    text = _uncommented(text)
    pattern = r"template\s*<[^;{}]*>\s*(?:[A-Za-z_]\w*\s+)*void\s+" + re.escape(spec.name) + r"\s*\("
    return re.search(pattern, text) is not None


def _key_value(param: dict[str, Any], value: int) -> int:
    """A parameter's contribution before shifting: a UINT is encoded as its index in the declaration."""
    if param["type"] == "uint":
        return param["values"].index(value)
    return value


def instantiations(spec: Spec, described: dict[str, Any]) -> list[tuple[int, list[int]]]:
    """(tiling key, template argument values) for every combination the op's selections list."""
    decls = [t for t in described.get("tiling_key_templates", []) if t.get("op_type") == spec.op_type]
    where = kernel_source(spec)
    if not decls:
        found = ", ".join(t.get("op_type", "?") for t in described.get("tiling_key_templates", [])) or "none"
        raise BuildError(
            f"{where}: the kernel {spec.name} is a function template, but the host sources register no "
            f"ASCENDC_TPL_ARGS_DECL({spec.op_type}, ...) (declarations found: {found}); declare the template "
            "parameters in a header that both op_host and op_kernel include")
    params = decls[0]["params"]
    selections = decls[0].get("selections") or [[]]
    out: dict[int, list[int]] = {}
    for sel in selections:
        chosen = {s["name"]: s["values"] for s in sel if s["type"] not in _NOT_PARAMS}
        for name in chosen:
            if name not in {p["name"] for p in params}:
                raise BuildError(f"{where}: ASCENDC_TPL_SEL of {spec.op_type} selects '{name}', which "
                                 "ASCENDC_TPL_ARGS_DECL does not declare")
        lists = []
        for p in params:
            values = [v for v in chosen.get(p["name"], p["values"]) if not p["values"] or v in p["values"]]
            lists.append(values)
        for combo in itertools.product(*lists):
            key, shift = 0, 0
            for p, v in zip(params, combo, strict=True):
                key |= _key_value(p, v) << shift
                shift += p["bit_width"]
            out.setdefault(key, list(combo))
    if not out:
        raise BuildError(f"{where}: the ASCENDC_TPL_SEL lists of {spec.op_type} select no combination, "
                         "so no kernel would be built")
    return sorted(out.items())


def template_args(params: list[dict[str, Any]], values: list[int]) -> str:
    return ", ".join(("true" if v else "false") if p["type"] == "bool" else f"{v}"
                     for p, v in zip(params, values, strict=True))


def registers_tiling_class(files: list[Path]) -> bool:
    """True when a host file registers a macro-defined TilingData class (REGISTER_TILING_DATA_CLASS): the
    kernel then gets the generated kernel-side structs, which need the host-only harness's ``describe``."""
    for f in files:
        try:
            if b"REGISTER_TILING_DATA_CLASS" in f.read_bytes():
                return True
        except OSError:
            continue
    return False


_OWN_TILING = re.compile(rb"\bREGISTER_TILING_(?:DEFAULT|FOR_TILINGKEY)\s*\(|\bREGISTER_NONE_TILING\b")


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def kernel_files(entry: Path, dirs: list[Path]) -> list[Path]:
    """The kernel entry and the files its quoted ``#include``s reach, transitively (beside the including
    file, else in ``dirs``): what the kernel compiles of its own, not every file of op_kernel/ (a folder
    may hold the entries of other architectures, with their own tiling declarations)."""
    todo, seen = [entry.resolve()], []
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.append(path)
        for name in _QUOTED_INCLUDE.findall(path.read_bytes()):
            rel = name.decode(errors="replace")
            for d in (path.parent, *dirs):
                cand = (d / rel).resolve()
                if cand.is_file():
                    todo.append(cand)
                    break
    return seen


def kernel_declares_tiling(files: list[Path]) -> bool:
    """True when a kernel file says which struct its tiling is (REGISTER_TILING_DEFAULT,
    REGISTER_TILING_FOR_TILINGKEY, REGISTER_NONE_TILING): as in CANN's build, the kernel then brings its
    own structs and none is generated from the host's TilingData classes."""
    for f in files:
        try:
            text = f.read_bytes()
        except OSError:
            continue
        if _OWN_TILING.search(re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", text, flags=re.S)):
            return True
    return False


def shim_source(spec: Spec, described: dict[str, Any] | None = None, tiling_header: Path | None = None,
                kernel_types: KernelTypes | None = None) -> str:
    """The shim's C++; ``described`` (the harness's ``describe``) is needed for a template kernel;
    ``tiling_header`` is the generated kernel-side tiling header, included before the kernel;
    ``kernel_types`` what the kernel declares (default: op.yaml's kernel type for every key)."""
    n_args = len(spec.inputs) + len(spec.device_outputs) + 2  # an in-place result has no buffer of its own
    args = ", ".join(f"(uint8_t*)args[{i}]" for i in range(n_args))
    kernel = kernel_source(spec).resolve()
    head = (
        "// Generated by opkit: the kernel of this package and the entry the simulator harness calls.\n"
        '#include "tikicpulib.h"\n'
        + (_COMPLEX64 if any("complex64" in p.dtypes for p in spec.params) else "")
        + (f'#include "{tiling_header}"\n' if tiling_header else "")
        + f'#include "{kernel}"\n\n'
        'extern "C" int opkit_launch_kernel(uint32_t block_dim, uint64_t tiling_key, void** args, int n_args)\n'
        "{\n"
        f"    if (n_args != {n_args}) {{\n"
        f'        std::fprintf(stderr, "opkit-sim: error: {spec.name}: %d kernel arguments given, {n_args} '
        'expected\\n", n_args);\n'
        "        return 3;\n"
        "    }\n"
        + _kernel_type_code(spec, kernel_types or KernelTypes()) +
        "    ICPU_SET_TILING_KEY(tiling_key);\n"
    )
    if described is None:
        return head + f"    ICPU_RUN_KF({spec.name}, block_dim, {args});\n    return 0;\n}}\n"
    insts = instantiations(spec, described)  # first: it explains a missing declaration
    params = [t for t in described["tiling_key_templates"] if t["op_type"] == spec.op_type][0]["params"]
    cases = []
    for key, values in insts:
        targs = template_args(params, values)
        label = f"{spec.name}<{targs}>"
        named = ", ".join(f"{p['name']}={v}" for p, v in zip(params, values, strict=True))
        cases.append(f"    case {key}ULL:  // {named}\n"
                     f'        ::opkit::sim::icpu_run("{label}", &{spec.name}<{targs}>, (int64_t)block_dim, {args});\n'
                     "        return 0;\n")
    known = ", ".join(str(k) for k, _ in insts)
    return (head + "    switch (tiling_key) {\n" + "".join(cases) + "    default:\n"
            f'        std::fprintf(stderr, "opkit-sim: error: {spec.name}: tiling key %llu has no kernel '
            f'instantiation (the ASCENDC_TPL_SEL lists of {spec.op_type} give the keys {known})\\n", '
            "(unsigned long long)tiling_key);\n"
            "        return 3;\n    }\n}\n")

