"""What op.yaml's ``build`` section adds to a package's compile: host sources found under op_host/
(recursively, minus the aclnn/graph-layer files), extra sources, include folders, include aliases
(a shadow tree of forwarding headers under ``.opkit/``), defines and flags; and every file and environment
value those bring into the cache key."""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass
from pathlib import Path

from opkit import discover
from opkit.build.cache import compiler_env, tree_files
from opkit.errors import UsageError
from opkit.spec import Spec
from opkit.spec.model import BuildOptions
from opkit.spec.sections import build as build_section

HOST_SUFFIXES = (".cpp", ".cc", ".cxx")
ALIAS_DIR = ".opkit/include-alias"


@dataclass(frozen=True)
class PackageBuild:
    host_sources: list[Path]  # op_host/ sources (recursive, exclusions applied), then build.sources
    flags: list[str]  # include folders, alias tree, defines, flags: for host and kernel
    inputs: list[Path]  # every file whose content the build depends on (besides opkit's own)
    key: list[str]  # strings that go into every cache key (the compiler's include-path environment)
    excluded: list[Path]  # op_host/ sources left out
    common: Path | None = None  # the family's shared sources (<family>/common), on the include path


def family_common_flags(pkg_dir: Path) -> tuple[Path | None, list[str], list[Path]]:
    """(the family common folder, its -I flags, its files) of the package in ``pkg_dir``: ``common/op_kernel``
    and ``common/op_host`` go on the include path of host and kernel units, after the package's own folders,
    and every source file under ``common/`` goes into the cache key (a change to a shared header rebuilds
    every package of the family)."""
    common = discover.family_common(pkg_dir)
    if common is None:
        return None, [], []
    return common, [f"-I{d}" for d in discover.family_common_include_dirs(pkg_dir)], tree_files(common)


def excluded(rel: Path, patterns: tuple[str, ...]) -> bool:
    """True when a path relative to op_host/ matches a pattern: one of its components, or the whole path."""
    text = rel.as_posix()
    return any(fnmatch.fnmatch(part, pat) or fnmatch.fnmatch(text, pat) for pat in patterns for part in rel.parts)


def host_sources(spec: Spec) -> tuple[list[Path], list[Path]]:
    """(kept, excluded) host sources under op_host/, recursively, sorted by relative path."""
    return host_sources_in(spec.src_dir, spec.build.host_exclude)


def host_sources_in(src_dir: Path, exclude: tuple[str, ...]) -> tuple[list[Path], list[Path]]:
    """(kept, excluded) host sources under ``src_dir``/op_host/ (a package's, or a folder being adopted)."""
    root = src_dir / "op_host"
    kept: list[Path] = []
    left: list[Path] = []
    if not root.is_dir():
        return kept, left
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in HOST_SUFFIXES or ".opkit" in p.parts:
            continue
        (left if excluded(p.relative_to(root), exclude) else kept).append(p)
    return kept, left


def _alias_tree(pkg_dir: Path, aliases: tuple[tuple[str, Path], ...]) -> Path | None:
    """A folder of forwarding headers: ``PREFIX/x.h`` holds ``#include "<target>/x.h"`` for every header
    under the alias's target, so ``#include "PREFIX/x.h"`` finds it (forwarding headers rather than
    symlinks: an alias of the package itself would make a symlink cycle that copies and walks trip on).
    The folder is named by the mapping and the file listing, so a new or removed header gives a new one."""
    if not aliases:
        return None
    listing = [(prefix, str(target), [f.relative_to(target).as_posix() for f in tree_files(target)])
               for prefix, target in aliases]
    tag = hashlib.sha256(repr(sorted(listing)).encode()).hexdigest()[:16]
    root = pkg_dir / ALIAS_DIR / tag
    if (root / ".complete").is_file():
        return root
    for prefix, target, files in listing:
        for rel in files:
            fwd = root / prefix / rel
            fwd.parent.mkdir(parents=True, exist_ok=True)
            real = (Path(target) / rel).as_posix()
            fwd.write_text(f"// opkit include alias {prefix} -> {target}\n#include \"{real}\"\n", encoding="utf-8")
    (root / ".complete").write_text("", encoding="utf-8")
    return root


def package_build(spec: Spec) -> PackageBuild:
    return package_build_at(spec.dir, spec.src_dir, spec.build, spec.path)


def package_build_at(pkg_dir: Path, src_dir: Path, build: BuildOptions, where: Path) -> PackageBuild:
    """The build of the package in ``pkg_dir`` whose op_host/ and op_kernel/ are in ``src_dir``; ``where``
    (its op.yaml) names it in messages."""
    resolved = build_section.resolve(build, pkg_dir)
    if isinstance(resolved, list):
        raise UsageError(f"{where}: " + "\n".join(resolved))
    kept, left = host_sources_in(src_dir, build.host_exclude)
    mine = {k.resolve() for k in kept}
    sources = kept + [s for s in resolved.sources if s not in mine]  # a source named twice is compiled once
    common, flags, inputs = family_common_flags(pkg_dir)
    inputs += resolved.sources
    for folder in resolved.include_dirs:
        flags.append(f"-I{folder}")
        inputs += tree_files(folder)
    alias_root = _alias_tree(pkg_dir, resolved.include_aliases)
    if alias_root is not None:
        flags.append(f"-I{alias_root}")
        for _, target in resolved.include_aliases:
            inputs += tree_files(target)
    flags += [f"-D{d}" for d in build.defines]
    flags += list(build.flags)
    return PackageBuild(sources, flags, inputs, compiler_env(), left, common)
