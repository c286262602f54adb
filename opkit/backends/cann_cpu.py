"""The ``cann-cpu`` backend: the kernel built in CANN's own CPU-debug mode (tikicpulib), run on this CPU.

CANN's CPU-debug ("twin debug") mode compiles the unmodified kernel with g++ against the toolkit's
``tikicpulib`` (its CMake package ``tikicpulib::<chip>`` brings the headers, the chip model and the
``ICPU_RUN_KF`` launcher); a second opinion beside opkit's simulator on the same kernel. What CANN's op
project generates around a kernel comes from the steps the simulator build uses: the kernel-side tiling
structs of REGISTER_TILING_DATA_CLASS classes (with CANN's GET_TILING_DATA) and a template kernel's
dispatch on the tiling key.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit.backends import cann_env
from opkit.backends.base import Need, Readiness, cmake_need, compiler_need, toolkit_need
from opkit.build.toolchain import BuildError, explain_failure
from opkit.spec import Spec

NAME = "cann-cpu"
SUMMARY = "CANN's CPU-debug mode (tikicpulib, ICPU_RUN_KF): the same kernel on CANN's CPU model; runs on this CPU"


def readiness(env: Mapping[str, str] | None = None, cann_path: Path | str | None = None) -> Readiness:
    env = os.environ if env is None else env
    cann = cann_env.find(env, cann_path)
    needs = [toolkit_need(cann, env)]
    if cann is not None:
        where = cann.tikicpulib_cmake
        ok = where is not None and any(where.glob("tikicpulib*config.cmake"))
        needs.append(Need("tikicpulib (CPU-debug library)", ok,
                          str(where) if ok else f"no tikicpulib-config.cmake under {cann.root}/"
                          f"{' or '.join(cann_env.TIKICPULIB_CMAKE_DIRS)}",
                          "" if ok else "install the full CANN toolkit (the tikicpulib CPU-debug library is part of "
                          "its developer kit), then " + cann.source_fix))
    needs.append(cmake_need(env, (3, 16)))
    needs.append(compiler_need(env))
    return Readiness(NAME, needs)


MODES = {"vector": "AIV_MODE", "cube": "AIC_MODE", "mix": "MIX_MODE"}
BUILD_DIR = ".opkit/cann-cpu"


def tikicpulib_chip(chip: str) -> str:
    """The chip name tikicpulib's CMake targets use: ``ascend910b2`` -> ``Ascend910B2``."""
    return "Ascend" + chip[len("ascend"):].upper() if chip.startswith("ascend") else chip


@dataclass
class CpuExe:
    """The CPU-debug executable of one operator x chip x dtype column."""

    spec: Spec
    chip: str
    column: int
    dir: Path

    @property
    def exe(self) -> Path:
        return self.dir / "build" / "opkit_cpu_debug"

    @property
    def label(self) -> str:
        return f"{self.spec.name}[{self.spec.column_label(self.column)}@{self.chip}]"


# The tail of the tiling-data step's header: GET_TILING_DATA reads the op's class, as the header CANN's op
# project generates for the kernel defines it (kernel_operator.h first, so its own definitions come before).
_SIM_TAIL = re.compile(r"// GET_TILING_DATA of .*\n#undef OPKIT_TILING_DATA_TYPE\n"
                       r"#define OPKIT_TILING_DATA_TYPE ::(\w+)\n")
_CANN_TAIL = """// GET_TILING_DATA of {op_type} reads {cls} (REGISTER_TILING_DATA_CLASS), as in CANN's op project.
#include <cstring>
#include "kernel_operator.h"
#undef GET_TILING_DATA
#define GET_TILING_DATA(tiling_data, tiling_arg) \\
    {cls} tiling_data;                            \\
    std::memcpy(&tiling_data, (const void*)(tiling_arg), sizeof({cls}))
"""
TILING_HEADER = "tiling_data.h"
LIST_HEADER = "opkit_list_tensor.h"


