"""A fake CANN toolkit for tests: a folder laid out as CANN installs itself, whose tools are small scripts.

``make_fake_cann(tmp)`` writes:

* ``version.cfg`` and ``set_env.sh`` as the toolkit has them;
* ``bin/bisheng``: records its arguments, "compiles" a kernel source into an object file, and fails as
  bisheng (clang) does, ``file:line:col: error: ...``, on a source line holding ``FAKE_CANN_ERROR``;
* ``lib64/libascendcl.so`` and ``lib64/libnnopbase.so`` built with g++ from tests/fake_cann_runtime.py: CANN's
  runtime and aclnn base as far as a device run uses them (aclInit, aclrtSetDevice, aclrtMalloc/Memcpy with host
  memory, aclCreateTensor, aclCreateTensorList...), recording each call; ``FAKE_CANN_NO_DEVICE=1`` makes
  aclrtSetDevice fail as it does without an NPU, ``FAKE_CANN_BAD_DEVICE=N`` makes it fail for device N only;
* ``lib64/libhccl.so`` (g++ too): HcclGetRootInfo, HcclCommInitRootInfo, HcclGetCommName, HcclCommDestroy, whose
  communicators exchange data between the rank processes through files (the fake MatmulAllReduce all-reduces
  with them); ``FAKE_HCCL_HANG_RANK=r`` makes rank r hang in the collective;
* ``bin/msopgen``: ``msopgen gen -i JSON -f aclnn -c ai_core-<soc> -lan cpp -out DIR`` writes an msOpGen-like Ascend C
  project (CMakePresets.json with msOpGen's cache variables, build.sh, the CMake wiring with the ``npu_op_*``
  calls, the op_host/op_kernel stubs and tiling header) and fails as msOpGen does without ``-lan cpp``;
* ``bin/msprof`` and ``bin/mssanitizer``: record their arguments and run the program they are given;
  ``msprof op --output=DIR`` then writes ``DIR/OPPROF_*/OpBasicInfo.csv`` with a Task Duration of
  ``FAKE_TASK_DURATION_US``; ``mssanitizer`` reports an illegal read when ``FAKE_CANN_SANITIZER_ERROR`` is set;
* ``lib64/cmake/asc-config.cmake`` and ``compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake``:
  the operator-project CMake functions (``npu_op_package``, ``npu_op_code_gen``, ``npu_op_library``,
  ``npu_op_kernel_sources``, ``npu_op_kernel_options``, ``npu_op_kernel_library``, ``npu_op_package_add``)
  as real CMake code that records each call and adds the ``binary`` and ``package`` targets; ``binary``
  runs bisheng on every kernel entry for every compute unit, ``package`` builds ``libcust_opapi.so`` with
  g++ from a small C file exporting ``aclnn<Op>GetWorkspaceSize`` and ``aclnn<Op>`` (which compute the op, for
  the ops of ``FAKE_OPS``, from the fake's aclTensor data; ``FAKE_CANN_WRONG_RESULT=1`` makes them wrong) and writes
  ``build_out/custom_opp_<os>_<arch>.run``, a self-extracting script that installs into
  ``$ASCEND_OPP_PATH/vendors/<vendor>`` or ``--install-path=DIR/vendors/<vendor>`` (with ``bin/set_env.bash``);
* ``tools/tikicpulib/lib``: a stand-in CPU-debug library: ``tikicpulib.h`` and ``kernel_operator.h`` (which serve
  CANN's CPU-debug interface from opkit's simulator headers, standing in for CANN's headers and chip model; as
  CANN's, they define no ``GET_TILING_DATA`` for a ``REGISTER_TILING_DATA_CLASS`` class, and a kernel given the
  simulator build's tiling header does not compile),
  ``libtikicpulib_fake.so`` built with g++ (it records that it ran), and ``tikicpulib-config.cmake`` with the
  ``tikicpulib::<Chip>`` targets (``Ascend910B2``...).

Every tool appends one JSON line ``{"tool", "argv", "cwd"}`` to ``calls.jsonl`` in the tree, so tests can
check the commands. ``FAKE_CANN_FAIL=package`` in the environment makes the package step fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_cann_runtime import ACL_C, FAKE_OPS, FAKE_OPS_C, HCCL_C, NNOPBASE_C
from helpers import fresh_copy

FAKE_VERSION = "8.5.0"

_RECORD = """
import json, os, sys
def record(tool):
    with open({log!r}, "a") as fh:
        fh.write(json.dumps({{"tool": tool, "argv": sys.argv[1:], "cwd": os.getcwd()}}) + "\\n")
