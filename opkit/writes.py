"""One rule for every file opkit writes: never lose work.

When opkit writes a file it records the file's content hash in a small manifest,
``.opkit/written.json``. A file that still matches its recorded hash is opkit's own and may be
replaced; a file changed since then, or not written by opkit, is replaced only with ``--force``.
So rerunning a command (``verify --junit report.xml`` in CI) keeps working, and a file the user
edited is never overwritten silently.

The manifest of a file lives in the nearest enclosing ``.opkit`` folder when the file is inside one
(``.opkit/verify/results.json``), else in the ``.opkit`` folder of the operator package holding the
file, else in ``.opkit`` next to the file. Files inside an ``.opkit`` folder are opkit's own state and
are always replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from opkit.errors import UsageError

MANIFEST = "written.json"
STATE_DIR = ".opkit"


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    try:
        return digest_bytes(path.read_bytes())
    except OSError:
        return None


def manifest_for(path: Path) -> Path:
    """Where the hash of ``path`` is recorded."""
    path = Path(os.path.abspath(path))
    for d in path.parents:
        if d.name == STATE_DIR:
            return d / MANIFEST
    for d in path.parents:
        if (d / "op.yaml").is_file():
            return d / STATE_DIR / MANIFEST
    return path.parent / STATE_DIR / MANIFEST


def _key(path: Path, manifest: Path) -> str:
    return os.path.relpath(os.path.abspath(path), manifest.parent.parent).replace(os.sep, "/")


def _read(manifest: Path) -> dict[str, str]:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def recorded(path: Path) -> str | None:
    """The hash opkit recorded when it last wrote ``path``, if any."""
    m = manifest_for(path)
    return _read(m).get(_key(path, m))


def owned(path: Path) -> bool:
    """True when ``path`` is as opkit wrote it (its content matches the recorded hash), or lies in an
    ``.opkit`` folder: opkit's own state (``.opkit/verify/``, the default verify output), which older
    opkit versions wrote without a record."""
    if any(d.name == STATE_DIR for d in Path(os.path.abspath(path)).parents):
        return True
    rec = recorded(path)
    return rec is not None and rec == file_digest(path)


def record(paths: Iterable[Path]) -> None:
    """Record the current content of each of ``paths`` as written by opkit (best effort)."""
    by_manifest: dict[Path, list[Path]] = {}
    for p in paths:
        by_manifest.setdefault(manifest_for(p), []).append(p)
    for m, ps in by_manifest.items():
        data = _read(m)
        for p in ps:
            d = file_digest(p)
            if d is not None:
                data[_key(p, m)] = d
        try:
            m.parent.mkdir(parents=True, exist_ok=True)
            tmp = m.with_name(f".{m.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            tmp.replace(m)
        except OSError:
            pass  # without a record the file is merely treated as foreign next time


def check_dir(directory: Path, what: str) -> None:
    """A folder opkit will write into: refused when it (or a parent) is a file."""
    for d in [directory, *directory.parents]:
        if d.exists():
            if not d.is_dir():
                raise UsageError(f"{what} {directory}: {d} is a file, not a folder; give a folder name")
            if not os.access(d, os.W_OK | os.X_OK):
                raise UsageError(f"{what} {directory}: {d} is not writable")
            return


def check(path: Path, force: bool, what: str) -> None:
    """Refuse, before any work, an output file that cannot or may not be written."""
    if path.is_dir():
        raise UsageError(f"{what} {path}: is a folder; give a file name such as {path / 'out'}")
    check_dir(path.parent if str(path.parent) else Path("."), what)
    if path.exists() and not force and not owned(path):
        raise UsageError(f"{what} {path}: exists and was not written by opkit, or was changed since; nothing was "
                         "written (pass --force to replace it)")


def write_bytes(path: Path, data: bytes, force: bool = False, what: str = "output") -> Path:
    """Write ``data`` to ``path`` under the rule above (atomically: a temporary file, then a rename)."""
    check(path, force, what)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    record([path])
    return path


def write_text(path: Path, text: str, force: bool = False, what: str = "output") -> Path:
    return write_bytes(path, text.encode("utf-8"), force, what)
