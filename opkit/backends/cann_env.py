"""Where the CANN toolkit is and what it holds: the one place opkit looks for CANN.

The toolkit is found as ops-transformer's ``build.sh`` finds it: an explicit path (``--cann-path``),
then ``$ASCEND_HOME_PATH`` (``$ASCEND_TOOLKIT_HOME``), then the folder above ``$ASCEND_OPP_PATH``,
then the default install folders (``$HOME/Ascend/...`` for a user install, ``/usr/local/Ascend/...``
for a root one). Everything is read from an environment mapping, so it can be pointed at a fake tree.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MIN_CMAKE = (3, 19)

# Where a CANN toolkit lives when no variable names it (root installs; the $HOME ones come first).
DEFAULT_TOOLKIT_DIRS = ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/latest", "/usr/local/Ascend/cann"]

# CANN's operator-project CMake package (find_package(ASC)): the folder holding asc-config.cmake, and
# the modules it loads (fwk_modules/func.cmake: npu_op_package, npu_op_library, npu_op_kernel_library...).
ASC_CONFIG_DIRS = ("lib64/cmake", "compiler/tikcpp/ascendc_kernel_cmake")
ASC_MODULES = "compiler/tikcpp/ascendc_kernel_cmake/fwk_modules/func.cmake"
# The older msOpGen project's CMake modules (config.cmake, func.cmake, intf.cmake), which that project copies.
LEGACY_CMAKE_DIRS = ("tools/op_project_templates/ascendc/customize/cmake", "tools/ascend_project/cmake")
# The CPU-debug library (tikicpulib): its CMake package folder, newest location first.
TIKICPULIB_CMAKE_DIRS = ("tools/tikicpulib/lib/cmake", "tools/cpudebug/cmake")


def which(name: str, env: Mapping[str, str]) -> str | None:
    path = env.get("PATH", "")
    return shutil.which(name, path=path) if path else None


def default_dirs(env: Mapping[str, str]) -> list[str]:
    home = env.get("HOME", "").strip()
    mine = [f"{home}/Ascend/ascend-toolkit/latest", f"{home}/Ascend/latest", f"{home}/Ascend/cann"] if home else []
    return mine + DEFAULT_TOOLKIT_DIRS


def find_toolkit(env: Mapping[str, str], explicit: Path | str | None = None) -> tuple[Path | None, str]:
    """(the toolkit folder, where it came from); (None, "") when there is none."""
    if explicit:
        p = Path(explicit).expanduser()
        return (p.resolve(), "--cann-path") if p.is_dir() else (None, "")
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = env.get(var, "").strip()
        if value and Path(value).is_dir():
            return Path(value), f"${var}"
    opp = env.get("ASCEND_OPP_PATH", "").strip()
    if opp and Path(opp).is_dir() and (Path(opp).parent / "compiler").is_dir():
        return Path(opp).parent, "the folder above $ASCEND_OPP_PATH"
    for d in default_dirs(env):
        if Path(d).is_dir():
            return Path(d), "default location"
    return None, ""


def set_env_script(toolkit: Path) -> Path | None:
    for p in (toolkit / "set_env.sh", toolkit.parent / "set_env.sh", toolkit / "bin" / "setenv.bash"):
        if p.is_file():
            return p
    return None


def toolkit_version(toolkit: Path) -> tuple[str, Path] | None:
    """The CANN version and the file it came from.

    ``<toolkit>/version.cfg`` holds ``toolkit_running_version=[<inner>:<release>]`` (also
    ``toolkit_installed_version``); ``<toolkit>/<arch>-linux/ascend_toolkit_install.info`` holds
    ``version=<release>``; a ``<toolkit>/version.info`` with ``Version=<release>`` is the last resort.
    """
    cfg = toolkit / "version.cfg"
    if cfg.is_file():
        text = cfg.read_text(encoding="utf-8", errors="replace")
        for key in ("toolkit_running_version", "toolkit_installed_version"):
            m = re.search(rf"^{key}=\[([^\]]*)\]", text, re.M)
            if m:
                return m.group(1).split(":")[-1].strip(), cfg
    for info in [*sorted(toolkit.glob("*/ascend_toolkit_install.info")), toolkit / "version.info"]:
        if not info.is_file():
            continue
        text = info.read_text(encoding="utf-8", errors="replace")
        m = re.search(r"^version\s*=\s*(\S+)", text, re.M | re.I)
        if m:
            return m.group(1).strip(), info
    return None


def version_tuple(version: str | None) -> tuple[int, ...]:
    """``8.0.RC2`` -> (8, 0); ``8.5.0.alpha001`` -> (8, 5, 0): the numeric leading part."""
    out: list[int] = []
    for part in (version or "").split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def first_dir(root: Path, candidates: tuple[str, ...]) -> Path | None:
    return next((root / c for c in candidates if (root / c).is_dir()), None)


def asc_config_dir(root: Path) -> Path | None:
    """The folder of CANN's asc-config.cmake when the toolkit also has the modules it loads."""
    if not (root / ASC_MODULES).is_file():
        return None
    return next((root / d for d in ASC_CONFIG_DIRS if (root / d / "asc-config.cmake").is_file()), None)


@dataclass(frozen=True)
class Cann:
    """A found CANN toolkit and the pieces opkit's backends use."""

    root: Path
    origin: str
    version: str | None
    set_env: Path | None
    opp: Path | None  # ASCEND_OPP_PATH (else <root>/opp when it exists)
    asc_cmake: Path | None  # the folder of the operator-project CMake package (asc-config.cmake)
    legacy_cmake: Path | None  # the older msOpGen project's CMake modules (no asc-config.cmake)
    tikicpulib_cmake: Path | None  # the CPU-debug library's CMake package

    @property
    def source_fix(self) -> str:
        return f"source {self.set_env}" if self.set_env else f"source {self.root}/set_env.sh"


def find(env: Mapping[str, str] | None = None, explicit: Path | str | None = None) -> Cann | None:
    env = os.environ if env is None else env
    root, origin = find_toolkit(env, explicit)
    if root is None:
        return None
    v = toolkit_version(root)
    opp_var = env.get("ASCEND_OPP_PATH", "").strip()
    opp = Path(opp_var) if opp_var and Path(opp_var).is_dir() else (root / "opp" if (root / "opp").is_dir() else None)
    return Cann(root, origin, v[0] if v else None, set_env_script(root), opp, asc_config_dir(root),
                first_dir(root, LEGACY_CMAKE_DIRS), first_dir(root, TIKICPULIB_CMAKE_DIRS))


def runtime_lib(cann: Cann, name: str) -> Path | None:
    """One of CANN's runtime libraries (libascendcl.so, libnnopbase.so) in the toolkit."""
    for d in ("lib64", "runtime/lib64", f"{os.uname().machine}-linux/lib64"):
        p = cann.root / d / name
        if p.is_file():
            return p
    return None


def install_fix() -> str:
    return ("install the CANN toolkit (hiascend.com, 'CANN' downloads; or the cann-toolkit .run) and source its "
            "set_env.sh (e.g. source /usr/local/Ascend/ascend-toolkit/set_env.sh), or name it with --cann-path DIR")