def list_tensor_writer() -> str:
    """The writer of a list tensor's ListTensorDesc block, for the launcher: the simulator harness's own
    (``opkit/sim/host/list_tensor_block.h``, CANN's layout), so both backends hand a kernel the same block."""
    from opkit import sim

    path = sim.include_dir().parent / "host" / "list_tensor_block.h"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BuildError(f"{path}: the list-tensor writer is missing ({exc}); reinstall opkit") from None


def tiling_header(spec: Spec, described: dict[str, Any]) -> str | None:
    """The kernel-side tiling header of a package whose host registers TilingData classes: opkit's tiling-data
    step (the simulator build's, :mod:`opkit.sim.host.tiling_struct`) with CANN's ``GET_TILING_DATA`` in place
    of the simulator's; None when the host registers none."""
    from opkit.sim.host import tiling_struct

    try:
        text = tiling_struct.kernel_tiling_header(described, spec.op_type)
    except ValueError as exc:
        raise BuildError(f"{spec.src_dir / 'op_host'}: {exc}") from None
    if text is None:
        return None
    m = _SIM_TAIL.search(text)
    if m is None:
        raise BuildError(f"{spec.name}: the tiling-data step wrote a header without GET_TILING_DATA's class; "
                         "reinstall opkit")
    return (text[:m.start()].replace("// Generated by opkit", "// Generated by opkit (--backend cann-cpu)", 1)
            + _CANN_TAIL.format(op_type=spec.op_type, cls=m.group(1)) + text[m.end():])


