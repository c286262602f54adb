"""Modelled kernel time from a simulator trace, a roofline bound and the efficiency between them.

Every figure produced here is *modelled* (an analytic estimate for the chosen chip), never a
measurement; ``model_run`` says so in its ``label`` field. See ``docs/perf.md``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .costs import PIPES, ChipParams, chip_params
from .l2 import L2Hits
from .l2 import classify as l2_reads
from .mm_order import canonical_job_order
from .replay import Graph, build_graph, run
from .trace_store import KIND, TraceStore, as_store

LABEL = "modelled"


@dataclass(frozen=True)
class CoreTime:
    """One core of the replay: its makespan and the busy time of each pipe (cycles)."""

    block: int
    core_type: str
    cycles: float
    busy: dict[str, float]


@dataclass(frozen=True)
class ModelResult:
    """Result of replaying one trace on one chip (times in microseconds, all modelled)."""

    chip: str
    modelled_us: float
    steady_us: float
    startup_us: float
    per_pipe_busy_us: dict[str, float]
    cores: list[CoreTime]
    slowest_core: int
    unknown_apis: list[str]
    events_dropped: int = 0
    graph: Graph | None = field(default=None, repr=False, compare=False)  # the timed replay (timelines)
    clock_mhz: float = 0.0
    slowest_by_api_us: dict[str, float] = field(default_factory=dict)  # "PIPE API" -> busy µs, slowest core
    # cores whose trace dropped events: "AIC 3" -> the share of that core's traced instructions not replayed
    dropped_cores: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": LABEL,
            "chip": self.chip,
            "modelled_us": self.modelled_us,
            "steady_us": self.steady_us,
            "startup_us": self.startup_us,
            "per_pipe_busy_us": dict(self.per_pipe_busy_us),
            "slowest_core": self.slowest_core,
            "unknown_apis": list(self.unknown_apis),
            "events_dropped": self.events_dropped,
            "dropped_cores": dict(self.dropped_cores),
            "slowest_core_by_api_us": dict(self.slowest_by_api_us),
        }


def model_trace(trace: dict[str, Any] | TraceStore, params: ChipParams | str, keep_graph: bool = False,
                l2_hit: float | L2Hits = 0.0, builder: Any = None) -> ModelResult:
    """Replay ``trace`` on a chip (name or :class:`ChipParams`) and return the modelled time.

    ``steady_us`` is the slowest core's makespan; ``modelled_us`` adds the chip's pinned kernel
    start-up cost. ``per_pipe_busy_us`` is, per pipe, the largest busy time over the cores
    (GM copies include the time they were slowed by sharing HBM bandwidth). ``events_dropped``
    counts trace events the simulator did not record (its per-core cap); the replay then
    under-estimates. ``keep_graph`` keeps the timed task graph (``graph``) for a timeline.
    ``l2_hit``: the fraction of GM read bytes served by L2, one for every read (:func:`l2_hit_fraction`)
    or each read's own (:func:`opkit.perf.l2.classify`).
    """
    p = chip_params(params) if isinstance(params, str) else params
    store = as_store(trace)
    graph = build_graph(store, p, l2_hit, builder)  # builder: see build_graph (multi-rank: opkit.perf.comm_replay)
    run(graph, p.hbm_bytes_per_cycle)
    n = graph.n_cores
    span, busy = core_sums(graph)
    cores = [CoreTime(int(c.info.get("block", i)), c.core_type, span[i], busy[i]) for i, c in enumerate(store.cores)]
    slowest = max(range(n), key=lambda i: span[i]) if n else -1
    by_api = slowest_by_api(graph, slowest) if n else {}
    steady = p.us(span[slowest]) if n else 0.0
    per_pipe = {q: p.us(max((b[q] for b in busy), default=0.0)) for q in PIPES}
    per_pipe = {q: v for q, v in per_pipe.items() if v > 0}
    return ModelResult(
        chip=p.name,
        modelled_us=steady + p.startup_us,
        steady_us=steady,
        startup_us=p.startup_us,
        per_pipe_busy_us=per_pipe,
        cores=cores,
        slowest_core=slowest,
        unknown_apis=sorted(graph.unknown_apis),
        events_dropped=sum(c.events_dropped for c in store.cores),
        dropped_cores=_dropped(store),
        graph=graph if keep_graph else None,
        clock_mhz=p.clock_mhz,
        slowest_by_api_us={k: p.us(v) for k, v in sorted(by_api.items(), key=lambda kv: -kv[1])},
    )


def core_sums(graph: Graph) -> tuple[list[float], list[dict[str, float]]]:
    """Per core of a timed graph: its makespan (the last end of its tasks) and each pipe's busy time (the
    durations of the pipe's tasks, summed in task order)."""
    n, core, end = graph.n_cores, graph.core, graph.end
    mine = core >= 0
    span = np.zeros(n)
    np.maximum.at(span, core[mine], end[mine])
    pipe = graph.pipe
    dur = end - graph.start
    on = mine & (pipe >= 0) & (dur > 0)
    k = len(PIPES)
    sums = np.bincount(core[on].astype(np.int64) * k + pipe[on], weights=dur[on], minlength=n * k)
    return span.tolist(), [dict(zip(PIPES, row, strict=True)) for row in sums.reshape(n, k).tolist()]


