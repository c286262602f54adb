"""The `sim` build backend: one harness executable per operator × chip × dtype column.

Each harness links the package's host sources (OpDef, InferShape, tiling), its kernel compiled
with that column's ``DTYPE_<ARG>``/``ORIG_DTYPE_<ARG>`` macros and the chip's capacities, a
generated launch shim, and the simulator's generic harness main (``opkit/sim/host``). Objects and
executables live in the package's ``.opkit/sim/`` folder, named by a content hash of everything
that goes into them, so an unchanged package rebuilds nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opkit import sim
from opkit.build import interface_check, kernel_entry, opdef_check, options, pch
from opkit.build.cache import digest, shared_dir, sim_digest, tree_files
from opkit.build.program import Owner, compile_units, link, sim_flags, source_folder_headers
from opkit.build.toolchain import BuildError, Compiler, find_compiler
from opkit.dtypes import DTYPES, FORMAT_VALUES
from opkit.errors import UsageError
from opkit.machine import usable_cpus
from opkit.sim.host import tiling_struct
from opkit.spec import Spec

OPT = "-O2"
BUILD_DIR = ".opkit/sim"
_GENERATOR = digest([Path(kernel_entry.__file__)], Path(kernel_entry.__file__).parent, [])
_TILING_GENERATOR = digest([Path(tiling_struct.__file__)], Path(tiling_struct.__file__).parent, [])


@dataclass
class Unit:
    """One compile step: a translation unit into an object file."""

    source: Path
    obj: Path
    flags: list[str]
    chip: str  # the chip it is compiled for: its precompiled simulator headers (_compile_all)
    shim: bool = False  # the generated launch shim (written by the build, not a package file)

    def done(self) -> bool:
        return self.obj.is_file()


@dataclass
class Artifact:
    """The harness of one operator × chip × dtype column."""

    spec: Spec
    chip: str
    column: int
    exe: Path
    units: list[Unit] = field(default_factory=list)
    template_kernel: bool = False  # the shim dispatches to template instantiations (needs ``describe``)
    tiling_classes: bool = False  # the host registers TilingData classes: the kernel gets generated structs
    built: bool = False  # compiled in this call (False: taken from the cache)
    warnings: list[str] = field(default_factory=list)  # what the build noticed but does not refuse
    kernel_types: kernel_entry.KernelTypes = field(default_factory=kernel_entry.KernelTypes)  # what it declares

    @property
    def label(self) -> str:
        return f"{self.spec.name}[{self.spec.column_label(self.column)}@{self.chip}]"


def _host_dir() -> Path:
    return sim.include_dir().parent / "host"


def dtype_defines(spec: Spec, column: int) -> list[str]:
    out = []
    for p in spec.params:
        d = DTYPES[p.dtypes[column]]
        out += [f"-DDTYPE_{p.upper}={d.cpp}", f"-DORIG_DTYPE_{p.upper}={d.ge_value}",
                f"-DFORMAT_{p.upper}={FORMAT_VALUES[p.formats[column]]}"]
    return out


def _rel_name(src: Path, base: Path) -> str:
    try:
        return src.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(src.resolve())


@dataclass
class _HostPlan:
    """The host side of a build: the package's host sources and the harness main, compiled and ready to
    link with a kernel (a harness) or alone (the host-only harness ``describe`` runs)."""

    units: list[Unit]
    base: list[str]  # flags of every package unit (the kernel's add its dtype defines)
    pkg_files: list[Path]  # every package file the build depends on
    extra: list[str]  # compiler, simulator and environment strings of every cache key


def _host_plan(pkg_dir: Path, src_dir: Path, pkg: options.PackageBuild, chip: str, cc: Compiler) -> _HostPlan:
    if not pkg.host_sources:
        left = f" ({len(pkg.excluded)} left out by build.host_exclude)" if pkg.excluded else ""
        raise UsageError(f"{src_dir / 'op_host'}: no host sources (OpDef, InferShape, tiling){left}")
    harness_srcs = sorted(_host_dir().glob("*.cpp"))
    if not harness_srcs:
        raise BuildError("the simulator's harness sources are missing (opkit/sim/host/*.cpp); reinstall opkit")
    common = sim_flags(chip, OPT, cc)
    base = common + [f"-I{src_dir / 'op_kernel'}", f"-I{src_dir / 'op_host'}", *pkg.flags]
    pkg_files = tree_files(src_dir / "op_kernel") + tree_files(src_dir / "op_host") + pkg.inputs
    extra = [cc.path, ".".join(map(str, cc.version)), sim_digest(), *pkg.key]
    out = pkg_dir / BUILD_DIR
    units: list[Unit] = []
    for src in pkg.host_sources:
        h = digest(pkg_files, pkg_dir, [*extra, *base, _rel_name(src, pkg_dir)])
        units.append(Unit(src, out / "obj" / f"host-{src.stem}-{h}.o", base, chip))
    for src in harness_srcs:  # the same for every package: kept in opkit's shared cache
        h = digest([src, *source_folder_headers(src)], src.parent, [*extra, *common])
        units.append(Unit(src, shared_dir() / "sim-obj" / f"harness-{src.stem}-{h}.o", common, chip))
    return _HostPlan(units, base, pkg_files, extra)


def plan(spec: Spec, chip: str, column: int, compiler: Compiler | None = None) -> Artifact:
    """What building one harness takes; nothing is compiled."""
    cc = compiler or find_compiler()
    kernel_src = kernel_entry.kernel_source(spec)
    if not kernel_src.is_file():
        raise UsageError(f"{kernel_src}: missing (a package's kernel entry lives in op_kernel/{spec.name}.cpp)")
    pkg = options.package_build(spec)
    warnings = interface_check.check(spec, pkg.host_sources)  # op.yaml against the sources, before compiling
    host = _host_plan(spec.dir, spec.src_dir, pkg, chip, cc)
    pkg_files, extra = host.pkg_files, host.extra
    kflags = host.base + dtype_defines(spec, column)
    templated = kernel_entry.is_template_kernel(spec)
    kfiles = kernel_entry.kernel_files(kernel_src, [spec.src_dir / "op_kernel",
                                                    *(Path(f[2:]) for f in pkg.flags if f.startswith("-I"))])
    tiling_classes = kernel_entry.registers_tiling_class(pkg_files) and not kernel_entry.kernel_declares_tiling(kfiles)
    ktypes = kernel_entry.declared_kernel_types(kfiles)
    warnings += kernel_entry.kernel_type_warnings(spec, ktypes)
    # The shim follows from the package files (a template kernel's instantiations from its host
    # sources' declarations, the generated tiling structs from its TilingData classes) and from the generators.
    h = digest(pkg_files, spec.dir, [*extra, *kflags, kernel_entry.shim_source(spec, kernel_types=ktypes), _GENERATOR,
                                     _TILING_GENERATOR, str(templated)])
    shim = spec.dir / BUILD_DIR / "gen" / f"entry-{h}.cpp"
    units = [*host.units, Unit(shim, spec.dir / BUILD_DIR / "obj" / f"kernel-{h}.o", kflags, chip, shim=True)]
    link = digest([], spec.dir, [*extra, *[u.obj.name for u in units]])
    exe = spec.dir / BUILD_DIR / chip / spec.column_label(column) / f"harness-{link}"
    return Artifact(spec, chip, column, exe, units, template_kernel=templated, tiling_classes=tiling_classes,
                    warnings=warnings, kernel_types=ktypes)



def _host_exe(pkg_dir: Path, chip: str, objs: list[Path]) -> Path:
    """Where the host-only harness of these host objects lives (one per content, shared by every dtype column)."""
    return pkg_dir / BUILD_DIR / chip / f"describe-{digest([], pkg_dir, [o.name for o in objs])}"


def _host_harness(cc: Compiler, host: _HostPlan, pkg_dir: Path, chip: str, owner: Spec | Owner, label: str,
                  jobs: int | None, progress: Callable[[str], None] | None = None) -> Path:
    """The host-only harness: the host sources and the harness main compiled and linked without a kernel (it
    runs ``describe`` and ``tiling``, and refuses ``run``)."""
    _compile_all(cc, [(u, owner) for u in host.units if not u.done()], jobs or usable_cpus(), progress)
    objs = [u.obj for u in host.units]
    exe = _host_exe(pkg_dir, chip, objs)
    if not exe.is_file():
        link(cc, objs, exe, f"{label} (host-only harness)", owner)
    return exe


def describe_folder(src_dir: Path, pkg_dir: Path, build: options.BuildOptions, chip: str = "ascend910b",
                    jobs: int | None = None) -> dict:
    """``describe`` of the host code of an operator folder that has no op.yaml yet (``opkit adopt``):
    its host sources and the harness main compiled with the build options, linked alone, and run. The
    objects go to ``pkg_dir``'s build folder, where a later ``opkit build`` finds them."""
    cc = find_compiler()
    pkg = options.package_build_at(pkg_dir, src_dir, build, pkg_dir / "op.yaml")
    host = _host_plan(pkg_dir, src_dir, pkg, chip, cc)
    exe = _host_harness(cc, host, pkg_dir, chip, Owner(src_dir.name, src_dir), src_dir.name, jobs)
    return opdef_check.describe(exe)


