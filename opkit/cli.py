"""The `opkit` command: a thin typer layer over the library. Heavy modules are imported lazily."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any

import typer

from opkit import __version__


def _no_type_labels() -> None:
    """Help shows each argument by its name (OP, NAME...), not by its Python type (``<list[str]>``)."""
    import typer.core

    if hasattr(typer.core, "TyperArgument") and hasattr(typer.core.TyperArgument, "display_type_rich"):
        typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]


_no_type_labels()

app = typer.Typer(
    name="opkit",
    help="Operator development kit for Ascend C fused operators: scaffold, check and verify operator packages.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
spec_app = typer.Typer(help="Check op.yaml files and print their JSON Schema.", no_args_is_help=True)
app.add_typer(spec_app, name="spec")
report_app = typer.Typer(help="Work with verify's reports: join the results of shards.", no_args_is_help=True)
app.add_typer(report_app, name="report")
ci_app = typer.Typer(help="Continuous integration: write a GitHub Actions workflow.", no_args_is_help=True)
app.add_typer(ci_app, name="ci")


def _template_help() -> str:
    """Every template `opkit new --template` offers, for its help."""
    try:
        from opkit.paths import template_names

        names = template_names()
    except OSError:
        return "vector (default)"
    return ", ".join(f"{n} (default)" if n == "vector" else n for n in names)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _fail(message: str, code: int) -> None:
    from rich.markup import escape

    _console(stderr=True).print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def _user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn an OpkitError into one clear message and a non-zero exit code, never a traceback; so too any
    OSError (a file or folder that cannot be read or written) and MemoryError left over (exit 2)."""

    @wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        from opkit.errors import OpkitError

        try:
            return fn(*args, **kwargs)
        except OpkitError as exc:
            _fail(exc.message, exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except MemoryError:
            _fail("out of memory: the inputs or outputs are too large for this machine (shapes in op.yaml, "
                  "--inputs data); see --max-case-memory", 2)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            _fail(f"{where}{exc.strerror or exc}", 2)

    return run


def _version(value: bool) -> None:
    if value:
        typer.echo(f"opkit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """opkit: write an Ascend C operator once; build and verify it on a CPU; build the same source for the NPU."""


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


def _resolve(ops: list[str] | None) -> list[Path]:
    """The packages OP... names (opkit.discover); a bare name that is the name of the package containing the
    current directory means that package when nothing else has that name, so commands work as written
    from inside a package."""
    from opkit.discover import enclosing_package, resolve_ops
    from opkit.errors import UsageError

    cwd = Path.cwd()
    if not ops:
        return resolve_ops(None, cwd)
    here = enclosing_package(cwd)
    out: list[Path] = []
    for op in ops:
        try:
            found = resolve_ops([op], cwd)
        except UsageError:
            if here is None or op != here.name:
                raise
            found = [here]
        out += [d for d in found if d not in out]
    return out


def _one_spec(op: str | None, command: str) -> Any:
    """The one package a command such as run or perf acts on (default: the package containing the cwd)."""
    from opkit.errors import UsageError

    specs = _specs([op] if op else None)
    if len(specs) != 1:
        names = ", ".join(s.name for s in specs[:8]) + (", ..." if len(specs) > 8 else "")
        raise UsageError(f"{command} acts on one package; {len(specs)} found under ./ops ({names}): name one "
                         "(a path or an op name), or run it from inside the package")
    return specs[0]


def _specs(ops: list[str] | None) -> list[Any]:
    from opkit.errors import SpecError
    from opkit.spec import load

    specs, problems = [], []
    for d in _resolve(ops):
        try:
            specs.append(load(d))
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    return specs


@app.command()
@_user_errors
def build(
    ops: Annotated[list[str] | None, typer.Argument(metavar="OP...",
                                                    help="Packages: paths or op names (default: see docs).")] = None,
    soc: Annotated[list[str] | None, typer.Option("--soc", metavar="CHIP", help="Chip(s), e.g. ascend910b4 "
                                                  "(default: the default chip of every SoC the op targets).")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", metavar="N",
                                             help="Parallel compile jobs (default: CPUs).")] = None,
) -> None:
    """Compile packages on the CPU simulator: one harness per op x chip x dtype column (cached)."""
    import time

    from rich.markup import escape

    from opkit.build.api import build_packages

    _check_jobs(jobs)
    out = _console()
    t0 = time.perf_counter()
    report = build_packages(_specs(ops), soc, jobs, progress=lambda m: out.print(f"  {escape(m)}"))
    out.print(f"[green]built[/] {report.built}, up to date {report.cached} "
              f"({len(report.artifacts)} harness(es), {time.perf_counter() - t0:.1f} s); op.yaml matches the OpDef")


def _check_jobs(jobs: int | None) -> None:
    if jobs is not None and jobs < 1:
        from opkit.errors import UsageError

        raise UsageError(f"--jobs {jobs}: must be at least 1")


def _check_timeout(timeout: float) -> None:
    import math

    if not (math.isfinite(timeout) and timeout > 0):
        from opkit.errors import UsageError

        raise UsageError(f"--timeout {timeout:g}: must be a number of seconds > 0")


def _case_line(r: Any, done: int, total: int, terminal: bool) -> str:
    """One case's progress line: with the message on following lines in a terminal; on one line (with the
    figures the table would show) when the output is a log."""
    from rich.markup import escape

    style = {"pass": "[green]pass[/]", "fail": "[red]FAIL[/]", "error": "[red]ERROR[/]", "skip": "[yellow]skip[/]"}
    line = f"[{done}/{total}] {style.get(r.status, r.status)} {escape(r.id)} ({r.seconds:.2f} s)"
    if not terminal:
        if r.outputs and r.status in ("pass", "fail"):
            line += f" max_rel_err={r.worst_rel:.3g} matched={r.matched:.2%}"
        if r.perf.get("modelled_us") is not None:
            line += f" modelled={r.perf['modelled_us']:.2f}us"
        if r.message and r.status != "pass":
            line += " -- " + escape(" | ".join(m.strip() for m in r.message.splitlines() if m.strip()))
        for w in r.warnings:
            line += " -- simulator warning: " + escape(" | ".join(w.splitlines()))
        return line
    if r.message and r.status != "pass":
        line += "\n    " + escape(r.message).replace("\n", "\n    ")
    for w in r.warnings:
        line += "\n    [yellow]simulator warning:[/] " + escape(w).replace("\n", "\n    ")
    return line


@app.command()
@_user_errors
def verify(
    ops: Annotated[list[str] | None, typer.Argument(metavar="OP...",
                                                    help="Packages: paths or op names (default: see docs).")] = None,
    soc: Annotated[list[str] | None, typer.Option("--soc", metavar="CHIP", help="Chip(s) to verify on (default: "
                                                  "the default chip of the op's first SoC).")] = None,
    tags: Annotated[list[str] | None, typer.Option("--tags", metavar="TAG",
                                                   help="Only cases with this tag (repeatable).")] = None,
    keyword: Annotated[str | None, typer.Option("-k", metavar="NAME", help="Only cases whose name contains this "
                                                "(or matches this glob).")] = None,
    dtype: Annotated[str | None, typer.Option("--dtype", metavar="DTYPE", help="Only dtype columns whose first "
                                              "tensor has this dtype.")] = None,
    full: Annotated[bool, typer.Option("--full", help="Also the large cases tagged 'full'.")] = False,
    sweep: Annotated[bool, typer.Option("--sweep", help="Also cases whose dims are 2^k and 2^k-1 within op.yaml's "
                                        "limits, derived from the selected cases (default: the first smoke "
                                        "case); tagged 'sweep'.")] = False,
    sweep_values: Annotated[int | None, typer.Option("--sweep-values", metavar="N", help="With --sweep: values per "
                                                     "swept dim (default 8).")] = None,
    profile: Annotated[str | None, typer.Option("--profile", metavar="PROFILE", help="Precision profile for every "
                                                "case (default: op.yaml's, else mixed).")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", metavar="FILE", help="Write JUnit XML here.")] = None,
    out_dir: Annotated[Path, typer.Option("--out", metavar="DIR", help="Folder for results.json and worst-element "
                                          "CSVs.")] = Path(".opkit/verify"),
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Seconds before a kernel run or a "
                                           "call into golden.py counts as hung.")] = 300.0,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", metavar="N", help="Parallel compile jobs (default: "
                                             "one per core; the build comes before the runs).")] = None,
    workers: Annotated[int | None, typer.Option("--workers", metavar="N", help="Cases run at once, each in a "
                                                "worker process (default: one per core).")] = None,
    shard: Annotated[str | None, typer.Option("--shard", metavar="I/N", help="Only slice I of N of the runs, by a "
                                              "stable hash of each run's id (for CI matrices; join the shards' "
                                              "results with `opkit report merge`).")] = None,
    trace: Annotated[bool, typer.Option("--trace/--no-trace", help="Write each run's per-core, per-pipe trace "
                                        "(JSON) under OUT/traces.")] = True,
    perf: Annotated[bool, typer.Option("--perf", help="Model each run's time on its chip: modelled time, roofline "
                                       "bound, efficiency.")] = False,
    max_case_memory: Annotated[str | None, typer.Option("--max-case-memory", metavar="SIZE", help="Refuse a case "
                                                        "whose inputs need more (e.g. 8G; default: half of this "
                                                        "machine's memory, or OPKIT_MAX_CASE_MEMORY).")] = None,
    force: Annotated[bool, typer.Option(help="Replace --junit and --out files opkit did not write (or that "
                                        "changed since).")] = False,
) -> None:
    """Run every case on the simulator and compare with the golden; exit 1 on any failure or when nothing
    was verified."""
    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.verify.limits import parse_size
    from opkit.verify.pipeline import Selection
    from opkit.verify.profiles import PROFILES
    from opkit.verify.report import fusion_table, table, thresholds_lines
    from opkit.verify.session import VerifyOptions, check_outputs, verify_packages
    from opkit.verify.shard import parse_shard

    if profile is not None and profile not in PROFILES:
        raise UsageError(f"--profile {profile}: unknown (profiles: {', '.join(PROFILES)})")
    _check_timeout(timeout)
    limit = parse_size(max_case_memory, "--max-case-memory") if max_case_memory is not None else None
    opts = VerifyOptions(Selection(tags or [], keyword, soc or [], dtype, full, sweep, sweep_values), profile, out_dir,
                         junit, timeout, jobs, trace, perf, limit, force, workers, parse_shard(shard))
    check_outputs(opts)
    out = _console()
    terminal = out.is_terminal

    def progress(r: Any, done: int, total: int) -> None:
        out.print(_case_line(r, done, total, terminal))

    outcome = verify_packages(_specs(ops), opts, progress, lambda m: out.print(f"  {escape(m)}"))
    if not outcome.selected:
        raise UsageError("no case matched the selection (check --tags, -k, --dtype and --soc)")
    if opts.shard is not None:
        out.print(f"shard {opts.shard}: {outcome.runs} of the {outcome.selected} selected runs"
                  + ("" if outcome.runs else f"; none to run here (results: {outcome.json_path})"))
        if not outcome.runs:
            return
    if terminal:
        out.print(table(outcome.results))
    for line in thresholds_lines(outcome.results):
        out.print(f"  thresholds: {escape(line)}")
    fused = fusion_table(outcome.results) if perf and terminal else None
    if fused is not None:
        out.print(fused)
    if perf:
        out.print("times, bounds, efficiencies and the unfused chain above are modelled from the simulator's "
                  "traces and the chip's numbers, not measured on an NPU (steady state: without the kernel start-up "
                  "cost)")
    counts = {s: sum(r.status == s for r in outcome.results) for s in ("pass", "fail", "error")}
    warned = sum(bool(r.warnings) for r in outcome.results)
    if warned:
        out.print(f"[yellow]{warned} run(s) had simulator warnings[/] (listed above and in results.json): code the "
                  "NPU may not run as the simulator did; see docs/simulator.md, Checks")
    out.print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors; results: "
              f"{outcome.json_path}" + (f"; JUnit: {outcome.junit}" if outcome.junit else ""))
    for p in outcome.csv_paths:
        out.print(f"  worst elements: {p}")
    if not outcome.verified:
        _console(stderr=True).print("[bold red]error:[/] nothing was verified: every selected run ended in an error "
                                    "(listed above)")
    if not outcome.ok:
        raise typer.Exit(1)


@app.command()
@_user_errors
def run(
    op: Annotated[str | None, typer.Argument(metavar="OP", help="Package: a path or an op name (default: the "
                                             "package containing the current directory).")] = None,
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="Output .npz (outputs; with --case also "
                                             "the inputs). Required.")] = None,
    case: Annotated[str | None, typer.Option("--case", metavar="NAME", help="Run a case of op.yaml.")] = None,
    inputs: Annotated[Path | None, typer.Option("--inputs", metavar="FILE", help="Run on your .npz (keys = input "
                                                "names; bfloat16 as uint16 bits).")] = None,
    attr: Annotated[list[str] | None, typer.Option("--attr", metavar="NAME=VALUE",
                                                   help="An attr's value (repeatable).")] = None,
    soc: Annotated[str | None, typer.Option("--soc", metavar="CHIP",
                                            help="Chip (default: the op's first SoC's default).")] = None,
    dtype: Annotated[str | None, typer.Option("--dtype", metavar="DTYPE",
                                              help="Dtype column (a dtype name or an index).")] = None,
    force: Annotated[bool, typer.Option(help="Replace an --out file opkit did not write (or that changed "
                                        "since).")] = False,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Seconds before the kernel run or "
                                           "a call into golden.py counts as hung.")] = 300.0,
) -> None:
    """Run the kernel once on the simulator, on a case or on your own data, and save the outputs."""
    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.run.sim_runner import SimRunner
    from opkit.run.userdata import run_on_data
    from opkit.verify import usercode

    if out is None:
        raise UsageError("give --out FILE.npz: where to save the outputs")
    _check_timeout(timeout)
    spec = _one_spec(op, "run")
    chip, _ = spec.target(spec.socs[0].key if soc is None else soc)
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    console = _console(stderr=True)
    with usercode.guarded(timeout):
        summary = run_on_data(spec, SimRunner(timeout_s=timeout), chip, out, case_name=case, inputs_npz=inputs,
                              attr_items=attr or [], dtype=sel, force=force,
                              notice=lambda m: console.print(f"[yellow]note:[/] {m}"))
    for w in summary.info.get("warnings", []):
        console.print(f"[yellow]simulator warning:[/] {escape(w)}")
    shapes = ", ".join(f"{k} {list(v)}" for k, v in summary.outputs.items())
    _console().print(f"[green]ran[/] {spec.op_type} {escape(f'[{spec.column_label(summary.column)}@{chip}]')} "
                     f"block_dim={summary.info.get('block_dim')}: {escape(shapes)} -> {escape(str(summary.out))}")


@app.command()
@_user_errors
def tiling(
    op: Annotated[str | None, typer.Argument(metavar="OP", help="Package: a path or an op name (default: the "
                                             "package containing the current directory).")] = None,
    case: Annotated[str | None, typer.Option("--case", metavar="NAME",
                                             help="The case of op.yaml to run the tiling on. Required.")] = None,
    soc: Annotated[str | None, typer.Option("--soc", metavar="CHIP",
                                            help="Chip (default: the op's first SoC's default).")] = None,
    dtype: Annotated[str | None, typer.Option("--dtype", metavar="DTYPE",
                                              help="Dtype column (a dtype name or an index).")] = None,
    attr: Annotated[list[str] | None, typer.Option("--attr", metavar="NAME=VALUE",
                                                   help="An attr's value (repeatable).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", metavar="N", help="Parallel compile jobs.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Seconds before the tiling "
                                           "counts as hung.")] = 300.0,
) -> None:
    """Run the op's own tiling function on a case (host side only: the kernel is not built) and print the tiling
    key, block dim, workspaces, schedule mode and the tiling data field by field; exit 1 when the tiling fails."""
    import json

    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.run.tiling import render, run_tiling

    if case is None:
        raise UsageError("give --case NAME: the case of op.yaml to run the tiling on")
    _check_jobs(jobs)
    _check_timeout(timeout)
    spec = _one_spec(op, "tiling")
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    err = _console(stderr=True)
    res = run_tiling(spec, case, soc=soc, dtype=sel, attr_items=attr or [], jobs=jobs, timeout_s=timeout,
                     progress=lambda m: err.print(f"  {escape(m)}"))
    if as_json:
        typer.echo(json.dumps(res.as_json(), indent=2))
        return
    for line in render(res):
        typer.echo(line)


@app.command()
@_user_errors
def perf(
    op: Annotated[str | None, typer.Argument(metavar="OP", help="Package: a path or an op name (default: the "
                                             "package containing the current directory).")] = None,
    case: Annotated[str | None, typer.Option("--case", metavar="NAME",
                                             help="The case of op.yaml to run and model. Required.")] = None,
    dtype: Annotated[str | None, typer.Option("--dtype", metavar="DTYPE",
                                              help="Dtype column (a dtype name or an index).")] = None,
    soc: Annotated[str | None, typer.Option("--soc", metavar="CHIP",
                                            help="Chip (default: the op's first SoC's default).")] = None,
    trace: Annotated[Path | None, typer.Option("--trace", metavar="FILE", help="Write a Chrome-trace / Perfetto "
                                               "timeline of the pipes of every core (JSON).")] = None,
    force: Annotated[bool, typer.Option(help="Replace a --trace file opkit did not write (or that changed "
                                        "since).")] = False,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Seconds before the kernel run or "
                                           "a call into golden.py counts as hung.")] = 300.0,
    trace_only: Annotated[bool, typer.Option("--trace-only", help="Skip the arithmetic and data bytes: the same "
                                             "trace, much faster on large shapes (see docs/simulator.md).")] = False,
) -> None:
    """Run one case on the simulator and model its time on a chip: modelled time, roofline bound,
    efficiency with and without start-up, per-pipe busy time per core, fused against unfused."""
    from opkit.errors import UsageError
    from opkit.perf.case import perf_case
    from opkit.perf.report import render
    from opkit.verify import usercode

    if case is None:
        raise UsageError("give --case NAME: the case of op.yaml to run and model")
    _check_timeout(timeout)
    spec = _one_spec(op, "perf")
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    with usercode.guarded(timeout):
        report = perf_case(spec, case, dtype=sel, soc_name=soc, timeline=trace, force=force, timeout_s=timeout,
                           trace_only=trace_only)
    out = _console()
    for item in render(report):
        out.print(item)


@report_app.command("merge")
@_user_errors
def report_merge(
    out: Annotated[Path, typer.Argument(metavar="OUT", help="The merged results.json (or JUnit XML, from JUnit "
                                        "shards) to write.")],
    shards: Annotated[list[Path], typer.Argument(metavar="SHARD...", help="Each shard's results.json (`opkit "
                                                 "verify --shard I/N`), in any order; or JUnit XML files (`pytest "
                                                 "--opkit-shard I/N --junitxml FILE`).")],
    junit: Annotated[Path | None, typer.Option("--junit", metavar="FILE", help="Also write the merged runs as "
                                               "JUnit XML.")] = None,
    force: Annotated[bool, typer.Option(help="Replace OUT and --junit files opkit did not write (or that "
                                        "changed since).")] = False,
) -> None:
    """Join the results.json files of the shards of one verification into one, as an unsharded run writes
    it; refuse shards of different selections or opkit versions, and duplicate or missing shards. JUnit XML
    shards are joined into one JUnit file (checked only for test cases in two files). Exit 1 when a merged
    run failed or errored, or none was verified."""
    from rich.markup import escape

    from opkit.verify.merge import merge_reports

    outcome = merge_reports(out, list(shards), junit, force)
    _console().print(escape(outcome.line))
    if not outcome.verified:
        _console(stderr=True).print("[bold red]error:[/] nothing was verified: every merged run ended in an error")
    if not outcome.ok:
        raise typer.Exit(1)


@ci_app.command("init")
@_user_errors
def ci_init(
    ops: Annotated[list[str] | None, typer.Argument(metavar="OP...", help="Packages the workflow verifies "
                                                    "(default: every package under ./ops).")] = None,
    shards: Annotated[int, typer.Option("--shards", metavar="N", help="Shards: parallel jobs per Python "
                                        "version.")] = 4,
    python: Annotated[list[str] | None, typer.Option("--python", metavar="VERSION", help="Python version(s) to "
                                                     "verify with (repeatable; default 3.11).")] = None,
    soc: Annotated[list[str] | None, typer.Option("--soc", metavar="CHIP", help="Chip(s) to verify on "
                                                  "(repeatable; default: verify's).")] = None,
    full: Annotated[bool, typer.Option("--full", help="Also the large cases tagged 'full'.")] = False,
    install: Annotated[str | None, typer.Option("--install", metavar="COMMAND", help="The command that installs "
                                                "opkit (default: pip install of this opkit version from PyPI; "
                                                "e.g. 'python -m pip install -e .').")] = None,
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="Where to write the workflow.")] =
        Path(".github/workflows/verify.yml"),
    force: Annotated[bool, typer.Option(help="Replace a workflow opkit did not write (or that changed "
                                        "since).")] = False,
) -> None:
    """Write a GitHub Actions workflow: a matrix over shards running `opkit verify --shard`, their JUnit and
    results uploaded, and a job joining them with `opkit report merge`."""
    from opkit.scaffold.ci import CiOptions, write_workflow

    opts = CiOptions(shards, list(python or ["3.11"]), list(soc or []), list(ops or []), install, full)
    path = write_workflow(opts, out, force)
    _console().print(f"[green]wrote[/] {path}: {shards} shard(s) x Python {', '.join(opts.pythons)}, merged by "
                     "`opkit report merge`; commit it to run it")


@app.command()
@_user_errors
def doctor() -> None:
    """Report what is installed (Python, C++ compiler, cmake, CANN) and what each missing piece blocks."""
    from opkit.doctor import diagnose, render, sim_ready

    checks = diagnose()
    typer.echo(render(checks))
    if not sim_ready(checks):
        raise typer.Exit(1)


def main() -> None:
    """The entry point: anything that escapes the commands' own handling still ends in one message."""
    try:
        app()
    except MemoryError:
        sys.stderr.write("error: out of memory\n")
        sys.exit(2)
    except OSError as exc:
        sys.stderr.write(f"error: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
