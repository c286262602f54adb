"""`opkit run` on a user's own data for the family packages (issues' acceptance: "opkit run on user
data works"): inputs from an .npz the user wrote, outputs compared with the package's golden."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from helpers import load_golden

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CHIP = "ascend910b2"


def test_interleave_rope_on_user_data(cli, tmp_path):
    pkg = ROOT / "ops" / "posembedding" / "interleave_rope"
    golden = load_golden(pkg)
    rng = np.random.default_rng(11)
    b, n, s, d = 2, 3, 5, 64
    x = rng.standard_normal((b, n, s, d)).astype(ml_dtypes.bfloat16)
    theta = np.arange(s)[:, None] * (10000.0 ** (-np.arange(d // 2) / (d // 2)))[None, :]
    cos = np.concatenate([np.cos(theta)] * 2, axis=-1)[None, None].repeat(b, 0).astype(ml_dtypes.bfloat16)
    sin = np.concatenate([np.sin(theta)] * 2, axis=-1)[None, None].repeat(b, 0).astype(ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", x=x.view(np.uint16), cos=cos.view(np.uint16), sin=sin.view(np.uint16))
    code, out, err = cli("run", str(pkg), "--inputs", tmp_path / "in.npz", "--dtype", "bfloat16",
                         "--out", tmp_path / "out.npz", "--soc", CHIP)
    assert code == 0, out + err
    y = np.load(tmp_path / "out.npz")["y"].view(ml_dtypes.bfloat16).astype(np.float64)
    want = golden.interleave_rope(x.astype(np.float64), cos.astype(np.float64), sin.astype(np.float64))["y"]
    assert y.shape == (b, n, s, d)
    assert np.max(np.abs(y - want)) <= 2 ** -7 * (1 + np.abs(want)).max()


def test_moe_gating_top_k_on_user_data_with_attrs(cli, tmp_path):
    pkg = ROOT / "ops" / "moe" / "moe_gating_top_k"
    golden = load_golden(pkg)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    code, out, err = cli("run", str(pkg), "--inputs", tmp_path / "in.npz", "--attr", "k=2", "--attr", "norm_type=0",
                         "--dtype", "float32", "--out", tmp_path / "out.npz", "--soc", CHIP)
    assert code == 0, out + err
    got = np.load(tmp_path / "out.npz")
    want = golden.moe_gating_top_k(x, None, k=2)
    assert got["expert_idx"].shape == (9, 2) and got["expert_idx"].dtype == np.int32
    assert np.array_equal(got["expert_idx"], want["expert_idx"])
    assert np.allclose(got["y"], want["y"], rtol=2 ** -13, atol=2 ** -13)
    assert "out" not in got.files  # out_flag is off: the conditional output is not produced
    code, out, err = cli("run", str(pkg), "--inputs", tmp_path / "in.npz", "--attr", "k=2", "--attr", "out_flag=true",
                         "--dtype", "float32", "--out", tmp_path / "out2.npz", "--soc", CHIP)
    assert code == 0, out + err
    norm = np.load(tmp_path / "out2.npz")["out"]
    assert norm.shape == (9, 64) and np.allclose(norm.sum(axis=1), 1.0, atol=1e-5)  # softmax rows
