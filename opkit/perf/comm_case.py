"""``opkit perf`` on a multi-rank (MC2) package: run one case on R emulated ranks, replay the ranks with their
collectives on the links (:mod:`opkit.perf.comm_replay`), optionally write the all-ranks timeline."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from opkit import writes
from opkit.errors import OpkitError, UsageError
from opkit.run.rankdata import world_size
from opkit.spec import Case, Spec

from .comm import link_model
from .comm_replay import replay_ranks
from .comm_report import ranks_timeline, write_json
from .costs import chip_params
from .mm_order import canonical_job_order
from .model import golden_costs, l2_hits


def read_rank_traces(files: list[Path]) -> list[dict[str, Any]]:
    """The ranks' traces; ranks whose cores recorded the same events share one parsed ``cores`` list (the
    traces of a large case are large, and the ranks of an SPMD kernel usually trace alike)."""
    import hashlib
    import json

    seen: dict[str, list[Any]] = {}
    out = []
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except OSError as exc:
            raise OpkitError(f"{f}: the run's trace cannot be read ({exc})") from None
        at = text.find('"cores":')
        key = hashlib.sha256(text[at:].encode()).hexdigest() if at >= 0 else ""
        try:
            if key and key in seen:
                head = json.loads(text[:at].rstrip().rstrip(",") + "}")
                head["cores"] = seen[key]
            else:
                head = json.loads(text)
                if key:
                    seen[key] = head.get("cores", [])
        except ValueError as exc:
            raise OpkitError(f"{f}: the run's trace cannot be read ({exc})") from None
        del text
        out.append(head)
    return out


def perf_ranks(spec: Spec, case: Case, column: int, chip: str, *, ranks: int | None = None,
               timeline: Path | None = None, runner: Any | None = None, timeout_s: float = 300.0,
               trace_only: bool = False, hbm_bytes: float | None = None) -> Any:
    """Run ``case`` on the emulated ranks and model it; a :class:`opkit.perf.case.PerfReport` with ``ranks`` set.

    Rank r's inputs are those ``opkit verify`` generates for it. ``--trace`` writes one timeline
    of all ranks (opkit.perf.comm_report). ``hbm_bytes``: one rank's compulsory GM bytes for the L2 term
    (default: golden.py's ``hbm_bytes`` hook; without either, no L2 hits). Every figure is modelled (docs/perf.md §9).
    """
    from opkit.run.inputs import make_rank_inputs
    from opkit.run.limits import check_case
    from opkit.run.sim_runner import SimRunner
    from opkit.verify.golden import custom_generators, user_module

    from .case import PerfReport

    R = world_size(case, ranks)
    link_model(chip)  # a chip without a link model is refused before anything runs
    if R > link_model(chip).max_ranks:
        raise UsageError(f"--world-size {R}: the {link_model(chip).topology} of {link_model(chip).family} connects "
                         f"{link_model(chip).max_ranks} ranks in one server; opkit does not model links between "
                         "servers")
    gens = custom_generators(spec)
    check_case(spec, case, column)
    case = dataclasses.replace(case, world_size=R)
    inputs = make_rank_inputs(spec, case, column, gens)
    with tempfile.TemporaryDirectory(prefix="opkit-perf-ranks-") as tmp:
        run = runner or SimRunner(timeout_s=timeout_s, trace_dir=Path(tmp))
        outs = run.run_ranks(spec, case, column, chip, inputs, trace_only=trace_only)
        files = [o.info.get("trace_file") for o in outs]
        if any(f is None for f in files):
            raise OpkitError(f"{spec.name}::{case.name}: the run of {R} ranks wrote no trace for rank "
                             f"{files.index(None)}")
        traces = read_rank_traces([Path(str(f)) for f in files])
    golden = user_module(spec)
    _, hbm = golden_costs(golden, dict(case.shapes), spec.column(column), case.attrs)
    hbm = hbm if hbm_bytes is None else float(hbm_bytes)
    p = chip_params(chip)
    traces = [canonical_job_order(t) for t in traces]  # each AIC's Matmul jobs in the served-in-turn order
    hits = [l2_hits(t, p, hbm) for t in traces]
    res = replay_ranks(traces, chip, l2_hit=hits, keep_graph=timeline is not None)
    label = spec.column_label(column)
    if timeline is not None:
        write_json(timeline, ranks_timeline(res, traces, {"op": spec.name, "case": case.name, "dtype": label}),
                   "--trace")
        writes.record([timeline])
    info = {k: v for k, v in outs[0].info.items() if k != "trace_file"}
    slowest = max(range(R), key=lambda r: res.per_rank[r].modelled_us)
    return PerfReport(spec.name, case.name, label, chip, res.as_dict(), res.per_rank[slowest].cores, info,
                      timeline, ranks=res)


__all__ = ["perf_ranks", "world_size"]