LAUNCHER = """// The CPU-debug launcher of {op_type}, written by opkit (--backend cann-cpu): tikicpulib runs the kernel.
// argv: tiling_key block_dim, then one word per kernel parameter: r:FILE:BYTES (read in), w:FILE:BYTES (written
// back after the run), m:FILE:BYTES (read in and written back: an input the kernel writes its result into),
// =K (the buffer of parameter K: a reference-form output), z:BYTES (zeroed: the workspace), n (absent optional input),
// L:FILE (a dynamic (list) tensor: FILE has one line per tensor, "r|w BYTES RANK DIM... PATH"; the kernel gets the
// list's ListTensorDesc block, CANN's layout, written by opkit_list_tensor.h).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "tikicpulib.h"
#include "opkit_list_tensor.h"

{declare}

namespace {{
struct WriteBack {{
    uint8_t* p;
    std::string path;
    size_t bytes;
}};
std::vector<WriteBack> g_back;  // written to their files after the run
std::vector<uint8_t*> g_owned;  // GmFree'd at the end

[[noreturn]] void die(const std::string& what) {{
    std::fprintf(stderr, "%s\\n", what.c_str());
    std::exit(3);
}}

uint8_t* gm(size_t bytes) {{
    uint8_t* p = static_cast<uint8_t*>(AscendC::GmAlloc(bytes ? bytes : 32));
    std::memset(p, 0, bytes ? bytes : 32);
    g_owned.push_back(p);
    return p;
}}

uint8_t* tensor(char kind, const std::string& path, size_t bytes) {{
    uint8_t* p = gm(bytes);
    if (kind == 'r' || kind == 'm') {{
        FILE* f = std::fopen(path.c_str(), "rb");
        if (!f || std::fread(p, 1, bytes, f) != bytes) die("cannot read " + path);
        std::fclose(f);
    }}
    if (kind == 'w' || kind == 'm') g_back.push_back({{p, path, bytes}});
    return p;
}}

uint8_t* list_arg(const std::string& manifest) {{
    std::ifstream in(manifest);
    if (!in) die("cannot read " + manifest);
    std::vector<std::vector<int64_t>> shapes;
    std::vector<uint64_t> ptrs;
    std::string line;
    while (std::getline(in, line)) {{
        if (line.empty()) continue;
        std::istringstream s(line);
        char kind = 0;
        size_t bytes = 0, rank = 0;
        s >> kind >> bytes >> rank;
        std::vector<int64_t> dims(rank);
        for (auto& d : dims) s >> d;
        std::string path;
        std::getline(s >> std::ws, path);
        if (!s && path.empty()) die(manifest + ": malformed line: " + line);
        shapes.push_back(dims);
        ptrs.push_back(reinterpret_cast<uint64_t>(tensor(kind, path, bytes)));
    }}
    std::string error;
    const std::vector<uint64_t> words = opkit::list_tensor::Block(shapes, ptrs, &error);
    if (!error.empty()) die(manifest + ": " + error);
    uint8_t* block = gm(words.size() * sizeof(uint64_t));
    std::memcpy(block, words.data(), words.size() * sizeof(uint64_t));
    return block;
}}

uint8_t* arg(const char* word) {{
    std::string w(word);
    if (w == "n") return nullptr;
    if (w[0] == 'L') return list_arg(w.substr(2));
    char kind = w[0];
    std::string rest = w.substr(2);
    std::string path;
    if (kind != 'z') {{ size_t c = rest.rfind(':'); path = rest.substr(0, c); rest = rest.substr(c + 1); }}
    return tensor(kind, path, std::strtoull(rest.c_str(), nullptr, 10));
}}
}}  // namespace

int main(int argc, char** argv) {{
    if (argc != {argc}) {{ std::fprintf(stderr, "usage: tiling_key block_dim and {nargs} parameters\\n"); return 2; }}
    const uint64_t key = std::strtoull(argv[1], nullptr, 10);
    const uint32_t blocks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    uint8_t* a[{nargs}];
    for (int i = 0; i < {nargs}; ++i) {{
        if (argv[3 + i][0] == '=') {{
            const int k = std::atoi(argv[3 + i] + 1);
            if (k < 0 || k >= i) {{ std::fprintf(stderr, "parameter %d: no earlier parameter %d\\n", i, k); return 2; }}
            a[i] = a[k];
            continue;
        }}
        a[i] = arg(argv[3 + i]);
    }}
    AscendC::SetKernelMode(AscendC::KernelMode::{mode});
    ICPU_SET_TILING_KEY(key);
{run}    for (const WriteBack& b : g_back) {{
        FILE* f = std::fopen(b.path.c_str(), "wb");
        if (!f || std::fwrite(b.p, 1, b.bytes, f) != b.bytes) {{
            std::fprintf(stderr, "cannot write %s\\n", b.path.c_str());
            return 3;
        }}
        std::fclose(f);
    }}
    for (uint8_t* p : g_owned) AscendC::GmFree(p);
    return 0;
}}
"""

CMAKE = """# CANN CPU-debug build of {op_type} [{label}], written by opkit (--backend cann-cpu).
cmake_minimum_required(VERSION 3.16)
project(opkit_cpu_debug LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(tikicpulib REQUIRED HINTS {hints})
add_executable(opkit_cpu_debug launcher.cpp{kernel})
{kernel_options}target_compile_definitions(opkit_cpu_debug PRIVATE ASCENDC_CPU_DEBUG {defines})
target_include_directories(opkit_cpu_debug PRIVATE {includes})
{options}target_link_libraries(opkit_cpu_debug PRIVATE tikicpulib::{chip})
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kernel_params(spec: Spec) -> list[str]:
    """The kernel's parameters in order (a reference-form output by its op.yaml name: its OpDef name is its
    input's)."""
    return [p.name for p in spec.inputs] + [o.name if o.ref else o.opdef_name for o in spec.device_outputs] + \
        ["workspace", "tiling"]


def _described(spec: Spec, chip: str, jobs: int | None) -> dict[str, Any]:
    """The host sources' ``describe`` (TilingData layouts and registrations, template declarations), from the
    host-only harness the simulator build links (shared with it through the cache)."""
    from opkit.build import opdef_check, sim_backend

    return opdef_check.describe(sim_backend.build_host(spec, chip, jobs=jobs))


