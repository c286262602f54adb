"""Model one case of a package: run it on the simulator, replay its trace, compare with the unfused chain.

``model_case`` turns a traced run into the report's ``perf`` record (used by ``opkit verify --perf``
and ``opkit perf``); ``perf_case`` is ``opkit perf``: build as needed, run one case, model it and
optionally write a Perfetto timeline. Every figure is modelled (see docs/perf.md).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opkit import soc, writes
from opkit.errors import OpkitError, UsageError
from opkit.spec import Case, Spec

from . import unfused as uf
from .costs import chip_params
from .model import CoreTime, ModelResult, evaluate, golden_costs
from .timeline import write_timeline
from .trace_store import TraceStore, load_trace


def read_trace(trace_file: str | Path) -> TraceStore:
    """The run's trace file as a :class:`~opkit.perf.trace_store.TraceStore` (read core by core)."""
    try:
        return load_trace(trace_file)
    except (OSError, ValueError) as exc:
        raise OpkitError(f"{trace_file}: the run's trace cannot be read ({exc})") from None


def user_workspace_bytes(chip: str, info: dict[str, Any] | None) -> int | None:
    """The kernel's own GM workspace (what the tiling asked for beyond the system workspace)."""
    if not info or "workspace_bytes" not in info:
        return None
    return max(0, int(info["workspace_bytes"]) - int(soc.chip(chip).get("sys_workspace", 0)))


def fusion(golden: Any, spec: Spec, case: Case, column: int, chip: str, perf: dict[str, Any],
           info: dict[str, Any] | None) -> dict[str, Any] | None:
    """Fused against unfused for this case, or None when golden.py has no ``unfused_chain``."""
    hook = getattr(golden, uf.HOOK, None)
    if not callable(hook):
        return None
    where = f"{spec.dir / 'golden.py'}:{uf.HOOK}"
    try:
        raw = hook(dict(case.shapes), spec.column(column), case.attrs)
    except Exception as exc:  # the user's code: one clear message
        raise OpkitError(f"{where} raised {type(exc).__name__}: {exc}") from None
    steps = uf.check_steps(raw, where)
    own = [p.name for p in spec.inputs] + [o.name for o in spec.outputs]
    chain = uf.model_chain(steps, chip_params(chip), own)
    # the golden's compulsory bytes, like the chain's; the bytes the kernel's copies moved without the hook
    hbm = perf.get("hbm_bytes") if perf.get("hbm_bytes") is not None else perf.get("gm_bytes")
    fused = {"hbm_bytes": hbm, "gm_bytes": perf.get("gm_bytes"),
             "extra_peak_bytes": user_workspace_bytes(chip, info), "modelled_us": perf.get("modelled_us")}
    return uf.compare(fused, chain)


def model_case(spec: Spec, case: Case, column: int, chip: str, trace_file: str | Path,
               info: dict[str, Any] | None = None, keep_graph: bool = False) -> tuple[dict[str, Any], ModelResult,
                                                                                      TraceStore]:
    """(perf record, replay result, trace) of one traced run of ``case`` on ``chip`` (all modelled).

    The record is :func:`opkit.perf.model.evaluate`'s dict plus ``hbm_bytes`` (the golden's
    compulsory bytes, None without the hook) and ``fusion`` (fused against unfused, None when the
    golden has no ``unfused_chain``).
    """
    from opkit.verify.golden import user_module

    trace = read_trace(trace_file)
    golden = user_module(spec)
    flops, hbm = golden_costs(golden, dict(case.shapes), spec.column(column), case.attrs)
    perf, res = evaluate(trace, chip, flops=flops, hbm_bytes=hbm, keep_graph=keep_graph)
    perf["hbm_bytes"] = hbm
    perf["flops"] = flops
    perf["fusion"] = fusion(golden, spec, case, column, chip, perf, info)
    return perf, res, trace


