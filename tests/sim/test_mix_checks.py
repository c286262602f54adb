"""Broken mix kernels (the Matmul API on the cube, a softmax on the vector cores): each mistake ends the run with
one diagnostic at the marked line of tests/sim/cpp/mix_checks_harness.cpp; the unbroken kernels compute softmax(x @ w)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "mix_checks_harness.cpp"
M, N, K = 64, 48, 40


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def run(exe, scenario: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(exe), scenario], capture_output=True, timeout=120)


def expected() -> np.ndarray:
    i, k = np.meshgrid(np.arange(M), np.arange(K), indexing="ij")
    x = ((((i * 7 + k * 3) % 11) - 5) / 8).astype(np.float16).astype(np.float64)
    k, j = np.meshgrid(np.arange(K), np.arange(N), indexing="ij")
    w = ((((k * 5 + j) % 9) - 4) / 8).astype(np.float16).astype(np.float64)
    z = x @ w
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("scenario", ["fused_ok", "shared_ok"])
def test_unbroken_kernels_compute_the_row_softmax(exe, scenario):
    """Iterate + GetTensorC into VECIN (fused), and IterateAll into GM handed over by a cross-core flag (shared)."""
    r = run(exe, scenario)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stderr.decode() == ""  # not even a warning
    y = np.frombuffer(r.stdout, np.float16).reshape(M, N).astype(np.float64)
    want = expected()
    np.testing.assert_allclose(y, want, rtol=2 ** -10, atol=1e-6)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=5e-3)


ERRORS = {
    # (a) the SoftMax family's shared tmp buffer below the documented minimum
    "softmax_tmp_small": [r"AIV block \d/2: SoftMax: sharedTmpBuffer holds 64 B; SoftMax on \[16, 48\] float32 needs at "
                          r"least \d+ B \(GetSoftMaxMinTmpSize\): allocate at least that much"],
    "flashv2_tmp_small": [r"SoftmaxFlashV2: sharedTmpBuffer holds 64 B; SoftmaxFlashV2 on \[16, 48\] float32 needs at "
                          r"least \d+ B \(GetSoftMaxFlashV2MinTmpSize\)"],
    # (b) a vector core waits for a cross-core flag that no core sets (the other one sets flag 3)
    "crosscore_never_set": [r"kernel 'mix_shared' AIV block \d/2: CrossCoreWaitFlag: deadlock: waits for cross-core "
                            r"flag 4 that no running core can set any more",
                            r"waiting: (AIC \d, )*AIV 1, AIV 3\)"],  # the AICs too, where they serve the Matmul
    # (c) the C tile read from the Matmul before any Iterate
    "getc_without_iterate": [r"kernel 'mix_fused' AIV block \d/2: Matmul::GetTensorC: no tile: call Iterate\(\) first"],
    # (c) the softmax of a VECIN tile that GetTensorC never filled: its results never reach GM
    "c_never_fetched": [r"DataCopyPad: never-written UB bytes would reach GM: byte 0 of the source tensor"],
}


@pytest.mark.parametrize("scenario", list(ERRORS))
def test_error_diagnostics(exe, scenario):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert "opkit-sim: error: kernel '" in err
    for pat in ERRORS[scenario]:
        assert re.search(pat, err), (pat, err)
    assert f"mix_checks_harness.cpp:{marked_line(SRC, scenario)}" in err, err
    assert err.count("opkit-sim: error:") == 1, err


def test_never_fetched_tile_is_flagged_at_the_softmax_that_reads_it(exe):
    """The read of the unfilled tile itself is a warning at the SoftMax (its results are marked unwritten); the
    error comes where they would leave the core."""
    err = run(exe, "c_never_fetched").stderr.decode()
    line = marked_line(SRC, "c_never_fetched_softmax")
    assert re.search(r"warning: kernel 'mix_fused' AIV block \d/2: SoftMax: reads UB bytes that were never written "
                     rf"\(the results they reach are marked unwritten too\)\n  at \S*mix_checks_harness.cpp:{line}\n", err), err
