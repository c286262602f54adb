"""Every precision profile on hand-made arrays whose verdict is known."""

import ml_dtypes
import numpy as np
import pytest

from opkit.errors import OpkitError
from opkit.verify.compare import compare
from opkit.verify.profiles import PROFILES

RNG = np.random.default_rng(7)
G = RNG.uniform(0.5, 2.0, size=20000)


def noisy(rel: float, dtype, count: int | None = None, seed: int = 0) -> np.ndarray:
    """The golden with a relative error ``rel`` on ``count`` elements (all by default), in ``dtype``."""
    x = G.copy()
    idx = slice(None) if count is None else np.random.default_rng(seed).choice(G.size, count, replace=False)
    x[idx] = x[idx] * (1 + rel)
    return x.astype(dtype)


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "ratio-vs-reference"])
def test_correctly_rounded_float16_and_float32_pass(profile):
    for dt, np_dt in (("float16", np.float16), ("float32", np.float32)):
        r = compare("y", G.astype(np_dt), G, dt, profile=profile)
        assert r.passed, (profile, dt, r.reason)
        assert r.thresholds["profile"] == profile


@pytest.mark.parametrize("dt,np_dt", [("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16),
                                       ("float32", np.float32)])
@pytest.mark.parametrize("profile", list(PROFILES))
def test_nan_inf_position_mismatch_fails_every_profile(profile, dt, np_dt):
    if profile == "double-thousandths" and dt == "bfloat16":
        pytest.skip("the profile refuses bfloat16 outputs (test_double_thousandths)")
    # the rest of the output is correctly rounded, so the NaN/Inf position alone decides
    assert compare("y", G.astype(np_dt), G, dt, profile=profile, reference=G.astype(np_dt)).passed
    for golden_value, actual_value in ((np.nan, 1.0), (1.0, np.nan), (1.0, np.inf), (np.inf, -np.inf),
                                       (np.inf, 1.0), (-np.inf, np.nan)):
        g = G.copy()
        g[5] = golden_value
        a = g.astype(np_dt)
        a[5] = actual_value
        r = compare("y", a, g, dt, profile=profile, reference=g.astype(np_dt))
        assert not r.passed and r.nonfinite_mismatches == 1, (golden_value, actual_value, r.reason)
        assert "1 NaN/Inf position(s) differ from the golden" in r.reason


def test_mere_mare():
    t = 2.0**-10
    assert compare("y", noisy(0.5 * t, np.float64), G, "float16", profile="mere-mare").passed
    r = compare("y", noisy(1.5 * t, np.float64), G, "float16", profile="mere-mare")
    assert not r.passed and "MERE" in r.reason and "MARE" not in r.reason
    r = compare("y", noisy(11 * t, np.float64, count=1), G, "float16", profile="mere-mare")
    assert not r.passed and "MARE" in r.reason and "MERE" not in r.reason
    assert r.thresholds == {"profile": "mere-mare", "T": t, "MERE_limit": t, "MARE_limit": 10 * t}


def test_double_thousandths():
    # float16: 0.1 % of elements may fail both 1e-3 tolerances
    assert compare("y", noisy(0.01, np.float64, count=20), G, "float16", profile="double-thousandths").passed
    r = compare("y", noisy(0.01, np.float64, count=21), G, "float16", profile="double-thousandths")
    assert not r.passed and "0.1050% of elements fail (allowed 0.10%)" in r.reason
    # float32: 1e-4 and 0.01 %
    assert compare("y", noisy(1e-3, np.float64, count=2), G, "float32", profile="double-thousandths").passed
    assert not compare("y", noisy(1e-3, np.float64, count=3), G, "float32", profile="double-thousandths").passed
    with pytest.raises(OpkitError, match="defines no threshold for bfloat16"):
        compare("y", G.astype(ml_dtypes.bfloat16), G, "bfloat16", profile="double-thousandths")


def test_msopst():
    # 4 % of elements off by 2 % passes (as msOpST's arithmetic does) ...
    assert compare("y", noisy(0.02, np.float64, count=800), G, "float16", profile="msopst").passed
    # ... 6 % does not, and neither does one element off by 15 %
    r = compare("y", noisy(0.02, np.float64, count=1200), G, "float16", profile="msopst")
    assert not r.passed and "rdiff > 0.01" in r.reason
    r = compare("y", noisy(0.15, np.float64, count=1), G, "float16", profile="msopst")
    assert not r.passed and "rdiff >= 0.1" in r.reason


def test_eb_precision_and_balance():
    # every element within 2^-8 * max(1, |g|), no bias: passes
    a = G * (1 + RNG.choice([-1, 1], size=G.size) * 2.0**-10)
    assert compare("y", a, G, "float32", profile="eb").passed
    # one element beyond pt fails
    r = compare("y", noisy(2.0**-6, np.float64, count=1), G, "float32", profile="eb")
    assert not r.passed and "beyond" in r.reason
    # a consistent bias of 2^-12 (within pt) fails the balance for float32 (limit 2^-14)
    r = compare("y", G * (1 + 2.0**-12), G, "float32", profile="eb")
    assert not r.passed and "error balance" in r.reason and "beyond" not in r.reason


def test_ratio_vs_reference():
    ref = noisy(2.0**-11, np.float64)  # a same-precision reference's error
    same = noisy(2.0**-11, np.float64)
    r = compare("y", same, G, "float16", profile="ratio-vs-reference", reference=ref)
    assert r.passed and r.metrics["mere_ratio"] == pytest.approx(1.0)
    r = compare("y", noisy(2.0**-9, np.float64), G, "float16", profile="ratio-vs-reference", reference=ref)
    assert not r.passed and "mere ratio 4 exceeds 2 (L0)" in r.reason
    r = compare("y", noisy(2.0**-10, np.float64), G, "float16", profile="ratio-vs-reference", reference=ref,
                overrides={"level": "L2"})
    assert not r.passed and "(L2)" in r.reason
    with pytest.raises(OpkitError, match="needs a same-precision reference"):
        compare("y", same, G, "float16", profile="ratio-vs-reference")


def test_ratio_small_values():
    g = np.full(1000, 2.0**-13)  # below float16's small-value threshold 2^-11
    ref = g.copy()
    ref[:10] += 2.0**-15  # the reference errs on 10 small values
    a = g.copy()
    a[:20] += 2.0**-15
    assert compare("y", a, g, "float16", profile="ratio-vs-reference", reference=ref).passed
    a[:21] += 2.0**-15
    r = compare("y", a, g, "float16", profile="ratio-vs-reference", reference=ref)
    assert not r.passed and "small values: 21 errors vs the reference's 10" in r.reason
