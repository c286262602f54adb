"""The calibration kernels of benchmarks/kernels compute what their goldens say (small cases only;
the published shapes run in benchmarks/perf_calibration.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MM = ROOT / "benchmarks" / "kernels" / "matmul_custom"


@pytest.mark.slow
def test_matmul_custom_small_cases_verify(cli, tmp_path: Path) -> None:
    # one base block per copy (64 x 64 x 256) and the multi-block load (128 x 256 x 64, step_k 4),
    # both with tails in M, N and K
    code, out, err = cli("verify", str(MM), "-k", "small*", "--out", tmp_path / "v")
    assert code == 0, out + err
    results = json.loads((tmp_path / "v" / "results.json").read_text())
    assert {r["case"] for r in results["cases"]} == {"small", "small_large_packet"}
    assert {r["status"] for r in results["cases"]} == {"pass"}
