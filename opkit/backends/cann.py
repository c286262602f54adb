"""The ``cann`` backend: CANN's own toolchain builds the package's custom-operator package (.run).

``opkit build --backend cann`` writes (or refreshes) the msOpGen-layout project of each package
(:mod:`opkit.backends.cann_project`), then runs the project's ``build.sh`` (CMake with CANN's
operator-project modules, ``bisheng`` for the kernel) and reports ``build_out/custom_opp_<os>_<arch>.run``.
Progress lines come from CMake's ``[ NN%]`` lines; a failure shows CANN's diagnostics with the project's
copies of the package files replaced by the package files themselves.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from opkit.backends import cann_env, cann_project
from opkit.backends.base import Need, Readiness, cmake_need, compiler_need, toolkit_need
from opkit.build.toolchain import BuildError, explain_failure
from opkit.spec import Spec

NAME = "cann"
SUMMARY = "CANN toolkit (bisheng, CMake): the custom operator package (.run) with the aclnn API; runs on an NPU"
LOG_NAME = "opkit-build.log"


def readiness(env: Mapping[str, str] | None = None, cann_path: Path | str | None = None,
              command: str = "opkit build") -> Readiness:
    """What ``command`` needs of CANN: building (``opkit build``) needs bisheng, cmake and the operator-project
    modules; running on the NPU (verify, run, perf) needs the runtime libraries and the host compiler."""
    env = os.environ if env is None else env
    cann = cann_env.find(env, cann_path)
    needs = [toolkit_need(cann, env)]
    fix = cann.source_fix if cann else cann_env.install_fix()
    if command != "opkit build":
        if cann is not None:
            for lib in ("libascendcl.so", "libnnopbase.so"):
                found = cann_env.runtime_lib(cann, lib)
                needs.append(Need(f"CANN runtime {lib}", found is not None, str(found) if found else
                                  f"not in {cann.root}/lib64", "" if found else "install the CANN toolkit with its "
                                  f"runtime (and the NPU driver), then {fix}"))
        needs.append(compiler_need(env))
        return Readiness(NAME, needs)
    bisheng = cann_env.which("bisheng", env)
    needs.append(Need("bisheng on PATH", bisheng is not None, bisheng or "not on PATH (the Ascend C device compiler "
                      "comes with the toolkit; its set_env.sh puts it on PATH)", "" if bisheng else fix))
    needs.append(cmake_need(env))
    if cann is not None:
        if cann.asc_cmake is not None:
            needs.append(Need("CANN operator-project CMake", True, str(cann.asc_cmake / "asc-config.cmake")))
        else:
            older = f"; only the older msOpGen modules ({cann.legacy_cmake})" if cann.legacy_cmake else ""
            needs.append(Need("CANN operator-project CMake", False,
                              f"no lib64/cmake/asc-config.cmake with {cann_env.ASC_MODULES} in {cann.root}{older}",
                              "install CANN 8.5 or newer (its asc-devkit has the find_package(ASC) project modules)"))
    needs.append(compiler_need(env))
    return Readiness(NAME, needs)


@dataclass
class CannBuild:
    spec: Spec
    project: cann_project.Project
    run_file: Path
    log: Path
    seconds: float


_PROGRESS = re.compile(r"^\[\s*\d+%\]")
_PATH_TOKEN = re.compile(r"[^\s:'\"()<>,]+")


def map_paths(text: str, root: Path, files: Mapping[str, Path | str]) -> str:
    """Every path in ``text`` that names a project copy of a package file (under ``root``, directly or in
    a copy CANN's build makes of op_host/ or op_kernel/, or of the family's common/op_host/ and
    common/op_kernel/) becomes the package file's path."""
    root_s = str(root)
    keys = set(files)

    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        if root_s not in token and not token.startswith(("op_host/", "op_kernel/")):
            return token
        parts = token.split("/")
        for i in range(len(parts)):
            if parts[i] in ("op_host", "op_kernel"):
                rel = "/".join(parts[i - 1 if i and parts[i - 1] == "common" else i:])  # a family common file
                if rel in keys:
                    return str(files[rel])
        return token

    return _PATH_TOKEN.sub(one, text)


def build_env(cann: cann_env.Cann, env: Mapping[str, str], jobs: int | None) -> dict[str, str]:
    out = dict(env)
    out.setdefault("ASCEND_HOME_PATH", str(cann.root))
    out["ASCEND_CANN_PACKAGE_PATH"] = str(cann.root)
    out["OPKIT_BUILD_JOBS"] = str(jobs or os.cpu_count() or 1)
    return out


def run_files(build_dir: Path) -> list[Path]:
    return sorted(build_dir.glob("custom_opp_*.run"), key=lambda p: p.stat().st_mtime, reverse=True)


def build_one(spec: Spec, cann: cann_env.Cann, env: Mapping[str, str], vendor: str, chips: list[str] | None,
              jobs: int | None, progress: Callable[[str], None] | None) -> CannBuild:
    t0 = time.perf_counter()
    say = progress or (lambda m: None)
    proj = cann_project.write_project(spec, cann, vendor, chips)
    what = f"{len(proj.written)} file(s) written" if proj.written else "up to date"
    say(f"{spec.name}: project {proj.root} ({what}; vendor {vendor}; ASCEND_COMPUTE_UNIT "
        f"{';'.join(proj.compute_units)}; CANN {cann.version or '?'} at {cann.root})")
    proj.build_dir.mkdir(parents=True, exist_ok=True)
    log_path = proj.build_dir / LOG_NAME
    started = time.time()
    lines: list[str] = []
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(["bash", str(proj.root / "build.sh")], cwd=proj.root, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace", stdin=subprocess.DEVNULL,
                                env=build_env(cann, env, jobs))
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            lines.append(line.rstrip("\n"))
            if _PROGRESS.match(line):
                say(f"{spec.name}: {map_paths(line.strip(), proj.root, proj.files)}")
        rc = proc.wait()
    output = map_paths("\n".join(lines), proj.root, proj.files)
    if rc != 0:
        raise BuildError(f"{spec.name}: the CANN build failed (build.sh exit code {rc}):\n"
                         f"{explain_failure(output, spec.dir)}\nfull log: {log_path}\nproject: {proj.root}")
    found = [p for p in run_files(proj.build_dir) if p.stat().st_mtime >= started - 1]
    if not found:
        raise BuildError(f"{spec.name}: the CANN build ended without a custom_opp_*.run in {proj.build_dir} "
                         f"(see {log_path})")
    return CannBuild(spec, proj, found[0], log_path, time.perf_counter() - t0)


def build(specs: list[Spec], chips: list[str] | None = None, jobs: int | None = None,
          progress: Callable[[str], None] | None = None, vendor: str = cann_project.DEFAULT_VENDOR,
          env: Mapping[str, str] | None = None, cann_path: Path | str | None = None) -> list[CannBuild]:
    """Build every package's custom operator package; refuses before any work when CANN is not ready."""
    env = dict(os.environ if env is None else env)
    cann_project.check_vendor(vendor)
    readiness(env, cann_path).require("opkit build")
    cann = cann_env.find(env, cann_path)
    assert cann is not None
    return [build_one(spec, cann, env, vendor, chips, jobs, progress) for spec in specs]