"""

BISHENG = """
{record}
record("bisheng")
args = sys.argv[1:]
if args == ["--version"]:
    print("BiSheng Compiler 2.5.0 (fake CANN)")
    sys.exit(0)
src = next((a for a in args if a.endswith((".cpp", ".cc", ".cce"))), None)
out = args[args.index("-o") + 1] if "-o" in args else None
if src is None or out is None:
    print("bisheng: error: no input files", file=sys.stderr)
    sys.exit(1)
for n, line in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
    col = line.find("FAKE_CANN_ERROR")
    if col >= 0:
        print(f"{{src}}:{{n}}:{{col + 1}}: error: use of undeclared identifier 'FAKE_CANN_ERROR'", file=sys.stderr)
        print("1 error generated.", file=sys.stderr)
        sys.exit(1)
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
open(out, "w").write("fake kernel object of " + src + "\\n")
"""

RUNNER = """
{record}
import os
record({tool!r})
args = sys.argv[1:]
if args == ["--version"]:
    print("{tool} (fake CANN) 1.0")
    sys.exit(0)
if {tool!r} == "msprof" and args[:1] == ["op"]:
    args = args[1:]
opts = []
while args and args[0].startswith("--"):
    opts.append(args.pop(0))
rc = subprocess.call(args) if args else 0
log = next((o.split("=", 1)[1] for o in opts if o.startswith("--log-file=")), None)
if {tool!r} == "mssanitizer" and os.environ.get("FAKE_CANN_SANITIZER_ERROR"):
    text = ("====== ERROR: illegal read of size 32\\n======    at 0x12c0c0002000 on GM in axpy_relu\\n"
            "======    in block aiv(0) on device 0\\n")
    open(log, "w").write(text) if log else sys.stderr.write(text)
out = next((o.split("=", 1)[1] for o in opts if o.startswith("--output=")), None)
if {tool!r} == "msprof" and rc == 0 and out:
    folder = os.path.join(out, "OPPROF_20260101000000_FAKE")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "OpBasicInfo.csv"), "w") as fh:
        fh.write("Op Name,Op Type,Task Duration(us),Block Dim\\n")
        fh.write("fake_kernel,fake,{duration},48\\n")
sys.exit(rc)
"""

FAKE_TASK_DURATION_US = 12.5  # what the fake msprof reports

MSOPGEN = """
{record}
import json
record("msopgen")
args = sys.argv[1:]
opt = {{args[i]: args[i + 1] for i in range(1, len(args) - 1) if args[i].startswith("-")}}
if args[:1] != ["gen"] or "-i" not in opt or "-out" not in opt:
    print("usage: msopgen gen -i JSON -f FRAMEWORK -c ai_core-<soc> -lan cpp -out DIR", file=sys.stderr)
    sys.exit(1)
if opt.get("-lan", "py") != "cpp":
    print("msopgen: ERROR: -lan py generates a TBE (DSL) project; give -lan cpp for Ascend C", file=sys.stderr)
    sys.exit(1)
unit = opt.get("-c", "")
if not unit.startswith("ai_core-"):
    print(f"msopgen: ERROR: compute unit {{unit!r}}: give ai_core-<soc>", file=sys.stderr)
    sys.exit(1)
try:
    op = json.load(open(opt["-i"]))[0]["op"]
except (OSError, ValueError, IndexError, KeyError) as exc:
    print(f"msopgen: ERROR: {{opt['-i']}}: not an operator prototype file ({{exc}})", file=sys.stderr)
    sys.exit(1)
snake = op[0].lower() + "".join(("_" + c.lower()) if c.isupper() and (op[i - 1].islower() or op[i - 1].isdigit())
                                else c.lower() for i, c in enumerate(op) if i)
out = opt["-out"]
def put(rel, text):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)
def var(kind, value):
    return {{"type": kind, "value": value}}
