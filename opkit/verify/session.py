"""`opkit verify` over several packages: build, run every selected case, write the reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from opkit import __version__, writes
from opkit.build import opdef_check
from opkit.errors import OpkitError, UsageError
from opkit.run.sim_runner import SimRunner
from opkit.spec import Spec
from opkit.verify import parallel, usercode
from opkit.verify.pipeline import Job, PerfModel, Selection, run_id, select, verify_job
from opkit.verify.report import ERROR, FAIL, PASS, CaseResult, write_json, write_junit, write_worst_csv
from opkit.verify.shard import Shard, in_shard, selection_record


@dataclass
class VerifyOptions:
    selection: Selection = field(default_factory=Selection)
    profile: str | None = None
    out_dir: Path = Path(".opkit/verify")
    junit: Path | None = None
    timeout_s: float = 300.0
    jobs: int | None = None
    trace: bool = True  # write the simulator's trace of every run under out_dir/traces
    perf: PerfModel | None = None  # the model of each run's time on its chip (opkit.perf.case.perf_record); None: off
    max_case_bytes: int | None = None  # refuse a case whose inputs need more (None: opkit.run.limits default)
    force: bool = False  # replace output files opkit did not write (or that changed since)
    workers: int | None = None  # processes running cases at once (None: one per core)
    shard: Shard | None = None  # only the runs of this slice (opkit.verify.shard)
    backend: str = "sim"  # where the cases run: sim, cann (an NPU), cann-cpu (CANN's CPU-debug mode; opkit.backends)
    backend_args: dict = field(default_factory=dict)  # the backend's runner options (cann: vendor, device)


@dataclass
class VerifyOutcome:
    results: list[CaseResult]
    json_path: Path
    csv_paths: list[Path]
    junit: Path | None
    selected: int = 0  # runs of the whole selection (before --shard)
    workers: int = 1  # worker processes that ran the cases
    runs: int = 0  # runs of this shard (all the selected runs without --shard)

    @property
    def verified(self) -> int:
        """Runs that were judged (passed or failed): 0 means nothing was verified."""
        return sum(r.status in (PASS, FAIL) for r in self.results)

    @property
    def ok(self) -> bool:
        return self.verified > 0 and not any(r.status in (FAIL, ERROR) for r in self.results)


def _harnesses(spec: Spec, jobs: list) -> list[tuple[Spec, str, int]]:
    """The (package, chip, dtype column) harnesses the jobs of a package run in, each once."""
    return [(spec, chip, column) for chip, column in sorted({(j.chip, j.column) for j in jobs})]


def _prepare(spec: Spec, runner: SimRunner, jobs: list, notice: Callable[[str], None] | None) -> CaseResult | None:
    """Build the package's harnesses (in parallel) and check its OpDef once; a failure becomes one error
    result for the package instead of a run per case."""
    first = jobs[0]
    try:
        runner.prebuild(_harnesses(spec, jobs), notice)
        opdef_check.check(spec, runner.artifact(spec, first.chip, first.column).exe)
    except OpkitError as exc:
        return CaseResult(spec.name, "(build)", spec.column_label(first.column), first.chip, {}, "", ERROR,
                          exc.message)
    return None


def _prebuild_all(runner: SimRunner, packages: list[tuple[Spec, list]], notice: Callable[[str], None] | None) -> None:
    """With several packages: every package's harnesses in one parallel batch, so that the compile workers are
    shared by all their units instead of waiting for each package's slowest unit in turn. A package that does
    not build is left to its own :func:`_prepare`, which compiles what failed again and makes it the package's
    one error record."""
    if len(packages) < 2:
        return
    try:
        runner.prebuild([h for spec, jobs in packages for h in _harnesses(spec, jobs)], notice)
    except OpkitError:
        pass


def verify_packages(specs: list[Spec], opts: VerifyOptions,
                    progress: Callable[[CaseResult, int, int], None] | None = None,
                    notice: Callable[[str], None] | None = None) -> VerifyOutcome:
    """Verify every selected case; ``progress(result, done, total)`` after each run (``done`` counts
    runs, a package that fails to build counts all its runs); ``notice`` hears what is compiled first."""
    check_outputs(opts)
    with usercode.guarded(opts.timeout_s):
        return _verify(specs, opts, progress, notice)


def check_outputs(opts: VerifyOptions) -> None:
    """Refuse output paths that cannot be written, before any case runs."""
    if opts.timeout_s <= 0:
        raise UsageError(f"--timeout {opts.timeout_s:g}: must be a number of seconds > 0")
    if opts.jobs is not None and opts.jobs < 1:
        raise UsageError(f"--jobs {opts.jobs}: must be at least 1")
    if opts.workers is not None and opts.workers < 1:
        raise UsageError(f"--workers {opts.workers}: must be at least 1")
    if opts.selection.sweep_values is not None and opts.selection.sweep_values < 1:
        raise UsageError(f"--sweep-values {opts.selection.sweep_values}: must be at least 1")
    writes.check_dir(opts.out_dir, "--out")
    writes.check(opts.out_dir / "results.json", opts.force, "--out")
    if opts.junit is not None:
        writes.check(opts.junit, opts.force, "--junit")


@dataclass
class _Planned:
    """One run of the whole selection: its package, its job, its place in the plan, its id."""

    spec: Spec
    job: Job
    order: int
    id: str


def plan(specs: list[Spec], selection: Selection) -> list[tuple[Spec, list[_Planned]]]:
    """Every run the selection names, package by package, in the order of an unsharded serial run."""
    out, order = [], 0
    for spec in specs:
        runs = []
        for job in select(spec, selection):
            runs.append(_Planned(spec, job, order, run_id(spec, job)))
            order += 1
        if runs:
            out.append((spec, runs))
    return out


def _verify(specs: list[Spec], opts: VerifyOptions, progress: Callable[[CaseResult, int, int], None] | None,
            notice: Callable[[str], None] | None) -> VerifyOutcome:
    from opkit import backends

    runner: SimRunner = backends.runner(  # type: ignore[assignment]
        opts.backend, timeout_s=opts.timeout_s, jobs=opts.jobs,
        trace_dir=opts.out_dir / "traces" if opts.backend == "sim" and (opts.trace or opts.perf is not None) else None,
        **opts.backend_args)
    whole = plan(specs, opts.selection)
    selected = sum(len(runs) for _, runs in whole)
    mine = [(spec, runs, [p for p in runs if in_shard(p.id, opts.shard)]) for spec, runs in whole]
    total = sum(len(m) for _, _, m in mine)
    results: list[CaseResult] = []
    done = 0

    def step(r: CaseResult, n: int = 1) -> None:
        nonlocal done
        done += n
        if progress:
            progress(r, done, total)

    _prebuild_all(runner, [(spec, [p.job for p in runs]) for spec, runs, taken in mine if taken], notice)
    todo: list[_Planned] = []
    for spec, runs, taken in mine:
        if not taken:
            continue
        # Every harness of the package, not only those of this shard's runs: a build failure is then the
        # same one record in every shard and in an unsharded run.
        failure = _prepare(spec, runner, [p.job for p in runs], notice)
        if failure is not None:
            failure.order = runs[0].order
            results.append(failure)
            step(failure, len(taken))
            continue
        todo += taken

    def run(i: int) -> CaseResult:
        p = todo[i]
        r = verify_job(p.spec, p.job, runner, opts.profile, opts.perf, opts.max_case_bytes)
        r.order = p.order
        return r

    def lost(i: int) -> CaseResult:
        p = todo[i]
        label = p.spec.column_label(p.job.column)
        r = CaseResult(p.spec.name, p.job.case.name, label, p.job.chip, dict(p.job.case.shapes), opts.profile or "",
                       ERROR, order=p.order)
        return parallel.lost_result(r)

    workers = min(opts.workers or parallel.default_workers(), max(1, len(todo)))
    ran = parallel.run_jobs(len(todo), run, workers, opts.timeout_s, lost, lambda i, r: step(r))
    results += ran.values()
    results.sort(key=lambda r: r.order if r.order is not None else -1)
    json_path = opts.out_dir / "results.json"
    record = selection_record([s.name for s in specs], opts.selection, opts.profile, opts.perf is not None, selected,
                              opts.shard, total)
    write_json(results, json_path, {"version": __version__, "backend": opts.backend}, force=opts.force,
               selection=record)
    csvs = [p for r in results if r.status == FAIL
            for p in [write_worst_csv(r, opts.out_dir / "worst", force=opts.force)] if p]
    if opts.junit is not None:
        write_junit(results, opts.junit, force=opts.force)
    return VerifyOutcome(results, json_path, csvs, opts.junit, selected, workers if parallel.can_fork() else 1, total)
