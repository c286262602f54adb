"""The API cost table: how the performance model prices each API the simulator traces, pipe by pipe.

Every (pipe, API) the simulator's headers can put in a trace (:mod:`opkit.perf.traced_apis`) has
an entry here (tests/test_perf_api_table.py enforces it); docs/perf.md's API table lists them with
their source. A trace record the table does not know is still priced, by the pipe's fallback
(:data:`FALLBACK`), and reported by name (``unknown_apis`` of the perf record).

Rules: ``gm_read`` / ``gm_write`` (a GM copy: fixed part plus bytes at the pipe's rate, sharing
HBM), ``onchip`` (fixed part plus bytes at the L1→L0 rate), ``cube`` (16×16×16 fractals at the
dtype's MAC rate), a vector class of ``vector_cycles_per_repeat`` (start-up plus repeats × cycles
per repeat; ``transcendental``, ``reduction`` and ``gather`` pick their dtype form), or
``composite`` (the steps an advanced API expands to, each with its own start-up). Sources are the
keys of /work/shared/reference/npu_perf_model.md as docs/perf.md cites them; "assumed" marks an
entry that the reference does not price, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

_TWO_BYTE = {"float16", "bfloat16", "int16", "uint16", "half", "bfloat16_t"}
_SUM = {"ReduceSum", "WholeReduceSum", "BlockReduceSum", "PairReduceSum"}


@dataclass(frozen=True)
class Entry:
    """How one (pipe, API) is priced and where that comes from."""

    rule: str  # gm_read, gm_write, onchip, cube, scalar, a vector class, or composite
    source: str  # reference (npu_perf_model.md section, K-res, ...) or "assumed: reason"
    steps: tuple[str, ...] = ()  # composite: the vector class of each step over the elements
    row_steps: tuple[str, ...] = ()  # composite: steps over the row statistics (8 floats a row), every form
    update_steps: tuple[str, ...] = ()  # composite: per-row steps of the update form only

    @property
    def assumed(self) -> bool:
        return self.source.startswith("assumed")


def _group(rule: str, names: str, source: str) -> dict[str, Entry]:
    return {n: Entry(rule, source) for n in names.split()}


_V_1 = "§1.5 one tensor source (K-res)"
_V_2 = "§1.5 two tensor sources (K-res)"
VECTOR: dict[str, Entry] = {
    **_group("unary", "Abs Adds Muls Maxs Mins LeakyRelu Relu Reciprocal Rsqrt Not ShiftLeft ShiftRight Cast "
             "Duplicate DataCopy Copy Brcb BroadCast", _V_1),
    **_group("binary", "Add Sub Mul Max Min And Or AddRelu SubRelu Compare Select SelectWithBytesMask Axpy", _V_2),
    **_group("transcendental", "Exp Ln Sqrt", "§1.5 transcendental, fp32 / fp16 (K-res)"),
    **_group("division", "Div", "§1.5 division (K-res)"),
    **_group("three_operand", "MulAddDst FusedMulAdd MulAddRelu", "§1.5 three-operand (K-res)"),
    **_group("reduction", "ReduceSum ReduceMax ReduceMin WholeReduceSum WholeReduceMax WholeReduceMin "
             "BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum", "§1.5 reductions, fp32 sums 3 (K-res)"),
    **_group("gather", "Gather", "§1.5 gather, b32 / b16 (K-res)"),
    **_group("gather_mask", "GatherMask Extract", "§1.5 vreducev2 (K-res)"),
    **_group("sort", "Sort Sort32 MrgSort", "§1.5 vmrgsort (K-res)"),
    # not in the reference's table: the closest documented class
    "Compares": Entry("unary", "assumed: a tensor-scalar compare; §1.5 prices tensor-scalar ops (vadds, vmuls) "
                      "as one-source"),
    "CompareScalar": Entry("unary", "assumed: the tensor-scalar compare of Compares, in its count and mask forms"),
    "CreateVecIndex": Entry("unary", "assumed: writes an index sequence, one destination and no tensor source, "
                            "as vector_dup (§1.5 one source)"),
    "DropOutBitModeInit": Entry("unary", "assumed: zeroes one 256-B repeat of the tmp buffer, as Duplicate"),
    "AscendAntiQuant": Entry("binary", "assumed: the simulator counts its steps (cast, offset, scale) in the repeats; "
                             "each at the two-source rate (the cast is one-source: up to 1/5 high)"),
}

# Advanced APIs the simulator traces as one record: the basic instructions they expand to (opkit's
# decomposition, est), each step at its class rate and with its own start-up.
_EST = "est: opkit's decomposition into §1.5 classes"
_POLY = ("binary",) * 8
_COMPOSITE: dict[str, tuple[tuple[str, ...], str]] = {
    "Sigmoid": (("unary", "transcendental", "unary", "unary"), _EST + " (-x, exp, +1, 1/x)"),
    "Silu": (("unary", "transcendental", "unary", "unary", "binary"), _EST + " (x * sigmoid(x))"),
    "FasterGelu": (("unary", "transcendental", "unary", "division"), _EST + " (x / (1 + exp(c x)))"),
    "Gelu": (("binary", "binary", "unary", "unary", "binary", "transcendental", "unary", "division"), _EST),
    "SoftmaxFlashV2": (("reduction", "binary", "transcendental", "reduction_sum"),
                       _EST + " (over the elements: rowmax, x - max, exp, rowsum)"),
    "SoftMax": (("reduction", "binary", "transcendental", "reduction_sum", "division"),
                _EST + " (over the elements: rowmax, x - max, exp, rowsum, / sum; the documented steps)"),
    "SimpleSoftMax": (("binary", "transcendental", "division"), _EST + " (x - max, exp, / sum)"),
    "SoftmaxFlash": (("reduction", "binary", "transcendental", "reduction_sum", "division"),
                     _EST + " (over the elements: SoftMax's steps)"),
    "AdjustSoftMaxRes": (("unary", "binary"), _EST + " (compare the row max, select)"),
    "DropOut": (("binary", "unary"), _EST + " (select by the mask, * 1 / keepProb)"),
    "AscendDequant": (("unary", "binary"), _EST + " (cast, scale)"),
    "ArithProgression": (("unary",), _EST),
    "TopK": (("sort", "sort", "gather_mask"), _EST + " (repeats = 32-element groups: sorted, merged, gathered)"),
    # lib/math: range reduction plus a polynomial or an exp/ln identity; rounding is one Cast with a round mode
    **dict.fromkeys(("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Erf", "Erfc", "Lgamma"),
                    (_POLY, _EST + " (range reduction and a polynomial)")),
    **dict.fromkeys(("Sinh", "Cosh", "Tanh"), (("unary", "transcendental", "division", "binary", "binary"), _EST)),
    **dict.fromkeys(("Asinh", "Acosh", "Atanh"),
                    (("binary", "binary", "transcendental", "transcendental", "binary"), _EST)),
    **dict.fromkeys(("Log", "Log2", "Log10"), (("transcendental", "unary"), _EST + " (ln, scale)")),
    "Power": (("transcendental", "binary", "transcendental"), _EST + " (exp(y ln x))"),
    **dict.fromkeys(("Floor", "Ceil", "Round", "Trunc", "ClampMax", "ClampMin"), (("unary",), _EST + " (one Cast)")),
    "Frac": (("unary", "binary"), _EST),
    "Sign": (("unary", "unary", "binary"), _EST),
    "Sum": (("reduction",), _EST + " (lib/reduce/sum.h: one reduction per row)"),
}
# The softmax family's steps over the row statistics ([rows, 8] floats: 32 B a row), priced by the record's
# "rows" (docs/perf.md, API cost table): SoftMax/SoftmaxFlash broadcast the row max and the row sum to a 32-B block
# a row; the update form of SoftmaxFlashV2 computes max' = max(inMax, rowmax), expMax = exp(inMax - max') and
# sum' = expMax * inSum + rowsum on the statistics; SoftmaxFlash's update form also rescales expMax by inSum / sum'.
_ROW_STEPS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "SoftmaxFlashV2": ((), ("binary", "binary", "transcendental", "binary", "binary"),
                       "; update form, per row: max(inMax, rowmax), inMax - max', exp, * inSum, + rowsum"),
    "SoftMax": (("unary", "unary"), (), "; per row: broadcast max, broadcast sum"),
    "SoftmaxFlash": (("unary", "unary"), ("binary", "binary", "transcendental", "binary", "binary", "binary",
                                          "division"),
                     "; per row: broadcast max, broadcast sum; update form, per row: max(inMax, rowmax), "
                     "inMax - max', exp, * inSum, + rowsum, expMax * inSum, / sum'"),
}
VECTOR.update({k: Entry("composite", src + _ROW_STEPS.get(k, ((), (), ""))[2], steps,
                        *_ROW_STEPS.get(k, ((), (), ""))[:2]) for k, (steps, src) in _COMPOSITE.items()})
ROW_BYTES = 32  # one row's statistics: 8 floats (the softmax family's [rows, 8] max/sum tensors)

_GM_READ = "§4.1 GM copy: gm_read_fixed + bytes at gm_to_ub (AIV) / gm_to_l1 (AIC), L2 hits, HBM shared"
_GM_WRITE = "§4.1 GM copy: gm_write_fixed + bytes at the pipe's rate, HBM shared"
_ONCHIP = ("§4.1 on-chip copy: onchip_copy_fixed + bytes / the MTE1 rate into the record's dst "
           "(l1_to_l0a, l1_to_l0b, l1_to_bt; l1_to_l0 otherwise)")
_FILL = ("assumed: InitConstValue writes L1/L0 without reading GM (its MTE2 record for L1 carries no bytes); "
         "priced as an on-chip copy")
TABLE: dict[str, dict[str, Entry]] = {
    "MTE2": {"DataCopy": Entry("gm_read", _GM_READ + "; ND2NZ too"),
             "DataCopyPad": Entry("gm_read", _GM_READ),
             "LoadData": Entry("gm_read", _GM_READ + " (GM to L0A/L0B)"),
             "Fill": Entry("onchip", _FILL)},
    "MTE3": {"DataCopy": Entry("gm_write", _GM_WRITE + " (ub_to_gm)"),
             "DataCopyPad": Entry("gm_write", _GM_WRITE + " (ub_to_gm)"),
             "InitGlobalMemory": Entry("gm_write", _GM_WRITE + " (ub_to_gm)")},
    "MTE1": {"LoadData": Entry("onchip", _ONCHIP), "LoadDataWithTranspose": Entry("onchip", _ONCHIP),
             "DataCopy": Entry("onchip", _ONCHIP + " (L1 to L0 or BT)"),
             "DataCopy (L1 -> BiasTable)": Entry("onchip", _ONCHIP + " (L1 to BT, converting half to float)"),
             "Fill": Entry("onchip", _FILL)},
    "FIX": {"Fixpipe": Entry("gm_write", _GM_WRITE + " (l0c_to_gm)")},
    "M": {"Mmad": Entry("cube", "§4.1 Mmad: mmad_fixed + fractals x 4096 / cube_macs_per_cycle[dtype]")},
    "V": VECTOR,
    "S": {},
}

# What a record the table does not know is priced as (and reported by name).
FALLBACK: dict[str, str] = {
    "MTE2": "gm_read", "MTE3": "gm_write", "FIX": "gm_write", "MTE1": "onchip",
    "M": "cube at the float16 rate", "V": "unary (1 cycle per repeat)", "S": "scalar",
}


def fallback_note(name: str) -> str:
    """``PIPE:API`` of an unknown record with the fallback it was priced by."""
    pipe = name.split(":", 1)[0]
    return f"{name} (as {FALLBACK.get(pipe, 'nothing: 0 cycles, not a pipe of the model')})"


def unknown_warning(names: list[str]) -> str:
    """The one warning line for the records of a run the table does not know."""
    return ("not in the API cost table, priced by the pipe's fallback (docs/perf.md, API cost table): "
            + ", ".join(fallback_note(n) for n in names))


def entry(pipe: str, api: str) -> Entry | None:
    """The table's entry of an API on a pipe (None: not in the table)."""
    return TABLE.get(pipe, {}).get(api)