def _template_run(spec: Spec, described: dict[str, Any], call: str) -> str:
    """The launcher's dispatch of a template kernel: one case per instantiation the op's ASCENDC_TPL_SEL lists
    give (the simulator build's instantiations and key encoding), each run with its template arguments."""
    from opkit.build import kernel_entry

    insts = kernel_entry.instantiations(spec, described)
    params = [t for t in described["tiling_key_templates"] if t["op_type"] == spec.op_type][0]["params"]
    lines = ["    switch (key) {\n"]
    for key, values in insts:
        targs = kernel_entry.template_args(params, values)
        named = ", ".join(f"{p['name']}={v}" for p, v in zip(params, values, strict=True))
        lines.append(f"    case {key}ULL: {{  // {named}\n"
                     f"        auto* const {spec.name}_key{key} = &{spec.name}<{targs}>;\n"
                     f"        ICPU_RUN_KF({spec.name}_key{key}, blocks, {call});\n"
                     "        break;\n    }\n")
    known = ", ".join(str(k) for k, _ in insts)
    lines.append("    default:\n"
                 f'        std::fprintf(stderr, "{spec.name}: tiling key %llu has no kernel instantiation (the '
                 f'ASCENDC_TPL_SEL lists of {spec.op_type} give the keys {known})\\n", (unsigned long long)key);\n'
                 "        return 3;\n    }\n")
    return "".join(lines)


def write_project(spec: Spec, cann: cann_env.Cann, chip: str, column: int, jobs: int | None = None) -> CpuExe:
    """The CPU-debug CMake project of one column: the launcher, the kernel-side tiling header when the host
    registers TilingData classes (CANN's tiling-data step), and CMakeLists.txt."""
    from opkit.build import options, sim_backend
    from opkit.build.sim_backend import dtype_defines

    label = spec.column_label(column)
    out = CpuExe(spec, chip, column, spec.dir / BUILD_DIR / f"{chip}-{label}")
    out.dir.mkdir(parents=True, exist_ok=True)
    sim_plan = sim_backend.plan(spec, chip, column)  # what the kernel needs generated, as the simulator build sees it
    described = _described(spec, chip, jobs) if sim_plan.tiling_classes or sim_plan.template_kernel else {}
    header = tiling_header(spec, described) if sim_plan.tiling_classes else None
    names = kernel_params(spec)
    call = ", ".join(f"a[{i}]" for i in range(len(names)))
    kernel = spec.src_dir / "op_kernel" / f"{spec.name}.cpp"
    if sim_plan.template_kernel:  # the instantiations live in the kernel's translation unit: the launcher's
        declare = "".join(f'#include "{f}"\n' for f in ([out.dir / TILING_HEADER] if header else []) + [kernel])
        run = _template_run(spec, described, call)
    else:
        declare = f'extern "C" __global__ __aicore__ void {spec.name}({", ".join(f"GM_ADDR {n}" for n in names)});\n'
        run = f"    ICPU_RUN_KF({spec.name}, blocks, {call});\n"
    launcher = LAUNCHER.format(op_type=spec.op_type, declare=declare.rstrip("\n"), run=run,
                               argc=len(names) + 3, nargs=len(names), mode=MODES.get(spec.kernel, "AIV_MODE"))
    pkg = options.package_build(spec)
    incs = [str(spec.src_dir / "op_kernel"), str(spec.src_dir / "op_host")] + \
        [f[2:] for f in pkg.flags if f.startswith("-I")]
    defs = [d[2:] for d in dtype_defines(spec, column)] + [f[2:] for f in pkg.flags if f.startswith("-D")]
    rest = [f for f in pkg.flags if not f.startswith(("-I", "-D"))]
    hints = " ".join(_q(str(cann.root / d)) for d in cann_env.TIKICPULIB_CMAKE_DIRS)
    kernel_options = ""
    if header and not sim_plan.template_kernel:  # CANN's op project includes its tiling header before the kernel
        kernel_options = (f"set_source_files_properties({_q(str(kernel))} PROPERTIES COMPILE_OPTIONS "
                          f"{_q('-include;' + str(out.dir / TILING_HEADER))})\n")
    text = CMAKE.format(op_type=spec.op_type, label=label, hints=hints,
                        kernel="" if sim_plan.template_kernel else " " + _q(str(kernel)), kernel_options=kernel_options,
                        defines=" ".join(_q(d) for d in defs), includes=" ".join(_q(i) for i in incs),
                        options=f"target_compile_options(opkit_cpu_debug PRIVATE {' '.join(_q(f) for f in rest)})\n"
                        if rest else "", chip=tikicpulib_chip(chip))
    files = [("launcher.cpp", launcher), ("CMakeLists.txt", text), (LIST_HEADER, list_tensor_writer())] + \
        ([(TILING_HEADER, header)] if header else [])
    for name, content in files:
        p = out.dir / name
        if not (p.is_file() and p.read_text(encoding="utf-8") == content):
            p.write_text(content, encoding="utf-8")
    return out


