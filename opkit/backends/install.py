"""`opkit install`: put a package built by the cann backend where CANN loads custom operators, and check it.

The ``custom_opp_<os>_<arch>.run`` the build made installs itself: without options into
``$ASCEND_OPP_PATH/vendors/<vendor>`` (loaded by priority from ``vendors/config.ini``), with
``--install-path=DIR`` into ``DIR/vendors/<vendor>`` (loaded once ``ASCEND_CUSTOM_OPP_PATH`` names it;
the package writes ``bin/set_env.bash`` for that). Afterwards the aclnn library
(``op_api/lib/libcust_opapi.so``) is loaded in a separate process with ``dlopen`` and the operator's
two entry points ``aclnn<Op>GetWorkspaceSize`` and ``aclnn<Op>`` are looked up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from opkit.backends import cann, cann_env, cann_project
from opkit.errors import OpkitError, UsageError
from opkit.spec import Spec


class InstallError(OpkitError):
    exit_code = 1


@dataclass
class Installed:
    vendor_dir: Path
    library: Path
    symbols: list[str]
    env_lines: list[str] = field(default_factory=list)
    output: str = ""


_PROBE = r"""
import ctypes, json, os, sys
lib, names = sys.argv[1], sys.argv[2:]
try:
    h = ctypes.CDLL(lib, mode=os.RTLD_NOW | os.RTLD_LOCAL)
except OSError as exc:
    print(json.dumps({"error": str(exc)})); sys.exit(0)
print(json.dumps({"missing": [n for n in names if not hasattr(h, n)]}))
"""


def symbols(spec: Spec) -> list[str]:
    return [f"aclnn{spec.op_type}GetWorkspaceSize", f"aclnn{spec.op_type}"]


def check_library(lib: Path, names: list[str], env: Mapping[str, str]) -> None:
    """dlopen ``lib`` in a child process (its LD_LIBRARY_PATH is the one given) and look ``names`` up."""
    try:
        r = subprocess.run([sys.executable, "-c", _PROBE, str(lib), *names], capture_output=True, text=True,
                           env=dict(env), timeout=60, stdin=subprocess.DEVNULL)
        answer = json.loads(r.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"{lib}: could not check the library ({exc})") from None
    if "error" in answer:
        raise InstallError(f"{lib}: dlopen failed: {answer['error']}\nfix: source CANN's set_env.sh (it puts "
                           "libnnopbase and libascendcl on LD_LIBRARY_PATH) and run opkit install again")
    if answer["missing"]:
        raise InstallError(f"{lib}: loads, but has no {', '.join(answer['missing'])}: the package's OpDef does not "
                           "register this OpType's aclnn API (check OP_ADD in op_host and op.yaml's op_type)")


def install(spec: Spec, path: Path | None = None, vendor: str = cann_project.DEFAULT_VENDOR,
            cann_path: Path | str | None = None, env: Mapping[str, str] | None = None) -> Installed:
    env = dict(os.environ if env is None else env)
    cann_project.check_vendor(vendor)
    build_dir = cann_project.project_root(spec) / "build_out"
    runs = cann.run_files(build_dir) if build_dir.is_dir() else []
    if not runs:
        raise UsageError(f"{spec.name}: no custom_opp_*.run in {build_dir}: build it first with "
                         f"opkit build {spec.dir} --backend cann")
    built_for = cann_project.read_manifest(cann_project.project_root(spec)).get("vendor")
    if built_for and built_for != vendor:
        raise UsageError(f"{spec.name}: the package was built for vendor {built_for!r}, not {vendor!r}: give "
                         f"--vendor {built_for}, or rebuild with opkit build --backend cann --vendor {vendor}")
    if path is not None:
        target = path.expanduser().resolve()
        target.mkdir(parents=True, exist_ok=True)
        argv = ["bash", str(runs[0]), "--quiet", f"--install-path={target}"]
    else:
        found = cann_env.find(env, cann_path)
        opp = env.get("ASCEND_OPP_PATH", "").strip() or (str(found.opp) if found and found.opp else "")
        if not opp or not Path(opp).is_dir():
            raise UsageError("opkit install: $ASCEND_OPP_PATH is " + (f"{opp} (no such folder)" if opp else "not set")
                             + ", so there is no default place to install: source CANN's set_env.sh, or give "
                             "--path DIR (then set ASCEND_CUSTOM_OPP_PATH as printed)")
        target = Path(opp)
        env["ASCEND_OPP_PATH"] = opp
        argv = ["bash", str(runs[0]), "--quiet"]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, input="y\n" * 4, timeout=600,
                           errors="replace")
    except subprocess.TimeoutExpired:
        raise InstallError(f"{runs[0]}: the installer did not finish within 600 s") from None
    output = (r.stdout or "") + (r.stderr or "")
    tail = "\n".join(output.strip().splitlines()[-12:])
    if r.returncode != 0:
        raise InstallError(f"{runs[0]} failed (exit code {r.returncode}):\n{tail}")
    vendor_dir = target / "vendors" / vendor
    lib = vendor_dir / "op_api" / "lib" / "libcust_opapi.so"
    if not lib.is_file():
        raise InstallError(f"{runs[0]} ran, but {lib} is not there (installer output:\n{tail})")
    lib_dir = str(lib.parent)
    probe_env = dict(env)
    probe_env["LD_LIBRARY_PATH"] = lib_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    names = symbols(spec)
    check_library(lib, names, probe_env)
    lines = []
    if path is not None:
        set_env = vendor_dir / "bin" / "set_env.bash"
        lines.append(f"source {set_env}" if set_env.is_file() else
                     f"export ASCEND_CUSTOM_OPP_PATH={vendor_dir}:${{ASCEND_CUSTOM_OPP_PATH}}")
    lines.append(f"export LD_LIBRARY_PATH={lib_dir}:${{LD_LIBRARY_PATH}}")
    lines.append(f"# link callers with -L{lib_dir} -lcust_opapi -lnnopbase -lascendcl; "
                 f"include {vendor_dir / 'op_api' / 'include'}")
    return Installed(vendor_dir, lib, names, lines, output)
