"""Commands around the runs: report merge, ci init, doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from opkit.cli.common import (
    _console,
    _user_errors,
    app,
    ci_app,
    report_app,
)


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
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="Where to write the workflow "
                                             "(default .github/workflows/verify.yml; with --npu npu.yml).")] = None,
    force: Annotated[bool, typer.Option(help="Replace a workflow opkit did not write (or that changed "
                                        "since).")] = False,
    npu: Annotated[bool, typer.Option("--npu", help="A workflow for a self-hosted runner with CANN and an NPU: "
                                      "build --backend cann, install, verify (docs/backends.md).")] = False,
    runner_label: Annotated[list[str] | None, typer.Option("--runner-label", metavar="LABEL", help="--npu: the "
                                                           "runner's label(s) after self-hosted, linux (default "
                                                           "npu).")] = None,
    set_env: Annotated[str | None, typer.Option("--set-env", metavar="FILE", help="--npu: CANN's set_env.sh on the "
                                                "runner.")] = None,
    vendor: Annotated[str | None, typer.Option("--vendor", metavar="NAME", help="--npu: the packages' vendor "
                                               "name.")] = None,
) -> None:
    """Write a GitHub Actions workflow: a matrix over shards running `opkit verify --shard`, their JUnit and
    results uploaded, and a job joining them with `opkit report merge`; with --npu, a job for a self-hosted
    runner with CANN and an NPU."""
    from opkit.errors import UsageError

    if npu:
        from opkit.scaffold import ci_npu

        if python or soc or full or shards != 4:
            raise UsageError("--npu: --shards, --python, --soc and --full are for the simulator workflow (the NPU "
                             "job runs on the runner's own python3)")
        nopts = ci_npu.NpuCiOptions(list(ops or []), list(runner_label or ci_npu.DEFAULT_LABELS),
                                    set_env or ci_npu.DEFAULT_SET_ENV, install, vendor or "customize")
        path = ci_npu.write_workflow(nopts, out or ci_npu.DEFAULT_PATH, force)
        _console().print(f"[green]wrote[/] {path}: one job on a self-hosted runner labelled "
                         f"{', '.join(['self-hosted', 'linux', *nopts.labels])}; commit it to run it")
        return
    if runner_label or set_env or vendor:
        raise UsageError("--runner-label, --set-env and --vendor go with --npu")
    from opkit.scaffold.ci import CiOptions, write_workflow

    out = out or Path(".github/workflows/verify.yml")
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