def vector_class(api: str, dtype: str) -> str | None:
    """Instruction class of a vector API (key of ``vector_cycles_per_repeat``); None if not a one-class API."""
    e = VECTOR.get(api)
    if e is None or e.rule == "composite":
        return None
    return resolve(e.rule, dtype, api)


def resolve(klass: str, dtype: str, api: str = "") -> str:
    """A class in its dtype form (transcendental fp16/fp32, reduction of an fp32 sum, gather b16/b32)."""
    two_byte = dtype in _TWO_BYTE
    if klass == "transcendental":
        return "transcendental_fp16" if two_byte else "transcendental_fp32"
    if klass == "reduction_sum":  # a composite's row sum: the fp32 sum rate on fp32 data
        return "reduction_sum_fp32" if dtype == "float32" else "reduction"
    if klass == "reduction" and api in _SUM and dtype == "float32":
        return "reduction_sum_fp32"
    if klass == "gather":
        return "gather_b16" if two_byte else "gather_b32"
    return klass


def composite_steps(api: str, dtype: str) -> list[str] | None:
    """The vector classes an advanced API's steps over the elements cost, or None when it is not a composite."""
    e = VECTOR.get(api)
    if e is None or e.rule != "composite":
        return None
    return [resolve(k, dtype) for k in e.steps]