cache = {{"CMAKE_BUILD_TYPE": var("STRING", "Release"), "ENABLE_SOURCE_PACKAGE": var("BOOL", "True"),
         "ENABLE_BINARY_PACKAGE": var("BOOL", "True"), "ASCEND_COMPUTE_UNIT": var("STRING", unit[len("ai_core-"):]),
         "ENABLE_TEST": var("BOOL", "True"), "vendor_name": var("STRING", "customize"),
         "ASCEND_CANN_PACKAGE_PATH": var("PATH", os.environ.get("ASCEND_HOME_PATH", "/usr/local/Ascend/latest")),
         "ASCEND_PYTHON_EXECUTABLE": var("STRING", "python3"),
         "CMAKE_INSTALL_PREFIX": var("PATH", "${{sourceDir}}/build_out"), "ENABLE_CROSS_COMPILE": var("BOOL", "False"),
         "CMAKE_CROSS_PLATFORM_COMPILER": var("PATH", "/usr/bin/aarch64-linux-gnu-g++"),
         "ASCEND_PACK_SHARED_LIBRARY": var("BOOL", "False")}}
put("CMakePresets.json", json.dumps({{"version": 1, "configurePresets": [{{"name": "default", "generator": "Unix Makefiles",
    "binaryDir": "${{sourceDir}}/build_out", "cacheVariables": cache}}]}}, indent=4))
put("build.sh", "#!/bin/bash\\ncmake -S . -B build_out --preset=default && cmake --build build_out --target binary package\\n")
put("CMakeLists.txt", "cmake_minimum_required(VERSION 3.16.0)\\nproject(opp)\\nfind_package(ASC REQUIRED)\\n"
    "npu_op_package(${{vendor_name}}\\n    TYPE RUN\\n    CONFIG\\n        ENABLE_SOURCE_PACKAGE ${{ENABLE_SOURCE_PACKAGE}}\\n"
    "        ENABLE_BINARY_PACKAGE ${{ENABLE_BINARY_PACKAGE}}\\n        INSTALL_PATH ${{CMAKE_BINARY_DIR}}/\\n)\\n"
    "add_subdirectory(op_host)\\nadd_subdirectory(op_kernel)\\n")
put("op_host/CMakeLists.txt", "aux_source_directory(${{CMAKE_CURRENT_SOURCE_DIR}} ops_srcs)\\n"
    "npu_op_code_gen(SRC ${{ops_srcs}} PACKAGE ${{vendor_name}} OUT_DIR ${{ASCEND_AUTOGEN_PATH}})\\n"
    "npu_op_library(cust_optiling TILING ${{ops_srcs}})  # tiling\\n"
    "file(GLOB autogen_aclnn_src ${{ASCEND_AUTOGEN_PATH}}/aclnn_*.cpp)\\n"
    "npu_op_library(cust_opapi ACLNN ${{autogen_aclnn_src}})\\n"
    "npu_op_library(cust_op_proto GRAPH ${{ops_srcs}} ${{ASCEND_AUTOGEN_PATH}}/op_proto.cc)\\n"
    "npu_op_package_add(${{vendor_name}}\\n    LIBRARY\\n        cust_optiling\\n        cust_opapi\\n        cust_op_proto\\n)\\n")
put(f"op_host/{{snake}}.cpp", f'#include "register/op_def_registry.h"\\nnamespace ops {{{{\\nclass {{op}} : public OpDef {{{{}}}};\\n'
    f"OP_ADD({{op}});\\n}}}}\\n")
put("op_kernel/CMakeLists.txt", f"npu_op_kernel_sources(ascendc_kernels\\n    OP_TYPE {{op}}\\n    KERNEL_FILE {{snake}}.cpp\\n)\\n"
    "npu_op_kernel_library(ascendc_kernels\\n    SRC_BASE ${{CMAKE_SOURCE_DIR}}/op_kernel/\\n"
    "    TILING_LIBRARY cust_optiling\\n)\\nnpu_op_package_add(${{vendor_name}}\\n    LIBRARY\\n        ascendc_kernels\\n)\\n")
put(f"op_kernel/{{snake}}.cpp", f'#include "kernel_operator.h"\\nextern "C" __global__ __aicore__ void {{snake}}() {{{{}}}}\\n')
put(f"op_kernel/{{snake}}_tiling.h", "#pragma once\\nstruct TilingData {{{{ uint32_t totalLength; }}}};\\n")
print(f"INFO: Generation completed: {{out}}")
"""

ASC_CONFIG = """# fake CANN: asc-config.cmake
if(NOT DEFINED ENV{ASCEND_HOME_PATH})
    message(FATAL_ERROR "ERROR: ASCEND_HOME_PATH environment variable is not set! source set_env.sh first.")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../../compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake)
