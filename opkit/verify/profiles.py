"""Precision profiles: the field's standards, named and selectable (numbers and sources in docs/precision.md).

Each profile judges the elements where both the golden and the kernel's output are finite; the
caller (``opkit.verify.compare``) has already required NaN/Inf positions to match, integers to
match exactly, and shapes to agree — in every profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from opkit.errors import OpkitError
from opkit.numerics import ulp

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclass
class Judgement:
    passed: bool
    reasons: list[str]
    thresholds: dict[str, Any]
    match: np.ndarray  # per judged element: within the profile's per-element tolerance
    metrics: dict[str, float] = field(default_factory=dict)


def _tol(table: dict[str, float], dtype: str, profile: str) -> float:
    if dtype not in table:
        raise OpkitError(f"precision profile '{profile}' defines no threshold for {dtype}")
    return table[dtype]


# (e) mixed tolerance, hicann/opbase docs/zh/ops_precision_standard/mixed_tolerance_standard.md
MIXED_TOL = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-13, "float64": 2.0**-30}
MIXED_HARD_ABS = {"float16": 0.1, "bfloat16": 0.1, "float32": 0.01, "float64": 1e-6}


def mixed(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any], ref: np.ndarray | None) -> Judgement:
    tol = _tol(MIXED_TOL, dtype, "mixed")
    rtol, atol = float(o.get("rtol", tol)), float(o.get("atol", tol))
    ratio_needed = float(o.get("pass_ratio", 0.99))
    hard_abs, hard_ulps = MIXED_HARD_ABS[dtype], 32
    err = np.abs(a - g)
    match = err <= atol + rtol * np.abs(g)
    beyond = err > np.maximum(hard_abs, hard_ulps * ulp(g, dtype))
    ratio = float(match.mean()) if match.size else 1.0
    reasons = []
    if ratio < ratio_needed:
        reasons.append(f"{ratio:.4%} of finite elements match (needs {ratio_needed:.2%})")
    if beyond.any():
        reasons.append(f"{int(beyond.sum())} element(s) off by more than max({hard_abs:g}, {hard_ulps} ulp)")
    th = {"profile": "mixed", "rtol": rtol, "atol": atol, "pass_ratio": ratio_needed, "hard_abs": hard_abs,
          "hard_ulps": hard_ulps}
    return Judgement(not reasons, reasons, th, match, {"matched_ratio": ratio})


# (d) MERE/MARE, hicann/opbase docs/zh/ops_precision_standard/experimental_standard.md
MERE_T = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-13}


def mere_mare(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any], ref: np.ndarray | None) -> Judgement:
    t = float(o.get("threshold", _tol(MERE_T, dtype, "mere-mare")))
    rel = np.abs(a - g) / (np.abs(g) + 1e-7)
    mere = float(rel.mean()) if rel.size else 0.0
    mare = float(rel.max()) if rel.size else 0.0
    reasons = []
    if not mere < t:
        reasons.append(f"MERE {mere:.3g} is not below T = {t:.3g}")
    if not mare < 10 * t:
        reasons.append(f"MARE {mare:.3g} is not below 10·T = {10 * t:.3g}")
    th = {"profile": "mere-mare", "T": t, "MERE_limit": t, "MARE_limit": 10 * t}
    return Judgement(not reasons, reasons, th, rel < 10 * t, {"mere": mere, "mare": mare})


# (a) double thousandths / double ten-thousandths (asc-devkit samples' verify_result.py)
DOUBLE = {"float16": (1e-3, 1e-3, 1e-3), "float32": (1e-4, 1e-4, 1e-4)}


def double_thousandths(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any],
                       ref: np.ndarray | None) -> Judgement:
    if dtype not in DOUBLE:
        raise OpkitError(
            f"precision profile 'double-thousandths' defines no threshold for {dtype}: the rule covers float16 "
            "(1e-3) and float32 (1e-4); bfloat16 rounding alone reaches 2^-9 relative error, so no honest "
            "bfloat16 value exists. Use 'mixed' or 'mere-mare' for bfloat16 outputs.")
    rtol, atol, allowed = DOUBLE[dtype]
    rtol, atol = float(o.get("rtol", rtol)), float(o.get("atol", atol))
    allowed = float(1 - o["pass_ratio"]) if "pass_ratio" in o else allowed
    err = np.abs(a - g)
    fail = (err > atol) & (err > rtol * np.abs(g))  # outside both tolerances
    frac = float(fail.mean()) if fail.size else 0.0
    reasons = [] if frac <= allowed else [f"{frac:.4%} of elements fail (allowed {allowed:.2%})"]
    th = {"profile": "double-thousandths", "rtol": rtol, "atol": atol, "fail_ratio": allowed}
    return Judgement(not reasons, reasons, th, ~fail, {"fail_ratio": frac})


# (c) msOpST's comparison, but with NaN/Inf strict (the caller enforces that)
def msopst(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any], ref: np.ndarray | None) -> Judgement:
    diff_thd = float(o.get("rtol", 0.01))
    pct_thd = float(1 - o["pass_ratio"]) if "pass_ratio" in o else 0.05
    max_diff = 0.1
    err = np.abs(a - g)
    rdiff = np.where(err < diff_thd, err,
                     err / (np.maximum(np.maximum(np.abs(a), np.abs(g)), 2.0**-14 / diff_thd) + 1e-9))
    bad = rdiff > diff_thd
    frac = float(bad.mean()) if bad.size else 0.0
    reasons = []
    if frac > pct_thd:
        reasons.append(f"{frac:.4%} of elements have rdiff > {diff_thd:g} (allowed {pct_thd:.0%})")
    if (rdiff[bad] >= max_diff).any():
        reasons.append(f"{int((rdiff >= max_diff).sum())} element(s) have rdiff >= {max_diff:g}")
    th = {"profile": "msopst", "diff_thd": diff_thd, "pct_thd": pct_thd, "max_diff": max_diff}
    return Judgement(not reasons, reasons, th, ~bad, {"error_ratio": frac,
                                                     "max_rdiff": float(rdiff.max()) if rdiff.size else 0.0})


# (h) precision + error balance (ATB style), NaN/Inf strict unlike the original
EB_LIMIT = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-14}
EB_PT = {
    "plain": {"float16": 2.0**-8, "bfloat16": 2.0**-8, "float32": 2.0**-8},
    "high-precision": {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-14},
    "vector-fusion": {"float16": 2.0**-9, "bfloat16": 2.0**-8, "float32": 2.0**-12},
}


def eb(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any], ref: np.ndarray | None) -> Judgement:
    klass = str(o.get("class", "plain"))
    if klass not in EB_PT:
        raise OpkitError(f"eb profile: class '{klass}' is unknown (classes: {', '.join(EB_PT)})")
    pt = float(o.get("rtol", _tol(EB_PT[klass], dtype, "eb")))
    limit = _tol(EB_LIMIT, dtype, "eb")
    scale = np.maximum(1.0, np.abs(g))
    err = np.abs(a - g)
    match = err <= pt * scale
    balance = float(abs(np.mean((a - g) / scale))) if a.size else 0.0
    reasons = []
    if not match.all():
        reasons.append(f"{int((~match).sum())} element(s) beyond {pt:.3g}·max(1, |g|) (all must be within)")
    if balance > limit:
        reasons.append(f"error balance {balance:.3g} exceeds {limit:.3g} (a biased result)")
    th = {"profile": "eb", "class": klass, "pt": pt, "eb_limit": limit}
    return Judgement(not reasons, reasons, th, match, {"error_balance": balance})


# (f) commercial standard, single-seed form: the op's error relative to a same-precision reference's
RATIO_LEVELS = {"L0": (10.0, 2.0, 2.0), "L1": (5.0, 1.5, 1.5), "L2": (2.0, 1.2, 1.2)}
SMALL_VALUE = {"float16": (2.0**-11, 2.0**-16), "bfloat16": (2.0**-8, 2.0**-16), "float32": (2.0**-14, 2.0**-30)}


def _errors(x: np.ndarray, g: np.ndarray) -> tuple[float, float, float]:
    if x.size == 0:
        return 0.0, 0.0, 0.0
    rel = np.abs(x - g) / np.abs(g)
    return float(rel.max()), float(rel.mean()), float(np.sqrt(np.mean((x - g) ** 2)))


def ratio_vs_reference(a: np.ndarray, g: np.ndarray, dtype: str, o: dict[str, Any],
                       ref: np.ndarray | None) -> Judgement:
    if ref is None:
        raise OpkitError("precision profile 'ratio-vs-reference' needs a same-precision reference output "
                         "(golden.py's <golden>_reference function, or opkit's float32 reference)")
    level = str(o.get("level", "L0"))
    if level not in RATIO_LEVELS:
        raise OpkitError(f"ratio-vs-reference: level '{level}' is unknown (levels: {', '.join(RATIO_LEVELS)})")
    small_thr, bound = SMALL_VALUE.get(dtype, (0.0, 0.0))
    small = np.abs(g) < small_thr
    big = ~small
    mare, mere, rmse = _errors(a[big], g[big])
    rmare, rmere, rrmse = _errors(ref[big], g[big])
    eps = np.finfo(np.float64).tiny

    def ratio(x: float, y: float) -> float:
        return x / max(y, eps) if x > 0 else 0.0

    ratios = {"mare_ratio": ratio(mare, rmare), "mere_ratio": ratio(mere, rmere), "rmse_ratio": ratio(rmse, rrmse)}
    limits = dict(zip(("mare_ratio", "mere_ratio", "rmse_ratio"), RATIO_LEVELS[level], strict=True))
    n_small = int((small & (np.abs(a - g) > bound)).sum())
    n_small_ref = int((small & (np.abs(ref - g) > bound)).sum())
    small_ratio = n_small / max(n_small_ref, 1)
    reasons = [f"{k.replace('_', ' ')} {ratios[k]:.3g} exceeds {limits[k]:g} ({level})" for k in ratios
               if ratios[k] > limits[k]]
    if small_ratio > 2:
        reasons.append(f"small values: {n_small} errors vs the reference's {n_small_ref} (ratio {small_ratio:.3g} > 2)")
    match = np.abs(a - g) <= np.maximum(np.abs(ref - g) * RATIO_LEVELS[level][0], bound)
    th = {"profile": "ratio-vs-reference", "level": level, **{f"{k}_limit": v for k, v in limits.items()},
          "small_value_threshold": small_thr, "small_value_bound": bound, "small_count_ratio_limit": 2}
    return Judgement(not reasons, reasons, th, match,
                     {**ratios, "mare": mare, "mere": mere, "rmse": rmse, "small_errors": n_small,
                      "small_errors_reference": n_small_ref})


PROFILES: dict[str, Callable[..., Judgement]] = {
    "mixed": mixed, "mere-mare": mere_mare, "double-thousandths": double_thousandths, "msopst": msopst,
    "eb": eb, "ratio-vs-reference": ratio_vs_reference,
}


# The op.yaml precision keys each profile reads: PROFILE_OPTIONS, kept beside the spec loader that refuses
# the others (opkit.spec.sections.precision); a test checks it names exactly the profiles above.


def judge(profile: str, a: np.ndarray, g: np.ndarray, dtype: str, overrides: dict[str, Any] | None = None,
          reference: np.ndarray | None = None) -> Judgement:
    if profile not in PROFILES:
        raise OpkitError(f"unknown precision profile '{profile}' (profiles: {', '.join(PROFILES)})")
    return PROFILES[profile](a, g, dtype, dict(overrides or {}), reference)
