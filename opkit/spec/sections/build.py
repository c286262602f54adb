"""op.yaml ``build``: extra include folders, include aliases, extra host sources, excluded host files,
defines and flags. :func:`resolve` turns the written paths into existing ones (the build uses it too,
so a spec loaded without its files is checked when it is built)."""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit.spec.model import DEFAULT_HOST_EXCLUDE, BuildOptions
from opkit.spec.sections import Checker


@dataclass(frozen=True)
class ResolvedBuild:
    include_dirs: tuple[Path, ...]
    include_aliases: tuple[tuple[str, Path], ...]
    sources: tuple[Path, ...]


def check(c: Checker, d: dict[str, Any], spec_dir: Path | None) -> BuildOptions:
    raw = d.get("build", {})
    options = BuildOptions(
        source_dir=raw.get("source_dir", "."),
        include_dirs=tuple(raw.get("include_dirs", ())),
        include_aliases=tuple(raw.get("include_aliases", {}).items()),
        sources=tuple(raw.get("sources", ())),
        host_exclude=tuple(raw["host_exclude"]) if "host_exclude" in raw else DEFAULT_HOST_EXCLUDE,
        defines=tuple(raw.get("defines", ())),
        flags=tuple(raw.get("flags", ())))
    for j, prefix in enumerate(p for p, _ in options.include_aliases):
        if any(part in (".", "..") for part in prefix.split("/")):
            c.err(("build", "include_aliases", prefix), "an include prefix cannot hold '.' or '..' components")
        for other, _ in options.include_aliases[:j]:
            if prefix.startswith(other + "/") or other.startswith(prefix + "/"):
                c.err(("build", "include_aliases", prefix), f"overlaps the prefix '{other}'; give one of them")
    if spec_dir is not None:
        for path, text in problems(options, spec_dir):
            c.err(("build",) + path, text)
    return options


def problems(options: BuildOptions, spec_dir: Path) -> list[tuple[tuple, str]]:
    """(field path, message) for every path of ``options`` that does not exist."""
    out: list[tuple[tuple, str]] = []
    src = spec_dir / options.source_dir
    if options.source_dir != "." and not (src / "op_host").is_dir():
        out.append((("source_dir",), f"'{options.source_dir}' holds no op_host/ folder (looked in {src.resolve()}; "
                    "the path is relative to the package)"))
    for i, folder in enumerate(options.include_dirs):
        if not (spec_dir / folder).is_dir():
            out.append((("include_dirs", i), f"include folder '{folder}' does not exist "
                        f"(looked for {(spec_dir / folder).resolve()}; paths are relative to the package)"))
    for prefix, folder in options.include_aliases:
        if not (spec_dir / folder).is_dir():
            out.append((("include_aliases", prefix), f"alias folder '{folder}' does not exist "
                        f"(looked for {(spec_dir / folder).resolve()}; paths are relative to the package)"))
    for i, pattern in enumerate(options.sources):
        hits = _glob(spec_dir, pattern)
        if not hits:
            what = "matches no file" if glob.has_magic(pattern) else "does not exist"
            out.append((("sources", i), f"source '{pattern}' {what} (looked in {spec_dir.resolve()}; "
                        "paths are relative to the package)"))
        elif any(not h.is_file() for h in hits):
            out.append((("sources", i), f"source '{pattern}' names a folder; give files (e.g. '{pattern}/*.cpp')"))
    return out


def _glob(spec_dir: Path, pattern: str) -> list[Path]:
    if glob.has_magic(pattern):
        return sorted(Path(p) for p in glob.glob(str(spec_dir / pattern), recursive=True))
    p = spec_dir / pattern
    return [p] if p.exists() else []


def resolve(options: BuildOptions, spec_dir: Path) -> ResolvedBuild | list[str]:
    """Absolute paths of the options, or the messages saying which do not exist."""
    found = problems(options, spec_dir)
    if found:
        return [f"op.yaml build.{'.'.join(str(x) for x in path)}: {text}" for path, text in found]
    sources: list[Path] = []
    for pattern in options.sources:
        for p in _glob(spec_dir, pattern):
            if p.resolve() not in sources:
                sources.append(p.resolve())
    return ResolvedBuild(
        include_dirs=tuple((spec_dir / f).resolve() for f in options.include_dirs),
        include_aliases=tuple((prefix, (spec_dir / f).resolve()) for prefix, f in options.include_aliases),
        sources=tuple(sources))
