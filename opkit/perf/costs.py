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

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")

# Vector API -> instruction class of the cycles-per-repeat table (npu_perf_model.md §1.5).
_UNARY = {
    "Abs", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Relu", "Reciprocal", "Rsqrt", "Not",
    "ShiftLeft", "ShiftRight", "Cast", "Duplicate", "DataCopy", "Copy", "Brcb", "BroadCast",
}
_BINARY = {
    "Add", "Sub", "Mul", "Max", "Min", "And", "Or", "AddRelu", "SubRelu", "Compare", "Select",
    "SelectWithBytesMask", "Axpy",
}
_TRANSCENDENTAL = {"Exp", "Ln", "Sqrt"}
_DIVISION = {"Div"}
_THREE_OPERAND = {"MulAddDst", "FusedMulAdd", "MulAddRelu"}
_REDUCTION = {
    "ReduceSum", "ReduceMax", "ReduceMin", "WholeReduceSum", "WholeReduceMax", "WholeReduceMin",
    "BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum",
}
_GATHER = {"Gather"}
_GATHER_MASK = {"GatherMask", "Extract"}
_SORT = {"Sort", "Sort32", "MrgSort"}
# Advanced APIs the simulator traces as one event: costed as the basic instructions they expand to
# (est: opkit's decomposition, each step at its class rate and with its own start-up).
_COMPOSITE: dict[str, tuple[str, ...]] = {
    "Sigmoid": ("unary", "transcendental", "unary", "unary"),  # -x, exp, +1, 1/x
    "Silu": ("unary", "transcendental", "unary", "unary", "binary"),  # x * sigmoid(x)
    "FasterGelu": ("unary", "transcendental", "unary", "division"),  # x / (1 + exp(c x))
    "Gelu": ("binary", "binary", "unary", "unary", "binary", "transcendental", "unary", "division"),
    "SoftmaxFlashV2": ("reduction", "binary", "transcendental", "reduction", "binary",
                       "transcendental", "binary", "binary"),
    # rowmax, broadcast, x - max, exp, rowsum, broadcast, / sum (the documented steps)
    "SoftMax": ("reduction", "unary", "binary", "transcendental", "reduction", "unary", "division"),
    "SimpleSoftMax": ("binary", "transcendental", "division"),  # x - max, exp, / sum
    "SoftmaxFlash": ("reduction", "unary", "binary", "binary", "transcendental", "reduction", "unary",
                     "binary", "binary", "division"),  # SoftMax plus the max/expMax/sum update
    "AdjustSoftMaxRes": ("unary", "binary"),  # compare the row max, select
    "DropOut": ("binary", "unary"),  # select by the mask, * 1 / keepProb
    "AscendDequant": ("unary", "binary"),  # cast, scale
    "ArithProgression": ("unary",),
    # repeats = 32-element groups: sorted in 32s, merged, the k best gathered out (est: as the A2 form runs it)
    "TopK": ("sort", "sort", "gather_mask"),
}
# lib/math APIs (est: the chip evaluates them as range reduction plus a polynomial or an exp/ln
# identity; opkit's step counts). Rounding functions are one Cast with a round mode.
_POLY = ("binary",) * 8
_COMPOSITE.update({
    **dict.fromkeys(("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Erf", "Erfc", "Lgamma"), _POLY),
    **dict.fromkeys(("Sinh", "Cosh", "Tanh"), ("unary", "transcendental", "division", "binary", "binary")),
    **dict.fromkeys(("Asinh", "Acosh", "Atanh"), ("binary", "binary", "transcendental", "transcendental", "binary")),
    **dict.fromkeys(("Log", "Log2", "Log10"), ("transcendental", "unary")),
    "Power": ("transcendental", "binary", "transcendental"),  # exp(y ln x)
    **dict.fromkeys(("Floor", "Ceil", "Round", "Trunc", "ClampMax", "ClampMin"), ("unary",)),
    "Frac": ("unary", "binary"),
    "Sign": ("unary", "unary", "binary"),
    "Sum": ("reduction",),  # lib/reduce/sum.h: one reduction per row
})
_SUM = {"ReduceSum", "WholeReduceSum", "BlockReduceSum", "PairReduceSum"}
_TWO_BYTE = {"float16", "bfloat16", "int16", "uint16", "half", "bfloat16_t"}


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
    # L2 (0 = not modelled): size in bytes and the per-core rate of a GM read that hits it
    l2_bytes: float = 0.0
    l2_read: float = 0.0
    # GM bursts shorter than short_burst_bytes move at short_burst_factor of the pipe's rate
    short_burst_bytes: float = 0.0
    short_burst_factor: float = 1.0

    def us(self, cycles: float) -> float:
        """Cycles of this chip's core clock in microseconds."""
        return cycles / self.clock_mhz


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
        vector_cpr={k: float(v) for k, v in _val(p["vector_cycles_per_repeat"]).items()},
        cube_macs_per_cycle={k: float(v) for k, v in _val(p["cube_macs_per_cycle"]).items()},
        mmad_fixed=float(_val(p["mmad_fixed_cycles"])),
        scalar_cycles=float(_val(p["scalar_cycles_per_op"])),
        sync_cycles=float(_val(p["sync_cycles"])),
        startup_us=float(_val(p["kernel_startup_us"])),
        sources=srcs,
        l2_bytes=float(_val(c.get("l2_size", 0)) or 0),
        l2_read=float(_val(p.get("l2_read_bytes_per_cycle", 0))),
        short_burst_bytes=float(_val(p.get("gm_short_burst_bytes", 0))),
        short_burst_factor=float(_val(p.get("gm_short_burst_factor", 1.0))),
    )


