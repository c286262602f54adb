"""Helpers shared by test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

from pathlib import Path


def own_files(path: Path) -> set[str]:
    """A package's own files: not build artifacts (.opkit/, design §9) nor Python caches."""
    files = set()
    for p in path.rglob("*"):
        rel = p.relative_to(path)
        if p.is_file() and rel.parts[0] != ".opkit" and "__pycache__" not in rel.parts:
            files.add(rel.as_posix())
    return files