def slowest_by_api(graph: Graph, ci: int) -> dict[str, float]:
    """Busy time of core ``ci``'s instructions (tasks with a pipe and a class: not the sync events) by "PIPE API"
    (the API's name, else its class), summed in task order, keys in the order they first appear."""
    spec, dur = graph.spec, graph.end - graph.start
    on = (graph.core == ci) & (graph.spec_pipe[spec] >= 0) & (dur > 0) & (graph.spec_klass[spec] > 0)
    key_of: dict[str, int] = {}
    spec_key = np.array([key_of.setdefault(f"{PIPES[q]} {graph.text[nm] or graph.text[kl]}", len(key_of))
                         for q, nm, kl in zip(graph.spec_pipe.tolist(), graph.spec_name.tolist(),
                                              graph.spec_klass.tolist(), strict=True)], dtype=np.int64)
    kid = spec_key[spec[on]] if len(spec_key) else np.zeros(0, dtype=np.int64)
    sums = np.bincount(kid, weights=dur[on], minlength=len(key_of))
    _, first = np.unique(kid, return_index=True)
    names = list(key_of)
    return {names[k]: float(sums[k]) for k in kid[np.sort(first)].tolist()}


def dropped_cores(cores: list[dict[str, Any]]) -> dict[str, float]:
    """Per core whose trace dropped events ("AIC 3"): the share of its traced instructions (the pipe totals,
    which count every instruction) that the replay did not see."""
    return _dropped(as_store({"cores": cores}))


def _dropped(store: TraceStore) -> dict[str, float]:
    out: dict[str, float] = {}
    is_op = store.kind == KIND["op"]
    for i, c in enumerate(store.cores):
        if not c.events_dropped:
            continue
        total = sum(int(v.get("instrs", 0)) for v in (c.info.get("pipes") or {}).values())
        seen = int(is_op[c.rec].sum())
        out[f"{c.info.get('core_type', 'AIV')} {c.info.get('block', i)}"] = \
            max(0.0, 1.0 - seen / total) if total else 1.0
    return out


def _uses_cube(store: TraceStore) -> str | None:
    m_ops = (store.kind == KIND["op"]) & (store.pipe == PIPES.index("M"))
    for c in store.cores:
        for ins in c.info.get("instructions", []):
            if ins.get("pipe") == "M":
                return str(ins.get("dtype", "float16"))
        at = np.flatnonzero(m_ops[c.rec])
        if len(at):
            return str(store.records[int(c.rec[at[0]])].get("dtype", "float16"))
    return None


