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
from opkit.verify import usercode
from opkit.verify.pipeline import Selection, select, verify_spec
from opkit.verify.report import ERROR, FAIL, PASS, CaseResult, write_json, write_junit, write_worst_csv


@dataclass
class VerifyOptions:
    selection: Selection = field(default_factory=Selection)
    profile: str | None = None
    out_dir: Path = Path(".opkit/verify")
    junit: Path | None = None
    timeout_s: float = 300.0
    jobs: int | None = None
    trace: bool = True  # write the simulator's trace of every run under out_dir/traces
    perf: bool = False  # model each run's time on its chip from the trace
    max_case_bytes: int | None = None  # refuse a case whose inputs need more (None: opkit.verify.limits default)
    force: bool = False  # replace output files opkit did not write (or that changed since)


@dataclass
class VerifyOutcome:
    results: list[CaseResult]
    json_path: Path
    csv_paths: list[Path]
    junit: Path | None

    @property
    def verified(self) -> int:
        """Runs that were judged (passed or failed): 0 means nothing was verified."""
        return sum(r.status in (PASS, FAIL) for r in self.results)

    @property
    def ok(self) -> bool:
        return self.verified > 0 and not any(r.status in (FAIL, ERROR) for r in self.results)


def _prepare(spec: Spec, runner: SimRunner, jobs: list, notice: Callable[[str], None] | None) -> CaseResult | None:
    """Build the package's harnesses (in parallel) and check its OpDef once; a failure becomes one error
    result for the package instead of a run per case."""
    first = jobs[0]
    try:
        runner.prebuild([(spec, chip, column) for chip, column in sorted({(j.chip, j.column) for j in jobs})],
                        notice)
        opdef_check.check(spec, runner.artifact(spec, first.chip, first.column).exe)
    except OpkitError as exc:
        return CaseResult(spec.name, "(build)", spec.column_label(first.column), first.chip, {}, "", ERROR,
                          exc.message)
    return None


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
    if opts.selection.sweep_values is not None and opts.selection.sweep_values < 1:
        raise UsageError(f"--sweep-values {opts.selection.sweep_values}: must be at least 1")
    writes.check_dir(opts.out_dir, "--out")
    writes.check(opts.out_dir / "results.json", opts.force, "--out")
    if opts.junit is not None:
        writes.check(opts.junit, opts.force, "--junit")


def _verify(specs: list[Spec], opts: VerifyOptions, progress: Callable[[CaseResult, int, int], None] | None,
            notice: Callable[[str], None] | None) -> VerifyOutcome:
    runner = SimRunner(timeout_s=opts.timeout_s, jobs=opts.jobs,
                       trace_dir=opts.out_dir / "traces" if opts.trace or opts.perf else None)
    results: list[CaseResult] = []
    plan = [(spec, jobs) for spec in specs for jobs in [select(spec, opts.selection)] if jobs]
    total = sum(len(jobs) for _, jobs in plan)
    done = 0

    def step(r: CaseResult, n: int = 1) -> None:
        nonlocal done
        done += n
        if progress:
            progress(r, done, total)

    for spec, jobs in plan:
        failure = _prepare(spec, runner, jobs, notice)
        if failure is not None:
            results.append(failure)
            step(failure, len(jobs))
            continue
        results += verify_spec(spec, runner, opts.selection, opts.profile, step, opts.perf, opts.max_case_bytes)
    json_path = opts.out_dir / "results.json"
    write_json(results, json_path, {"version": __version__, "backend": "sim"}, force=opts.force)
    csvs = [p for r in results if r.status == FAIL
            for p in [write_worst_csv(r, opts.out_dir / "worst", force=opts.force)] if p]
    if opts.junit is not None:
        write_junit(results, opts.junit, force=opts.force)
    return VerifyOutcome(results, json_path, csvs, opts.junit)