"""

FUNC_CMAKE = r"""# fake CANN: the operator-project functions, recording each call into build_out/fake_cann_calls.txt
set(ASCEND_AUTOGEN_PATH ${CMAKE_BINARY_DIR}/autogen)
set(FAKE_CANN_CALLS ${CMAKE_BINARY_DIR}/fake_cann_calls.txt)
file(WRITE ${FAKE_CANN_CALLS} "")
set(FAKE_CANN_PACK __PACK__)
set(FAKE_PYTHON __PYTHON__)

function(fake_record name)
  string(REPLACE ";" "\t" joined "${ARGN}")
  file(APPEND ${FAKE_CANN_CALLS} "${name}\t${joined}\n")
endfunction()

function(npu_op_package target_package_name)
  fake_record(npu_op_package ${target_package_name} ${ARGN})
  file(APPEND ${FAKE_CANN_CALLS} "ASCEND_COMPUTE_UNIT\t${ASCEND_COMPUTE_UNIT}\n")
  add_custom_target(binary COMMAND ${FAKE_PYTHON} ${FAKE_CANN_PACK} binary ${FAKE_CANN_CALLS} ${CMAKE_BINARY_DIR})
  add_custom_target(package COMMAND ${FAKE_PYTHON} ${FAKE_CANN_PACK} package ${FAKE_CANN_CALLS} ${CMAKE_BINARY_DIR})
endfunction()

function(npu_op_code_gen)
  cmake_parse_arguments(GEN "" "PACKAGE;OUT_DIR" "SRC" ${ARGN})
  foreach(src ${GEN_SRC})
    if(NOT EXISTS ${src})
      message(FATAL_ERROR "npu_op_code_gen: ${src} does not exist")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${GEN_OUT_DIR})
  fake_record(npu_op_code_gen ${ARGN})
endfunction()

function(npu_op_library target_name target_type)
  fake_record(npu_op_library ${target_name} ${target_type} ${ARGN})
  # a real (never built) library, as CANN's are, so target_include_directories(... PRIVATE ...) is accepted
  file(WRITE ${CMAKE_BINARY_DIR}/fake_cann_empty.c "")
  add_library(${target_name} STATIC EXCLUDE_FROM_ALL ${CMAKE_BINARY_DIR}/fake_cann_empty.c)
endfunction()

function(npu_op_kernel_sources target_name)
  fake_record(npu_op_kernel_sources ${target_name} ${ARGN})
endfunction()

function(npu_op_kernel_options target_name OP_TYPE)
  fake_record(npu_op_kernel_options ${target_name} ${OP_TYPE} ${ARGN})
endfunction()

function(npu_op_kernel_library target_name)
  cmake_parse_arguments(K "" "SRC_BASE;TILING_LIBRARY" "" ${ARGN})
  fake_record(npu_op_kernel_library ${target_name} SRC_BASE ${K_SRC_BASE} TILING_LIBRARY ${K_TILING_LIBRARY})
endfunction()

function(npu_op_package_add target_package_name)
  fake_record(npu_op_package_add ${target_package_name} ${ARGN})
