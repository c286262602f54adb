"""`opkit new`: render an operator package from a cookiecutter template and a spec."""

from __future__ import annotations

import filecmp
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from opkit import naming, writes
from opkit.errors import SpecError, UsageError
from opkit.paths import GENERIC_TEMPLATE, template_names, templates_dir
from opkit.scaffold.context import template_context
from opkit.spec import Spec, load_string
from opkit.spec.yamlio import load_file

DEFAULT_TEMPLATE = "vector"
DEFAULT_FAMILY = "custom"


@dataclass
class NewResult:
    path: Path
    spec: Spec
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    backup: Path | None = None  # where the files replaced under --force were copied


def target_dir(name: str, family: str | None, directory: str | Path | None, cwd: Path) -> Path:
    """Where `opkit new` writes: ``DIR/NAME``, else ``ops/FAMILY/NAME``, else ``./NAME``."""
    if directory is not None:
        return (cwd / directory / name).absolute()
    if family is not None:
        return (cwd / "ops" / family / name).absolute()
    return (cwd / name).absolute()


def default_spec_text(template: str, name: str, family: str) -> str:
    """The template's own op.yaml for an op called ``name``."""
    src = templates_dir() / template / "op.yaml.j2"
    env = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    return env.from_string(src.read_text(encoding="utf-8")).render(
        name=name, op_type=naming.op_type_of(name), family=family)


def _check_template(template: str) -> None:
    names = template_names()
    if template not in names:
        raise UsageError(f"unknown template '{template}' (templates: {', '.join(names)})")


def _render(template: str, context: dict, workdir: Path) -> Path:
    """Render ``template`` laid over the generic skeleton: a file the template does not have (the OpDef,
    CMakeLists.txt, a spec-derived InferShape) comes from ``_generic``, so it is written once."""
    from cookiecutter.main import cookiecutter

    source = templates_dir() / template
    if template != GENERIC_TEMPLATE:
        merged = workdir / "template"
        shutil.copytree(templates_dir() / GENERIC_TEMPLATE, merged)
        shutil.copytree(source, merged, dirs_exist_ok=True)
        source = merged
    config = {"replay_dir": str(workdir / "replay"), "cookiecutters_dir": str(workdir / "cc")}
    out = cookiecutter(
        str(source), no_input=True, extra_context=context,
        output_dir=str(workdir / "out"), default_config=config, accept_hooks=False,
    )
    return Path(out)


def install(rendered: Path, target: Path, force: bool, tool: str = "opkit new",
            into_existing: bool = False) -> tuple[list[Path], list[Path], Path | None]:
    """Copy the rendered tree into ``target`` by opkit's write rule (opkit.writes): a file still as opkit wrote
    it is replaced; one changed since, or not written by opkit, only with ``force``, and then a copy of each
    replaced file is kept under ``.opkit/backup/<time>/``. Returns (written, unchanged, backup folder).
    ``into_existing``: the target is a folder of the user's that opkit adds files to (``opkit adopt``), not
    one it created."""
    files = sorted(p for p in rendered.rglob("*") if p.is_file())
    clashes, replaced = [], []
    for f in files:
        dest = target / f.relative_to(rendered)
        for parent in [dest, *dest.parents]:
            if parent == target.parent:
                break
            if parent.is_symlink():
                raise UsageError(f"{parent} is a symbolic link; {tool} does not write through links")
        if dest.is_dir():
            raise UsageError(f"{dest}: is a folder where {tool} writes a file; move it away")
        if dest.exists() and not filecmp.cmp(f, dest, shallow=False):
            replaced.append(dest)
            if not writes.owned(dest):
                clashes.append(dest)
    if not force:
        if clashes:
            names = ", ".join(str(c.relative_to(target)) for c in clashes)
            source = "the template" if tool == "opkit new" else tool
            raise UsageError(f"{target}: {len(clashes)} of its files differ from what {source} would write and "
                             f"were changed since opkit wrote them (or were not written by opkit): {names}; nothing "
                             "was written (pass --force to replace them: a copy of each is kept under "
                             f"{target / writes.STATE_DIR / 'backup'})")
        if not into_existing and target.exists() and any(target.iterdir()) and not any(
                writes.recorded(target / f.relative_to(rendered)) for f in files):
            raise UsageError(f"{target}: already exists and was not created by opkit new; nothing was written "
                             "(pass --force to write the package into it; files the template does not generate "
                             "are kept)")
    backup = None
    if replaced and force:
        backup = target / writes.STATE_DIR / "backup" / time.strftime("%Y%m%d-%H%M%S")
        n = 0
        while backup.exists():
            n += 1
            backup = backup.with_name(f"{backup.name.split('.')[0]}.{n}")
        for dest in replaced:
            copy = backup / dest.relative_to(target)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(dest, copy)
    written, unchanged = [], []
    for f in files:
        dest = target / f.relative_to(rendered)
        if dest.exists() and filecmp.cmp(f, dest, shallow=False):
            unchanged.append(dest)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
        written.append(dest)
    writes.record(written + unchanged)
    return written, unchanged, backup