def roofline_us(
    p: ChipParams,
    *,
    flops: float | None,
    hbm_bytes: float | None,
    cube_dtype: str | None = None,
    cores: int | None = None,
) -> tuple[float | None, str | None]:
    """Lower bound on kernel time (µs) and the binding term: max(compute, HBM traffic).

    Compute peak: the cube (``aic_cores`` × MACs/cycle of ``cube_dtype`` × 2) when the kernel
    uses the cube, else the vector units (``aiv_cores`` × 128 lanes per cycle, one 256-B fp16
    repeat per cycle — the optimistic vector rate, so the bound stays a lower bound).
    ``cores`` replaces the chip's core count of the compute term (the cores a launch used).
    """
    terms: dict[str, float] = {}
    if flops is not None and flops > 0:
        if cube_dtype is not None:
            macs = p.cube_macs_per_cycle.get(cube_dtype, p.cube_macs_per_cycle["float16"])
            peak = (cores or p.aic_cores) * 2.0 * macs
            terms["cube"] = p.us(flops / peak)
        else:
            terms["vector"] = p.us(flops / ((cores or p.aiv_cores) * 128.0))
    if hbm_bytes is not None and hbm_bytes > 0:
        terms["hbm"] = p.us(hbm_bytes / p.hbm_bytes_per_cycle)
    if not terms:
        return None, None
    name = max(terms, key=lambda k: terms[k])
    return terms[name], name


def golden_costs(
    golden: Any, shapes: dict[str, Any], dtypes: dict[str, str], attrs: dict[str, Any]
) -> tuple[float | None, float | None]:
    """``(flops, hbm_bytes)`` from a golden module's optional hooks; None where a hook is absent."""
    vals: list[float | None] = []
    for hook in ("flops", "hbm_bytes"):
        fn = getattr(golden, hook, None)
        if not callable(fn):
            vals.append(None)
            continue
        try:  # the package's code: whatever it does is one clear message
            value = fn(shapes, dtypes, attrs)
        except Exception as exc:
            from opkit.errors import OpkitError

            detail = getattr(exc, "detail", None) or f"{type(exc).__name__}: {exc}"
            raise OpkitError(f"golden.py: the cost hook {hook}() failed: {detail}") from None
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
            from opkit.errors import OpkitError

            raise OpkitError(f"golden.py: the cost hook {hook}() returned {value!r}; it must return a number "
                             ">= 0 (see docs/perf.md)")
        vals.append(float(value))
    return vals[0], vals[1]


def model_run(
    trace: dict[str, Any] | TraceStore,
    chip: str,
    *,
    flops: float | None = None,
    hbm_bytes: float | None = None,
) -> dict[str, Any]:
    """Modelled time of one traced run on ``chip`` (the dict of :func:`evaluate`)."""
    return evaluate(trace, chip, flops=flops, hbm_bytes=hbm_bytes)[0]


def evaluate(
    trace: dict[str, Any] | TraceStore,
    chip: str,
    *,
    flops: float | None = None,
    hbm_bytes: float | None = None,
    keep_graph: bool = False,
) -> tuple[dict[str, Any], ModelResult]:
    """Modelled time of one traced run on ``chip``, for ``opkit verify``'s report.

    ``flops`` and ``hbm_bytes`` are the golden's ``flops(shapes, dtypes, attrs)`` and
    ``hbm_bytes(shapes, dtypes, attrs)`` for the case (None when the golden has no hook).
    Keys: ``label`` ("modelled"), ``chip``, ``modelled_us``, ``steady_us``, ``startup_us``,
    ``per_pipe_busy_us``, ``slowest_core``, ``unknown_apis``, ``events_dropped``, ``bound_us``, ``bound_by``,
    ``efficiency`` (bound / modelled_us, None without a bound), ``efficiency_steady`` (bound /
    steady_us: without the kernel start-up), ``bound_launch_us`` / ``efficiency_launch``: the same
    with the compute peak of the cores the launch started, and ``gm_bytes``: the bytes the trace's
    GM copies move (MTE2, MTE3, FIX), ``l2_hit``: the fraction of GM read bytes modelled as L2 hits,
    ``l2_by_address``: whether they were classified from the trace's GM ranges (:mod:`opkit.perf.l2`;
    else by the byte-count rule :func:`l2_hit_fraction`), ``l2_footprint_bytes``: the distinct GM
    bytes the launch read (None without ranges), ``l2_write_absorbed``: the fraction of GM write bytes the L2
    absorbs (0 without ranges). Also returns the :class:`ModelResult` (with the timed graph
    when ``keep_graph``).
    """
    p = chip_params(chip)
    store = canonical_job_order(as_store(trace))  # the AIC's Matmul jobs in the served-in-turn order, not the host's
    hits = l2_reads(store, p)
    hit = hits.hit_fraction if hits is not None else l2_hit_fraction(store, p, hbm_bytes)
    res = model_trace(store, p, keep_graph=keep_graph, l2_hit=hits if hits is not None else hit)
    out = res.as_dict()
    out["l2_hit"] = hit
    out["l2_by_address"] = hits is not None
    out["l2_footprint_bytes"] = hits.footprint_bytes if hits is not None else None
    out["l2_write_absorbed"] = hits.absorbed_fraction if hits is not None else 0.0
    cube = _uses_cube(store)
    bound, by = roofline_us(p, flops=flops, hbm_bytes=hbm_bytes, cube_dtype=cube)
    out["bound_us"] = bound
    out["bound_by"] = by
    out["efficiency"] = (bound / res.modelled_us) if bound is not None and res.modelled_us > 0 else None
    out["efficiency_steady"] = (bound / res.steady_us) if bound is not None and res.steady_us > 0 else None
    out["gm_bytes"] = traced_gm_bytes(store)
    out["clock_mhz"] = p.clock_mhz
    # the same bound with the compute peak of the cores this launch started
    want = "AIC" if cube is not None else "AIV"
    used = sum(1 for c in store.cores if c.core_type == want)
    launch, _ = roofline_us(p, flops=flops, hbm_bytes=hbm_bytes, cube_dtype=cube, cores=used or None)
    out["bound_launch_us"] = launch
    out["efficiency_launch"] = (
        launch / res.modelled_us if launch is not None and res.modelled_us > 0 else None
    )
    return out, res