@dataclass(frozen=True)
class Cost:
    """Cost of one instruction: ``fixed`` cycles, then ``gm_bytes`` at up to ``cap`` B/cycle."""

    fixed: float
    gm_bytes: float = 0.0
    cap: float = 0.0
    klass: str = ""


def _resolve(klass: str, dtype: str) -> str:
    if klass == "transcendental":
        return "transcendental_fp16" if dtype in _TWO_BYTE else "transcendental_fp32"
    return klass


def vector_class(api: str, dtype: str) -> str | None:
    """Instruction class of a vector API (key of ``vector_cycles_per_repeat``); None if unknown."""
    two_byte = dtype in _TWO_BYTE
    if api in _UNARY:
        return "unary"
    if api in _BINARY:
        return "binary"
    if api in _TRANSCENDENTAL:
        return "transcendental_fp16" if two_byte else "transcendental_fp32"
    if api in _DIVISION:
        return "division"
    if api in _THREE_OPERAND:
        return "three_operand"
    if api in _REDUCTION:
        return "reduction_sum_fp32" if api in _SUM and dtype == "float32" else "reduction"
    if api in _GATHER:
        return "gather_b16" if two_byte else "gather_b32"
    if api in _GATHER_MASK:
        return "gather_mask"
    if api in _SORT:
        return "sort"
    return None


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

    ``l2_hit`` is the fraction of GM read bytes served by L2 (:func:`opkit.perf.model.l2_hit_fraction`):
    those move at the core's L2 read rate (``l2_read``, at most the pipe's cap) as part of the
    instruction's fixed time, without sharing HBM bandwidth; the rest flows from HBM.
    Unknown vector APIs are costed as one-source ops (1 cycle per repeat) with class ``unknown``
    so that callers can list them.
    """
    pipe = str(ev.get("pipe", ""))
    api = str(ev.get("api", ""))
    dtype = str(ev.get("dtype", ""))
    nbytes = float(ev.get("bytes", 0))
    repeats = float(ev.get("repeats", 0))
    if pipe == "MTE2":
        f = burst_factor(nbytes, repeats, p)
        cap = (p.gm_to_l1 if core_type == "AIC" else p.gm_to_ub) * f
        hit = nbytes * l2_hit if p.l2_read > 0 else 0.0
        fixed = p.gm_read_fixed + (hit / min(cap, p.l2_read * f) if hit > 0 else 0.0)
        return Cost(fixed, nbytes - hit, cap, "gm_read")
    if pipe == "MTE3":
        return Cost(p.gm_write_fixed, nbytes, p.ub_to_gm * burst_factor(nbytes, repeats, p), "gm_write")
    if pipe == "FIX":
        return Cost(p.gm_write_fixed, nbytes, p.l0c_to_gm * burst_factor(nbytes, repeats, p), "gm_write")
    if pipe == "MTE1":
        return Cost(p.onchip_copy_fixed + nbytes / p.l1_to_l0, klass="onchip")
    if pipe == "M":
        macs = p.cube_macs_per_cycle.get(dtype, p.cube_macs_per_cycle.get("float16", 4096.0))
        # repeats = 16x16x16 fractals (4096 MACs each, padded), as the simulator records them
        return Cost(p.mmad_fixed + repeats * 4096.0 / macs, klass="cube")
    if pipe == "V" and api in _COMPOSITE:
        steps = [_resolve(k, dtype) for k in _COMPOSITE[api]]
        cycles = sum(p.vector_startup + repeats * p.vector_cpr[k] for k in steps)
        return Cost(cycles, klass="composite")
    if pipe == "V":
        klass = vector_class(api, dtype)
        cpr = p.vector_cpr[klass] if klass is not None else p.vector_cpr["unary"]
        return Cost(p.vector_startup + repeats * cpr, klass=klass or "unknown")
    if pipe == "S":
        return Cost(p.scalar_cycles, klass="scalar")
    return Cost(0.0, klass="unknown")


__all__ = ["PIPES", "ChipParams", "Cost", "burst_factor", "chip_params", "op_cost", "vector_class"]
