"""The CANN custom-operator project of a package, as msOpGen lays it out, written by opkit itself.

The project lives in the package's build folder (``.opkit/cann/project``) and is refreshed on every
``opkit build --backend cann``: the package's op_host/ and op_kernel/ files are copied in under the same
relative paths (a file is rewritten only when its content changed, so CMake rebuilds only what changed;
a file that left the package leaves the project), and opkit writes the rest:

    CMakePresets.json   ASCEND_CANN_PACKAGE_PATH, ASCEND_COMPUTE_UNIT, vendor_name, build type, install prefix
    build.sh            configure with the preset, then build the ``binary`` and ``package`` targets
    CMakeLists.txt      find_package(ASC); npu_op_package(<vendor> TYPE RUN)
    op_host/CMakeLists.txt    npu_op_code_gen, the tiling / aclnn / prototype libraries
    op_kernel/CMakeLists.txt  npu_op_kernel_sources + npu_op_kernel_library (one kernel entry per OpType)
    framework/CMakeLists.txt  graph-mode plugins: none (aclnn calls need none)
    common/op_host, common/op_kernel  a copy of the family's shared sources (<family>/common), when there
                        is one, on the include path of op_host/ and op_kernel/ (docs/spec.md)
    opkit-project.json  which project file is which package file (compiler errors are mapped back with it)

Only CANN's find_package(ASC) layout is written (toolkits with compiler/tikcpp/ascendc_kernel_cmake);
docs/backends.md lists the layouts per CANN version.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from opkit import discover
from opkit import soc as socdata
from opkit.backends import cann_env
from opkit.build import options
from opkit.build.cache import tree_files
from opkit.errors import UsageError
from opkit.spec import Spec

PROJECT_DIR = ".opkit/cann/project"
COMMON_REL = "common"  # the project's copy of the family common sources: common/op_kernel, common/op_host
MANIFEST = "opkit-project.json"
VENDOR_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
DEFAULT_VENDOR = "customize"  # msOpGen's default vendor_name


@dataclass
class Project:
    root: Path
    spec: Spec
    vendor: str
    compute_units: list[str]
    files: dict[str, Path] = field(default_factory=dict)  # project-relative path -> the package file it copies
    written: list[str] = field(default_factory=list)  # files (re)written in this refresh
    removed: list[str] = field(default_factory=list)

    @property
    def build_dir(self) -> Path:
        return self.root / "build_out"


def check_vendor(vendor: str) -> str:
    if not VENDOR_RE.match(vendor):
        raise UsageError(f"--vendor {vendor!r}: a vendor name is a letter followed by letters, digits or '_' "
                         "(it becomes the folder opp/vendors/<vendor>)")
    return vendor


def compute_units(spec: Spec, chips: list[str] | None) -> list[str]:
    """ASCEND_COMPUTE_UNIT: the OpDef SoC keys of --soc (chips or keys), else every SoC op.yaml lists."""
    if not chips:
        return [s.key for s in spec.socs]
    units: list[str] = []
    for name in chips:
        key = name.strip().lower()
        if key not in socdata.known_keys():
            try:
                key = str(socdata.chip(key)["opdef_key"])
            except KeyError as exc:
                raise UsageError(f"--soc {name}: {exc.args[0]}") from None
        if key not in units:
            units.append(key)
    return units


def _cmake_list(items: list[str], indent: str = "    ") -> str:
    return "\n".join(f"{indent}{i}" for i in items)


def _q(text: str) -> str:
    """A CMake argument: quoted when it holds anything but plain characters."""
    return text if re.fullmatch(r"[A-Za-z0-9_./=+:-]+", text) else '"' + text.replace('"', '\\"') + '"'


def presets(cann: cann_env.Cann, vendor: str, units: list[str]) -> str:
    data = {
        "version": 1,
        "cmakeMinimumRequired": {"major": 3, "minor": 19, "patch": 0},
        "configurePresets": [{
            "name": "default",
            "displayName": "Default Config",
            "description": "written by opkit build --backend cann",
            "generator": "Unix Makefiles",
            "binaryDir": "${sourceDir}/build_out",
            "cacheVariables": {
                "CMAKE_BUILD_TYPE": {"type": "STRING", "value": "Release"},
                "ENABLE_SOURCE_PACKAGE": {"type": "BOOL", "value": "True"},
                "ENABLE_BINARY_PACKAGE": {"type": "BOOL", "value": "True"},
                "ASCEND_COMPUTE_UNIT": {"type": "STRING", "value": ";".join(units)},
                "ENABLE_TEST": {"type": "BOOL", "value": "True"},
                "vendor_name": {"type": "STRING", "value": vendor},
                "ASCEND_CANN_PACKAGE_PATH": {"type": "PATH", "value": str(cann.root)},
                "ASCEND_PYTHON_EXECUTABLE": {"type": "STRING", "value": "python3"},
                "CMAKE_INSTALL_PREFIX": {"type": "PATH", "value": "${sourceDir}/build_out"},
                "ENABLE_CROSS_COMPILE": {"type": "BOOL", "value": "False"},
                "CMAKE_CROSS_PLATFORM_COMPILER": {"type": "PATH", "value": "/usr/bin/aarch64-linux-gnu-g++"},
                "ASCEND_PACK_SHARED_LIBRARY": {"type": "BOOL", "value": "False"},
            },
        }],
    }
    return json.dumps(data, indent=4) + "\n"


BUILD_SH = """#!/bin/bash
# Builds this CANN custom-operator project into build_out/custom_opp_<os>_<arch>.run.
# Written by `opkit build --backend cann` from {op_yaml}; opkit rewrites it on every build.
# Needs CANN's environment first: source {set_env}
set -e
cd "$(dirname "$0")"
if ! command -v bisheng >/dev/null 2>&1; then
    echo "error: bisheng (the Ascend C compiler) is not on PATH: source {set_env}" >&2
    exit 2