def _traced_bytes(trace: dict[str, Any] | TraceStore, pipes: tuple[str, ...]) -> int:
    store = as_store(trace)
    wanted = (store.kind == KIND["op"]) & np.isin(store.pipe, [PIPES.index(q) for q in pipes])
    nbytes = np.where(wanted, store.nbytes, 0)
    return sum(int(store.counts(ci) @ nbytes) for ci in range(len(store.cores)))


def l2_hits(trace: dict[str, Any] | TraceStore, p: ChipParams, hbm_bytes: float | None) -> float | L2Hits:
    """What the replay takes as ``l2_hit`` for a trace: each GM read classified by address
    (:func:`opkit.perf.l2.classify`) when the trace records the ranges, else the byte-count rule's one
    fraction for every read (:func:`l2_hit_fraction`)."""
    hits = l2_reads(trace, p)
    return hits if hits is not None else l2_hit_fraction(trace, p, hbm_bytes)


def l2_hit_fraction(trace: dict[str, Any] | TraceStore, p: ChipParams, hbm_bytes: float | None) -> float:
    """Fraction of the trace's GM read bytes modelled as L2 hits: re-reads of data already read.

    The fallback for traces without GM ranges (:mod:`opkit.perf.l2` classifies by address when the
    trace has them). Reuse is counted in bytes: the golden's ``hbm_bytes`` (every
    input read once, every output written once) minus the bytes the trace writes is what must come
    from HBM at least once; every read byte beyond that re-reads data read before. Those re-reads
    hit when the kernel's footprint (``hbm_bytes``) fits the chip's L2, and in proportion
    L2 / footprint when it does not (est: a share of the data stays resident). 0 without
    ``hbm_bytes``, without reads, or when the chip has no L2 figures.
    """
    if hbm_bytes is None or hbm_bytes <= 0 or p.l2_bytes <= 0 or p.l2_read <= 0:
        return 0.0
    reads = _traced_bytes(trace, ("MTE2",))
    if reads <= 0:
        return 0.0
    writes = _traced_bytes(trace, ("MTE3", "FIX"))
    first = min(float(reads), max(0.0, hbm_bytes - writes))
    return (reads - first) / reads * min(1.0, p.l2_bytes / hbm_bytes)


def traced_gm_bytes(trace: dict[str, Any] | TraceStore) -> int:
    """Bytes moved between GM and the cores by the trace's copies (MTE2 in, MTE3 and FIX out)."""
    return _traced_bytes(trace, ("MTE2", "MTE3", "FIX"))


__all__ = ["LABEL", "CoreTime", "ModelResult", "evaluate", "golden_costs", "l2_hit_fraction", "l2_hits", "model_run",
           "dropped_cores", "model_trace", "roofline_us", "traced_gm_bytes"]
