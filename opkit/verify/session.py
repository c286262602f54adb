"""`opkit verify` over several packages: build, run every selected case, write the reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from opkit import __version__
from opkit.build import opdef_check
from opkit.errors import OpkitError
from opkit.run.sim_runner import SimRunner
from opkit.spec import Spec
from opkit.verify.pipeline import Selection, select, verify_spec
from opkit.verify.report import ERROR, FAIL, CaseResult, write_json, write_junit, write_worst_csv


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


@dataclass
class VerifyOutcome:
    results: list[CaseResult]
    json_path: Path
    csv_paths: list[Path]
    junit: Path | None

    @property
    def ok(self) -> bool:
        return not any(r.status in (FAIL, ERROR) for r in self.results)


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
        results += verify_spec(spec, runner, opts.selection, opts.profile, step, opts.perf)
    opts.out_dir.mkdir(parents=True, exist_ok=True)
    json_path = opts.out_dir / "results.json"
    write_json(results, json_path, {"version": __version__, "backend": "sim"})
    csvs = [p for r in results if r.status == FAIL for p in [write_worst_csv(r, opts.out_dir / "worst")] if p]
    if opts.junit is not None:
        write_junit(results, opts.junit)
    return VerifyOutcome(results, json_path, csvs, opts.junit)