fi
JOBS="${{OPKIT_BUILD_JOBS:-$(nproc)}}"
cmake -S . -B build_out --preset=default
cmake --build build_out --target binary -j "$JOBS"
cmake --build build_out --target package -j "$JOBS"
"""

TOP_CMAKE = """# The CANN custom-operator project of {op_type} ({op_yaml}), written by opkit build --backend cann.
cmake_minimum_required(VERSION 3.19)
project(opp)

if(NOT DEFINED ASCEND_CANN_PACKAGE_PATH)
    set(ASCEND_CANN_PACKAGE_PATH $ENV{{ASCEND_HOME_PATH}} CACHE PATH "CANN toolkit folder")
endif()
find_package(ASC REQUIRED HINTS ${{ASCEND_CANN_PACKAGE_PATH}}/lib64/cmake
             ${{ASCEND_CANN_PACKAGE_PATH}}/compiler/tikcpp/ascendc_kernel_cmake)

npu_op_package(${{vendor_name}}
    TYPE RUN
    CONFIG
        ENABLE_SOURCE_PACKAGE ${{ENABLE_SOURCE_PACKAGE}}
        ENABLE_BINARY_PACKAGE ${{ENABLE_BINARY_PACKAGE}}
        INSTALL_PATH ${{CMAKE_BINARY_DIR}}/
)

add_subdirectory(framework)
add_subdirectory(op_host)
add_subdirectory(op_kernel)
"""

HOST_CMAKE = """# Host side of {op_type}: the OpDef makes the aclnn API and the prototype; tiling is its own library.
set(op_host_srcs
{sources}
)
npu_op_code_gen(SRC ${{op_host_srcs}} PACKAGE ${{vendor_name}} OUT_DIR ${{ASCEND_AUTOGEN_PATH}})

npu_op_library(cust_optiling TILING ${{op_host_srcs}})

file(GLOB autogen_aclnn_srcs ${{ASCEND_AUTOGEN_PATH}}/aclnn_*.cpp)
set_source_files_properties(${{autogen_aclnn_srcs}} PROPERTIES GENERATED TRUE)
npu_op_library(cust_opapi ACLNN ${{autogen_aclnn_srcs}})