endfunction()
"""

PACK = r'''
"""fake CANN: the binary and package steps of an operator project."""
import base64, io, json, os, platform, subprocess, sys, tarfile
{record}
step, calls_file, build_dir = sys.argv[1:4]
record("pack-" + step)
calls = [line.rstrip("\n").split("\t") for line in open(calls_file) if line.strip()]
units = next((c[1].split(";") for c in calls if c[0] == "ASCEND_COMPUTE_UNIT"), [])
vendor = next(c[1] for c in calls if c[0] == "npu_op_package")
base = next(c[c.index("SRC_BASE") + 1] for c in calls if c[0] == "npu_op_kernel_library")
kernels = [(c[c.index("OP_TYPE") + 1], c[c.index("KERNEL_FILE") + 1]) for c in calls if c[0] == "npu_op_kernel_sources"]
options = {{c[2]: c[c.index("OPTIONS") + 1:] for c in calls if c[0] == "npu_op_kernel_options"}}
if step == "binary":
    for unit in units:
        for op, file in kernels:
            out = os.path.join(build_dir, "op_kernel", "binary", unit, op + ".o")
            cmd = ["bisheng", "-c", os.path.join(base, file), "-o", out, "--cce-aicore-arch=" + unit] + options.get(op, [])
            print("[ 50%] Building kernel " + op + " for " + unit, flush=True)
            rc = subprocess.call(cmd)
            if rc:
                sys.exit(rc)
    sys.exit(0)
if os.environ.get("FAKE_CANN_FAIL") == "package":
    print("CMake Error: fake CANN: packing the operator package failed (FAKE_CANN_FAIL=package)", file=sys.stderr)
    sys.exit(1)
stage = os.path.join(build_dir, "stage")
lib_dir = os.path.join(stage, "op_api", "lib")
inc_dir = os.path.join(stage, "op_api", "include")
os.makedirs(lib_dir, exist_ok=True)
os.makedirs(inc_dir, exist_ok=True)
src = os.path.join(build_dir, "aclnn_fake.c")
defines = []
with open(src, "w") as fh:  # the operators the fake computes (FAKE_OPS_C); the others compute nothing
    fh.write('#include "{ops_c}"\n')
    for op, _ in kernels:
        if op in {ops!r}:
            defines.append("-DFAKE_OP_" + op)
        else:
            fh.write(f"int aclnn{{op}}GetWorkspaceSize(void) {{{{ return 0; }}}}\nint aclnn{{op}}(void) {{{{ return 0; }}}}\n")
        open(os.path.join(inc_dir, f"aclnn_{{op}}.h"), "w").write(f"int aclnn{{op}}GetWorkspaceSize(void);\n")
print("[ 90%] Linking libcust_opapi.so", flush=True)
rc = subprocess.call(["g++", "-x", "c", "-shared", "-fPIC", '-DFAKE_LOG="{log}"', *defines, src,
                      "-o", os.path.join(lib_dir, "libcust_opapi.so")])
if rc:
    sys.exit(rc)
open(os.path.join(stage, "version.info"), "w").write("custom_opp_compiler_version={version}\n")
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as tar:
    tar.add(stage, arcname=".")
payload = base64.b64encode(buf.getvalue()).decode()
run = os.path.join(build_dir, f"custom_opp_{{platform.system().lower()}}_{{platform.machine()}}.run")
with open(run, "w") as fh:
    fh.write(INSTALLER.replace("__VENDOR__", vendor).replace("__PYTHON__", sys.executable) + payload + "\n")
os.chmod(run, 0o755)
print("[100%] Built target package: " + run, flush=True)
'''

INSTALLER = r'''#!/bin/bash
# fake CANN custom_opp installer
target=""
for a in "$@"; do
  case "$a" in
    --install-path=*) target="${a#--install-path=}"; custom=1 ;;
    --quiet) ;;
    *) echo "unknown option $a" >&2; exit 1 ;;
  esac
done
__RECORD__
if [ -z "$target" ]; then
  if [ -z "$ASCEND_OPP_PATH" ]; then echo "[ERROR] ASCEND_OPP_PATH is not set" >&2; exit 1; fi
  target="$ASCEND_OPP_PATH"
fi
dest="$target/vendors/__VENDOR__"
mkdir -p "$dest"
sed '1,/^__PAYLOAD__$/d' "$0" | base64 -d | tar -xzf - -C "$dest"
if [ -n "$custom" ]; then
  mkdir -p "$dest/bin"
  echo "export ASCEND_CUSTOM_OPP_PATH=$dest:\${ASCEND_CUSTOM_OPP_PATH}" > "$dest/bin/set_env.bash"
fi
echo "SUCCESS: installed into $dest"
exit 0
__PAYLOAD__
'''

TIKICPULIB_H = """// fake CANN: tikicpulib.h. CANN's CPU-debug interface, here served by opkit's simulator headers.
#pragma once
#include "{sim_header}"
#define FAKE_CANN_HEADERS_SEEN 1
extern "C" void fake_tikicpulib_mark();
static const int fake_tikicpulib_used = (fake_tikicpulib_mark(), 0);
"""

# CANN's kernel_operator.h defines no GET_TILING_DATA for a REGISTER_TILING_DATA_CLASS class: the op project's
# generated tiling header does. The stand-in serves opkit's simulator headers, but refuses a kernel that was given
# the simulator build's own tiling header (OPKIT_TILING_DATA_TYPE before any CANN header; the simulator's headers
# define a default of their own), and GET_TILING_DATA without the generated
# header names the simulator's placeholder type, which does not compile.
KERNEL_OPERATOR_H = """// fake CANN: kernel_operator.h, served by opkit's simulator headers.
#pragma once
#if defined(OPKIT_TILING_DATA_TYPE) && !defined(FAKE_CANN_HEADERS_SEEN)
#error "fake CANN: the kernel sees opkit's simulator tiling header (OPKIT_TILING_DATA_TYPE)"
#endif
#include "{sim_header}"
#define FAKE_CANN_HEADERS_SEEN 1
"""

TIKICPULIB_C = r"""
#include <cstdio>
extern "C" void fake_tikicpulib_mark() {
    if (FILE* f = std::fopen(FAKE_LOG, "a")) {
        std::fprintf(f, "{\"tool\": \"tikicpulib\", \"argv\": [], \"cwd\": \"\"}\n");
        std::fclose(f);
    }
    std::fprintf(stderr, "fake tikicpulib: CPU-debug run\n");
}
"""


def _tikicpulib_config(lib: Path) -> str:
    """tikicpulib::<Chip> for every chip opkit models: the include folders, the chip's defines, the library."""
    from opkit import sim, soc

    sim_inc = sim.include_dir()
    lines = ["# fake CANN: tikicpulib-config.cmake"]
    for chip in soc.chips():
        name = "Ascend" + chip[len("ascend"):].upper()
        defs = ";".join(d[2:] for d in sim.soc_defines(chip)).replace('"', '\\"')
        lines += [f"if(NOT TARGET tikicpulib::{name})",
                  f"  add_library(tikicpulib::{name} INTERFACE IMPORTED)",
                  f"  set_target_properties(tikicpulib::{name} PROPERTIES",
                  f'    INTERFACE_INCLUDE_DIRECTORIES "{lib / "include"};{sim_inc}"',
                  f'    INTERFACE_COMPILE_DEFINITIONS "{defs}"',
                  '    INTERFACE_COMPILE_OPTIONS "-pthread"',
                  f'    INTERFACE_LINK_LIBRARIES "{lib / "libtikicpulib_fake.so"};-pthread")',
                  "endif()"]
    return "\n".join(lines) + "\n"