def composite_plan(api: str, dtype: str, repeats: float, rows: int | None = None,
                   update: bool | None = None) -> list[tuple[str, float]] | None:
    """(vector class, repeats) of each step of an advanced API's record, or None when it is not a composite.

    Steps over the elements take the record's ``repeats``; steps over the row statistics take
    ⌈rows × 32 B / 256 B⌉ repeats when the record carries its row count (``rows``), else the record's
    repeats (a trace from before the row count: an upper bound). The update form's per-row steps count
    unless the record says it ran the plain form (``update`` False)."""
    e = VECTOR.get(api)
    if e is None or e.rule != "composite":
        return None
    row_rep = float(-(-rows * ROW_BYTES // 256)) if rows else repeats
    per_row = e.row_steps + (e.update_steps if update is not False else ())
    return [(resolve(k, dtype), repeats) for k in e.steps] + [(resolve(k, "float32"), row_rep) for k in per_row]


def rows() -> list[tuple[str, str, str, str]]:
    """(pipe, API, rule, source) of every entry, for docs/perf.md's table."""
    out = []
    for pipe, apis in TABLE.items():
        for api, e in sorted(apis.items()):
            rule = e.rule
            if e.rule == "composite":
                rule = "composite: " + " + ".join(e.steps)
                if e.row_steps:
                    rule += "; per row: " + " + ".join(e.row_steps)
                if e.update_steps:
                    rule += "; update, per row: " + " + ".join(e.update_steps)
            out.append((pipe, api, rule, e.source))
    return out


__all__ = ["FALLBACK", "ROW_BYTES", "TABLE", "VECTOR", "Entry", "composite_plan", "composite_steps", "entry",
           "fallback_note", "resolve", "rows", "unknown_warning", "vector_class"]
