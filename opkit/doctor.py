"""`opkit doctor`: what is installed, what each missing piece blocks, and how to fix it.

The ``sim`` backend (the default) needs only Python and a C++17 compiler. The CANN pieces
(toolkit, bisheng, cmake >= 3.19, npu-smi) are what the ``cann`` and ``cann-cpu`` backends need; the
report ends with each backend's readiness (opkit.backends: the same checks the backends refuse with).

Everything is read from the environment mapping passed to :func:`diagnose` (``PATH`` included),
so the checks can be run against a fake environment.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from opkit import soc
from opkit.backends import cann_env
from opkit.backends.cann_env import toolkit_version
from opkit.build.toolchain import MIN_CLANG, MIN_GCC, compiler_candidates, compiler_kind, min_version, parse_version

MIN_PYTHON = (3, 10)
MIN_CMAKE = (3, 19)

__all__ = ["Check", "diagnose", "parse_version", "render", "sim_ready", "toolkit_version"]

NPU_BLOCKS = "NPU builds (the cann backend: opkit build --backend cann)"
SIM_BLOCKS = "the sim backend (opkit build / verify / run): every kernel is compiled with it"

_CXX17_PROGRAM = r"""
#include <cstdio>
#include <optional>
#include <tuple>
template <typename T> constexpr int width() { if constexpr (sizeof(T) == 2) { return 16; } else { return 32; } }
int main() {
    std::optional<int> v = 3;
    auto [a, b] = std::make_tuple(1, 2);
    std::printf(*v + a + b + width<short>() == 22 ? "c++17 ok\n" : "c++17 wrong\n");
    return 0;
}
"""

_F16C_PROGRAM = r"""
#include <cstdio>
#include <immintrin.h>
int main(int argc, char**) {
    float x = 1.5f + static_cast<float>(argc - 1);
    unsigned short h = _cvtss_sh(x, 0);
    std::printf(_cvtsh_ss(h) == x && h == 0x3E00 ? "f16c ok\n" : "f16c wrong\n");
    return 0;
}
"""


@dataclass
class Check:
    """One finding. ``ok`` is True (fine), False (missing or broken) or None (optional / not applicable)."""

    name: str
    ok: bool | None
    found: str
    blocks: str
    fix: str


@dataclass(frozen=True)
class Compiler:
    path: str
    kind: str  # "g++" | "clang"
    version: tuple[int, ...]
    source: str  # "$CXX" or "PATH"

    @property
    def label(self) -> str:
        return f"{self.kind} {'.'.join(map(str, self.version))} ({self.path})"


def _v(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


class _Env:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.path = self.env.get("PATH", "")

    def which(self, name: str) -> str | None:
        if os.sep in name:
            return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
        return shutil.which(name, path=self.path) if self.path else None

    def run(self, argv: list[str], timeout: float = 20, cwd: str | None = None) -> tuple[int, str]:
        """(exit code, stdout+stderr); exit code -1000 when it could not run at all."""
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=self.env, cwd=cwd,
                                  errors="replace", stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return -1000, f"timed out after {timeout:g} s"
        except OSError as exc:
            return -1000, str(exc.strerror or exc)
        return proc.returncode, (proc.stdout or "") + (proc.stderr or "")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def check_python(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> Check:
    found = f"Python {_v(version)} ({sys.executable})"
    ok = tuple(version[:2]) >= MIN_PYTHON
    return Check("Python", ok, found, "" if ok else "opkit itself",
                 "" if ok else f"install Python {_v(MIN_PYTHON)} or newer and reinstall opkit with it")


# ---------------------------------------------------------------------------------------------
# C++ compiler
# ---------------------------------------------------------------------------------------------

def _identify(e: _Env, path: str, source: str) -> Compiler | str:
    rc, out = e.run([path, "--version"])
    if rc != 0:
        return f"{path} --version failed: {_first_line(out) or f'exit code {rc}'}"
    kind = "clang" if compiler_kind(out) == "clang" else "g++"
    version = parse_version(_first_line(out)) or parse_version(out)
    if version is None:
        return f"{path}: cannot read a version from '{_first_line(out)}'"
    return Compiler(path, kind, version, source)


def _build_and_run(e: _Env, cxx: str, source: str, flags: list[str], expect: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="opkit-doctor-") as tmp:
        src = Path(tmp) / "probe.cpp"
        exe = Path(tmp) / "probe"
        src.write_text(source, encoding="utf-8")
        rc, out = e.run([cxx, *flags, str(src), "-o", str(exe)], timeout=120, cwd=tmp)
        if rc != 0:
            return False, f"does not compile with {' '.join(flags)}: {_first_line(out) or f'exit code {rc}'}"
        rc, out = e.run([str(exe)], timeout=20, cwd=tmp)
        if rc != 0 or expect not in out:
            why = f"killed by signal {-rc}" if rc < 0 and rc != -1000 else (_first_line(out) or f"exit code {rc}")
            return False, f"compiles with {' '.join(flags)} but the program fails: {why}"
    return True, ""


def check_compiler(e: _Env) -> tuple[Check, Compiler | None]:
    name = "C++17 compiler"
    fix_install = (f"install g++ {MIN_GCC} or newer (Debian/Ubuntu: sudo apt-get install g++; an older distribution: "
                   f"sudo apt-get install g++-11 and export CXX=g++-11), or clang {MIN_CLANG} or newer")
    problems: list[str] = []
    for path, source in compiler_candidates(e.env):
        c = _identify(e, path, source)
        if isinstance(c, str):
            problems.append(c)
            continue
        need = min_version(c.kind)
        if c.version[0] < need:
            problems.append(f"{c.label} is too old (needs {c.kind} {need} or newer for C++17)")
            continue
        ok, why = _build_and_run(e, c.path, _CXX17_PROGRAM, ["-std=c++17"], "c++17 ok")
        if not ok:
            problems.append(f"{c.label} {why}")
            continue
        via = " from $CXX" if c.source == "$CXX" else ""
        skipped = f" (not used: {'; '.join(problems)})" if problems else ""
        return Check(name, True, f"{c.label}{via}; a C++17 test program builds and runs{skipped}", "", ""), c
    if not problems:
        return Check(name, False, "no C++ compiler ($CXX, g++, clang++ or c++) on PATH", SIM_BLOCKS, fix_install), None
    return Check(name, False, "; ".join(problems), SIM_BLOCKS, fix_install), None


def check_f16c(e: _Env, compiler: Compiler | None) -> Check:
    name = "fast half conversions (-mf16c)"
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64", "i686", "i386", "x86"):
        return Check(name, None, f"not applicable on {machine or 'this CPU'} (F16C is an x86 extension)", "", "")
    if compiler is None:
        return Check(name, None, "not checked: no usable C++ compiler", "", "")
    ok, why = _build_and_run(e, compiler.path, _F16C_PROGRAM, ["-std=c++17", "-O1", "-mf16c"], "f16c ok")
    if ok:
        return Check(name, True, "the compiler accepts -mf16c and this CPU runs F16C instructions", "", "")
    return Check(name, None, f"not available: {compiler.label} {why}",
                 "nothing; half-precision kernels fall back to software conversions, which are much slower",
                 "none needed; a CPU with F16C (x86 since about 2012) and a compiler that accepts -mf16c are faster")


# ---------------------------------------------------------------------------------------------
# cmake and CANN
# ---------------------------------------------------------------------------------------------

def check_cmake(e: _Env, cann_wanted: bool) -> Check:
    name = "cmake"
    missing_ok = False if cann_wanted else None
    path = e.which("cmake")
    fix = f"install cmake {_v(MIN_CMAKE)} or newer (pip install cmake, or your distribution's package)"
    if path is None:
        return Check(name, missing_ok, "not found on PATH (the sim backend does not need it)", NPU_BLOCKS, fix)
    rc, out = e.run([path, "--version"])
    version = parse_version(_first_line(out)) if rc == 0 else None
    if version is None:
        return Check(name, missing_ok, f"{path}: cannot read its version ({_first_line(out) or rc})", NPU_BLOCKS, fix)
    if version[:2] < MIN_CMAKE:
        return Check(name, missing_ok, f"cmake {_v(version)} ({path}) is older than {_v(MIN_CMAKE)}, which CANN "
                     "operator projects need (CMakePresets)", NPU_BLOCKS, fix)
    return Check(name, True, f"cmake {_v(version)} ({path})", "", "")


def _toolkit(e: _Env) -> tuple[Path | None, str]:
    """The CANN toolkit directory and where it came from (opkit.backends.cann_env finds it)."""
    return cann_env.find_toolkit(e.env)


def _set_env_script(toolkit: Path) -> Path | None:
    return cann_env.set_env_script(toolkit)


def _npu_chips(text: str) -> list[str]:
    """Chip names from ``npu-smi info`` (rows ``| 0     910B2     | OK | ...``)."""
    return [m.group(2) for m in re.finditer(r"^\|\s*(\d+)\s+([A-Za-z0-9][A-Za-z0-9_]*)\s+\|\s*[A-Za-z]+", text, re.M)]


def _chip_label(name: str) -> str:
    key = name.lower() if name.lower().startswith("ascend") else "ascend" + name.lower()
    return f"{name} (opkit chip {key})" if key in soc.chips() else f"{name} (no opkit chip data)"


def check_cann(e: _Env) -> list[Check]:
    toolkit, origin = _toolkit(e)
    home_var = e.env.get("ASCEND_HOME_PATH", "").strip()
    wanted = toolkit is not None or bool(home_var)
    off = False if wanted else None  # missing CANN pieces matter only once CANN is in use
    checks: list[Check] = []
    set_env = _set_env_script(toolkit) if toolkit else None
    source_fix = f"source {set_env}" if set_env else "source <CANN install dir>/set_env.sh"
    install_fix = ("install the CANN toolkit (hiascend.com, 'CANN' downloads) and " + source_fix)

    if home_var and Path(home_var).is_dir():
        checks.append(Check("ASCEND_HOME_PATH", True, home_var, "", ""))
    elif home_var:
        checks.append(Check("ASCEND_HOME_PATH", False, f"{home_var} (no such directory)", NPU_BLOCKS,
                            f"point it at the installed toolkit: {source_fix}"))
    elif toolkit is not None:
        checks.append(Check("ASCEND_HOME_PATH", False, f"not set, but a toolkit is installed at {toolkit}",
                            NPU_BLOCKS, source_fix))
    else:
        checks.append(Check("ASCEND_HOME_PATH", None, "not set; no CANN toolkit found", NPU_BLOCKS, install_fix))

    opp = e.env.get("ASCEND_OPP_PATH", "").strip()
    if opp and Path(opp).is_dir():
        found, ok, fix = opp, True, ""
        cfg = Path(opp) / "vendors" / "config.ini"
        if cfg.is_file() and not cfg.stat().st_mode & 0o004:
            found += f"; {cfg} is not readable by other users, who then cannot load custom operators"
            ok, fix = False, f"chmod o+r {cfg} (if other users run the operators)"
        checks.append(Check("ASCEND_OPP_PATH", ok, found, "" if ok else "loading installed custom operators", fix))
    else:
        what = f"{opp} (no such directory)" if opp else "not set"
        checks.append(Check("ASCEND_OPP_PATH", False if opp else off, what,
                            "installing and loading custom operator packages (opp/vendors)", source_fix))

    custom = e.env.get("ASCEND_CUSTOM_OPP_PATH", "")
    if custom.strip():
        bad = [p for p in custom.split(":") if p and (not os.path.isabs(p) or not os.path.isdir(p))]
        found = custom if not bad else f"{custom}: " + "; ".join(
            f"'{p}' is {'relative (it depends on the current directory)' if not os.path.isabs(p) else 'missing'}"
            for p in bad)
        checks.append(Check("ASCEND_CUSTOM_OPP_PATH", not bad, found, "" if not bad else
                            "loading custom operators installed with --install-path",
                            "" if not bad else "list absolute, existing vendor folders only (source the set_env.bash "
                            "that the operator package installed)"))

    if toolkit is None:
        checks.append(Check("CANN set_env.sh", off, "no CANN toolkit found", NPU_BLOCKS, install_fix))
    elif set_env is None:
        checks.append(Check("CANN set_env.sh", False, f"no set_env.sh in {toolkit} or {toolkit.parent}", NPU_BLOCKS,
                            "reinstall the CANN toolkit; its set_env.sh sets PATH, ASCEND_HOME_PATH and friends"))
    else:
        checks.append(Check("CANN set_env.sh", True, str(set_env), "", ""))

    if toolkit is None:
        checks.append(Check("CANN toolkit version", off, "no CANN toolkit found", NPU_BLOCKS, install_fix))
    else:
        version = toolkit_version(toolkit)
        if version:
            checks.append(Check("CANN toolkit version", True, f"{version[0]} (from {version[1]}, {origin})", "", ""))
        else:
            checks.append(Check("CANN toolkit version", False, f"{toolkit}: neither version.cfg nor "
                                "*/ascend_toolkit_install.info names a version", NPU_BLOCKS,
                                "reinstall the CANN toolkit (the installation looks incomplete)"))

    bisheng = e.which("bisheng")
    if bisheng is None and toolkit is not None:
        for p in (toolkit / "compiler" / "ccec_compiler" / "bin" / "bisheng", toolkit / "bin" / "bisheng"):
            if p.is_file():
                bisheng = str(p)
                break
    if bisheng is None:
        checks.append(Check("bisheng", off, "not found (the Ascend C device compiler)", NPU_BLOCKS,
                            source_fix if toolkit else install_fix))
    else:
        rc, out = e.run([bisheng, "--version"])
        label = _first_line(out) if rc == 0 else f"--version failed ({_first_line(out) or rc})"
        on_path = "" if e.which("bisheng") else " (not on PATH: " + source_fix + ")"
        checks.append(Check("bisheng", rc == 0, f"{bisheng}: {label}{on_path}", "" if rc == 0 else NPU_BLOCKS,
                            "" if rc == 0 else "reinstall the CANN toolkit"))

    npu_smi = e.which("npu-smi")
    if npu_smi is None:
        checks.append(Check("npu-smi", None, "not found: no NPU driver on this machine (normal on a laptop or CI)",
                            "running operators on an NPU", "run on a machine with an Ascend NPU and its driver"))
    else:
        rc, out = e.run([npu_smi, "info"])
        chips = _npu_chips(out) if rc == 0 else []
        if rc != 0:
            checks.append(Check("npu-smi", False, f"{npu_smi} info failed: {_first_line(out) or rc}",
                                "running operators on an NPU", "check the NPU driver installation (npu-smi info)"))
        else:
            head = next((line for line in out.splitlines() if "npu-smi" in line or "Version" in line), "")
            driver = parse_version(head)
            counts: dict[str, int] = {}
            for c in chips:
                counts[c] = counts.get(c, 0) + 1
            listed = ", ".join(f"{n} x {_chip_label(c)}" for c, n in counts.items()) or "no NPU listed"
            drv = f"driver {_v(driver)}; " if driver else ""
            checks.append(Check("npu-smi", bool(chips), f"{drv}{listed}", "" if chips else "running on an NPU",
                                "" if chips else "check that the NPU is visible (npu-smi info)"))

    msopgen = e.which("msopgen")
    if msopgen is None and toolkit is not None:
        p = toolkit / "python" / "site-packages" / "bin" / "msopgen"
        msopgen = str(p) if p.is_file() else None
    checks.append(Check("msopgen", True if msopgen else None, msopgen or "not found",
                        "" if msopgen else "nothing in opkit (opkit import/export read and write msOpGen JSON "
                        "themselves); only CANN's own project generator",
                        "" if msopgen else "comes with the CANN toolkit: " + source_fix))
    return checks


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_torch(version_of: Callable[[str], str | None] = _dist_version) -> Check:
    """torch and torch_npu in this interpreter: torch_npu X.Y.Z(.postN) is built for torch X.Y.Z only."""
    name, blocks = "torch / torch_npu", "calling operators from PyTorch on the NPU (torch_npu fails to import)"
    torch, npu = version_of("torch"), version_of("torch_npu")
    if torch is None and npu is None:
        return Check(name, None, "not installed (only needed to call operators from PyTorch)", "", "")
    if npu is None:
        return Check(name, None, f"torch {torch}; torch_npu not installed", "calling operators from PyTorch on the NPU",
                     f"pip install torch_npu=={_v(parse_version(torch or '') or (0,))}.* (with CANN installed)")
    if torch is None:
        return Check(name, False, f"torch_npu {npu} without torch", blocks,
                     f"pip install torch=={_v(parse_version(npu) or (0,))}")
    want, have = parse_version(npu), parse_version(torch)
    if want is None or have is None or want[:3] != have[:3]:
        return Check(name, False, f"torch {torch} with torch_npu {npu}, which is built for torch "
                     f"{_v(want or (0,))}", blocks, f"pip install torch=={_v(want or (0,))}, or the torch_npu release "
                     f"for torch {_v(have or (0,))}")
    return Check(name, True, f"torch {torch}, torch_npu {npu}", "", "")


def diagnose(env: Mapping[str, str] | None = None) -> list[Check]:
    """Check this machine (or the environment ``env``, PATH included) for what opkit's backends need."""
    e = _Env(os.environ if env is None else env)
    checks = [check_python()]
    compiler_check, compiler = check_compiler(e)
    checks += [compiler_check, check_f16c(e, compiler)]
    toolkit, _ = _toolkit(e)
    cann = check_cann(e)
    wanted = toolkit is not None or bool(e.env.get("ASCEND_HOME_PATH", "").strip())
    checks.append(check_cmake(e, wanted))
    checks += cann
    checks.append(check_torch())
    checks += backend_checks(e.env)
    return checks


