"""Commands that make and check packages: new, list, spec, import-msopgen, adopt, export-msopgen."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from opkit.cli.common import (
    _console,
    _resolve,
    _template_help,
    _user_errors,
    app,
    spec_app,
)


@app.command()
@_user_errors
def new(
    name: Annotated[str | None, typer.Argument(metavar="NAME",
                                               help="Op name in snake_case (OpType is derived).")] = None,
    family: Annotated[str | None, typer.Option(metavar="FAMILY",
                                               help="Family folder: writes ops/FAMILY/NAME (unless --dir).")] = None,
    template: Annotated[str | None, typer.Option(metavar="TEMPLATE",
        help=f"Package template: {_template_help()}. Not with --spec.")] = None,
    dir: Annotated[Path | None, typer.Option("--dir", metavar="DIR", help="Write the package to DIR/NAME.")] = None,
    spec: Annotated[Path | None, typer.Option(metavar="FILE", help="Generate from your own op.yaml.")] = None,
    force: Annotated[bool, typer.Option(help="Replace files that were changed since opkit wrote them (a copy of "
                                        "each is kept under .opkit/backup/).")] = False,
    interactive: Annotated[bool, typer.Option(help="Ask for name, family, template and folder.")] = False,
) -> None:
    """Scaffold a complete operator package (spec, OpDef, InferShape, tiling, kernel, golden, cases)."""
    from opkit.paths import template_names
    from opkit.scaffold.new import new_package

    if interactive:
        if name is None and spec is None:
            name = typer.prompt("Op name (snake_case)")
        if spec is None:
            template = typer.prompt(f"Template ({', '.join(template_names())})", default=template or "vector")
        family = typer.prompt("Family (folder under ops/)", default=family or "custom")
        if dir is None:
            where = typer.prompt("Directory to create it in (empty: ops/FAMILY)", default="", show_default=False)
            dir = Path(where) if where else None
    result = new_package(name, family=family, template=template, directory=dir, spec_file=spec, force=force)
    out = _console()
    out.print(f"[green]created[/] {result.spec.op_type} ({result.spec.name}) in {result.path}")
    if result.unchanged and result.written:
        out.print(f"  {len(result.written)} file(s) written, {len(result.unchanged)} already up to date")
    for f in result.written:
        out.print(f"  {f.relative_to(result.path)}")
    if result.backup is not None:
        out.print(f"[yellow]kept a copy[/] of each replaced file in {result.backup}")
    out.print("next: opkit spec check " + str(result.path))


@app.command("list")
@_user_errors
def list_(
    path: Annotated[Path | None, typer.Argument(metavar="FOLDER",
                                                help="Folder to search (default: ./ops, else .).")] = None,
) -> None:
    """List the operator packages under ops/ (or FOLDER): family, op, OpType, dtypes, SoCs, cases, validity."""
    from rich.markup import escape
    from rich.table import Table

    from opkit.errors import UsageError
    from opkit.listing import list_packages

    root = path if path is not None else (Path("ops") if Path("ops").is_dir() else Path("."))
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder")
    rows = list_packages(root)
    if not rows:
        raise UsageError(f"no operator packages (folders holding op.yaml) under {root}")
    table = Table(title=f"operator packages under {root}")
    for col in ("family", "op", "OpType", "dtypes", "SoCs", "cases", "spec"):
        table.add_column(col, overflow="fold")
    for r in rows:
        status = "[green]valid[/]" if r.valid else "[red]invalid[/]"
        table.add_row(r.family, r.name, r.op_type, r.dtypes, r.socs, r.cases, status)
    out = _console()
    out.print(table)
    bad = [r for r in rows if not r.valid]
    for r in bad:
        out.print(f"[red]invalid[/] {escape(r.status)}")
    if bad:
        raise typer.Exit(1)


@spec_app.command("check")
@_user_errors
def spec_check(
    ops: Annotated[list[str] | None, typer.Argument(metavar="OP...",
                                                    help="Packages: paths or op names (default: see docs).")] = None,
) -> None:
    """Validate op.yaml files: schema, dtype columns, cases, golden entry point."""
    from opkit.errors import SpecError
    from opkit.spec import load

    problems: list[str] = []
    out = _console()
    for d in _resolve(ops):
        try:
            s = load(d)
            out.print(f"[green]ok[/] {d / 'op.yaml'}: {s.op_type}, {len(s.params)} tensors, "
                      f"{s.n_columns} dtype column(s), {len(s.cases)} case(s)")
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)


@spec_app.command("schema")
@_user_errors
def spec_schema(
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE",
                                             help="Write to a file instead of stdout.")] = None,
    force: Annotated[bool, typer.Option(help="Replace a file opkit did not write (or that changed since).")] = False,
) -> None:
    """Print the JSON Schema of op.yaml (for editors: yaml-language-server, VS Code, PyCharm)."""
    from opkit.spec.schema import schema_text

    text = schema_text()
    if out is None:
        sys.stdout.write(text)
    else:
        from opkit import writes

        writes.write_text(out, text, force, "--out")


@app.command("import-msopgen")
@_user_errors
def import_msopgen_cmd(
    json_file: Annotated[Path, typer.Argument(metavar="FILE", help="msOpGen operator prototype JSON.")],
    op: Annotated[str | None, typer.Option("--op", metavar="OPTYPE",
                                           help="OpType to take when the file defines several.")] = None,
    family: Annotated[str | None, typer.Option(metavar="FAMILY", help="Family folder: writes ops/FAMILY/NAME.")] = None,
    dir: Annotated[Path | None, typer.Option("--dir", metavar="DIR", help="Write the package to DIR/NAME.")] = None,
    soc: Annotated[list[str] | None, typer.Option("--soc", metavar="KEY",
                                                  help="OpDef SoC key(s) (default ascend910b).")] = None,
    force: Annotated[bool, typer.Option(help="Replace files that were changed since opkit wrote them (a copy of "
                                        "each is kept under .opkit/backup/).")] = False,
) -> None:
    """Create an operator package from msOpGen's prototype JSON (op.yaml plus every package file)."""
    from opkit.scaffold.msopgen import import_msopgen

    result = import_msopgen(json_file, op=op, family=family, directory=dir, force=force, socs=soc)
    _console().print(f"[green]imported[/] {result.spec.op_type} into {result.path}")
    if result.backup is not None:
        _console().print(f"[yellow]kept a copy[/] of each replaced file in {result.backup}")


