"""`opkit run` of a multi-rank operator (tests/fixtures/mc2/rank_sum): one .npz per rank in and out, a path with
{rank} in it naming each rank's file; a missing or surplus rank, a path without {rank}, ranks of different dtype
columns are refused with one message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

pytestmark = pytest.mark.slow
PKG = Path(__file__).parent / "fixtures" / "mc2" / "rank_sum"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    return fresh_copy(PKG, tmp_path_factory.mktemp("mc2run") / "rank_sum")


def _inputs(folder: Path, ranks: list[int], dtype=np.float32) -> None:
    for r in ranks:
        np.savez(folder / f"in.{r}.npz", x=np.full((2, 3), r + 1, dtype))


def test_per_rank_files_in_and_out(cli, pkg, tmp_path):
    _inputs(tmp_path, [0, 1, 2])
    code, out, err = cli("run", pkg, "--inputs", tmp_path / "in.{rank}.npz", "--out", tmp_path / "y.{rank}.npz")
    assert code == 0, err
    assert "rank 2/3" in out
    for r in range(3):
        with np.load(tmp_path / f"y.{r}.npz") as z:
            assert sorted(z.files) == ["y"]
            np.testing.assert_array_equal(z["y"], np.full((2, 3), 2 * (1 + 2 + 3), np.float32))
    assert not (tmp_path / "y.3.npz").exists()


def test_a_case_writes_every_rank_with_its_inputs(cli, pkg, tmp_path):
    code, out, err = cli("run", pkg, "--case", "smoke.r4", "--out", tmp_path / "o{rank}.npz")
    assert code == 0, err
    files = [np.load(tmp_path / f"o{r}.npz") for r in range(4)]
    xs = [f["x"] for f in files]
    assert not np.array_equal(xs[0], xs[1])  # each rank its own inputs
    for f in files:
        np.testing.assert_allclose(f["y"], 2 * np.sum(np.asarray(xs, np.float64), axis=0), rtol=1e-5, atol=1e-6)


def test_world_size_overrides_the_case(cli, pkg, tmp_path):
    code, out, err = cli("run", pkg, "--case", "odd", "--world-size", "3", "--out", tmp_path / "o{rank}.npz")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["o0.npz", "o1.npz", "o2.npz"]


@pytest.mark.parametrize("files, args, message", [
    ([0, 2], [], "no input file for rank 1 (in.1.npz) of the 3 ranks; give one .npz per rank, numbered 0 to 2"),
    ([0, 1, 2], ["--world-size", "2"], "in.2.npz is the input of rank 2, but the run has ranks 0 to 1 "
                                       "(--world-size 2); remove it or give --world-size 3"),
    ([0, 1], ["--world-size", "4"], "no input file for rank 2 (in.2.npz) of the 4 ranks"),
    ([], [], "no per-rank input file (looked for"),
    ([0, 1], ["--world-size", "0"], "--world-size 0: give a number of ranks from 1 to 64"),
])
def test_a_wrong_or_missing_rank_is_refused(cli, pkg, tmp_path, files, args, message):
    _inputs(tmp_path, files)
    code, out, err = cli("run", pkg, "--inputs", tmp_path / "in.{rank}.npz", "--out", tmp_path / "y.{rank}.npz",
                         *args)
    assert code == 2
    assert message in " ".join(err.split()).replace(f"{tmp_path}/", ""), err
    assert "Traceback" not in err


def test_paths_without_the_rank_are_refused(cli, pkg, tmp_path):
    _inputs(tmp_path, [0, 1])
    code, _, err = cli("run", pkg, "--inputs", tmp_path / "in.{rank}.npz", "--out", tmp_path / "y.npz")
    assert code == 2 and "put {rank} where the rank goes" in err
    code, _, err = cli("run", pkg, "--inputs", tmp_path / "in.0.npz", "--out", tmp_path / "y.{rank}.npz")
    assert code == 2 and "--inputs" in err and "put {rank} where the rank goes" in err


def test_ranks_of_different_dtypes_are_refused(cli, pkg, tmp_path):
    _inputs(tmp_path, [0])
    np.savez(tmp_path / "in.1.npz", x=np.ones((2, 3), np.float64))
    code, _, err = cli("run", pkg, "--inputs", tmp_path / "in.{rank}.npz", "--out", tmp_path / "y.{rank}.npz")
    assert code == 2 and "in.1.npz" in err and "match no dtype column" in err, err
