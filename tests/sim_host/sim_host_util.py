"""Helpers of the host-side simulator tests: build harness executables (cached by a hash of every
source) and run requests through them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit import sim
from opkit import soc as socdata

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CPP = HERE / "cpp"
AXPY = ROOT / "ops" / "examples" / "axpy_relu"
HARNESS_MAIN = ROOT / "opkit" / "sim" / "host" / "harness_main.cpp"
CHIP = "ascend910b2"
CACHE = Path(tempfile.gettempdir()) / "opkit-sim-host-tests"

DTYPE_DEFINES = {
    "float16": ("half", 1),
    "bfloat16": ("bfloat16_t", 27),
    "float32": ("float", 0),
}


def _tree_digest() -> str:
    h = hashlib.sha256()
    dirs = [
        ROOT / "opkit" / "sim" / "include",
        ROOT / "opkit" / "sim" / "host",
        CPP,
        AXPY / "op_host",
        AXPY / "op_kernel",
    ]
    for d in dirs:
        for f in sorted(d.rglob("*")):
            if f.is_file() and f.suffix in {".h", ".cpp", ".hpp"}:
                h.update(str(f.relative_to(ROOT)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _flags() -> list[str]:
    return sim.cxx_flags(CHIP, opt="-O1")


@dataclass
class Unit:
    source: Path
    flags: list[str]

    def obj(self, tree: str) -> Path:
        key = hashlib.sha256(json.dumps([tree, str(self.source), self.flags]).encode()).hexdigest()[:20]
        return CACHE / "obj" / f"{self.source.stem}-{key}.o"


def _compile(cxx: str, unit: Unit, tree: str) -> Path:
    out = unit.obj(tree)
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".tmp{os.getpid()}.o")
    r = subprocess.run([cxx, *unit.flags, "-c", str(unit.source), "-o", str(tmp)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"compiling {unit.source} failed:\n{r.stderr[-6000:]}")
    tmp.replace(out)
    return out


def _prune(max_age_s: float = 2 * 86400) -> None:
    """Drop cached objects and executables nobody used for two days."""
    now = time.time()
    for d in (CACHE / "obj", CACHE / "bin"):
        for f in d.glob("*") if d.is_dir() else []:
            try:
                if now - f.stat().st_atime > max_age_s:
                    f.unlink()
            except OSError:
                pass


def _axpy_units(dtype: str) -> list[Unit]:
    cpp, ge = DTYPE_DEFINES[dtype]
    base = _flags()
    kflags = (
        base
        + [f"-I{AXPY / 'op_kernel'}"]
        + [f"-D{m}_{a}={v}" for a in "XYZ" for m, v in (("DTYPE", cpp), ("ORIG_DTYPE", ge))]
    )
    return [Unit(f, base) for f in sorted((AXPY / "op_host").glob("*.cpp"))] + [
        Unit(CPP / "shim_axpy_relu.cpp", kflags)
    ]


def _probe_units() -> list[Unit]:
    return [Unit(CPP / "probe_op.cpp", _flags()), Unit(CPP / "shim_probe.cpp", _flags())]


def build_harnesses() -> dict[str, Path]:
    """name -> harness executable: axpy_float16, axpy_bfloat16, probe, probe_host_only (no kernel)."""
    cxx = sim.find_cxx()
    tree = _tree_digest()
    _prune()
    main = Unit(HARNESS_MAIN, _flags())
    sets = {
        "axpy_float16": _axpy_units("float16"),
        "axpy_bfloat16": _axpy_units("bfloat16"),
        "probe": _probe_units(),
        "probe_host_only": _probe_units()[:1],
    }
    units = {u.obj(tree): u for us in sets.values() for u in us}
    units[main.obj(tree)] = main
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        list(pool.map(lambda u: _compile(cxx, u, tree), units.values()))
    out = {}
    for name, us in sets.items():
        objs = [str(u.obj(tree)) for u in us] + [str(main.obj(tree))]
        exe = CACHE / "bin" / f"{name}-{hashlib.sha256(''.join(objs).encode()).hexdigest()[:16]}"
        if not exe.is_file():
            exe.parent.mkdir(parents=True, exist_ok=True)
            tmp = exe.with_name(exe.name + f".tmp{os.getpid()}")
            r = subprocess.run([cxx, "-pthread", *objs, "-o", str(tmp)], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"linking {name} failed:\n{r.stderr[-4000:]}")
            tmp.replace(exe)
        out[name] = exe
    return out


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


def build_program(name: str, out_dir: Path) -> Path:
    """Compile the stand-alone check program cpp/<name>.cpp against the simulator's headers with
    -Wall -Wextra -Werror (a header that warns fails the test); returns the executable."""
    exe = out_dir / name
    cmd = [sim.find_cxx(), *_flags(), "-Wall", "-Wextra", "-Werror", str(CPP / f"{name}.cpp"), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"compiling {name}.cpp failed:\n{r.stderr[-6000:]}")
    return exe


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
