"""`opkit new`: render an operator package from a cookiecutter template and a spec."""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from opkit import naming
from opkit.errors import SpecError, UsageError
from opkit.paths import template_names, templates_dir
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
    from cookiecutter.main import cookiecutter

    config = {"replay_dir": str(workdir / "replay"), "cookiecutters_dir": str(workdir / "cc")}
    out = cookiecutter(
        str(templates_dir() / template), no_input=True, extra_context=context,
        output_dir=str(workdir / "out"), default_config=config, accept_hooks=False,
    )
    return Path(out)


def _install(rendered: Path, target: Path, force: bool) -> tuple[list[Path], list[Path]]:
    """Copy the rendered tree into ``target``; refuse to replace anything without ``force``."""
    files = sorted(p for p in rendered.rglob("*") if p.is_file())
    clashes = []
    for f in files:
        dest = target / f.relative_to(rendered)
        for parent in [dest, *dest.parents]:
            if parent == target.parent:
                break
            if parent.is_symlink():
                raise UsageError(f"{parent} is a symbolic link; opkit new does not write through links")
        if dest.exists() and not filecmp.cmp(f, dest, shallow=False):
            clashes.append(dest)
    if target.exists() and not force:
        what = f"{len(clashes)} of its files differ from what the template would write" if clashes else \
            "it already exists"
        raise UsageError(f"{target}: {what}; nothing was written (pass --force to overwrite the generated "
                         "files; files the template does not generate are kept)")
    written, unchanged = [], []
    for f in files:
        dest = target / f.relative_to(rendered)
        if dest.exists() and filecmp.cmp(f, dest, shallow=False):
            unchanged.append(dest)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
        written.append(dest)
    return written, unchanged


def new_package(
    name: str | None = None,
    *,
    family: str | None = None,
    template: str = DEFAULT_TEMPLATE,
    directory: str | Path | None = None,
    spec_file: str | Path | None = None,
    force: bool = False,
    cwd: str | Path | None = None,
    summary: str | None = None,
) -> NewResult:
    """Create an operator package; returns where it went and what was written."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    _check_template(template)
    if spec_file is not None:
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
        rendered = _render(template, context, Path(tmp))
        written, unchanged = _install(rendered, target, force)
    from opkit.spec import load

    return NewResult(target, load(target), written, unchanged)
