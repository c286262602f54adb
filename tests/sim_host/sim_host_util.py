"""Helpers of the host-side simulator tests: harness executables built by opkit's build (cached by content)
and requests run through them."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit import sim  # noqa: F401 - other tests reach the simulator helpers through this module
from opkit import soc as socdata
from opkit.build import kernel_entry, program, sim_backend
from opkit.build.cache import tree_files
from opkit.build.program import Source
from opkit.spec import load as load_spec

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CPP = HERE / "cpp"
AXPY = ROOT / "ops" / "examples" / "axpy_relu"
HARNESS_MAIN = ROOT / "opkit" / "sim" / "host" / "harness_main.cpp"
CHIP = "ascend910b2"
OPT = "-O1"

# The test operators' kernels, each in a package folder (op.yaml, op_kernel/<name>.cpp) whose launch shim is the
# one opkit's build generates; their host sources are cpp/probe_op.cpp and cpp/rank_sum_op.cpp.
OPS = CPP / "ops"


def kernel_unit(pkg: Path, column: int = 0) -> Source:
    """The kernel translation unit of the package at ``pkg`` as opkit's build makes it: the launch shim the build
    generates (kernel_entry.shim_source, with the kernel types the kernel declares) around the package's kernel,
    with the column's DTYPE_/ORIG_DTYPE_/FORMAT_ defines and op_kernel/ (and cpp/) on the include path."""
    spec = load_spec(pkg, check_files=False)
    kdir = spec.src_dir / "op_kernel"
    files = kernel_entry.kernel_files(kernel_entry.kernel_source(spec), [kdir, CPP])
    text = kernel_entry.shim_source(spec, kernel_types=kernel_entry.declared_kernel_types(files))
    shim = program.write_source(text, f"entry-{spec.name}")
    return Source(shim, include_dirs=(kdir, CPP), flags=tuple(sim_backend.dtype_defines(spec, column)))


def _axpy_sources(dtype: str) -> list[Source]:
    spec = load_spec(AXPY)
    column = spec.inputs[0].dtypes.index(dtype)
    return [*(Source(f) for f in sorted((AXPY / "op_host").glob("*.cpp"))), kernel_unit(AXPY, column),
            Source(HARNESS_MAIN)]


def build_harnesses() -> dict[str, Path]:
    """name -> harness executable: axpy_float16, axpy_bfloat16, probe, probe_list, probe_host_only (no kernel)."""
    axpy_files = tree_files(AXPY / "op_host") + tree_files(AXPY / "op_kernel")  # op_host includes ../op_kernel
    host = Source(CPP / "probe_op.cpp")
    deps = [CPP / "probe_matmul_tiling.h"]
    plans = {
        "axpy_float16": program.plan_program(_axpy_sources("float16"), chip=CHIP, opt=OPT, deps=axpy_files,
                                             name="axpy_float16"),
        "axpy_bfloat16": program.plan_program(_axpy_sources("bfloat16"), chip=CHIP, opt=OPT, deps=axpy_files,
                                              name="axpy_bfloat16"),
        "probe": program.plan_program([host, kernel_unit(OPS / "probe"), Source(HARNESS_MAIN)], chip=CHIP, opt=OPT,
                                      deps=deps, name="probe"),
        "probe_list": program.plan_program([host, kernel_unit(OPS / "probe_list"), Source(HARNESS_MAIN)], chip=CHIP,
                                           opt=OPT, deps=deps, name="probe_list"),
        "probe_host_only": program.plan_program([host, Source(HARNESS_MAIN)], chip=CHIP, opt=OPT, name="probe_host_only"),
    }
    built = program.build_programs(list(plans.values()))
    return {name: p.exe for name, p in zip(plans, built, strict=True)}


def chip_request(chip: str = CHIP) -> dict[str, Any]:
    """The request's chip object: the chip's fields in opkit/data/socs.yaml."""
    return {k: v for k, v in socdata.chip(chip).items() if k != "sources"}


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    result: dict[str, Any] | None


def run_harness(exe: Path, *requests: Path) -> RunResult:
    r = subprocess.run([str(exe), "run", *map(str, requests)], capture_output=True, text=True, timeout=120)
    res = None
    last = Path(str(requests[-1]) + ".result.json")
    if r.returncode == 0 and last.is_file():
        res = json.loads(last.read_text(encoding="utf-8"))
    return RunResult(r.returncode, r.stdout, r.stderr, res)


def write_request(path: Path, req: dict[str, Any]) -> Path:
    path.write_text(json.dumps(req), encoding="utf-8")
    return path


def build_program(name: str, out_dir: Path | None = None) -> Path:
    """Compile the stand-alone check program cpp/<name>.cpp against the simulator's headers with
    -Wall -Wextra -Werror (a header that warns fails the test); returns the executable (cached by content),
    or its copy ``out_dir/<name>`` when ``out_dir`` is given."""
    exe = program.compile_program([CPP / f"{name}.cpp"], chip=CHIP, opt=OPT,
                                  flags=["-Wall", "-Wextra", "-Werror"]).exe
    if out_dir is None:
        return exe
    return Path(shutil.copy2(exe, Path(out_dir) / name))


def key_values(exe: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """Run a check program that prints key=value lines; returns them (the program must exit 0)."""
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"{exe.name} {' '.join(args)} exited {r.returncode}:\n{r.stderr[-4000:]}")
    out = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition("=")
        out[key] = value
    return out
