"""AllGatherMatmul package (ops/mc2/all_gather_matmul): its golden against a reference written apart, every
non-full case at world sizes 2, 4 and 8 on the simulator (y and the gather output on every rank), the logged cut,
and a missing Commit ending in its diagnostic."""

from __future__ import annotations

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

PKG = Path(__file__).resolve().parents[1] / "ops" / "mc2" / "all_gather_matmul"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.mark.parametrize("name", ["smoke.r4", "trans_b_no_gather_out"])
def test_golden_gathers_in_rank_order(spec, name):
    case = spec.case(name)
    ins = make_rank_inputs(spec, case, 0)
    got = run_golden_ranks(spec, case, ins)
    rows = [as_golden_input(i["x1"]) for i in ins]
    for r, g in enumerate(got):
        x2 = as_golden_input(ins[r]["x2"])
        w = x2.T if case.attrs["is_trans_b"] else x2
        want = np.vstack([x @ w for x in rows])
        if ins[r]["bias"] is not None:
            want = want + as_golden_input(ins[r]["bias"])
        np.testing.assert_allclose(g["y"], want, rtol=1e-12, atol=1e-12)
        assert ("gather_out" in g) == case.attrs["is_gather_out"]
        if case.attrs["is_gather_out"]:
            np.testing.assert_array_equal(g["gather_out"], np.vstack(rows))


@pytest.mark.slow
def test_every_non_full_case_passes_on_every_rank(spec):
    results = verify_spec(spec, SimRunner(jobs=1), Selection())
    assert {r.case for r in results} == {c.name for c in spec.cases if "full" not in c.tags}
    bad = [(r.case, r.dtype, r.message) for r in results if r.status != "pass"]
    assert not bad
    r8 = next(r for r in results if r.case == "smoke.r8")
    names = {o.name for o in r8.outputs}
    assert names == {f"{o}[rank {r}]" for o in ("y", "gather_out") for r in range(8)}
    nog = next(r for r in results if r.case == "trans_b_no_gather_out")
    assert {o.name for o in nog.outputs} == {f"y[rank {r}]" for r in range(4)}


# The cases are too small to be worth cutting (a slice's launch and step latency outweigh the overlap), so a copy
# of the package whose tiling cuts x1 in two (a tile and a short tail) runs the cut path of the kernel.
CHOICE = "mc2::ChooseCut(M, rankDim == 1, [&](const mc2::Cut& c) { return Modelled(c, M, N, K, rankDim, flops); });"


@pytest.fixture(scope="module")
def cut_in_two(tmp_path_factory):
    dst = tmp_path_factory.mktemp("agm_cut") / "all_gather_matmul"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")
    tiling = dst / "op_host" / "all_gather_matmul_tiling.cpp"
    text = tiling.read_text()
    assert text.count(CHOICE) == 1
    tiling.write_text(text.replace(CHOICE, "mc2::CutOf(M, 2);"))
    return load(dst)


@pytest.mark.slow
def test_x1_cut_into_a_tile_and_a_short_tail_passes(cut_in_two, monkeypatch, capsys):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    results = verify_spec(cut_in_two, SimRunner(jobs=1), Selection(keyword="cut"))
    assert {r.case for r in results} == {"cut"} and [r.status for r in results] == ["pass", "pass"], results
    cuts = set(re.findall(r"cut of M = 240 on 4 ranks: (\d+) tile\(s\) of (\d+) rows \+ (\d) tail of (\d+) rows",
                          capsys.readouterr().err))
    assert cuts == {("1", "128", "1", "112")}


@pytest.mark.slow
def test_a_missing_commit_ends_in_a_diagnostic_not_a_hang(spec, tmp_path):
    """A kernel whose lead commits one slice fewer than it prepared: the cores waiting for that slice end the run
    with the simulator's diagnostic (a Wait with nothing committed, or the deadlock named as such)."""
    dst = tmp_path / "all_gather_matmul"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")  # the family sources it includes
    header = dst / "op_kernel" / "all_gather_matmul.h"
    text = header.read_text()
    old = "for (uint32_t i = 0; i < t_.cut.tileCnt; ++i) hccl_.Commit(tileHandle_);  // @commit"
    assert text.count(old) == 1
    header.write_text(text.replace(old, "for (uint32_t i = 1; i < t_.cut.tileCnt; ++i) hccl_.Commit(tileHandle_);"))
    broken = load(dst)
    case = broken.case("smoke.r2")
    with pytest.raises(KernelError) as exc:
        SimRunner(jobs=1, timeout_s=120).run_ranks(broken, case, 0, CHIP, make_rank_inputs(broken, case, 0))
    assert re.search(r"rank \d: .*(deadlock|no slice committed|missing Commit)", exc.value.message, re.S), \
        exc.value.message
    assert "no result after" not in exc.value.message