@dataclass
class FakeCann:
    root: Path
    bin: Path
    log: Path

    def env(self, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
        """An environment as CANN's set_env.sh leaves it (bisheng on PATH), over ``base`` (default os.environ)."""
        env = {k: v for k, v in (os.environ if base is None else base).items()
               if not k.startswith("ASCEND_") and k != "FAKE_CANN_FAIL"}
        env["PATH"] = f"{self.bin}:{env.get('PATH', '/usr/bin:/bin')}"
        env["ASCEND_HOME_PATH"] = str(self.root)
        env["ASCEND_OPP_PATH"] = str(self.root / "opp")
        env.update(extra)
        return env

    def calls(self, tool: str | None = None) -> list[dict]:
        if not self.log.is_file():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [r for r in rows if tool is None or r["tool"] == tool]


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\nimport subprocess\n{body}")
    path.chmod(0o755)


def make_fake_cann(tmp: Path, version: str = FAKE_VERSION, asc: bool = True, tikicpulib: bool = True,
                   legacy: bool = False) -> FakeCann:
    """A fake toolkit under ``tmp/Ascend/ascend-toolkit/latest`` (see the module's text)."""
    root = tmp / "Ascend" / "ascend-toolkit" / "latest"
    root.mkdir(parents=True, exist_ok=True)
    log = root / "calls.jsonl"
    record = _RECORD.format(log=str(log))
    (root / "version.cfg").write_text(f"toolkit_running_version=[{version}.1:{version}]\n")
    (root.parent / "set_env.sh").write_text(f"export ASCEND_HOME_PATH={root}\nexport ASCEND_OPP_PATH={root}/opp\n"
                                            f"export PATH={root}/bin:$PATH\n")
    (root / "opp" / "vendors").mkdir(parents=True, exist_ok=True)
    bin_dir = root / "bin"
    _script(bin_dir / "bisheng", BISHENG.format(record=record))
    _script(bin_dir / "msopgen", MSOPGEN.format(record=record))
    for tool in ("msprof", "mssanitizer"):
        _script(bin_dir / tool, RUNNER.format(record=record, tool=tool, duration=FAKE_TASK_DURATION_US))
    if asc:
        kcm = root / "compiler" / "tikcpp" / "ascendc_kernel_cmake"
        pack = kcm / "fwk_modules" / "fake_pack.py"
        pack.parent.mkdir(parents=True, exist_ok=True)
        rec_sh = f'echo "{{\\"tool\\": \\"installer\\", \\"argv\\": \\"$*\\", \\"cwd\\": \\"$PWD\\"}}" >> {log}'
        installer = INSTALLER.replace("__RECORD__", rec_sh)
        ops_c = pack.parent / "fake_aclnn_ops.c"
        ops_c.write_text(FAKE_OPS_C)
        pack.write_text(f"INSTALLER = {installer!r}\n" + PACK.format(record=record, version=version, ops=FAKE_OPS,
                                                                         log=str(log), ops_c=str(ops_c)))
        (kcm / "fwk_modules" / "func.cmake").write_text(
            FUNC_CMAKE.replace("__PACK__", str(pack)).replace("__PYTHON__", sys.executable))
        (root / "lib64" / "cmake").mkdir(parents=True, exist_ok=True)
        (root / "lib64" / "cmake" / "asc-config.cmake").write_text(ASC_CONFIG)
    cc = shutil.which("g++")
    if cc:
        (root / "lib64").mkdir(parents=True, exist_ok=True)
        for name, src in (("libascendcl.so", ACL_C), ("libnnopbase.so", NNOPBASE_C), ("libhccl.so", HCCL_C)):
            c = root / "lib64" / (name + ".c")
            c.write_text(src)
            subprocess.run([cc, "-x", "c", "-shared", "-fPIC", f'-DFAKE_LOG="{log}"', str(c), "-o",
                            str(root / "lib64" / name)], check=True)
    if legacy:
        (root / "tools" / "op_project_templates" / "ascendc" / "customize" / "cmake").mkdir(parents=True,
                                                                                             exist_ok=True)
    if tikicpulib:
        lib = root / "tools" / "tikicpulib" / "lib"
        (lib / "include").mkdir(parents=True, exist_ok=True)
        (lib / "cmake").mkdir(parents=True, exist_ok=True)
        from opkit import sim

        (lib / "include" / "tikicpulib.h").write_text(TIKICPULIB_H.format(sim_header=sim.include_dir() / "tikicpulib.h"))
        (lib / "include" / "kernel_operator.h").write_text(
            KERNEL_OPERATOR_H.format(sim_header=sim.include_dir() / "kernel_operator.h"))
        (lib / "fake.cpp").write_text(TIKICPULIB_C)
        (lib / "cmake" / "tikicpulib-config.cmake").write_text(_tikicpulib_config(lib))
        cxx = shutil.which("g++")
        if cxx:
            subprocess.run([cxx, "-shared", "-fPIC", f'-DFAKE_LOG="{log}"', str(lib / "fake.cpp"),
                            "-o", str(lib / "libtikicpulib_fake.so")], check=True)
    return FakeCann(root, bin_dir, log)


REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "ops" / "examples" / "axpy_relu"


# The fake CANN's projects (the op project, the CPU-debug build) are configured by real CMake and built with g++.
needs_cmake = pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("g++")),
                                 reason="needs cmake and g++ (the fake CANN's projects are configured by real CMake)")


