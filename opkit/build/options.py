"""What op.yaml's ``build`` section adds to a package's compile: host sources found under op_host/
(recursively, minus the aclnn/graph-layer files), extra sources, include folders, include aliases
(a shadow tree of symlinks under ``.opkit/``), defines and flags; and every file and environment
value those bring into the cache key."""

from __future__ import annotations

import fnmatch
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from opkit.build.cache import tree_files
from opkit.errors import UsageError
from opkit.spec import Spec
from opkit.spec.sections import build as build_section

HOST_SUFFIXES = (".cpp", ".cc", ".cxx")
# The environment the compiler reads for include folders: a change must rebuild.
COMPILER_ENV = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH")
ALIAS_DIR = ".opkit/include-alias"


@dataclass(frozen=True)
class PackageBuild:
    host_sources: list[Path]  # op_host/ sources (recursive, exclusions applied), then build.sources
    flags: list[str]  # include folders, alias tree, defines, flags: for host and kernel
    inputs: list[Path]  # every file whose content the build depends on (besides opkit's own)
    key: list[str]  # strings that go into every cache key (the compiler's include-path environment)
    excluded: list[Path]  # op_host/ sources left out


def excluded(rel: Path, patterns: tuple[str, ...]) -> bool:
    """True when a path relative to op_host/ matches a pattern: one of its components, or the whole path."""
    text = rel.as_posix()
    return any(fnmatch.fnmatch(part, pat) or fnmatch.fnmatch(text, pat) for pat in patterns for part in rel.parts)


def host_sources(spec: Spec) -> tuple[list[Path], list[Path]]:
    """(kept, excluded) host sources under op_host/, recursively, sorted by relative path."""
    root = spec.dir / "op_host"
    kept: list[Path] = []
    left: list[Path] = []
    if not root.is_dir():
        return kept, left
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in HOST_SUFFIXES or ".opkit" in p.parts:
            continue
        (left if excluded(p.relative_to(root), spec.build.host_exclude) else kept).append(p)
    return kept, left


def _alias_tree(spec: Spec, aliases: tuple[tuple[str, Path], ...]) -> Path | None:
    """A folder where ``PREFIX`` is a symlink to its target, so ``#include "PREFIX/x.h"`` finds it."""
    if not aliases:
        return None
    tag = hashlib.sha256(repr(sorted((p, str(t)) for p, t in aliases)).encode()).hexdigest()[:12]
    root = spec.dir / ALIAS_DIR / tag
    for prefix, target in aliases:
        link = root / prefix
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() and Path(os.readlink(link)) == target:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        try:
            link.symlink_to(target, target_is_directory=True)
        except OSError as exc:
            raise UsageError(f"{spec.path}: build.include_aliases: cannot make the alias '{prefix}' -> {target} "
                             f"({exc.strerror}); on a file system without symlinks, use include_dirs") from None
    return root


def compiler_env() -> list[str]:
    """The include-path environment the compiler reads, as cache-key strings."""
    return [f"{v}={os.environ.get(v, '')}" for v in COMPILER_ENV]


def package_build(spec: Spec) -> PackageBuild:
    resolved = build_section.resolve(spec.build, spec.dir)
    if isinstance(resolved, list):
        raise UsageError(f"{spec.path}: " + "\n".join(resolved))
    kept, left = host_sources(spec)
    sources = kept + [s for s in resolved.sources if s not in kept]
    flags: list[str] = []
    inputs: list[Path] = list(resolved.sources)
    for folder in resolved.include_dirs:
        flags.append(f"-I{folder}")
        inputs += tree_files(folder)
    alias_root = _alias_tree(spec, resolved.include_aliases)
    if alias_root is not None:
        flags.append(f"-I{alias_root}")
        for _, target in resolved.include_aliases:
            inputs += tree_files(target)
    flags += [f"-D{d}" for d in spec.build.defines]
    flags += list(spec.build.flags)
    return PackageBuild(sources, flags, inputs, compiler_env(), left)
