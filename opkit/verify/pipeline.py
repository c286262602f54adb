"""Verify a package: for each selected case × dtype column × chip, inputs → golden → run → compare.

The kernel is run by a *runner* (``Runner`` protocol): the simulator runner builds and launches
the package's Ascend C kernel; tests may pass their own.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from opkit.errors import OpkitError, UsageError
from opkit.run.inputs import make_inputs, make_rank_inputs
from opkit.run.types import Runner, RunOutput, run_case
from opkit.spec import Case, Spec
from opkit.verify.compare import DEFAULT_PROFILE, OutputResult, compare
from opkit.verify.golden import (
    GoldenError,
    compute_not_implemented,
    custom_generators,
    run_compare_hook,
    run_golden,
    run_golden_ranks,
    run_reference,
    run_untouched,
)
from opkit.verify.report import ERROR, FAIL, PASS, CaseResult
from opkit.verify.shard import job_id

# The performance model `verify --perf` runs on each traced run: (spec, case, column, chip, trace file, the
# run's info) -> the result's ``perf`` record. opkit.perf sits above verify (docs/architecture.md, "Layering"),
# so the caller passes it: opkit.perf.case.perf_record.
PerfModel = Callable[[Spec, Case, int, str, str, "dict[str, Any] | None"], dict[str, Any]]


@dataclass
class Selection:
    tags: list[str] = field(default_factory=list)  # run cases having any of these tags (empty: all)
    keyword: str | None = None  # -k: a substring or glob of the case name
    chips: list[str] = field(default_factory=list)  # chip names or OpDef keys (empty: each SoC's default chip,
    #                                                  first SoC only)
    dtype: str | None = None  # only columns whose first tensor has this dtype (as a case's `dtype: NAME`)
    full: bool = False  # also cases tagged "full" (large; skipped by default unless --tags full)
    sweep: bool = False  # also the --sweep cases derived from the selected (or smoke) cases
    sweep_values: int | None = None  # values per swept dim (default opkit.verify.sweep.PER_DIM)


@dataclass
class Job:
    case: Case
    column: int
    chip: str


def run_id(spec: Spec, job: Job) -> str:
    """The job's id, ``op::case[dtype column@chip]``: results.json's ``id``, what ``--shard`` hashes."""
    return job_id(spec.name, job.case.name, spec.column_label(job.column), job.chip)


def _chips(spec: Spec, wanted: list[str]) -> list[tuple[str, str]]:
    """(chip, SoC entry) pairs to verify on."""
    return [spec.target(w) for w in (wanted or [spec.socs[0].key])]


def _selected(spec: Spec, sel: Selection) -> list[Case]:
    cases = []
    for case in spec.cases:
        if sel.tags and not set(sel.tags) & set(case.tags):
            continue
        if "full" in case.tags and not sel.full and "full" not in sel.tags:
            continue
        if sel.keyword and not (sel.keyword in case.name or fnmatch.fnmatch(case.name, sel.keyword)):
            continue
        cases.append(case)
    return cases


def select(spec: Spec, sel: Selection) -> list[Job]:
    jobs = []
    chips = _chips(spec, sel.chips)
    cases = _selected(spec, sel)
    if sel.sweep_values is not None and not sel.sweep:
        raise UsageError("--sweep-values only means something with --sweep")
    if sel.sweep and cases:
        from opkit.verify.sweep import PER_DIM, sweep_all, sweep_bases

        bases = sweep_bases(spec, cases, bool(sel.tags or sel.keyword))
        cases += sweep_all(spec, bases, PER_DIM if sel.sweep_values is None else sel.sweep_values,
                           sel.full or "full" in sel.tags)
    for case in cases:
        for column in case.columns:
            if sel.dtype and spec.params[0].dtypes[column] != sel.dtype:
                continue
            for chip, target in chips:
                if target.supports(column):
                    jobs.append(Job(case, column, chip))
    return jobs


def _precision(spec: Spec, case: Case, output: str, profile_override: str | None) -> tuple[str, dict[str, Any]]:
    """The profile and overrides for one output: op.yaml's precision, its per-output entry, the case's,
    the case's per-output entry, then --profile, each over the one before. A layer that switches to
    another profile drops the overrides set for the previous one (an ``rtol`` written for mixed is
    not msopst's diff threshold)."""
    profile, merged = DEFAULT_PROFILE, {}
    for layer in (spec.precision, spec.precision.get("outputs", {}).get(output, {}), case.precision,
                  case.precision.get("outputs", {}).get(output, {})):
        if layer.get("profile", profile) != profile:
            profile, merged = layer["profile"], {}
        merged.update({k: v for k, v in layer.items() if k not in ("outputs", "profile")})
    if profile_override and profile_override != profile:
        profile, merged = profile_override, {}
    return profile, merged


def _checker(spec: Spec, case: Case, column: int, profile: str | None,
             results: list[OutputResult]) -> Callable[[str, Any, Any], OutputResult]:
    """The ``check`` a comparison hook gets: judge an output's (re-arranged) arrays by the case's profile
    for that output; each judgement joins the case's results."""
    hooked = case.compare.outputs if case.compare else ()
    by_name = {o.name: o for o in spec.outputs}

    def check(output: str, actual: Any, expected: Any) -> OutputResult:
        if output not in hooked:
            raise GoldenError(f"{spec.dir / spec.golden_file}: the comparison hook {case.compare.function}() called "
                              f"check('{output}', ...); it judges {', '.join(hooked)} (op.yaml compare.outputs)")
        prof, overrides = _precision(spec, case, output, profile)
        if prof == "ratio-vs-reference":
            raise OpkitError(f"profile ratio-vs-reference cannot judge '{output}': the comparison hook "
                             f"{case.compare.where}() re-arranges its arrays, and a same-precision reference of "
                             "them does not exist; choose another profile for this output")
        try:
            r = compare(output, np.asarray(actual), np.asarray(expected), by_name[output].dtypes[column], prof,
                        overrides)
        except (TypeError, ValueError) as exc:
            raise GoldenError(f"{spec.dir / spec.golden_file}: the comparison hook {case.compare.function}() passed "
                              f"check('{output}', ...) arrays it cannot compare: {exc}") from None
        results.append(r)
        return r

    return check


def _compare_outputs(spec: Spec, case: Case, column: int, actual: dict[str, Any], golden: dict[str, Any],
                     inputs: dict[str, Any], profile: str | None, rank: int | None = None) -> list[OutputResult]:
    """Each output the golden gives (except those a comparison hook judges) against the kernel's, by the case's
    profile; a rank's results are named ``y[rank r]``."""
    results: list[OutputResult] = []
    reference: dict[str, Any] | None = None
    hooked = set(case.compare.outputs) if case.compare else set()
    at = "" if rank is None else f"[rank {rank}]"
    for o in spec.outputs:
        if o.name not in golden:
            continue  # a conditional output this case does not produce
        if o.name not in actual:
            raise OpkitError(f"the kernel run{'' if rank is None else f' of rank {rank}'} produced no output "
                             f"'{o.name}'")
        if o.name in hooked:
            continue  # judged by the comparison hook
        prof, overrides = _precision(spec, case, o.name, profile)
        if prof == "ratio-vs-reference" and reference is None:
            if rank is not None:
                raise UsageError(f"profile ratio-vs-reference cannot judge '{o.name}' of the multi-rank case "
                                 f"'{case.name}': its reference is a one-device run; choose another profile")
            reference = run_reference(spec, case, inputs, column)
        ref = reference.get(o.name) if reference is not None else None
        if o.param == "dynamic":  # a list output: each tensor against the golden's tensor of that index
            got, want = list(actual[o.name]), list(golden[o.name])
            if len(got) != len(want):
                raise OpkitError(f"output '{o.name}'{at}: the kernel produced {len(got)} tensors, the golden "
                                 f"{len(want)}")
            results.extend(compare(f"{o.name}[{i}]{at}", a, g, o.dtypes[column], prof, overrides,
                                   reference=None if ref is None else ref[i])
                           for i, (a, g) in enumerate(zip(got, want, strict=True)))
            continue
        results.append(compare(o.name + at, actual[o.name], golden[o.name], o.dtypes[column], prof, overrides,
                               reference=ref))
    return results


def _run_ranks(spec: Spec, case: Case, column: int, chip: str, runner: Runner,
               profile: str | None) -> tuple[list[OutputResult], RunOutput]:
    """A multi-rank case (docs/spec.md, "Multi-rank cases"): per-rank inputs, the golden across ranks, one run
    of every rank (``runner.run_ranks``), every rank's outputs compared. Returns the results and rank 0's run,
    whose info lists every rank's (``ranks``) and gathers their warnings (``rank r: ...``)."""
    if not hasattr(runner, "run_ranks"):
        raise UsageError(f"case '{case.name}' runs on {case.world_size} ranks, and this runner runs one device "
                         "(verify multi-rank operators on the simulator, or on NPUs with --backend cann)")
    if case.compare is not None:
        raise UsageError(f"case '{case.name}' runs on {case.world_size} ranks: comparison hooks judge one-device "
                         "cases only (give the case compare: false)")
    if any(o.untouched for o in spec.outputs):
        raise UsageError(f"case '{case.name}' runs on {case.world_size} ranks: op.yaml 'untouched' masks apply to "
                         "one-device cases only")
    inputs = make_rank_inputs(spec, case, column, custom_generators(spec))
    golden = run_golden_ranks(spec, case, inputs)
    outs = runner.run_ranks(spec, case, column, chip, inputs)  # type: ignore[attr-defined]
    if len(outs) != len(inputs):
        raise OpkitError(f"the multi-rank run returned {len(outs)} ranks' results for {len(inputs)} ranks")
    results = []
    for r, (ins, want, out) in enumerate(zip(inputs, golden, outs, strict=True)):
        results += _compare_outputs(spec, case, column, out.outputs, want, ins, profile, rank=r)
    info = dict(outs[0].info)
    info["ranks"] = [dict(o.info) for o in outs]
    info["warnings"] = [f"rank {r}: {w}" for r, o in enumerate(outs) for w in o.info.get("warnings", [])]
    return results, RunOutput(outs[0].outputs, info)


def verify_job(spec: Spec, job: Job, runner: Runner, profile: str | None = None, perf: PerfModel | None = None,
               max_case_bytes: int | None = None) -> CaseResult:
    from opkit.run.limits import check_case

    case, column = job.case, job.column
    label = spec.column_label(column)
    res = CaseResult(spec.name, case.name, label, job.chip, dict(case.shapes), profile or "", ERROR)
    t0 = time.perf_counter()
    try:
        todo = compute_not_implemented(spec)
        if todo:
            raise GoldenError(todo)
        check_case(spec, case, column, max_case_bytes)
        if case.world_size is not None:
            results, out = _run_ranks(spec, case, column, job.chip, runner, profile)
            inputs: dict[str, Any] = {}
            golden: dict[str, Any] = {}
        else:
            inputs = make_inputs(spec, case, column, custom_generators(spec))
            golden = run_golden(spec, case, inputs)
            untouched = run_untouched(spec, case, inputs, golden)
            out = run_case(runner, spec, case, column, job.chip, inputs, untouched)
            for name, mask in untouched.items():  # left as they were by contract: their initial value, 0
                golden[name] = np.where(mask, np.zeros((), golden[name].dtype), golden[name])
            results = _compare_outputs(spec, case, column, out.outputs, golden, inputs, profile)
        res.warnings = list(out.info.get("warnings", []))
        if case.compare:
            res.compare = run_compare_hook(spec, case, inputs, golden, out.outputs, column,
                                           _checker(spec, case, column, profile, results))
        res.outputs = results
        res.profile = ", ".join(sorted({r.thresholds.get("profile", "") for r in results} - {""})) or (profile or "")
        failed = [r for r in results if not r.passed]
        hook_failed = res.compare is not None and not res.compare.passed
        chosen = out.info.get("tiling_key")
        key_wrong = case.tiling_key is not None and chosen is not None and int(chosen) != case.tiling_key
        res.status = FAIL if failed or hook_failed or key_wrong else PASS
        res.message = "; ".join(([f"tiling key {chosen}, the case expects {case.tiling_key}"] if key_wrong else [])
                                + ([f"{res.compare.function}: {res.compare.summary}"] if hook_failed else [])
                                + [f"{r.name}: {r.reason}" for r in failed])
        res.trace = out.info.get("trace_file")
        if perf is not None:
            if res.trace is None:
                raise OpkitError("the performance model needs the run's trace (verify with --trace)")
            res.perf = perf(spec, case, column, job.chip, res.trace, out.info)
    except OpkitError as exc:
        res.status = ERROR
        res.message = exc.message
    except MemoryError:
        res.status = ERROR
        res.message = (f"out of memory running case '{case.name}' (shapes {dict(case.shapes)}); make the case "
                       "smaller or lower --max-case-memory so such cases are refused before they run")
    res.seconds = time.perf_counter() - t0
    return res


def verify_spec(spec: Spec, runner: Runner, sel: Selection | None = None, profile: str | None = None,
                progress: Callable[[CaseResult], None] | None = None, perf: PerfModel | None = None,
                max_case_bytes: int | None = None) -> list[CaseResult]:
    out = []
    for job in select(spec, sel or Selection()):
        r = verify_job(spec, job, runner, profile, perf, max_case_bytes)
        out.append(r)
        if progress:
            progress(r)
    return out
