"""The ``cann-cpu`` backend: the kernel built in CANN's own CPU-debug mode (tikicpulib), run on this CPU.

CANN's CPU-debug ("twin debug") mode compiles the unmodified kernel with g++ against the toolkit's
``tikicpulib`` (its CMake package ``tikicpulib::<chip>`` brings the headers, the chip model and the
``ICPU_RUN_KF`` launcher); a second opinion beside opkit's simulator on the same kernel.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from opkit.backends import cann_env
from opkit.backends.base import Need, Readiness, cmake_need, compiler_need, toolkit_need
from opkit.build.toolchain import BuildError, explain_failure
from opkit.errors import UsageError
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


def unsupported(spec: Spec) -> str | None:
    """Why this package's kernel cannot run through the generic CPU-debug launcher (None: it can)."""
    from opkit.build import kernel_entry, options
    from opkit.dtypes import DTYPES

    if any(DTYPES[d].packed for p in spec.params for d in p.dtypes):
        return "packed dtypes (int4) are not supported by the launcher"
    if any(p.param == "dynamic" for p in spec.params):
        return "dynamic (list) tensors need CANN's list-tensor descriptors, which the launcher does not build"
    if any(o.inplace is not None or o.ref for o in spec.outputs):
        return "in-place and reference outputs are not supported by the launcher"
    if kernel_entry.is_template_kernel(spec):
        return "a template kernel needs the tiling key's template arguments (CANN's generated dispatch)"
    if kernel_entry.registers_tiling_class(options.package_build(spec).host_sources):
        return ("its tiling data is a REGISTER_TILING_DATA_CLASS class, whose kernel-side struct CANN generates in "
                "its op project (the cann backend), not in CPU-debug mode")
    return None


LAUNCHER = """// The CPU-debug launcher of {op_type}, written by opkit (--backend cann-cpu): tikicpulib runs the kernel.
// argv: tiling_key block_dim, then one word per kernel parameter: r:FILE:BYTES (read in), w:FILE:BYTES (written
// back after the run), z:BYTES (zeroed: the workspace), n (absent optional input).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void {name}({params});

static uint8_t* arg(const char* word, std::string* out_path, size_t* out_bytes) {{
    std::string w(word);
    if (w == "n") return nullptr;
    char kind = w[0];
    std::string rest = w.substr(2);
    std::string path;
    if (kind != 'z') {{ size_t c = rest.rfind(':'); path = rest.substr(0, c); rest = rest.substr(c + 1); }}
    size_t bytes = std::strtoull(rest.c_str(), nullptr, 10);
    uint8_t* p = static_cast<uint8_t*>(AscendC::GmAlloc(bytes ? bytes : 32));
    std::memset(p, 0, bytes ? bytes : 32);
    if (kind == 'r') {{
        FILE* f = std::fopen(path.c_str(), "rb");
        if (!f || std::fread(p, 1, bytes, f) != bytes) {{
            std::fprintf(stderr, "cannot read %s\\n", path.c_str());
            std::exit(3);
        }}
        std::fclose(f);
    }}
    if (kind == 'w') {{ *out_path = path; *out_bytes = bytes; }}
    return p;
}}

int main(int argc, char** argv) {{
    if (argc != {argc}) {{ std::fprintf(stderr, "usage: tiling_key block_dim and {nargs} parameters\\n"); return 2; }}
    const uint64_t key = std::strtoull(argv[1], nullptr, 10);
    const uint32_t blocks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    uint8_t* a[{nargs}];
    std::string paths[{nargs}];
    size_t sizes[{nargs}] = {{0}};
    for (int i = 0; i < {nargs}; ++i) a[i] = arg(argv[3 + i], &paths[i], &sizes[i]);
    AscendC::SetKernelMode(AscendC::KernelMode::{mode});
    ICPU_SET_TILING_KEY(key);
    ICPU_RUN_KF({name}, blocks, {call});
    for (int i = 0; i < {nargs}; ++i) {{
        if (paths[i].empty()) continue;
        FILE* f = std::fopen(paths[i].c_str(), "wb");
        if (!f || std::fwrite(a[i], 1, sizes[i], f) != sizes[i]) {{
            std::fprintf(stderr, "cannot write %s\\n", paths[i].c_str());
            return 3;
        }}
        std::fclose(f);
    }}
    for (int i = 0; i < {nargs}; ++i) if (a[i]) AscendC::GmFree(a[i]);
    return 0;
}}
"""

CMAKE = """# CANN CPU-debug build of {op_type} [{label}], written by opkit (--backend cann-cpu).
cmake_minimum_required(VERSION 3.16)
project(opkit_cpu_debug LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(tikicpulib REQUIRED HINTS {hints})
add_executable(opkit_cpu_debug launcher.cpp {kernel})
target_compile_definitions(opkit_cpu_debug PRIVATE ASCENDC_CPU_DEBUG {defines})
target_include_directories(opkit_cpu_debug PRIVATE {includes})
{options}target_link_libraries(opkit_cpu_debug PRIVATE tikicpulib::{chip})
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kernel_params(spec: Spec) -> list[str]:
    return [p.name for p in spec.inputs] + [o.opdef_name for o in spec.device_outputs] + ["workspace", "tiling"]


def write_project(spec: Spec, cann: cann_env.Cann, chip: str, column: int) -> CpuExe:
    from opkit.build import options
    from opkit.build.sim_backend import dtype_defines

    why = unsupported(spec)
    if why is not None:
        raise UsageError(f"{spec.name}: --backend cann-cpu cannot launch this kernel: {why}; verify it on the "
                         "simulator (the default backend) or build it with --backend cann")
    label = spec.column_label(column)
    out = CpuExe(spec, chip, column, spec.dir / BUILD_DIR / f"{chip}-{label}")
    out.dir.mkdir(parents=True, exist_ok=True)
    names = kernel_params(spec)
    launcher = LAUNCHER.format(op_type=spec.op_type, name=spec.name, params=", ".join(f"GM_ADDR {n}" for n in names),
                               argc=len(names) + 3, nargs=len(names), mode=MODES.get(spec.kernel, "AIV_MODE"),
                               call=", ".join(f"a[{i}]" for i in range(len(names))))
    pkg = options.package_build(spec)
    incs = [str(spec.src_dir / "op_kernel"), str(spec.src_dir / "op_host")] + \
        [f[2:] for f in pkg.flags if f.startswith("-I")]
    defs = [d[2:] for d in dtype_defines(spec, column)] + [f[2:] for f in pkg.flags if f.startswith("-D")]
    rest = [f for f in pkg.flags if not f.startswith(("-I", "-D"))]
    hints = " ".join(_q(str(cann.root / d)) for d in cann_env.TIKICPULIB_CMAKE_DIRS)
    text = CMAKE.format(op_type=spec.op_type, label=label, hints=hints,
                        kernel=_q(str(spec.src_dir / "op_kernel" / f"{spec.name}.cpp")),
                        defines=" ".join(_q(d) for d in defs), includes=" ".join(_q(i) for i in incs),
                        options=f"target_compile_options(opkit_cpu_debug PRIVATE {' '.join(_q(f) for f in rest)})\n"
                        if rest else "", chip=tikicpulib_chip(chip))
    for name, content in (("launcher.cpp", launcher), ("CMakeLists.txt", text)):
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
        target = write_project(spec, cann, chip, column)
        if progress:
            progress(f"{target.label}: CPU-debug build with {cann.tikicpulib_cmake} (tikicpulib::"
                     f"{tikicpulib_chip(chip)})")
        build_exe(target, cann, jobs, env)
        made.append(target)
    return made
