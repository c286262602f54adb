"""Compile C++ programs against the simulator for one chip, cached by content.

One compile step (:func:`compile_unit`) and one link step (:func:`link`) serve every build of opkit: the
package harnesses of :mod:`opkit.build.sim_backend` and any stand-alone program — a test harness, a check
program, a benchmark — through :func:`compile_program`::

    from opkit.build.program import Source, compile_program
    prog = compile_program([Source(Path("check.cpp"), defines=("N=4",))], chip="ascend910b2", flags=("-Wall",))
    subprocess.run([prog.exe])

Every source becomes an object and the objects one executable, each named by a content hash
(:func:`opkit.build.cache.digest`) of what goes into it: the source, the headers beside it (its own
folder, not recursive), every file under its include folders, the simulator (``sim_digest``), the
compiler and the flags. Objects and executables live in opkit's shared cache
(``$OPKIT_CACHE_DIR/sim-prog``); an object two programs share (same source, same flags) is compiled
once. A file the source reaches some other way (``#include "../x.h"``) belongs in ``deps``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from opkit import sim
from opkit.build.cache import SOURCE_SUFFIXES, compiler_env, digest, shared_dir, sim_digest, tree_files
from opkit.build.toolchain import BuildError, Compiler, explain_failure, find_compiler
from opkit.machine import usable_cpus

DEFAULT_OPT = "-O2"
CACHE_SUBDIR = "sim-prog"
HEADER_SUFFIXES = SOURCE_SUFFIXES - {".cpp", ".cc", ".cxx", ".c"}
MAX_AGE_S = 14 * 86400  # cached programs nobody used for two weeks are dropped


class Named(Protocol):
    """Whose files a compile step builds (a package's Spec, or an :class:`Owner`): named in messages, paths shown
    relative to ``dir``."""

    @property
    def name(self) -> str: ...

    @property
    def dir(self) -> Path: ...


@dataclass(frozen=True)
class Owner:
    """A :class:`Named` for files that are not a package's (an operator folder, a program)."""

    name: str
    dir: Path


def sim_flags(chip: str, opt: str = DEFAULT_OPT, compiler: Compiler | None = None) -> list[str]:
    """The flags every unit built against the simulator for ``chip`` starts with (C++17, ``opt``, the chip's
    ``soc_defines``, F16C when this compiler and CPU have it)."""
    cc = compiler or find_compiler()
    return sim.cxx_flags(chip, opt=opt, f16c="-mf16c" in cc.features)


def compile_unit(cc: Compiler, source: Path, obj: Path, flags: Sequence[str], owner: Named) -> None:
    """Compile one translation unit into ``obj`` (written atomically). The compiler's output, when it printed
    any (warnings), is kept beside the object as ``<obj>.log``; an error is a BuildError with the diagnostics."""
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".tmp{os.getpid()}-{threading.get_ident()}.o")
    r = subprocess.run([cc.path, *flags, "-c", str(source), "-o", str(tmp)], capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"{owner.name}: compiling {source.name} failed:\n{explain_failure(r.stderr, owner.dir)}")
    log = obj.with_suffix(".log")
    if r.stderr.strip():
        log.write_text(r.stderr, encoding="utf-8")
    else:
        log.unlink(missing_ok=True)
    tmp.replace(obj)


def compile_units(cc: Compiler, units: Sequence[tuple[Path, Path, Sequence[str], Named]], jobs: int | None = None,
                  progress: Callable[[str], None] | None = None) -> None:
    """Compile (source, object, flags, owner) steps in parallel; every failure is reported, once each."""
    if not units:
        return
    workers = jobs or usable_cpus()
    if progress:
        progress(f"compiling {len(units)} unit(s) with {workers} job(s)")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(compile_unit, cc, *u) for u in units]
        errors = []
        for f in futures:
            try:
                f.result()
            except BuildError as exc:
                errors.append(exc.message)
    if errors:
        raise BuildError("\n".join(dict.fromkeys(errors)))


def link(cc: Compiler, objs: Sequence[Path], exe: Path, label: str, owner: Named, flags: Sequence[str] = ()) -> None:
    """Link objects into ``exe`` (written atomically)."""
    exe.parent.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_name(exe.name + f".tmp{os.getpid()}-{threading.get_ident()}")
    r = subprocess.run([cc.path, "-pthread", *map(str, objs), *flags, "-o", str(tmp)], capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"{label}: linking failed:\n{explain_failure(r.stderr, owner.dir)}")
    tmp.replace(exe)


