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
from opkit.build import program
from opkit.build.cache import tree_files
from opkit.build.program import Source

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CPP = HERE / "cpp"
AXPY = ROOT / "ops" / "examples" / "axpy_relu"
HARNESS_MAIN = ROOT / "opkit" / "sim" / "host" / "harness_main.cpp"
CHIP = "ascend910b2"
OPT = "-O1"

DTYPE_DEFINES = {
    "float16": ("half", 1),
    "bfloat16": ("bfloat16_t", 27),
    "float32": ("float", 0),
}


def _axpy_sources(dtype: str) -> list[Source]:
    cpp, ge = DTYPE_DEFINES[dtype]
    defines = tuple(f"{m}_{a}={v}" for a in "XYZ" for m, v in (("DTYPE", cpp), ("ORIG_DTYPE", ge)))
    shim = Source(CPP / "shim_axpy_relu.cpp", defines=defines, include_dirs=(AXPY / "op_kernel",))
    return [*(Source(f) for f in sorted((AXPY / "op_host").glob("*.cpp"))), shim, Source(HARNESS_MAIN)]


def build_harnesses() -> dict[str, Path]:
    """name -> harness executable: axpy_float16, axpy_bfloat16, probe, probe_host_only (no kernel)."""
    axpy_files = tree_files(AXPY / "op_host") + tree_files(AXPY / "op_kernel")  # op_host includes ../op_kernel
    probe = [Source(CPP / "probe_op.cpp"), Source(CPP / "shim_probe.cpp"), Source(HARNESS_MAIN)]
    plans = {
        "axpy_float16": program.plan_program(_axpy_sources("float16"), chip=CHIP, opt=OPT, deps=axpy_files,
                                             name="axpy_float16"),
        "axpy_bfloat16": program.plan_program(_axpy_sources("bfloat16"), chip=CHIP, opt=OPT, deps=axpy_files,
                                              name="axpy_bfloat16"),
        "probe": program.plan_program(probe, chip=CHIP, opt=OPT, name="probe"),
        "probe_host_only": program.plan_program([probe[0], probe[2]], chip=CHIP, opt=OPT, name="probe_host_only"),
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
