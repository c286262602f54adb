"""MatmulReduceScatter package (ops/mc2/matmul_reduce_scatter): its golden against a reference written apart,
every non-full case at world sizes 2, 4 and 8 on the simulator, the logged cut of each rank's block, the refusal of
an M that does not split over the ranks, and ranks disagreeing on the repeat count ending in the diagnostic."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from opkit.run.inputs import as_golden_input, make_rank_inputs
from opkit.run.sim_runner import KernelError, SimRunner
from opkit.spec import load
from opkit.verify.golden import run_golden_ranks
from opkit.verify.pipeline import Selection, verify_spec

PKG = Path(__file__).resolve().parents[1] / "ops" / "mc2" / "matmul_reduce_scatter"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.mark.parametrize("name", ["smoke.r4", "trans_b"])
def test_golden_scatters_the_sum_by_rank(spec, name):
    case = spec.case(name)
    ins = make_rank_inputs(spec, case, 0)
    got = run_golden_ranks(spec, case, ins)
    R = case.world_size
    x1 = np.stack([as_golden_input(i["x1"]) for i in ins])
    x2 = np.stack([as_golden_input(i["x2"]) for i in ins])
    if case.attrs["is_trans_b"]:
        x2 = x2.transpose(0, 2, 1)
    total = np.einsum("rmk,rkn->mn", x1, x2)
    if ins[0]["bias"] is not None:
        total = total + np.sum([as_golden_input(i["bias"]) for i in ins], axis=0)
    for r, g in enumerate(got):
        np.testing.assert_allclose(g["y"], np.split(total, R)[r], rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_every_non_full_case_passes_on_every_rank(spec):
    results = verify_spec(spec, SimRunner(jobs=1), Selection())
    assert {r.case for r in results} == {c.name for c in spec.cases if "full" not in c.tags}
    bad = [(r.case, r.dtype, r.message) for r in results if r.status != "pass"]
    assert not bad
    assert {c.world_size for c in spec.cases} == {2, 4, 8}


# The cases are too small to be worth cutting (a slice's launch and step latencies outweigh the overlap), so a copy
# of the package whose tiling cuts every block in two (a tile and a short tail) runs the cut path of the kernel.
CHOICE = "mc2::ChooseCut(blockM, false, [&](const mc2::Cut& c) { return Modelled(c, N, K, rankDim, flops); });"


@pytest.fixture(scope="module")
def cut_in_two(tmp_path_factory):
    dst = tmp_path_factory.mktemp("mrs_cut") / "matmul_reduce_scatter"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")
    tiling = dst / "op_host" / "matmul_reduce_scatter_tiling.cpp"
    text = tiling.read_text()
    assert text.count(CHOICE) == 1
    tiling.write_text(text.replace(CHOICE, "mc2::CutOf(blockM, 2);"))
    return load(dst)


@pytest.mark.slow
def test_the_model_leaves_a_small_block_uncut(spec, cli):
    code, out, err = cli("tiling", PKG, "--case", "cut.r4", "-j", "1")
    assert code == 0, err
    fields = dict(re.findall(r"^\s+cut\.(tileCnt|tailCnt|tileM)\s+(\d+)", out, re.M))
    assert fields == {"tileM": "250", "tileCnt": "1", "tailCnt": "0"}, out


@pytest.mark.slow
def test_each_block_cut_into_a_tile_and_a_short_tail_passes(cut_in_two, monkeypatch, capsys):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    results = verify_spec(cut_in_two, SimRunner(jobs=1), Selection(keyword="cut.r4"))
    assert [r.status for r in results] == ["pass", "pass"], [r.message for r in results]
    cuts = set(re.findall(r"cut of M / ranks = 250 on 4 ranks: (\d+) tile\(s\) of (\d+) rows \+ (\d) tail of (\d+) "
                          r"rows", capsys.readouterr().err))
    assert cuts == {("1", "128", "1", "122")}


@pytest.mark.slow
def test_an_m_that_does_not_split_over_the_ranks_is_refused(spec):
    case = spec.case("trans_b")  # M = 200 on 4 ranks splits; on 3 it does not
    case = dataclasses.replace(case, world_size=3, name="trans_b.r3")
    with pytest.raises(KernelError, match=r"x1's M = 200 is not a multiple of the 3 ranks"):
        SimRunner(jobs=1).run_ranks(spec, case, 0, CHIP, make_rank_inputs(spec, case, 0))


@pytest.mark.slow
def test_ranks_disagreeing_on_the_repeat_count_end_in_the_diagnostic(tmp_path):
    dst = tmp_path / "matmul_reduce_scatter"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")  # the family sources it includes
    header = dst / "op_kernel" / "matmul_reduce_scatter.h"
    text = header.read_text()
    # Rank 1 cuts its tiles into twice as many slices, each half as long: the same bytes, another repeat count.
    for old, new in (("ReduceScatter(staging_, y_, tileElems, dtype",
                      "ReduceScatter(staging_, y_, tileElems / (hccl_.GetRankId() == 1 ? 2 : 1), dtype"),
                     ("uint8_t(t_.cut.tileCnt));  // @prepare_tile",
                      "uint8_t(t_.cut.tileCnt * (hccl_.GetRankId() == 1 ? 2 : 1)));")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    header.write_text(text)
    broken = load(dst)
    case = broken.case("smoke.r2")
    with pytest.raises(KernelError) as exc:
        SimRunner(jobs=1, timeout_s=120).run_ranks(broken, case, 0, CHIP, make_rank_inputs(broken, case, 0))
    assert "Hccl::ReduceScatter: mismatched collective sequences across ranks" in exc.value.message
    assert re.search(r"repeat 1\).*repeat 2\)|repeat 2\).*repeat 1\)", exc.value.message), exc.value.message
    assert "no result after" not in exc.value.message