@dataclass(frozen=True)
class Source:
    """One translation unit of a program, with what only it is compiled with (beside the program's own)."""

    path: Path
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE, without -D
    include_dirs: tuple[Path, ...] = ()
    flags: tuple[str, ...] = ()


@dataclass
class Program:
    """A program :func:`compile_program` built or found in the cache."""

    exe: Path
    objects: list[Path]
    built: bool = False  # something was compiled or linked in this call
    compiled: list[Path] = field(default_factory=list)  # the objects compiled in this call

    def compiler_output(self) -> dict[Path, str]:
        """Each object's compiler output (warnings) from when it was compiled; empty for a silent compile."""
        out = {}
        for o in self.objects:
            log = o.with_suffix(".log")
            out[o] = log.read_text(encoding="utf-8") if log.is_file() else ""
        return out


def source_folder_headers(src: Path) -> list[Path]:
    """The headers beside a source (its folder, not recursive): what its quoted includes reach without -I."""
    try:
        return sorted(p for p in src.parent.iterdir() if p.suffix in HEADER_SUFFIXES and p.is_file())
    except OSError:
        return []


def include_dirs_of(flags: Iterable[str]) -> list[Path]:
    """The folders of a flag list's ``-I`` options, in order."""
    return [Path(f[2:]) for f in flags if f.startswith("-I") and len(f) > 2]


def _unit_flags(base: list[str], defines: Iterable[str], include_dirs: Iterable[Path],
                flags: Iterable[str]) -> list[str]:
    return [*base, *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines), *flags]


def _as_source(s: Source | str | os.PathLike[str]) -> Source:
    return s if isinstance(s, Source) else Source(Path(s))


_pruned: set[Path] = set()


def _prune(root: Path) -> None:
    """Drop cached objects and programs not used (built or found) for MAX_AGE_S; once per process."""
    if root in _pruned:
        return
    _pruned.add(root)
    now = time.time()
    for d in (root / "obj", root / "bin", root / "src"):
        for f in d.iterdir() if d.is_dir() else ():
            try:
                if now - f.stat().st_mtime > MAX_AGE_S:
                    f.unlink()
            except OSError:
                pass


