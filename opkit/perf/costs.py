"""Chip constants of the performance model and the cost of one traced instruction on its pipe.

Constants come from ``opkit/data/socs.yaml`` (each chip's ``perf`` block plus its clock, core
counts and HBM bandwidth); every number there carries its source. Costs are in core cycles.
A GM copy is split into a fixed part (pipe busy, no bandwidth used) and a transfer part
(``gm_bytes`` at up to ``cap`` bytes per cycle, sharing HBM bandwidth with every other transfer
in flight; see :mod:`opkit.perf.replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opkit import soc

from .apis import FALLBACK, composite_plan, entry, vector_class

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")

@dataclass(frozen=True)
class ChipParams:
    """Numbers the model uses for one chip (rates in bytes per core cycle)."""

    name: str
    clock_mhz: float
    aic_cores: int
    aiv_cores: int
    hbm_bytes_per_cycle: float
    gm_to_ub: float
    ub_to_gm: float
    gm_to_l1: float
    l1_to_l0: float
    l0c_to_gm: float
    gm_read_fixed: float
    gm_write_fixed: float
    onchip_copy_fixed: float
    vector_startup: float
    vector_cpr: dict[str, float]
    cube_macs_per_cycle: dict[str, float]
    mmad_fixed: float
    scalar_cycles: float
    sync_cycles: float
    startup_us: float
    sources: dict[str, Any] = field(default_factory=dict)
    # L2 (0 = not modelled): size in bytes and the per-core rates of a GM read that hits it and of a GM write it absorbs
    l2_bytes: float = 0.0
    l2_read: float = 0.0
    l2_write: float = 0.0
    # GM bursts shorter than short_burst_bytes move at short_burst_factor of the pipe's rate
    short_burst_bytes: float = 0.0
    short_burst_factor: float = 1.0
    # MTE1 rate by the arena a copy fills (the record's "dst": L0A, L0B, BiasTable); others use l1_to_l0
    l1_to_dst: dict[str, float] = field(default_factory=dict)
    # latency of the vector pipeline, paid where the V pipe must be empty (a flag or queue from V, a V barrier)
    vector_drain: float = 0.0

    def onchip_rate(self, dst: str) -> float:
        """Bytes per cycle of an on-chip copy into ``dst`` (``l1_to_l0`` when the chip gives no rate of its own)."""
        return self.l1_to_dst.get(dst, self.l1_to_l0)

    def us(self, cycles: float) -> float:
        """Cycles of this chip's core clock in microseconds."""
        return cycles / self.clock_mhz


# trace "dst" -> the socs.yaml key of the MTE1 rate into it
_DST_RATES = {"L0A": "l1_to_l0a_bytes_per_cycle", "L0B": "l1_to_l0b_bytes_per_cycle",
              "BiasTable": "l1_to_bt_bytes_per_cycle"}


def _val(entry: Any) -> Any:
    return entry["value"] if isinstance(entry, dict) and "value" in entry else entry


def chip_params(name: str) -> ChipParams:
    """Model constants of a chip (chip name or OpDef key), from ``opkit/data/socs.yaml``."""
    c = soc.chip(name)
    p = c.get("perf")
    if not isinstance(p, dict):
        raise KeyError(f"chip {c['name']!r} has no 'perf' block in {soc.DATA_FILE}")
    clock = float(c["clock_mhz"])
    srcs = {k: {m: v[m] for m in ("source", "decision", "note") if m in v}
            for k, v in p.items() if isinstance(v, dict)}
    return ChipParams(
        name=c["name"],
        clock_mhz=clock,
        aic_cores=int(c["aic_cores"]),
        aiv_cores=int(c["aiv_cores"]),
        # GB/s -> bytes per core cycle: 1e9 B/s / (1e6 cycles/s per MHz)
        hbm_bytes_per_cycle=float(c["hbm_bandwidth"]) * 1000.0 / clock,
        gm_to_ub=float(_val(p["gm_to_ub_bytes_per_cycle"])),
        ub_to_gm=float(_val(p["ub_to_gm_bytes_per_cycle"])),
        gm_to_l1=float(_val(p["gm_to_l1_bytes_per_cycle"])),
        l1_to_l0=float(_val(p["l1_to_l0_bytes_per_cycle"])),
        l0c_to_gm=float(_val(p["l0c_to_gm_bytes_per_cycle"])),
        gm_read_fixed=float(_val(p["gm_read_fixed_cycles"])),
        gm_write_fixed=float(_val(p["gm_write_fixed_cycles"])),
        onchip_copy_fixed=float(_val(p["onchip_copy_fixed_cycles"])),
        vector_startup=float(_val(p["vector_startup_cycles"])),
        vector_drain=float(_val(p.get("vector_drain_cycles", 0))),
        vector_cpr={k: float(v) for k, v in _val(p["vector_cycles_per_repeat"]).items()},
        cube_macs_per_cycle={k: float(v) for k, v in _val(p["cube_macs_per_cycle"]).items()},
        mmad_fixed=float(_val(p["mmad_fixed_cycles"])),
        scalar_cycles=float(_val(p["scalar_cycles_per_op"])),
        sync_cycles=float(_val(p["sync_cycles"])),
        startup_us=float(_val(p["kernel_startup_us"])),
        sources=srcs,
        l2_bytes=float(_val(c.get("l2_size", 0)) or 0),
        l2_read=float(_val(p.get("l2_read_bytes_per_cycle", 0))),
        l2_write=float(_val(p.get("l2_write_bytes_per_cycle", 0))),
        short_burst_bytes=float(_val(p.get("gm_short_burst_bytes", 0))),
        short_burst_factor=float(_val(p.get("gm_short_burst_factor", 1.0))),
        l1_to_dst={d: float(_val(p[k])) for d, k in _DST_RATES.items() if k in p},
    )


