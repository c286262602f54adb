"""Commands that build and run packages on the simulator: build, verify, run, tiling, perf."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from opkit.cli.common import (
    BACKEND_HELP,
    _backend,
    _check_jobs,
    _check_timeout,
    _console,
    _one_spec,
    _specs,
    _user_errors,
    app,
)

DEVICE_HELP = ("cann: the NPU to run on; a multi-rank case's R ranks run on N, N+1, ..., N+R-1, or on the devices "
               "listed (one per rank: 0,2,4,6).")


@app.command()
@_user_errors
def build(
    ops: Annotated[list[str] | None, typer.Argument(metavar="OP...",
                                                    help="Packages: paths or op names (default: see docs).")] = None,
    soc: Annotated[list[str] | None, typer.Option("--soc", metavar="CHIP", help="Chip(s), e.g. ascend910b4 "
                                                  "(default: the default chip of every SoC the op targets).")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", metavar="N",
                                             help="Parallel compile jobs (default: CPUs).")] = None,
    backend: Annotated[str, typer.Option("--backend", metavar="NAME", help=BACKEND_HELP)] = "sim",
    vendor: Annotated[str, typer.Option("--vendor", metavar="NAME", help="cann: the vendor folder of the "
                                        "package (opp/vendors/NAME).")] = "customize",
    cann_path: Annotated[Path | None, typer.Option("--cann-path", metavar="DIR", help="cann, cann-cpu: the CANN "
                                                   "toolkit (default: $ASCEND_HOME_PATH, then the default "
                                                   "install folders).")] = None,
) -> None:
    """Compile packages: on the CPU simulator (one harness per op x chip x dtype column, cached), or with
    --backend cann into CANN's custom operator package (.run), or with --backend cann-cpu in CANN's CPU-debug
    mode."""
    import time

    from rich.markup import escape

    from opkit.build.api import build_packages

    _check_jobs(jobs)
    _backend(backend, "opkit build", cann_path)
    out = _console()
    t0 = time.perf_counter()
    if backend != "sim":
        from opkit.cli.backend_cmds import build_cann

        build_cann(backend, _specs(ops), soc, jobs, vendor, cann_path, out, t0)
        return
    report = build_packages(_specs(ops), soc, jobs, progress=lambda m: out.print(f"  {escape(m)}"))
    out.print(f"[green]built[/] {report.built}, up to date {report.cached} "
              f"({len(report.artifacts)} harness(es), {time.perf_counter() - t0:.1f} s); op.yaml matches the OpDef")


def _case_line(r: Any, done: int, total: int, terminal: bool) -> str:
    """One case's progress line: with the message on following lines in a terminal; on one line (with the
    figures the table would show) when the output is a log."""
    from rich.markup import escape

    style = {"pass": "[green]pass[/]", "fail": "[red]FAIL[/]", "error": "[red]ERROR[/]", "skip": "[yellow]skip[/]"}
    line = f"[{done}/{total}] {style.get(r.status, r.status)} {escape(r.id)} ({r.seconds:.2f} s)"
    if not terminal:
        if r.outputs and r.status in ("pass", "fail"):
            line += f" max_rel_err={r.worst_rel:.3g} matched={r.matched:.2%}"
        if r.compare is not None:
            line += f" hook: {escape(r.compare.summary)}"
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
    backend: Annotated[str, typer.Option("--backend", metavar="NAME", help=BACKEND_HELP)] = "sim",
    vendor: Annotated[str, typer.Option("--vendor", metavar="NAME", help="cann: the vendor the packages were "
                                        "installed as.")] = "customize",
    device: Annotated[str, typer.Option("--device", metavar="N|N,M,...", help=DEVICE_HELP)] = "0",
    sanitize: Annotated[bool, typer.Option("--sanitize", help="cann: run each case under mssanitizer (memcheck); "
                                           "its findings fail the case.")] = False,
) -> None:
    """Run every case on the simulator (or on CANN's CPU model, or on an NPU through aclnn: --backend) and
    compare with the golden; exit 1 on any failure or when nothing was verified."""
    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.perf.case import perf_record
    from opkit.run.limits import parse_size
    from opkit.verify.pipeline import Selection
    from opkit.verify.profiles import PROFILES
    from opkit.verify.report import fusion_table, table, thresholds_lines, unknown_api_lines
    from opkit.verify.session import VerifyOptions, check_outputs, verify_packages
    from opkit.verify.shard import parse_shard

    if profile is not None and profile not in PROFILES:
        raise UsageError(f"--profile {profile}: unknown (profiles: {', '.join(PROFILES)})")
    _check_timeout(timeout)
    _backend(backend, "opkit verify")
    if backend != "sim" and perf:
        raise UsageError(f"--perf models times from the simulator's traces: not with --backend {backend}")
    if sanitize and backend != "cann":
        raise UsageError("--sanitize runs the cases under CANN's mssanitizer on the NPU: give --backend cann (the "
                         "simulator checks memory on every run)")
    limit = parse_size(max_case_memory, "--max-case-memory") if max_case_memory is not None else None
    opts = VerifyOptions(Selection(tags or [], keyword, soc or [], dtype, full, sweep, sweep_values), profile, out_dir,
                         junit, timeout, jobs, trace and backend == "sim", perf_record if perf else None, limit, force,
                         workers, parse_shard(shard), backend,
                         {"vendor": vendor, "device": device, "sanitize": sanitize} if backend == "cann" else {})
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
    if backend == "cann":
        out.print(f"outputs from NPU device {device} through aclnn (the installed package of vendor {vendor})")
    if perf:
        out.print("times, bounds, efficiencies and the unfused chain above are modelled from the simulator's "
                  "traces and the chip's numbers, not measured on an NPU (steady state: without the kernel start-up "
                  "cost)")
        for line in unknown_api_lines(outcome.results):
            out.print(f"[yellow]warning:[/] {escape(line)}")
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
    backend: Annotated[str, typer.Option("--backend", metavar="NAME", help=BACKEND_HELP)] = "sim",
    beside_sim: Annotated[bool, typer.Option("--beside-sim", help="With --backend cann-cpu: also run on opkit's "
                                             "simulator and show both outputs' differences and both sides' "
                                             "diagnostics.")] = False,
    device: Annotated[str, typer.Option("--device", metavar="N|N,M,...", help=DEVICE_HELP)] = "0",
    vendor: Annotated[str, typer.Option("--vendor", metavar="NAME", help="cann: the vendor the package was "
                                        "installed as.")] = "customize",
    world_size: Annotated[int | None, typer.Option("--world-size", metavar="N", help="A multi-rank operator: the "
                                                   "number of ranks (default: the case's, or the number of "
                                                   "--inputs files).")] = None,
) -> None:
    """Run the kernel once on the simulator (or on CANN's CPU model: --backend cann-cpu), on a case or on your
    own data, and save the outputs."""
    from rich.markup import escape

    from opkit.errors import UsageError
    from opkit.run.userdata import run_on_data
    from opkit.verify import usercode
    from opkit.verify.golden import custom_generators, run_untouched

    if out is None:
        raise UsageError("give --out FILE.npz: where to save the outputs")
    _check_timeout(timeout)
    _backend(backend, "opkit run")
    if beside_sim and backend != "cann-cpu":
        raise UsageError("--beside-sim compares CANN's CPU model with the simulator: give --backend cann-cpu")
    spec = _one_spec(op, "run")
    chip, _ = spec.target(spec.socs[0].key if soc is None else soc)
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    console = _console(stderr=True)
    from opkit import backends

    runner: Any = backends.runner(backend, timeout_s=timeout, beside_sim=beside_sim,
                                  **({"vendor": vendor, "device": device} if backend == "cann" else {}))
    if spec.multi_rank or world_size is not None or "{rank}" in str(out):
        _run_ranks(spec, runner, chip, out, case, inputs, world_size, attr or [], sel, force, console, timeout)
        return
    with usercode.guarded(timeout):
        summary = run_on_data(spec, runner, chip, out, case_name=case, inputs_npz=inputs,
                              attr_items=attr or [], dtype=sel, force=force,
                              notice=lambda m: console.print(f"[yellow]note:[/] {m}"),
                              generators=custom_generators(spec), untouched=run_untouched)
    for w in summary.info.get("warnings", []):
        console.print(f"[yellow]simulator warning:[/] {escape(w)}")
    if backend == "cann-cpu":
        from opkit.cli.backend_cmds import print_beside_sim

        print_beside_sim(summary.info, console, _console())
    shapes = ", ".join(f"{k} {list(v)}" for k, v in summary.outputs.items())
    _console().print(f"[green]ran[/] {'on CANN' + chr(39) + 's CPU model ' if backend == 'cann-cpu' else ''}"
                     f"{spec.op_type} {escape(f'[{spec.column_label(summary.column)}@{chip}]')} "
                     f"block_dim={summary.info.get('block_dim')}: {escape(shapes)} -> {escape(str(summary.out))}")


def _run_ranks(spec: Any, runner: Any, chip: str, out: Path, case: str | None, inputs: Path | None,
               world_size: int | None, attrs: list[str], sel: Any, force: bool, console: Any, timeout: float) -> None:
    """`opkit run` of a multi-rank operator: one .npz per rank in and out (docs/cli.md, "Multi-rank operators")."""
    from rich.markup import escape

    from opkit.run.rankdata import run_ranks_on_data
    from opkit.verify import usercode
    from opkit.verify.golden import custom_generators

    with usercode.guarded(timeout):
        summary = run_ranks_on_data(spec, runner, chip, out, case_name=case, inputs_npz=inputs, world_size=world_size,
                                    attr_items=attrs, dtype=sel, force=force,
                                    notice=lambda m: console.print(f"[yellow]note:[/] {m}"),
                                    generators=custom_generators(spec))
    for r, info in enumerate(summary.infos):
        for w in info.get("warnings", []):
            console.print(f"[yellow]simulator warning (rank {r}):[/] {escape(w)}")
    for r, (f, shapes) in enumerate(zip(summary.outs, summary.outputs, strict=True)):
        text = ", ".join(f"{k} {list(v)}" for k, v in shapes.items())
        _console().print(f"[green]ran[/] {spec.op_type} {escape(f'[{spec.column_label(summary.column)}@{chip}]')} "
                         f"rank {r}/{len(summary.outs)} block_dim={summary.infos[r].get('block_dim')}: "
                         f"{escape(text)} -> {escape(str(f))}")


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
    from opkit.verify.golden import custom_generators

    if case is None:
        raise UsageError("give --case NAME: the case of op.yaml to run the tiling on")
    _check_jobs(jobs)
    _check_timeout(timeout)
    spec = _one_spec(op, "tiling")
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    err = _console(stderr=True)
    res = run_tiling(spec, case, soc=soc, dtype=sel, attr_items=attr or [], jobs=jobs, timeout_s=timeout,
                     progress=lambda m: err.print(f"  {escape(m)}"), generators=custom_generators(spec))
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
    backend: Annotated[str, typer.Option("--backend", metavar="NAME", help="sim (default): modelled time; cann: "
                                         "also measured on the NPU with msprof op.")] = "sim",
    device: Annotated[str, typer.Option("--device", metavar="N|N,M,...", help=DEVICE_HELP.replace(
        "to run on", "to measure on"))] = "0",
    vendor: Annotated[str, typer.Option("--vendor", metavar="NAME", help="cann: the vendor the package was "
                                        "installed as.")] = "customize",
    ranks: Annotated[int | None, typer.Option("--world-size", metavar="N", help="A multi-rank operator: the ranks "
                                              "to run and model (default: the case's world_size).")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", metavar="FILE", help="Also write the modelled "
                                                  "figures as JSON.")] = None,
    svg: Annotated[Path | None, typer.Option("--svg", metavar="FILE", help="Also draw the timeline as an SVG "
                                             "picture (the first AIC and its AIVs; every rank's HCCL).")] = None,
    svg_window: Annotated[str | None, typer.Option("--svg-window", metavar="A:B", help="--svg: only START:END, "
                                                   "us of modelled time (either side may be empty).")] = None,
    svg_cores: Annotated[str | None, typer.Option("--svg-cores", metavar="LIST", help='--svg: the cores, e.g. '
                                                  '"AIC 1,AIV 2,AIV 3" or "rank 1 AIC 0,rank 1 HCCL".')] = None,
) -> None:
    """Run one case on the simulator and model its time on a chip: modelled time, roofline bound,
    efficiency with and without start-up, per-pipe busy time per core, fused against unfused; for a
    multi-rank package, compute, communication, serial sum, fused time and the overlap's saving."""
    from opkit.errors import UsageError
    from opkit.perf.case import perf_case
    from opkit.perf.report import render
    from opkit.verify import usercode

    if case is None:
        raise UsageError("give --case NAME: the case of op.yaml to run and model")
    _check_timeout(timeout)
    _backend(backend, "opkit perf")
    if backend == "cann-cpu":
        from opkit.cli.backend_cmds import runs_not_on

        runs_not_on(backend, "perf")
    spec = _one_spec(op, "perf")
    if backend == "cann":
        from opkit.backends.npu_runner import parse_devices

        parse_devices(device)  # a malformed --device is refused before the simulator runs
    if json_out is not None:
        from opkit import writes

        writes.check(json_out, force, "--json")
    sel: Any = int(dtype) if dtype is not None and dtype.isdigit() else dtype
    if svg is None and (svg_window is not None or svg_cores is not None):
        raise UsageError("--svg-window and --svg-cores shape the --svg picture: give --svg FILE too")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="opkit-svg-") as tmp:
        if svg is not None:
            from opkit import writes
            from opkit.perf.svg_timeline import parse_window, split_list

            writes.check(svg, force, "--svg")
            if not (svg.parent if str(svg.parent) else Path(".")).is_dir():
                raise UsageError(f"--svg {svg}: folder {svg.parent} does not exist")
            window, svg_list = parse_window(svg_window), split_list(svg_cores)
        timeline_path = trace if trace is not None or svg is None else Path(tmp) / "trace.json"
        with usercode.guarded(timeout):
            report = perf_case(spec, case, dtype=sel, soc_name=soc, timeline=timeline_path, force=force,
                               timeout_s=timeout, trace_only=trace_only, ranks=ranks)
        if svg is not None:
            from opkit.perf.svg_timeline import write_svg

            write_svg(timeline_path, svg, window=window, cores=svg_list)
            writes.record([svg])
        if trace is None:
            report.timeline = None
    out = _console()
    if report.ranks is not None:
        from opkit.perf.comm_report import render as render_ranks

        for item in render_ranks(report):
            out.print(item)
    else:
        for item in render(report):
            out.print(item)
    if svg is not None:
        out.print(f"timeline picture: {svg} (SVG, modelled)")
    if json_out is not None:
        from opkit import writes
        from opkit.perf.comm_report import write_json

        write_json(json_out, {"op": report.op, "case": report.case, "dtype": report.dtype, "chip": report.chip,
                              "perf": report.perf, "info": report.info}, "--json")
        writes.record([json_out])
    if backend == "cann":
        from opkit.backends.npu_runner import measure
        from opkit.verify.golden import custom_generators

        m = measure(spec, case, sel, soc, device, vendor, timeout, generators=custom_generators(spec), ranks=ranks)
        ranks_run = "per_rank_us" in m
        modelled = report.perf.get("fused_us" if ranks_run else "modelled_us")
        measured = (f"measured on {len(m['per_rank_us'])} NPUs: {m['measured_us']:.3f} us, the slowest rank's "
                    f"(rank {m['slowest_rank']}; msprof op, Task Duration, {m['source']} of each rank)" if ranks_run
                    else f"measured on NPU device {m['device']}: {m['measured_us']:.3f} us (msprof op, Task Duration, "
                    f"{m['source']})")
        out.print(f"{measured}; modelled {'fused ' if ranks_run else ''}{modelled:.3f} us on {report.chip}; measured / "
                  f"modelled = {m['measured_us'] / modelled:.3g} (the model's error on this chip)" if modelled else
                  measured)
        if ranks_run:
            out.print("  per rank (us): " + ", ".join(f"rank {r} (device {d}) {t:.3f}" for r, (d, t) in
                                                      enumerate(zip(m["devices"], m["per_rank_us"], strict=True))))