def build_host(spec: Spec, chip: str, jobs: int | None = None,
               progress: Callable[[str], None] | None = None) -> Path:
    """The host-only harness of a package on one chip (``opkit tiling``): its kernel is not compiled, so a
    kernel that does not build does not stop it. The same objects and executable as the host half of
    :func:`build` (shared through the cache both ways)."""
    cc = find_compiler()
    pkg = options.package_build(spec)
    host = _host_plan(spec.dir, spec.src_dir, pkg, chip, cc)
    return _host_harness(cc, host, spec.dir, chip, spec, spec.name, jobs, progress)


def host_compile_flags(spec: Spec, chip: str) -> tuple[str, list[str], list[Path]]:
    """(compiler, flags, host sources) of a package's host units on a chip: what a probe of its host
    headers (the layout of a plain tiling struct, opkit.build.struct_layout) compiles with."""
    cc = find_compiler()
    pkg = options.package_build(spec)
    host = _host_plan(spec.dir, spec.src_dir, pkg, chip, cc)
    return cc.path, host.base, list(pkg.host_sources)


def _compile_all(cc: Compiler, units: list[tuple[Unit, Spec | Owner]], workers: int,
                 progress: Callable[[str], None] | None) -> None:
    """Compile the units, each with the simulator's precompiled headers for its chip first on its include path
    (:mod:`opkit.build.pch`, looked up once per chip); its object, and so its cache key, are the same."""
    pch_dirs = {chip: pch.include_flags(cc, sim_flags(chip, OPT, cc)) for chip in {u.chip for u, _ in units}}
    compile_units(cc, [(u.source, u.obj, [*pch_dirs[u.chip], *u.flags], owner) for u, owner in units], workers,
                  progress)