def _touch(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            os.utime(p)
        except OSError:  # absent (an object's log when the compiler printed nothing)
            pass


@dataclass
class ProgramPlan:
    """What building one program takes (:func:`plan_program`); nothing is compiled yet."""

    exe: Path
    objects: list[Path]
    units: list[tuple[Path, Path, list[str], Named]]  # (source, object, flags, owner) of the objects not cached
    label: str
    owner: Named
    link_flags: list[str]
    compiler: Compiler


def plan_program(sources: Sequence[Source | str | os.PathLike[str]], *, chip: str = "ascend910b",
                 defines: Sequence[str] = (), include_dirs: Sequence[str | os.PathLike[str]] = (),
                 flags: Sequence[str] = (), opt: str = DEFAULT_OPT, f16c: bool | None = None,
                 deps: Sequence[str | os.PathLike[str]] = (), link_flags: Sequence[str] = (),
                 name: str | None = None, compiler: Compiler | None = None) -> ProgramPlan:
    """The objects and executable of a program (arguments as :func:`compile_program`'s), named by content."""
    if not sources:
        raise BuildError("compile_program: no sources given")
    cc = compiler or find_compiler()
    srcs = [_as_source(s) for s in sources]
    for s in srcs:
        if not Path(s.path).is_file():
            raise BuildError(f"{s.path}: no such source file")
    use_f16c = ("-mf16c" in cc.features) if f16c is None else f16c
    base = sim.cxx_flags(chip, opt=opt, f16c=use_f16c)
    common_dirs = [Path(d) for d in include_dirs]
    extra = [cc.path, ".".join(map(str, cc.version)), sim_digest(), *compiler_env()]
    root = shared_dir() / CACHE_SUBDIR
    _prune(root)  # before anything is found in the cache
    label = name or Path(srcs[0].path).stem
    owner = Owner(label, Path(srcs[0].path).resolve().parent)
    objs: list[Path] = []
    units: list[tuple[Path, Path, list[str], Named]] = []
    for s in srcs:
        path = Path(s.path).resolve()
        uflags = _unit_flags(base, [*defines, *s.defines], [*common_dirs, *s.include_dirs], [*flags, *s.flags])
        files = [path, *source_folder_headers(path), *map(Path, deps)]
        for d in include_dirs_of(uflags[len(base):]):
            files += tree_files(d)
        obj = root / "obj" / f"{path.stem}-{digest(files, path.parent, [*extra, *uflags, str(path)])}.o"
        objs.append(obj)
        if not obj.is_file() and all(u[1] != obj for u in units):
            units.append((path, obj, uflags, owner))
    exe = root / "bin" / f"{label}-{digest([], root, [*extra, *[o.name for o in objs], *link_flags])}"
    return ProgramPlan(exe, objs, units, label, owner, list(link_flags), cc)


def build_programs(plans: Sequence[ProgramPlan], jobs: int | None = None,
                   progress: Callable[[str], None] | None = None) -> list[Program]:
    """Build planned programs: every missing object of all of them in one parallel pass (an object several
    share is compiled once), then each executable that is missing."""
    if not plans:
        return []
    units = {u[1]: (u, p.compiler) for p in plans for u in p.units if not u[1].is_file()}
    for cc in dict.fromkeys(c for _, c in units.values()):
        compile_units(cc, [u for u, c in units.values() if c == cc], jobs, progress)
    out = []
    for p in plans:
        linked = not p.exe.is_file()
        if linked:
            link(p.compiler, p.objects, p.exe, p.label, p.owner, p.link_flags)
        _touch([p.exe, *p.objects, *(o.with_suffix(".log") for o in p.objects)])  # used now: kept by the pruning
        compiled = [o for o in p.objects if o in units]
        out.append(Program(p.exe, p.objects, built=bool(compiled) or linked, compiled=compiled))
    return out


def compile_program(sources: Sequence[Source | str | os.PathLike[str]], *, chip: str = "ascend910b",
                    defines: Sequence[str] = (), include_dirs: Sequence[str | os.PathLike[str]] = (),
                    flags: Sequence[str] = (), opt: str = DEFAULT_OPT, f16c: bool | None = None,
                    deps: Sequence[str | os.PathLike[str]] = (), link_flags: Sequence[str] = (),
                    name: str | None = None, jobs: int | None = None, compiler: Compiler | None = None,
                    progress: Callable[[str], None] | None = None) -> Program:
    """Compile ``sources`` against the simulator for ``chip`` and link them into one executable, cached by content.

    ``defines`` (``NAME`` or ``NAME=VALUE``), ``include_dirs`` and ``flags`` apply to every source, after the
    simulator's own flags (:func:`sim_flags`); a :class:`Source` adds its own. ``f16c`` forces F16C code on or
    off (default: when the compiler and CPU have it). ``deps`` are further files whose change must rebuild;
    ``name`` names the executable (default: the first source's stem). Raises
    :class:`~opkit.build.toolchain.BuildError` naming the source and the compiler's diagnostics.
    """
    plan = plan_program(sources, chip=chip, defines=defines, include_dirs=include_dirs, flags=flags, opt=opt,
                        f16c=f16c, deps=deps, link_flags=link_flags, name=name, compiler=compiler)
    return build_programs([plan], jobs, progress)[0]


def write_source(text: str, stem: str, suffix: str = ".cpp") -> Path:
    """A generated source (a launch shim, say) as a file of the program cache, named by its content, so that
    programs built from it are cached like any other."""
    h = hashlib.sha256(text.encode()).hexdigest()[:20]
    path = shared_dir() / CACHE_SUBDIR / "src" / f"{stem}-{h}{suffix}"
    if path.is_file():
        _touch([path])
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}-{threading.get_ident()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def check_syntax(source: str | os.PathLike[str], *, chip: str = "ascend910b", opt: str = "-O0",
                 flags: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """Compile ``source`` against the simulator without producing anything (``-fsyntax-only``); returns the
    finished compiler, whose ``returncode`` and ``stderr`` say what it found."""
    cc = find_compiler()
    return subprocess.run([cc.path, *sim_flags(chip, opt, cc), *flags, "-fsyntax-only", str(source)],
                          capture_output=True, text=True)