def _run(argv: list[str], cwd: Path, env: Mapping[str, str]) -> tuple[int, str]:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace", env=dict(env),
                          stdin=subprocess.DEVNULL)
    return proc.returncode, (proc.stdout or "") + (proc.stderr or "")


def build_exe(target: CpuExe, cann: cann_env.Cann, jobs: int | None, env: Mapping[str, str]) -> None:
    build = target.dir / "build"
    cmake = cann_env.which("cmake", env) or "cmake"
    env = {**env, "ASCEND_HOME_PATH": env.get("ASCEND_HOME_PATH") or str(cann.root)}
    if not (build / "CMakeCache.txt").is_file() or \
            (target.dir / "CMakeLists.txt").stat().st_mtime > (build / "CMakeCache.txt").stat().st_mtime:
        rc, out = _run([cmake, "-S", str(target.dir), "-B", str(build), f"-DASCEND_CANN_PACKAGE_PATH={cann.root}",
                        "-DCMAKE_BUILD_TYPE=Debug"], target.dir, env)
        if rc != 0:
            raise BuildError(f"{target.label}: configuring CANN's CPU-debug build failed:\n"
                             f"{explain_failure(out, target.spec.dir)}\nproject: {target.dir}")
    rc, out = _run([cmake, "--build", str(build), "-j", str(jobs or os.cpu_count() or 1)], target.dir, env)
    if rc != 0:
        raise BuildError(f"{target.label}: CANN's CPU-debug build failed:\n{explain_failure(out, target.spec.dir)}")


def plan(specs: list[Spec], chips: list[str] | None) -> list[tuple[Spec, str, int]]:
    from opkit.build.api import default_chips

    out = []
    for spec in specs:
        for chip in ([spec.target(c)[0] for c in chips] if chips else default_chips(spec)):
            _, target = spec.target(chip)
            out += [(spec, chip, c) for c in range(spec.n_columns) if target.supports(c)]
    return out


def build(specs: list[Spec], chips: list[str] | None = None, jobs: int | None = None,
          progress: Callable[[str], None] | None = None, cann_path: Path | str | None = None,
          env: Mapping[str, str] | None = None) -> list[CpuExe]:
    """Build the CPU-debug executable of every package x chip x dtype column with CANN's tikicpulib."""
    env = dict(os.environ if env is None else env)
    readiness(env, cann_path).require("opkit build")
    cann = cann_env.find(env, cann_path)
    assert cann is not None
    made = []
    for spec, chip, column in plan(specs, chips):
        target = write_project(spec, cann, chip, column, jobs)
        if progress:
            progress(f"{target.label}: CPU-debug build with {cann.tikicpulib_cmake} (tikicpulib::"
                     f"{tikicpulib_chip(chip)})")
        build_exe(target, cann, jobs, env)
        made.append(target)
    return made