def _write_template_shim(cc: Compiler, a: Artifact, shim: Unit, described: dict[Path, dict]) -> None:
    """Link the host-only harness, read what the shim needs from its ``describe`` (a template kernel's
    declarations, the TilingData classes the host registers), write the shim and the generated tiling
    header. ``described`` keeps each host-only harness's ``describe`` for the other dtype columns."""
    objs = [u.obj for u in a.units if not u.shim]
    exe = _host_exe(a.spec.dir, a.chip, objs)
    if exe not in described:
        if not exe.is_file():
            link(cc, objs, exe, f"{a.label} (host-only harness)", a.spec)
        described[exe] = opdef_check.describe(exe)
    header = _tiling_header(a.spec, described[exe]) if a.tiling_classes else None
    source = kernel_entry.shim_source(a.spec, described[exe] if a.template_kernel else None, header,
                                      kernel_types=a.kernel_types)
    shim.source.parent.mkdir(parents=True, exist_ok=True)
    shim.source.write_text(source, encoding="utf-8")


def kernel_unit(a: Artifact, jobs: int | None = None) -> Unit:
    """The kernel translation unit of a planned harness, written as :func:`build` writes it (the generated shim
    around the kernel; for a template kernel or generated tiling structs, after the host-only harness has
    described them) but not compiled: what ``program.check_syntax`` checks with the unit's flags."""
    cc = find_compiler()
    shim = next(u for u in a.units if u.shim)
    if a.template_kernel or a.tiling_classes:
        _compile_all(cc, [(u, a.spec) for u in a.units if not u.shim and not u.done()], jobs or 1, None)
        _write_template_shim(cc, a, shim, {})
    else:
        shim.source.parent.mkdir(parents=True, exist_ok=True)
        shim.source.write_text(kernel_entry.shim_source(a.spec, kernel_types=a.kernel_types), encoding="utf-8")
    return shim


