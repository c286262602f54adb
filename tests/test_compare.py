"""The mixed precision profile, integer exactness and NaN/Inf strictness on arrays of known verdict."""

import ml_dtypes
import numpy as np
import pytest

from opkit.errors import OpkitError
from opkit.numerics import ulp
from opkit.verify.compare import compare


def test_ulp_matches_numpy_spacing_for_float16():
    x = np.array([1.0, 1.5, 0.0, 1000.0, 2.0**-20, 2.0**-14, 3e-5])
    assert np.array_equal(ulp(x, "float16"), np.spacing(x.astype(np.float16)).astype(np.float64))


def test_correctly_rounded_results_pass():
    rng = np.random.default_rng(0)
    g = rng.normal(size=10000)
    for dt, np_dt in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16), ("float32", np.float32)):
        r = compare("z", g.astype(np_dt), g, dt)
        assert r.passed, (dt, r.reason)
        assert r.matched == r.finite == 10000


def test_bf16_k8192_reduction_rounded_once_passes():
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, size=(64, 8192)).astype(ml_dtypes.bfloat16).astype(np.float64)
    b = rng.uniform(-1, 1, size=(8192,)).astype(ml_dtypes.bfloat16).astype(np.float64)
    g = a @ b
    r = compare("y", g.astype(ml_dtypes.bfloat16), g, "bfloat16")
    assert r.passed, r.reason


def test_one_far_element_fails_even_when_99_percent_match():
    g = np.linspace(-1, 1, 1000)
    a = g.astype(np.float16)
    a[10] += np.float16(0.25)
    r = compare("z", a, g, "float16")
    assert not r.passed and "off by more than max(0.1, 32 ulp)" in r.reason
    assert r.worst[0].index == (10,)


def test_too_many_small_mismatches_fail_the_ratio():
    g = np.linspace(1, 2, 1000)
    a = g.astype(np.float16)
    a[:20] = (g[:20] * (1 + 0.01)).astype(np.float16)  # 1 % off: beyond rtol, within the hard limit
    r = compare("z", a, g, "float16")
    assert not r.passed and "98.0000% of finite elements match (needs 99.00%)" in r.reason
    a[:20] = g[:20].astype(np.float16)
    a[:5] = (g[:5] * 1.01).astype(np.float16)
    assert compare("z", a, g, "float16").passed


def test_nan_and_inf_positions_must_match():
    g = np.array([1.0, np.nan, np.inf, -np.inf, 2.0])
    good = g.astype(np.float32)
    assert compare("z", good, g, "float32").passed
    for i, v in [(1, 0.0), (2, -np.inf), (3, 1.0), (0, np.nan), (4, np.inf)]:
        bad = good.copy()
        bad[i] = v
        r = compare("z", bad, g, "float32")
        assert not r.passed and r.nonfinite_mismatches == 1 and "NaN/Inf" in r.reason, (i, v)


def test_integers_exact():
    g = np.array([3, 1, 4, 1, 5])
    assert compare("idx", g.astype(np.int32), g, "int32").passed
    r = compare("idx", np.array([3, 1, 4, 2, 5], dtype=np.int32), g, "int32")
    assert not r.passed and r.worst[0].index == (3,) and "1 of 5 elements differ" in r.reason


def test_shape_mismatch_fails():
    r = compare("z", np.zeros((2, 3), np.float16), np.zeros((3, 2)), "float16")
    assert not r.passed and "shape [2, 3] differs from the golden's [3, 2]" in r.reason


def test_thresholds_and_overrides_are_reported():
    g = np.linspace(1, 2, 100)
    r = compare("z", g.astype(ml_dtypes.bfloat16), g, "bfloat16")
    assert r.thresholds == {"profile": "mixed", "rtol": 2.0**-7, "atol": 2.0**-7, "pass_ratio": 0.99,
                            "hard_abs": 0.1, "hard_ulps": 32}
    r = compare("z", g.astype(np.float32), g, "float32", overrides={"rtol": 1e-3})
    assert r.thresholds["rtol"] == 1e-3 and r.thresholds["atol"] == 2.0**-13 and r.thresholds["hard_abs"] == 0.01
    with pytest.raises(OpkitError, match="unknown precision profile 'nope'"):
        compare("z", g.astype(np.float16), g, "float16", profile="nope")


def test_empty_outputs_pass():
    assert compare("z", np.zeros((0, 4), np.float16), np.zeros((0, 4)), "float16").passed
