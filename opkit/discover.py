"""Finding operator packages: what every command that takes OP means by it (design §9).

OP is a path to a package (a folder holding op.yaml, or the op.yaml itself) or an op name looked
up under ``./ops``. Commands over several packages (verify, build, list) also take a folder of
packages, such as a family folder (``ops/gmm``): every package under it. With no OP, a command
acts on the package that contains the current directory, else on every package under ``./ops``.

A family folder may hold a ``common/`` folder beside its packages: the sources its packages share
(docs/spec.md, "Family common sources"). It is never a package and discovery does not walk into it.
"""

from __future__ import annotations

from pathlib import Path

from opkit.errors import UsageError

SPEC_NAME = "op.yaml"
_SKIP = {".opkit", ".git", "__pycache__", "node_modules", ".venv"}
COMMON_DIR = "common"  # a family's shared sources: <family>/common/op_host, <family>/common/op_kernel
COMMON_SIDES = ("op_kernel", "op_host")


def is_family_common(d: Path) -> bool:
    """True for a family's shared-sources folder: ``common/`` beside packages, holding no op.yaml itself."""
    return d.name == COMMON_DIR and not (d / SPEC_NAME).is_file()


def family_common(pkg_dir: Path) -> Path | None:
    """The shared-sources folder of the family a package belongs to (``<package>/../common``), if there is one."""
    d = pkg_dir.resolve().parent / COMMON_DIR
    return d if d.is_dir() and is_family_common(d) else None


def family_common_include_dirs(pkg_dir: Path) -> list[Path]:
    """The include folders opkit adds for a package's family common sources: ``common/op_kernel`` and
    ``common/op_host`` (those that exist), in that order, after the package's own folders."""
    common = family_common(pkg_dir)
    return [common / side for side in COMMON_SIDES if (common / side).is_dir()] if common else []


def packages_under(root: Path) -> list[Path]:
    """Every package folder below ``root`` (sorted), skipping build and hidden folders."""
    found: list[Path] = []
    if not root.is_dir():
        return found

    def walk(d: Path) -> None:
        if (d / SPEC_NAME).is_file():
            found.append(d)
            return
        try:
            children = sorted(d.iterdir())
        except OSError:
            return
        for c in children:
            if c.is_dir() and not c.is_symlink() and c.name not in _SKIP and not c.name.startswith(".") \
                    and not is_family_common(c):
                walk(c)

    walk(root)
    return found


def enclosing_package(start: Path) -> Path | None:
    """The package folder that contains ``start`` (itself included), if any."""
    for d in [start, *start.parents]:
        if (d / SPEC_NAME).is_file():
            return d
    return None


def find_package(op: str, cwd: Path) -> Path:
    """The package folder OP names (a path, or an op name under ./ops)."""
    p = Path(op)
    candidate = p if p.is_absolute() else cwd / p
    if candidate.is_file() and candidate.name == SPEC_NAME:
        return candidate.parent
    if candidate.is_dir():
        if (candidate / SPEC_NAME).is_file():
            return candidate
        if is_family_common(candidate):
            raise UsageError(f"{op}: this is a family's common folder (the sources the packages beside it share), "
                             "not an operator package; give one of the packages beside it")
        inside = packages_under(candidate)
        if inside:
            names = ", ".join(str(d.relative_to(candidate)) for d in inside[:6]) + (", ..." if len(inside) > 6 else "")
            raise UsageError(f"{op}: this folder is not one operator package but holds {len(inside)} ({names}); "
                             "give one of them")
        raise UsageError(f"{op}: this folder holds no {SPEC_NAME}, so it is not an operator package")
    if "/" in op or op.startswith("."):
        raise UsageError(f"{op}: no such folder")
    ops_root = cwd / "ops"
    matches = [d for d in packages_under(ops_root) if d.name == op]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        listed = ", ".join(str(m.relative_to(cwd)) for m in matches)
        raise UsageError(f"{op}: several packages have this name ({listed}); give a path instead")
    where = f"under {ops_root}" if ops_root.is_dir() else f"(there is no {ops_root} folder)"
    raise UsageError(f"{op}: no operator package of that name {where}; give a path to a folder holding {SPEC_NAME}")


def _packages_of(op: str, cwd: Path) -> list[Path]:
    """The packages OP names for a command over several: a package, or every package under a folder (a family
    folder such as ops/gmm, or ops/ itself)."""
    p = Path(op)
    candidate = p if p.is_absolute() else cwd / p
    if candidate.is_dir() and not (candidate / SPEC_NAME).is_file():
        inside = packages_under(candidate)
        if inside:
            return inside
    return [find_package(op, cwd)]


def resolve_ops(ops: list[str] | None, cwd: Path) -> list[Path]:
    """The packages a command acts on, by the rules of this module."""
    if ops:
        out: list[Path] = []
        for op in ops:
            for d in _packages_of(op, cwd):
                if d not in out:
                    out.append(d)
        return out
    here = enclosing_package(cwd)
    if here is not None:
        return [here]
    found = packages_under(cwd / "ops")
    if not found:
        raise UsageError(f"no operator package here: {cwd} is not inside one and has no ops/ folder with "
                         f"{SPEC_NAME} files (name one: a path or an op name)")
    return found