@app.command()
@_user_errors
def adopt(
    path: Annotated[Path, typer.Argument(metavar="FOLDER", help="An operator folder with op_host/ and op_kernel/.")],
    dir: Annotated[Path | None, typer.Option("--dir", metavar="DIR", help="Write op.yaml and golden.py into DIR "
                                             "(pointing back at FOLDER) instead of beside the sources.")] = None,
    op: Annotated[str | None, typer.Option("--op", metavar="OPTYPE",
                                           help="OpType to take when the host code registers several.")] = None,
    family: Annotated[str | None, typer.Option(metavar="FAMILY",
                                               help="Family recorded in op.yaml (default: FOLDER's parent).")] = None,
    include_dir: Annotated[list[Path] | None, typer.Option("--include-dir", "-I", metavar="DIR",
                                                           help="Extra include folder (repeatable).")] = None,
    alias: Annotated[list[str] | None, typer.Option("--alias", metavar="PREFIX=DIR",
                                                    help="Include alias: '#include \"PREFIX/x.h\"' finds DIR/x.h "
                                                    "(repeatable).")] = None,
    source: Annotated[list[str] | None, typer.Option("--source", metavar="FILE",
                                                     help="Extra host source, globs allowed (repeatable).")] = None,
    define: Annotated[list[str] | None, typer.Option("--define", "-D", metavar="NAME[=VALUE]",
                                                     help="Preprocessor define (repeatable).")] = None,
    soc: Annotated[str, typer.Option("--soc", metavar="CHIP", help="Chip the host code runs for.")] = "ascend910b",
    force: Annotated[bool, typer.Option(help="Replace an op.yaml changed since opkit wrote it (a copy is kept "
                                        "under .opkit/backup/); golden.py is never replaced.")] = False,
) -> None:
    """Make an existing operator folder (ops-transformer or msOpGen layout) an opkit package, its C++ untouched."""
    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.scaffold.adopt import adopt as adopt_folder

    aliases: dict[str, str] = {}
    for a in alias or []:
        prefix, sep, folder = a.partition("=")
        if not sep or not prefix or not folder:
            raise UsageError(f"--alias {a!r}: give PREFIX=DIR, e.g. --alias example/add_example=.")
        aliases[prefix.strip("/")] = folder
    result = adopt_folder(path, directory=dir, op_type=op, family=family, include_dirs=list(include_dir or []),
                          aliases=aliases, sources=list(source or []), defines=list(define or []), chip=soc,
                          force=force)
    out = _console()
    out.print(f"[green]adopted[/] {escape(result.spec.op_type)} into {result.path} "
              f"({len(result.cases)} case(s): {escape(', '.join(result.cases)) or 'a placeholder smoke case'})")
    for note in result.notes:
        out.print(f"  [yellow]note:[/] {escape(note)}")
    if result.backup is not None:
        out.print(f"[yellow]kept a copy[/] of each replaced file in {result.backup}")
    out.print(f"next: write the math in {result.path / 'golden.py'}, then: opkit verify {result.path}")


@app.command("export-msopgen")
@_user_errors
def export_msopgen_cmd(
    op: Annotated[str | None, typer.Argument(metavar="OP", help="Package: a path or an op name.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", help="Output JSON file.")] = None,
    force: Annotated[bool, typer.Option(help="Replace a file opkit did not write (or that changed since).")] = False,
) -> None:
    """Write the package's interface as msOpGen prototype JSON."""
    from opkit.errors import UsageError
    from opkit.scaffold.msopgen_export import export_msopgen

    pkgs = _resolve([op] if op else None)
    if len(pkgs) != 1:
        raise UsageError(f"export-msopgen takes one package; {len(pkgs)} found (name one)")
    path = export_msopgen(pkgs[0], out, force=force)
    _console().print(f"[green]wrote[/] {path}")