def new_package(
    name: str | None = None,
    *,
    family: str | None = None,
    template: str | None = None,
    directory: str | Path | None = None,
    spec_file: str | Path | None = None,
    force: bool = False,
    cwd: str | Path | None = None,
    summary: str | None = None,
) -> NewResult:
    """Create an operator package; returns where it went and what was written."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    if template is not None:
        _check_template(template)
    if spec_file is not None:
        if template is not None:
            raise UsageError(f"--template {template} does not apply with --spec: a package from your own op.yaml "
                             "is the generic skeleton (compute marked not implemented); drop --template")
        spec_path = Path(spec_file)
        if not spec_path.is_absolute():
            spec_path = here / spec_path
        doc = load_file(spec_path)
        text = spec_path.read_text(encoding="utf-8")
        from opkit.spec.load import build

        spec = build(doc, check_files=False)
        if name is not None and name != spec.name:
            raise UsageError(f"the name '{name}' differs from the spec's name '{spec.name}' ({spec_path}); "
                             "drop the NAME argument or make them agree")
        if spec.golden_file != "golden.py":
            raise SpecError([f"{spec_path}:{doc.line(('golden',))}: golden: opkit new writes the golden to "
                             f"golden.py; use 'golden: golden.py:{spec.golden_func}'"])
        if family is not None and family != spec.family:
            raise UsageError(f"--family {family} differs from the spec's family '{spec.family}' ({spec_path})")
        family = family if family is not None else None
        compute = "generic"
        if directory is None and family is None:
            family_for_path = spec.family
        else:
            family_for_path = family
    else:
        if name is None:
            raise UsageError("give the operator a name: opkit new NAME (or --spec FILE)")
        template = template or DEFAULT_TEMPLATE
        naming.check_name(name)
        fam = family if family is not None else DEFAULT_FAMILY
        if naming.name_problem(fam) and fam != DEFAULT_FAMILY:
            raise UsageError(f"invalid family '{fam}': use a snake_case slug such as 'moe' or 'attention'")
        text = default_spec_text(template, name, fam)
        if summary:
            text = text.replace(text.split("summary: ", 1)[1].split("\n", 1)[0], summary.replace("\n", " "), 1)
        spec = load_string(text, file=f"<template {template}>/op.yaml")
        compute = "template"
        family_for_path = family
    naming.check_name(spec.name)
    target = target_dir(spec.name, family_for_path, directory, here)
    context = template_context(spec, text, compute)
    with tempfile.TemporaryDirectory(prefix="opkit-new-") as tmp:
        rendered = _render(template if compute == "template" else GENERIC_TEMPLATE, context, Path(tmp))
        written, unchanged, backup = install(rendered, target, force)
    from opkit.spec import load

    return NewResult(target, load(target), written, unchanged, backup)
