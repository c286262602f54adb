"""Comparing a kernel's outputs with the golden under a named precision profile.

The ``mixed`` profile (the default) is the ecosystem's mixed-tolerance standard: an element
matches when |a - g| <= atol + rtol * |g|, with rtol = atol = 2^-10 (float16), 2^-7 (bfloat16),
2^-13 (float32); a case passes when at least 99 % of the elements whose golden is finite match and
no element is off by more than max(0.1, 32 ulp(g)) (float16/bfloat16) or max(0.01, 32 ulp(g))
(float32), ulp taken in the output dtype. Integer and bool outputs must match exactly. In every
profile NaN and ±Inf positions must match the golden's, and are reported apart.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from opkit.errors import OpkitError
from opkit.numerics import ulp

MIXED_TOL = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-13, "float64": 2.0**-30}
MIXED_HARD_ABS = {"float16": 0.1, "bfloat16": 0.1, "float32": 0.01, "float64": 1e-6}
HARD_ULPS = 32
PROFILES = ("mixed",)


@dataclass
class Thresholds:
    profile: str
    rtol: float
    atol: float
    pass_ratio: float
    hard_abs: float
    hard_ulps: int

    def describe(self) -> str:
        return (f"{self.profile}: |a-g| <= {self.atol:.3g} + {self.rtol:.3g}*|g| for >= {self.pass_ratio:.2%} "
                f"of finite elements; none beyond max({self.hard_abs:g}, {self.hard_ulps} ulp)")


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
    worst: list[Mismatch] = field(default_factory=list)

    @property
    def matched_ratio(self) -> float:
        return self.matched / self.finite if self.finite else 1.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["matched_ratio"] = self.matched_ratio
        return d


def thresholds(dtype: str, profile: str = "mixed", overrides: dict[str, Any] | None = None) -> Thresholds:
    if profile not in PROFILES:
        raise OpkitError(f"precision profile '{profile}' is not available yet (available: {', '.join(PROFILES)})")
    o = overrides or {}
    tol = MIXED_TOL[dtype]
    return Thresholds(profile, float(o.get("rtol", tol)), float(o.get("atol", tol)), float(o.get("pass_ratio", 0.99)),
                      MIXED_HARD_ABS[dtype], HARD_ULPS)


def _worst(actual: np.ndarray, golden: np.ndarray, abs_err: np.ndarray, rel: np.ndarray, bad: np.ndarray,
           shape: tuple[int, ...], k: int) -> list[Mismatch]:
    idx = np.flatnonzero(bad)
    if idx.size == 0:
        return []
    order = idx[np.argsort(-np.nan_to_num(abs_err[idx], nan=np.inf, posinf=np.inf))][:k]
    return [Mismatch(tuple(int(i) for i in np.unravel_index(j, shape)), float(actual[j]), float(golden[j]),
                     float(abs_err[j]), float(rel[j])) for j in order]


def compare(name: str, actual: np.ndarray, golden: np.ndarray, dtype: str, profile: str = "mixed",
            overrides: dict[str, Any] | None = None, worst: int = 20) -> OutputResult:
    """Compare one output; ``actual`` in its device dtype, ``golden`` in high precision."""
    shape = tuple(np.shape(golden))
    if tuple(np.shape(actual)) != shape:
        return OutputResult(name, dtype, tuple(np.shape(actual)), False,
                            f"shape {list(np.shape(actual))} differs from the golden's {list(shape)}", {})
    a_dev = np.asarray(actual)
    if dtype not in MIXED_TOL:  # integers and bool: exact
        a = a_dev.reshape(-1).astype(np.int64)
        g = np.asarray(golden).reshape(-1).astype(np.int64)
        bad = a != g
        n_bad = int(bad.sum())
        err = np.abs(a - g).astype(np.float64)
        why = f"{n_bad} of {a.size} elements differ (integers must match exactly)" if n_bad else "exact match"
        res = OutputResult(name, dtype, shape, n_bad == 0, why,
                           {"profile": profile, "exact": True}, count=a.size, finite=a.size, matched=a.size - n_bad,
                           max_abs_err=float(err.max()) if a.size else 0.0)
        res.worst = _worst(a.astype(np.float64), g.astype(np.float64), err, err, bad, shape, worst)
        return res

    th = thresholds(dtype, profile, overrides)
    a = a_dev.astype(np.float64).reshape(-1)
    g = np.asarray(golden, dtype=np.float64).reshape(-1)
    g_fin = np.isfinite(g)
    # NaN where the golden has NaN; the same infinity where the golden has one.
    nonfinite_bad = (np.isnan(g) != np.isnan(a)) | (np.isinf(g) & (a != g)) | (g_fin & ~np.isfinite(a))
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.abs(a - g)
        rel = abs_err / np.maximum(np.abs(g), np.finfo(np.float64).tiny)
    fin = g_fin & np.isfinite(a)
    match = fin & (abs_err <= th.atol + th.rtol * np.abs(g))
    hard = np.maximum(th.hard_abs, th.hard_ulps * ulp(g, dtype))
    beyond = fin & (abs_err > hard)
    n_fin = int(g_fin.sum())
    n_match = int(match.sum())
    n_nonfinite = int(nonfinite_bad.sum())
    ratio = n_match / n_fin if n_fin else 1.0
    reasons = []
    if n_nonfinite:
        reasons.append(f"{n_nonfinite} NaN/Inf position(s) differ from the golden")
    if ratio < th.pass_ratio:
        reasons.append(f"{ratio:.4%} of finite elements match (needs {th.pass_ratio:.2%})")
    if beyond.any():
        reasons.append(f"{int(beyond.sum())} element(s) off by more than max({th.hard_abs:g}, {th.hard_ulps} ulp)")
    passed = not reasons
    finite_errs = abs_err[fin]
    res = OutputResult(
        name, dtype, shape, passed, "; ".join(reasons) if reasons else f"{ratio:.4%} matched",
        asdict(th), count=a.size, finite=n_fin, matched=n_match,
        max_abs_err=float(finite_errs.max()) if finite_errs.size else 0.0,
        max_rel_err=float(rel[fin].max()) if finite_errs.size else 0.0,
        mean_rel_err=float(rel[fin].mean()) if finite_errs.size else 0.0,
        nonfinite_mismatches=n_nonfinite)
    res.worst = _worst(a, g, np.where(nonfinite_bad, np.inf, abs_err), rel, (~match & g_fin) | nonfinite_bad,
                       shape, worst)
    return res