def backend_checks(env: Mapping[str, str]) -> list[Check]:
    """One line per backend: ready, or what it misses (the first missing piece's fix)."""
    from opkit import backends

    out = []
    for name, command, label in (("sim", "opkit build", "backend sim"), ("cann", "opkit build", "backend cann"),
                                 ("cann", "opkit verify", "backend cann (NPU runs)"),
                                 ("cann-cpu", "opkit build", "backend cann-cpu")):
        mod = backends.get(name)
        r = backends.readiness(name, env, None, command)
        if r.ready:
            out.append(Check(label, True, f"ready: {mod.SUMMARY}", "", ""))
            continue
        missing = ", ".join(n.name for n in r.missing)
        optional = name != backends.DEFAULT and cann_env.find(env) is None
        what = "verify / run / perf --backend cann: the cases on an NPU through aclnn" if command != "opkit build" \
            else f"--backend {name}: {mod.SUMMARY}"
        out.append(Check(label, None if optional else False, f"not ready: missing {missing}", what,
                         r.missing[0].fix))
    return out


def sim_ready(checks: list[Check]) -> bool:
    """Whether the sim backend can build: Python and a C++17 compiler are fine."""
    by = {c.name: c for c in checks}
    return bool(by.get("Python") and by["Python"].ok and by.get("C++17 compiler") and by["C++17 compiler"].ok)