set_source_files_properties(${{ASCEND_AUTOGEN_PATH}}/op_proto.cc PROPERTIES GENERATED TRUE)
npu_op_library(cust_op_proto GRAPH ${{op_host_srcs}} ${{ASCEND_AUTOGEN_PATH}}/op_proto.cc)
{host_options}
npu_op_package_add(${{vendor_name}} LIBRARY cust_optiling cust_opapi cust_op_proto)
"""

KERNEL_CMAKE = """# Kernel side of {op_type}: op_kernel/{entry}, compiled per SoC and dtype column (DTYPE_<NAME>).
npu_op_kernel_sources(ascendc_kernels
    OP_TYPE {op_type}
    KERNEL_FILE {entry}
)
{kernel_options}
npu_op_kernel_library(ascendc_kernels
    SRC_BASE ${{CMAKE_CURRENT_SOURCE_DIR}}/
    TILING_LIBRARY cust_optiling
)
npu_op_package_add(${{vendor_name}} LIBRARY ascendc_kernels)
"""

FRAMEWORK_CMAKE = """# Graph-mode framework plugins (TensorFlow, ONNX...): none. The aclnn API needs none; add a plugin
# folder here and an add_subdirectory for it to use {op_type} from a framework's graph mode.
"""


def _build_flags(spec: Spec) -> tuple[list[str], list[str], list[str]]:
    """(include folders, defines, other flags) of op.yaml's build section, for host and kernel alike. The
    family common folders are not among them: the project has its own copy (:func:`_common_includes`)."""
    pkg = options.package_build(spec)
    _, common_flags, _ = options.family_common_flags(spec.dir)
    incs = [f[2:] for f in pkg.flags if f.startswith("-I") and f not in common_flags]
    defs = [f[2:] for f in pkg.flags if f.startswith("-D")]
    rest = [f for f in pkg.flags if not f.startswith(("-I", "-D"))]
    return incs, defs, rest


def _common_includes(spec: Spec) -> list[str]:
    """The project's copies of the family common folders (common/op_kernel, common/op_host) as include folders
    of op_host/CMakeLists.txt and op_kernel/CMakeLists.txt: after the package's own folders, as in opkit's own
    build, so a package's ``#include "mc2_cut.h"`` finds the same header in the project."""
    return [f"${{CMAKE_CURRENT_SOURCE_DIR}}/../{COMMON_REL}/{d.name}"
            for d in discover.family_common_include_dirs(spec.dir)]


def _host_options(incs: list[str], defs: list[str], rest: list[str]) -> str:
    lines = []
    for target in ("cust_optiling", "cust_op_proto"):
        if incs:
            lines.append(f"target_include_directories({target} PRIVATE {' '.join(_q(i) for i in incs)})")
        if defs:
            lines.append(f"target_compile_definitions({target} PRIVATE {' '.join(_q(d) for d in defs)})")
        if rest:
            lines.append(f"target_compile_options({target} PRIVATE {' '.join(_q(f) for f in rest)})")
    return ("\n" + "\n".join(lines) + "\n") if lines else ""


def _kernel_options(op_type: str, incs: list[str], defs: list[str], rest: list[str]) -> str:
    opts = ["-I${CMAKE_CURRENT_SOURCE_DIR}", "-I${CMAKE_CURRENT_SOURCE_DIR}/../op_host"]
    opts += [f"-I{i}" for i in incs] + [f"-D{d}" for d in defs] + rest
    return f"npu_op_kernel_options(ascendc_kernels {op_type} OPTIONS {' '.join(_q(o) for o in opts)})\n"