def kernel_tiling_text(spec: Spec, described: Mapping[str, Any]) -> str | None:
    """CANN's tiling-data step for a package: the kernel-side structs of the TilingData classes its host
    registers for the op (:mod:`opkit.sim.host.tiling_struct`), None when it registers none; a registration
    the step cannot follow is a BuildError naming the package's op_host."""
    try:
        return tiling_struct.kernel_tiling_header(described, spec.op_type)
    except ValueError as exc:
        raise BuildError(f"{spec.src_dir / 'op_host'}: {exc}") from None


def _tiling_header(spec: Spec, described: dict) -> Path | None:
    """The package's kernel-side tiling header (kernel_tiling_text), written once per content under the
    package's build folder."""
    text = kernel_tiling_text(spec, described)
    if text is None:
        return None
    path = spec.dir / BUILD_DIR / "gen" / f"tiling-{hashlib.sha256(text.encode()).hexdigest()[:20]}.h"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return path


def build(artifacts: list[Artifact], jobs: int | None = None,
          progress: Callable[[str], None] | None = None) -> list[Artifact]:
    """Compile and link what is missing, in parallel; returns the artifacts (``built`` tells which changed).

    A template kernel's shim needs its host sources' declarations: those shims are written and
    compiled after everything else, once the host-only harness has described them.
    """
    cc = find_compiler()
    todo = [a for a in artifacts if not a.exe.is_file()]
    units: dict[Path, tuple[Unit, Spec]] = {}
    later: dict[Path, tuple[Unit, Artifact]] = {}
    for a in todo:
        for u in a.units:
            if u.done() or u.obj in units or u.obj in later:
                continue
            if u.shim and (a.template_kernel or a.tiling_classes):
                later[u.obj] = (u, a)
                continue
            if u.shim:
                u.source.parent.mkdir(parents=True, exist_ok=True)
                u.source.write_text(kernel_entry.shim_source(a.spec, kernel_types=a.kernel_types), encoding="utf-8")
            units[u.obj] = (u, a.spec)
    workers = jobs or usable_cpus()
    # kernel units first: the longest (10-15 s against 1-3 s of a host unit), so the workers end together
    _compile_all(cc, sorted(units.values(), key=lambda uo: not uo[0].shim), workers, progress)
    described: dict[Path, dict] = {}
    for u, a in later.values():
        _write_template_shim(cc, a, u, described)
    _compile_all(cc, [(u, a.spec) for u, a in later.values()], workers, progress)
    for a in todo:
        link(cc, [u.obj for u in a.units], a.exe, a.label, a.spec)
        a.built = True
        if progress:
            progress(f"built {a.label}")
    return artifacts


def artifacts_for(spec: Spec, chips: list[str], columns: list[int] | None = None) -> list[Artifact]:
    """Every harness of a package for the given chips (columns the chip's SoC supports)."""
    cc = find_compiler()
    out = []
    for wanted in chips:
        chip, target = spec.target(wanted)
        for column in (columns if columns is not None else range(spec.n_columns)):
            if target.supports(column):
                out.append(plan(spec, chip, column, cc))
    return out