def render(checks: list[Check]) -> str:
    """A plain-text report: one line per check, what it blocks and the fix under each problem."""
    mark = {True: "ok  ", False: "FAIL", None: "--  "}
    width = max(len(c.name) for c in checks)
    lines = []
    previous: tuple[str, str] | None = None
    for c in checks:
        lines.append(f"[{mark[c.ok]}] {c.name.ljust(width)}  {c.found}")
        if c.ok is True:
            continue
        if (c.blocks, c.fix) == previous:  # same consequence and fix as the line above: say it once
            continue
        previous = (c.blocks, c.fix)
        if c.blocks:
            lines.append(f"{'':{width + 9}}blocks: {c.blocks}")
        if c.fix:
            lines.append(f"{'':{width + 9}}fix: {c.fix}")
    lines.append("")
    lines.append("sim backend: " + ("ready" if sim_ready(checks) else "NOT ready (needs Python >= 3.10 and a C++17 "
                                                                      "compiler, see above)"))
    for c in checks:
        if c.name.startswith("backend ") and c.name != "backend sim":
            state = "ready" if c.ok else "NOT ready (" + c.found.removeprefix("not ready: ") + "; see above)"
            title = {"backend cann": "cann backend, builds", "backend cann (NPU runs)": "cann backend, NPU runs"}
            lines.append(f"{title.get(c.name, c.name.removeprefix('backend ') + ' backend')}: {state}")
    lines.append(soc_summary())
    return "\n".join(lines)


def soc_summary() -> str:
    """Which OpDef SoC keys the simulator models (with their chips) and which it only accepts in op.yaml."""
    modelled = "; ".join(f"{k} ({', '.join(soc.chips_for(k))})" for k in soc.opdef_keys())
    return (f"simulated SoCs: {modelled}\n"
            f"registered but not modelled (packages may list them; build and verify skip them): "
            f"{', '.join(soc.unmodelled_keys()) or 'none'}")
