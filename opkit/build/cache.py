"""Content hashes for incremental builds: every input file, the flags, the compiler, the simulator."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from opkit import __version__

_SKIP_DIRS = {".opkit", "__pycache__", ".git"}
SOURCE_SUFFIXES = {".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c", ".inc", ".def"}


def tree_files(root: Path, suffixes: set[str] = SOURCE_SUFFIXES) -> list[Path]:
    """Every source file under ``root`` (sorted), skipping build output and caches."""
    if not root.is_dir():
        return []
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in suffixes and not any(part in _SKIP_DIRS for part in p.parts):
            out.append(p)
    return out


def digest(files: Iterable[Path], base: Path, extra: Iterable[str] = ()) -> str:
    """A hash of the files' contents and names (relative to ``base``) and of ``extra`` strings."""
    h = hashlib.sha256()
    for f in sorted(set(files)):
        try:
            name = str(f.relative_to(base))
        except ValueError:
            name = str(f)
        h.update(name.encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    h.update(json.dumps(list(extra)).encode())
    return h.hexdigest()[:20]


@lru_cache(maxsize=1)
def sim_digest() -> str:
    """The simulator's version: opkit's version and every header and runtime source it ships."""
    from opkit.sim import include_dir

    root = include_dir().parent
    return digest(tree_files(root), root, [__version__])


# The environment the compiler reads for include folders: a change must rebuild.
COMPILER_ENV = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH")


def compiler_env() -> list[str]:
    """The include-path environment the compiler reads, as cache-key strings (their values: the folders'
    contents are not hashed)."""
    return [f"{v}={os.environ.get(v, '')}" for v in COMPILER_ENV]


def shared_dir() -> Path:
    """opkit's cache for build products that do not depend on a package (the simulator's harness objects):
    ``$OPKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/opkit``, else ``~/.cache/opkit``."""
    if os.environ.get("OPKIT_CACHE_DIR"):
        return Path(os.environ["OPKIT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "opkit"