def _write(root: Path, rel: str, text: str | bytes, written: list[str], mode: int | None = None) -> None:
    path = root / rel
    data = text.encode("utf-8") if isinstance(text, str) else text
    if not (path.is_file() and path.read_bytes() == data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(rel)
    if mode is not None:
        path.chmod(mode)


def project_root(spec: Spec) -> Path:
    return spec.dir / PROJECT_DIR


def write_project(spec: Spec, cann: cann_env.Cann, vendor: str = DEFAULT_VENDOR,
                  chips: list[str] | None = None) -> Project:
    """Write (or refresh) the project of ``spec`` for the toolkit ``cann``."""
    check_vendor(vendor)
    if cann.asc_cmake is None:
        where = f"CANN {cann.version or '(version unknown)'} at {cann.root}"
        older = f" (it has the older msOpGen project modules in {cann.legacy_cmake})" if cann.legacy_cmake else ""
        raise UsageError(f"{where} has no operator-project CMake package (lib64/cmake/asc-config.cmake with "
                         f"{cann_env.ASC_MODULES}){older}: opkit writes the find_package(ASC) project of CANN 8.5 "
                         "and newer. Install a newer CANN toolkit, or generate a project with CANN's own msOpGen: "
                         f"opkit export-msopgen {spec.dir} && msopgen gen -i <json> -lan cpp -c ai_core-<soc>")
    entry = spec.src_dir / "op_kernel" / f"{spec.name}.cpp"
    if not entry.is_file():
        raise UsageError(f"{entry}: missing (a package's kernel entry lives in op_kernel/{spec.name}.cpp)")
    root = project_root(spec)
    proj = Project(root, spec, vendor, compute_units(spec, chips))
    kept, _ = options.host_sources(spec)
    kept_set = {k.resolve() for k in kept}
    for side in ("op_host", "op_kernel"):
        base = spec.src_dir / side
        for f in tree_files(base) if base.is_dir() else []:
            if ".opkit" in f.relative_to(base).parts:
                continue
            if side == "op_host" and f.suffix in options.HOST_SUFFIXES and f.resolve() not in kept_set:
                continue  # a host source op.yaml's build section leaves out (aclnn / graph layer files)
            rel = f"{side}/{f.relative_to(base).as_posix()}"
            proj.files[rel] = f
            _write(root, rel, f.read_bytes(), proj.written)
    common = discover.family_common(spec.dir)
    for side in discover.COMMON_SIDES if common else ():
        for f in tree_files(common / side):
            rel = f"{COMMON_REL}/{side}/{f.relative_to(common / side).as_posix()}"
            proj.files[rel] = f
            _write(root, rel, f.read_bytes(), proj.written)
    op_yaml = str(spec.path)
    host_rel = [r for r in proj.files if r.startswith("op_host/") and Path(r).suffix in options.HOST_SUFFIXES]
    host_dir = (spec.src_dir / "op_host").resolve()
    extra = [str(p.resolve()) for p in options.package_build(spec).host_sources
             if not p.resolve().is_relative_to(host_dir)]  # op.yaml build.sources elsewhere: compiled in place
    incs, defs, rest = _build_flags(spec)
    incs = _common_includes(spec) + incs
    set_env = cann.set_env or cann.root / "set_env.sh"
    generated = {
        "CMakePresets.json": presets(cann, vendor, proj.compute_units),
        "build.sh": BUILD_SH.format(op_yaml=op_yaml, set_env=set_env),
        "CMakeLists.txt": TOP_CMAKE.format(op_type=spec.op_type, op_yaml=op_yaml),
        "op_host/CMakeLists.txt": HOST_CMAKE.format(
            op_type=spec.op_type, sources=_cmake_list([f"${{CMAKE_CURRENT_SOURCE_DIR}}/{r[len('op_host/'):]}"
                                                       for r in host_rel] + [_q(e) for e in extra]),
            host_options=_host_options(incs, defs, rest)),
        "op_kernel/CMakeLists.txt": KERNEL_CMAKE.format(op_type=spec.op_type, entry=entry.name,
                                                        kernel_options=_kernel_options(spec.op_type, incs, defs, rest)),
        "framework/CMakeLists.txt": FRAMEWORK_CMAKE.format(op_type=spec.op_type),
    }
    for rel, text in generated.items():
        _write(root, rel, text, proj.written, 0o755 if rel == "build.sh" else None)
    manifest_path = root / MANIFEST
    before: dict = {}
    if manifest_path.is_file():
        try:
            before = json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            before = {}
    for rel in before.get("files", {}):
        if rel not in proj.files and (root / rel).is_file():
            (root / rel).unlink()
            proj.removed.append(rel)
    manifest = {"op_type": spec.op_type, "package": str(spec.dir), "vendor": vendor, "cann": str(cann.root),
                "cann_version": cann.version, "compute_units": proj.compute_units, "layout": "asc",
                "files": {rel: str(src) for rel, src in sorted(proj.files.items())}}
    _write(root, MANIFEST, json.dumps(manifest, indent=2) + "\n", proj.written)
    return proj


def read_manifest(root: Path) -> dict:
    try:
        return json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