def run_opkit(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The opkit command in a child process with the environment ``env`` (a fake CANN's, or none)."""
    return subprocess.run([sys.executable, "-m", "opkit", *args], capture_output=True, text=True, env=env, cwd=cwd)


def copy_package(tmp: Path, src: Path = EXAMPLE) -> Path:
    """A copy of a package (default: the axpy_relu example) under ``tmp``, without its build products."""
    return fresh_copy(src, tmp / src.name)


def installed_copy(fake: FakeCann, tmp: Path, src: Path, vendor: str) -> Path:
    """A copy of package ``src`` under ``tmp``, built with ``--backend cann`` for ``vendor`` and installed into
    the fake CANN (the device tests' starting point); a failing step fails the test with its output."""
    pkg = copy_package(tmp, src)
    for args in (["build", str(pkg), "--backend", "cann", "--vendor", vendor], ["install", str(pkg), "--vendor", vendor]):
        r = run_opkit(args, fake.env())
        assert r.returncode == 0, r.stdout + r.stderr
    return pkg


def no_cann_env(tmp: Path) -> dict[str, str]:
    """No CANN anywhere: no ASCEND_* variables, a HOME without Ascend/, PATH without bisheng."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env["HOME"] = str(tmp / "home")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not (Path(p) / "bisheng").exists())
    return env