def perf_record(spec: Spec, case: Case, column: int, chip: str, trace_file: str | Path,
                info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``perf`` record of one traced run (what ``opkit verify --perf`` passes verify as its model)."""
    return model_case(spec, case, column, chip, trace_file, info)[0]


@dataclass
class PerfReport:
    """``opkit perf`` for one case: the perf record, the per-core replay and the run's facts."""

    op: str
    case: str
    dtype: str
    chip: str
    perf: dict[str, Any]
    cores: list[CoreTime]
    info: dict[str, Any] = field(default_factory=dict)
    timeline: Path | None = None
    ranks: Any = None  # a multi-rank run: its opkit.perf.comm_replay.RanksResult (perf is its as_dict())


def perf_case(spec: Spec, case_name: str, *, dtype: Any | None = None, soc_name: str | None = None,
              timeline: Path | None = None, force: bool = False, runner: Any | None = None,
              timeout_s: float = 300.0, trace_only: bool = False, ranks: int | None = None) -> PerfReport:
    """Run one case of op.yaml on the simulator (building as needed), model it, optionally write a timeline."""
    from opkit.run.userdata import select_case

    case, column = select_case(spec, case_name, dtype)
    return perf_run(spec, case, column, soc_name=soc_name, timeline=timeline, force=force, runner=runner,
                    timeout_s=timeout_s, trace_only=trace_only, ranks=ranks)


def perf_run(spec: Spec, case: Case, column: int, *, soc_name: str | None = None, timeline: Path | None = None,
             force: bool = False, runner: Any | None = None, timeout_s: float = 300.0,
             trace_only: bool = False, ranks: int | None = None) -> PerfReport:
    """Run ``case`` in dtype ``column`` on the simulator, model it, optionally write a timeline.

    ``trace_only`` runs the kernel's control flow and data-movement bookkeeping without arithmetic or
    data bytes (docs/simulator.md): the same trace for kernels whose control flow does not depend on
    computed values, in a fraction of the time, for large shapes. A multi-rank (mc2) package runs on
    ``ranks`` emulated ranks (opkit.perf.comm_case); ``ranks`` is refused for other packages."""
    from opkit.run.inputs import make_inputs
    from opkit.run.limits import check_case
    from opkit.run.sim_runner import SimRunner
    from opkit.verify.golden import custom_generators

    chip, target = spec.target(soc_name or spec.socs[0].key)
    if not target.supports(column):
        raise UsageError(f"{spec.name}: {chip} does not support the dtype column {spec.column_label(column)}")
    if timeline is not None:
        writes.check(timeline, force, "--trace")
        if not (timeline.parent if str(timeline.parent) else Path(".")).is_dir():
            raise UsageError(f"--trace {timeline}: folder {timeline.parent} does not exist")
    if spec.multi_rank:
        from .comm_case import perf_ranks

        return perf_ranks(spec, case, column, chip, ranks=ranks, timeline=timeline, runner=runner,
                          timeout_s=timeout_s, trace_only=trace_only)
    if ranks is not None:
        raise UsageError(f"--world-size {ranks}: {spec.name} is not a multi-rank operator (op.yaml family "
                         f"{spec.family}, not mc2)")
    with tempfile.TemporaryDirectory(prefix="opkit-perf-") as tmp:
        run = runner or SimRunner(timeout_s=timeout_s, trace_dir=Path(tmp))
        check_case(spec, case, column)
        inputs = make_inputs(spec, case, column, custom_generators(spec))
        out = run.run(spec, case, column, chip, inputs, trace_only=True) if trace_only else \
            run.run(spec, case, column, chip, inputs)
        trace_file = out.info.get("trace_file")
        if trace_file is None:
            raise OpkitError(f"{spec.name}::{case.name}: the run wrote no trace")
        perf, res, trace = model_case(spec, case, column, chip, trace_file, out.info, keep_graph=timeline is not None)
    label = spec.column_label(column)
    if timeline is not None:
        write_timeline(timeline, res, trace, {"op": spec.name, "case": case.name, "dtype": label})
        writes.record([timeline])
    info = {k: v for k, v in out.info.items() if k != "trace_file"}
    return PerfReport(spec.name, case.name, label, chip, perf, res.cores, info, timeline)


__all__ = ["PerfReport", "fusion", "model_case", "perf_case", "perf_record", "perf_run", "read_trace",
           "user_workspace_bytes"]