@dataclass(frozen=True)
class Cost:
    """Cost of one instruction: ``fixed`` cycles, then ``gm_bytes`` at up to ``cap`` B/cycle.

    ``unknown`` names what the API cost table (:mod:`opkit.perf.apis`) does not know about the record
    (``PIPE:API``, or ``PIPE:API[dtype]`` when only the dtype is new); it was priced by the pipe's
    fallback (:data:`opkit.perf.apis.FALLBACK`)."""

    fixed: float
    gm_bytes: float = 0.0
    cap: float = 0.0
    klass: str = ""
    unknown: str = ""


def burst_factor(nbytes: float, repeats: float, p: ChipParams) -> float:
    """Rate factor of a GM copy from its mean burst (bytes / repeats: one burst per ND row or block).

    A burst shorter than ``short_burst_bytes`` (512, the GM segment) cannot be a whole 512-B-aligned
    segment; it moves at ``short_burst_factor`` (A-512B: 32-B-aligned copies reach ~70 % of the
    512-B-aligned bandwidth in the worst case). The trace has no GM addresses, so longer bursts are
    taken as aligned.
    """
    if p.short_burst_bytes <= 0 or repeats <= 0 or nbytes <= 0:
        return 1.0
    return p.short_burst_factor if nbytes / repeats < p.short_burst_bytes else 1.0


def op_cost(ev: dict[str, Any], core_type: str, p: ChipParams, l2_hit: float = 0.0) -> Cost:
    """Cost of one trace ``op`` event (pipe, api, dtype, bytes, repeats) on a core of ``core_type``.

    The API cost table (:mod:`opkit.perf.apis`) says how each (pipe, API) is priced. ``l2_hit`` is, for a GM
    read, the fraction of its bytes served by L2 (:mod:`opkit.perf.l2`, or
    :func:`opkit.perf.model.l2_hit_fraction`): those move at the core's L2 read rate (``l2_read``, at most the
    pipe's cap) as part of the instruction's fixed time, without sharing HBM bandwidth; the rest flows from HBM.
    For a GM write it is the fraction the L2 absorbs (:mod:`opkit.perf.l2`): those bytes move at the core's L2
    write rate (``l2_write``) the same way; the rest flows to HBM. A record the table does not know is priced by
    its pipe's fallback (:data:`opkit.perf.apis.FALLBACK`; on V one-source, 1 cycle per repeat, class
    ``unknown``) and named in ``Cost.unknown`` so that the report can list it.
    """
    pipe = str(ev.get("pipe", ""))
    api = str(ev.get("api", ""))
    dtype = str(ev.get("dtype", ""))
    nbytes = float(ev.get("bytes", 0))
    repeats = float(ev.get("repeats", 0))
    e = entry(pipe, api)
    unknown = "" if e is not None else f"{pipe}:{api}"
    rule = e.rule if e is not None else FALLBACK.get(pipe, "")
    if pipe in ("MTE1", "MTE2", "MTE3", "FIX"):
        if rule == "onchip":
            rate = p.onchip_rate(str(ev.get("dst", ""))) if pipe == "MTE1" else p.l1_to_l0
            return Cost(p.onchip_copy_fixed + nbytes / rate, klass="onchip", unknown=unknown)
        if pipe == "MTE2":
            f = burst_factor(nbytes, repeats, p)
            cap = (p.gm_to_l1 if core_type == "AIC" else p.gm_to_ub) * f
            hit = nbytes * l2_hit if p.l2_read > 0 else 0.0
            fixed = p.gm_read_fixed + (hit / min(cap, p.l2_read * f) if hit > 0 else 0.0)
            return Cost(fixed, nbytes - hit, cap, "gm_read", unknown)
        f = burst_factor(nbytes, repeats, p)
        cap = (p.l0c_to_gm if pipe == "FIX" else p.ub_to_gm) * f
        hit = nbytes * l2_hit if p.l2_write > 0 else 0.0
        fixed = p.gm_write_fixed + (hit / min(cap, p.l2_write * f) if hit > 0 else 0.0)
        return Cost(fixed, nbytes - hit, cap, "gm_write", unknown)
    if pipe == "M":
        macs = p.cube_macs_per_cycle.get(dtype)
        if macs is None:  # a dtype the chip's MAC table does not list: the float16 rate
            macs = p.cube_macs_per_cycle.get("float16", 4096.0)
            unknown = unknown or f"{pipe}:{api}[{dtype}]"
        # repeats = 16x16x16 fractals (4096 MACs each, padded), as the simulator records them
        return Cost(p.mmad_fixed + repeats * 4096.0 / macs, klass="cube", unknown=unknown)
    if pipe == "V":
        rows = ev.get("rows")
        upd = ev.get("update")
        plan = composite_plan(api, dtype, repeats, int(rows) if rows else None,
                              None if upd is None else bool(upd))
        if plan is not None:  # CANN separates the steps with PipeBarrier<PIPE_V>: a pipeline drain between two
            cycles = sum(p.vector_startup + n * p.vector_cpr[k] for k, n in plan) + (len(plan) - 1) * p.vector_drain
            return Cost(cycles, klass="composite")
        klass = vector_class(api, dtype)
        cpr = p.vector_cpr[klass] if klass is not None else p.vector_cpr["unary"]
        return Cost(p.vector_startup + repeats * cpr, klass=klass or "unknown", unknown=unknown)
    if pipe == "S":
        return Cost(p.scalar_cycles, klass="scalar", unknown=unknown)
    return Cost(0.0, klass="unknown", unknown=unknown or f"{pipe}:{api}")


__all__ = ["PIPES", "ChipParams", "Cost", "burst_factor", "chip_params", "op_cost", "vector_class"]
