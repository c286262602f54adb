"""What every backend shares: its requirements, their readiness on this machine, and the one refusal."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field

from opkit.backends import cann_env
from opkit.build.toolchain import parse_version
from opkit.errors import UsageError


class BackendUnavailable(UsageError):
    """A backend whose pieces are missing on this machine: names each one and how to get it (exit 2)."""


@dataclass(frozen=True)
class Need:
    """One piece a backend needs: whether it is here, what was found, the command or step that fixes it."""

    name: str
    ok: bool
    found: str
    fix: str = ""


@dataclass
class Readiness:
    backend: str
    needs: list[Need] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return all(n.ok for n in self.needs)

    @property
    def missing(self) -> list[Need]:
        return [n for n in self.needs if not n.ok]

    def message(self, command: str) -> str:
        """The refusal: what is missing and how to get each piece, one line per piece."""
        lines = [f"{command} --backend {self.backend} cannot run on this machine:"]
        said: set[str] = set()
        for n in self.missing:
            fix = "" if not n.fix else ("; fix: the same as above" if n.fix in said else f"; fix: {n.fix}")
            said.add(n.fix)
            lines.append(f"  missing {n.name}: {n.found}{fix}")
        lines.append("(`opkit doctor` shows every backend's readiness; the default backend sim needs only g++)")
        return "\n".join(lines)

    def require(self, command: str) -> None:
        if not self.ready:
            raise BackendUnavailable(self.message(command))


def _v(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def cmake_need(env: Mapping[str, str], minimum: tuple[int, ...] = cann_env.MIN_CMAKE) -> Need:
    name = f"cmake >= {_v(minimum)}"
    fix = f"pip install 'cmake>={_v(minimum)}' (or your distribution's cmake package)"
    path = cann_env.which("cmake", env)
    if path is None:
        return Need(name, False, "cmake is not on PATH", fix)
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20, env=dict(env),
                              stdin=subprocess.DEVNULL)
        version = parse_version(proc.stdout) if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        version = None
    if version is None:
        return Need(name, False, f"{path}: cannot read its version", fix)
    if version[:2] < minimum:
        return Need(name, False, f"cmake {_v(version)} ({path}) is older than {_v(minimum)} (CMakePresets need it)",
                    fix)
    return Need(name, True, f"cmake {_v(version)} ({path})")


def toolkit_need(cann: cann_env.Cann | None, env: Mapping[str, str]) -> Need:
    if cann is None:
        home = env.get("ASCEND_HOME_PATH", "").strip()
        why = f"ASCEND_HOME_PATH={home} is no folder" if home else \
            "no CANN toolkit ($ASCEND_HOME_PATH unset, none in the default folders)"
        return Need("CANN toolkit", False, why, cann_env.install_fix())
    label = f"{cann.root} ({cann.origin}), version {cann.version or 'unknown'}"
    return Need("CANN toolkit", True, label)


def compiler_need(env: Mapping[str, str]) -> Need:
    from opkit.build.toolchain import compiler_candidates

    found = compiler_candidates(env)
    if not found:
        return Need("host C++ compiler", False, "no $CXX, g++, clang++ or c++ on PATH",
                    "install g++ (Debian/Ubuntu: sudo apt-get install g++)")
    return Need("host C++ compiler", True, f"{found[0][0]} ({found[0][1]})")
