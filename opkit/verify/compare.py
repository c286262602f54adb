"""Comparing a kernel's outputs with the golden under a named precision profile.

What holds in every profile: shapes must agree; integer and bool outputs must match exactly; NaN
and ±Inf positions must match the golden's (reported apart from the numeric errors). The
remaining finite elements are judged by the profile (``opkit.verify.profiles``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from opkit.verify.profiles import FLOAT_DTYPES, judge

DEFAULT_PROFILE = "mixed"


@dataclass
class Mismatch:
    index: tuple[int, ...]
    actual: float
    golden: float
    abs_err: float
    rel_err: float


@dataclass
class OutputResult:
    name: str
    dtype: str
    shape: tuple[int, ...]
    passed: bool
    reason: str
    thresholds: dict[str, Any]
    count: int = 0
    finite: int = 0
    matched: int = 0
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    mean_rel_err: float = 0.0
    nonfinite_mismatches: int = 0
    metrics: dict[str, float] = field(default_factory=dict)
    worst: list[Mismatch] = field(default_factory=list)

    @property
    def matched_ratio(self) -> float:
        return self.matched / self.finite if self.finite else 1.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["matched_ratio"] = self.matched_ratio
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> OutputResult:
        """An output read back from results.json (its numbers as written there)."""
        fields = {k: v for k, v in d.items() if k in cls.__dataclass_fields__ and k != "worst"}
        fields["shape"] = tuple(d["shape"])
        return cls(**fields, worst=[Mismatch(tuple(m["index"]), m["actual"], m["golden"], m["abs_err"], m["rel_err"])
                                    for m in d.get("worst", [])])


@dataclass
class HookResult:
    """What a package's comparison hook (op.yaml ``compare``) decided for one case run."""

    function: str  # file.py:function
    outputs: list[str]  # the outputs it judged
    passed: bool
    summary: str
    counts: dict[str, int] = field(default_factory=dict)  # e.g. near_ties
    thresholds: dict[str, Any] = field(default_factory=dict)  # the hook's own (tolerances, rules)
    failures: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HookResult:
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


def _worst(actual: np.ndarray, golden: np.ndarray, abs_err: np.ndarray, rel: np.ndarray, bad: np.ndarray,
           shape: tuple[int, ...], k: int) -> list[Mismatch]:
    idx = np.flatnonzero(bad)
    if idx.size == 0:
        return []
    order = idx[np.argsort(-np.nan_to_num(abs_err[idx], nan=np.inf, posinf=np.inf), kind="stable")][:k]
    return [Mismatch(tuple(int(i) for i in np.unravel_index(j, shape)), float(actual[j]), float(golden[j]),
                     float(abs_err[j]), float(rel[j])) for j in order]


def _parts(values: np.ndarray) -> np.ndarray:
    """A complex array as real numbers: a trailing axis of (real, imaginary)."""
    c = np.asarray(values).astype(np.complex128)
    return np.stack([c.real, c.imag], axis=-1)


def compare(name: str, actual: np.ndarray, golden: np.ndarray, dtype: str, profile: str = DEFAULT_PROFILE,
            overrides: dict[str, Any] | None = None, reference: np.ndarray | None = None,
            worst: int = 20) -> OutputResult:
    """Compare one output; ``actual`` in its device dtype, ``golden`` in high precision.

    ``reference`` is a same-precision reference output, needed by the ``ratio-vs-reference`` profile.
    """
    shape = tuple(np.shape(golden))
    if dtype == "complex64" and tuple(np.shape(actual)) == shape:  # real and imaginary parts, as float32
        res = compare(name, _parts(actual), _parts(golden), "float32", profile, overrides,
                      None if reference is None else _parts(reference), worst)
        res.dtype, res.shape = dtype, shape
        res.reason += " (real and imaginary parts compared as float32)"
        return res
    if tuple(np.shape(actual)) != shape:
        return OutputResult(name, dtype, tuple(np.shape(actual)), False,
                            f"shape {list(np.shape(actual))} differs from the golden's {list(shape)}", {})
    if dtype not in FLOAT_DTYPES:  # integers and bool: exact, in every profile
        a = np.asarray(actual).reshape(-1).astype(np.int64)
        g = np.asarray(golden).reshape(-1).astype(np.int64)
        bad = a != g
        n_bad = int(bad.sum())
        err = np.abs(a - g).astype(np.float64)
        why = f"{n_bad} of {a.size} elements differ (integers must match exactly)" if n_bad else "exact match"
        res = OutputResult(name, dtype, shape, n_bad == 0, why, {"profile": profile, "exact": True},
                           count=a.size, finite=a.size, matched=a.size - n_bad,
                           max_abs_err=float(err.max()) if a.size else 0.0)
        res.worst = _worst(a.astype(np.float64), g.astype(np.float64), err, err, bad, shape, worst)
        return res

    a = np.asarray(actual).astype(np.float64).reshape(-1)
    g = np.asarray(golden, dtype=np.float64).reshape(-1)
    g_fin = np.isfinite(g)
    nonfinite_bad = (np.isnan(g) != np.isnan(a)) | (np.isinf(g) & (a != g)) | (g_fin & ~np.isfinite(a))
    fin = g_fin & np.isfinite(a)
    ref = None if reference is None else np.asarray(reference).astype(np.float64).reshape(-1)[fin]
    # Garbage outputs (a kernel reading the wrong layout, say) make huge errors whose sums overflow to
    # inf: that is the figure to report, not a warning to print.
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        j = judge(profile, a[fin], g[fin], dtype, overrides, ref)
        abs_err = np.abs(a - g)
        rel = abs_err / np.maximum(np.abs(g), np.finfo(np.float64).tiny)
        mean_rel = float(rel[fin].mean()) if fin.any() else 0.0
    match = np.zeros(a.shape, dtype=bool)
    match[fin] = j.match
    n_nonfinite = int(nonfinite_bad.sum())
    reasons = list(j.reasons)
    if n_nonfinite:
        reasons.insert(0, f"{n_nonfinite} NaN/Inf position(s) differ from the golden")
    n_fin = int(g_fin.sum())
    finite_errs = abs_err[fin]
    res = OutputResult(
        name, dtype, shape, not reasons,
        "; ".join(reasons) if reasons else f"{int(match.sum())}/{n_fin} elements within tolerance",
        j.thresholds, count=a.size, finite=n_fin, matched=int(match.sum()),
        max_abs_err=float(finite_errs.max()) if finite_errs.size else 0.0,
        max_rel_err=float(rel[fin].max()) if finite_errs.size else 0.0,
        mean_rel_err=mean_rel,
        nonfinite_mismatches=n_nonfinite, metrics=j.metrics)
    res.worst = _worst(a, g, np.where(nonfinite_bad, np.inf, abs_err), rel, (~match & g_fin) | nonfinite_bad,
                       shape, worst)
    return res
