"""Fused against unfused: the chain of primitive operators a fused kernel replaces (all modelled).

A package's golden.py may define the hook

    unfused_chain(shapes, dtypes, attrs) -> list of steps

(same arguments as ``flops`` / ``hbm_bytes``). Each step is one primitive operator, launched on
its own, a dict with

* ``op``: its name (``mul``, ``sigmoid``, ...);
* ``reads`` / ``writes``: {tensor name: bytes} it moves between HBM and the cores. A tensor named
  like one of the op's inputs or outputs is the fused op's own; any other name is an
  intermediate that exists only in the unfused chain;
* ``flops``: its arithmetic operations (0 for pure data movement);
* ``dtype``: the dtype it computes in (informative; for a cube step, the operand dtype of its peak);
* ``unit`` (optional): ``"cube"`` for a matrix multiplication, whose flops count at the cube peak;
  otherwise (``"vector"``, the default) at the vector peak.

Each step is modelled as its own launch at the chip's roofline (max of its HBM bytes at the HBM
bandwidth and its flops at the vector peak, :func:`opkit.perf.model.roofline_us`) plus the
kernel start-up — an optimistic figure for the chain (each primitive is assumed perfect), so the
fused kernel's modelled advantage is if anything understated. Extra peak memory of the chain is
the largest total size of the intermediates alive at once (an intermediate lives from the step
that writes it to the last step that reads it); the fused kernel's is its user workspace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opkit.errors import OpkitError

from .costs import ChipParams
from .model import LABEL, roofline_us

HOOK = "unfused_chain"


def _problem(where: str, msg: str) -> OpkitError:
    return OpkitError(f"{where}: {msg} (see docs/perf.md, 'Fused against unfused')")


def check_steps(steps: Any, where: str = "unfused_chain") -> list[dict[str, Any]]:
    """Validate the hook's result; an OpkitError names the first bad step."""
    if not isinstance(steps, list) or not steps:
        raise _problem(where, "must return a non-empty list of steps")
    out = []
    for i, s in enumerate(steps):
        if not isinstance(s, dict) or not isinstance(s.get("op"), str):
            raise _problem(where, f"step {i} is not a dict with an 'op' name")
        for key in ("reads", "writes"):
            d = s.get(key)
            if not isinstance(d, dict) or not all(isinstance(k, str) and isinstance(v, (int, float)) and v >= 0
                                                  for k, v in d.items()):
                raise _problem(where, f"step {i} ({s['op']}): '{key}' must map tensor names to byte counts")
        fl = s.get("flops", 0)
        if not isinstance(fl, (int, float)) or fl < 0:
            raise _problem(where, f"step {i} ({s['op']}): 'flops' must be a number >= 0")
        unit = s.get("unit", "vector")
        if unit not in ("vector", "cube"):
            raise _problem(where, f"step {i} ({s['op']}): 'unit' must be 'vector' or 'cube', not {unit!r}")
        out.append({"op": s["op"], "reads": dict(s["reads"]), "writes": dict(s["writes"]), "flops": float(fl),
                    "dtype": str(s.get("dtype", "")), "unit": unit})
    return out


def hbm_bytes(step: dict[str, Any]) -> int:
    return int(sum(step["reads"].values()) + sum(step["writes"].values()))


def peak_intermediate_bytes(steps: list[dict[str, Any]], own: Iterable[str]) -> int:
    """Largest total size of the intermediates alive at once (tensors not in ``own``)."""
    own = set(own)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    size: dict[str, float] = {}
    for i, s in enumerate(steps):
        for t, b in s["writes"].items():
            if t not in own:
                first.setdefault(t, i)
                last[t] = max(last.get(t, i), i)
                size[t] = max(size.get(t, 0.0), b)
        for t, b in s["reads"].items():
            if t not in own:
                first.setdefault(t, i)
                last[t] = i
                size[t] = max(size.get(t, 0.0), b)
    return int(max((sum(size[t] for t in size if first[t] <= i <= last[t]) for i in range(len(steps))),
                   default=0))


def model_chain(steps: list[dict[str, Any]], p: ChipParams, own: Iterable[str]) -> dict[str, Any]:
    """Modelled time, HBM bytes and extra peak memory of the unfused chain (one launch per step)."""
    rows = []
    for s in steps:
        nbytes = hbm_bytes(s)
        cube = s.get("unit") == "cube"
        bound, by = roofline_us(p, flops=s["flops"] or None, hbm_bytes=nbytes or None,
                                cube_dtype=(s["dtype"] or "float16") if cube else None)
        t = (bound or 0.0) + p.startup_us
        rows.append({"op": s["op"], "dtype": s["dtype"], "hbm_bytes": nbytes, "flops": int(s["flops"]),
                     "bound_us": bound, "bound_by": by, "modelled_us": t})
    return {
        "launches": len(steps),
        "hbm_bytes": sum(r["hbm_bytes"] for r in rows),
        "extra_peak_bytes": peak_intermediate_bytes(steps, own),
        "modelled_us": sum(r["modelled_us"] for r in rows),
        "steps": rows,
    }


def compare(fused: dict[str, Any], unfused: dict[str, Any]) -> dict[str, Any]:
    """The fused-vs-unfused record of a report: both sides and the ratios (labelled modelled).

    ``fused`` holds ``hbm_bytes`` (the golden's compulsory bytes), ``extra_peak_bytes`` (user
    workspace) and ``modelled_us`` (the replay of the traced run).
    """
    def ratio(a: Any, b: Any) -> float | None:
        return a / b if a and b else None

    return {
        "label": LABEL,
        "fused": {"launches": 1, **fused},
        "unfused": unfused,
        "hbm_ratio": ratio(unfused["hbm_bytes"], fused.get("hbm_bytes")),
        "speedup": ratio(unfused["modelled_us"], fused.get("modelled_us")),
    }


__all__ = ["HOOK", "check_steps", "compare", "hbm_bytes", "model_chain", "peak_intermediate_bytes"]
