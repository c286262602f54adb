"""What every `opkit` command shares: the typer app and its groups, the error handling that turns a user's
mistake into one message and an exit code, and how commands find their packages."""

from __future__ import annotations

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
        raise UsageError(f"{command} acts on one package; {len(specs)} found ({names}): name one "
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


def _check_jobs(jobs: int | None) -> None:
    if jobs is not None and jobs < 1:
        from opkit.errors import UsageError

        raise UsageError(f"--jobs {jobs}: must be at least 1")


def _check_timeout(timeout: float) -> None:
    import math

    if not (math.isfinite(timeout) and timeout > 0):
        from opkit.errors import UsageError

        raise UsageError(f"--timeout {timeout:g}: must be a number of seconds > 0")




BACKEND_HELP = "Backend: sim (default; opkit's simulator on this CPU), cann (CANN toolkit, NPU), cann-cpu (CANN's " \
    "CPU-debug mode); see `opkit doctor`."


def _backend(name: str, command: str, cann_path: Path | None = None) -> str:
    """Check --backend NAME: known, and ready on this machine (else one message naming what is missing, exit 2)."""
    from opkit import backends

    backends.get(name)
    if name != backends.DEFAULT:
        backends.require(name, command, cann_path=cann_path)
    return name
