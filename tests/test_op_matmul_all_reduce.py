"""MatmulAllReduce package (ops/mc2/matmul_all_reduce): its golden against a reference written apart, every
non-full case at world sizes 2, 4 and 8 on the simulator, the cut of M the host tiling logs, its refusals, and
broken kernels (a missing Commit, a Wait before Commit, ranks disagreeing on the repeat count) ending in their
diagnostics, not in a hang."""

from __future__ import annotations

import dataclasses
import json
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

PKG = Path(__file__).resolve().parents[1] / "ops" / "mc2" / "matmul_all_reduce"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


def test_every_case_names_its_world_size(spec):
    sizes = {c.world_size for c in spec.cases if "full" not in c.tags}
    assert {2, 4, 8} <= sizes
    assert all(c.world_size for c in spec.cases)


@pytest.mark.parametrize("name", ["smoke.r4", "bias.r2", "trans_b", "odd"])
def test_golden_is_the_sum_over_ranks(spec, name):
    case = spec.case(name)
    ins = make_rank_inputs(spec, case, 0)
    got = run_golden_ranks(spec, case, ins)
    x1 = np.stack([as_golden_input(i["x1"]) for i in ins])
    x2 = np.stack([as_golden_input(i["x2"]) for i in ins])
    if case.attrs["is_trans_b"]:
        x2 = x2.transpose(0, 2, 1)
    want = np.einsum("rmk,rkn->mn", x1, x2)
    for extra in ("bias", "x3"):
        if ins[0][extra] is not None:
            want = want + np.sum([as_golden_input(i[extra]) for i in ins], axis=0)
    assert len(got) == case.world_size
    for r, g in enumerate(got):
        assert g["y"].dtype == np.float64
        np.testing.assert_allclose(g["y"], want, rtol=1e-12, atol=1e-12, err_msg=f"rank {r}")


@pytest.mark.slow
def test_every_non_full_case_passes_on_every_rank(spec):
    results = verify_spec(spec, SimRunner(jobs=1), Selection())
    assert {r.case for r in results} == {c.name for c in spec.cases if "full" not in c.tags}
    bad = [(r.case, r.dtype, r.message) for r in results if r.status != "pass"]
    assert not bad
    r8 = next(r for r in results if r.case == "cut.r8")
    assert [o.name for o in r8.outputs] == [f"y[rank {r}]" for r in range(8)]


@pytest.mark.slow
@pytest.mark.parametrize("case, logged", [
    # the anchor: a few large slices, the first small (HCCL charges every slice a launch and two step latencies)
    ("full_anchor", "cut of M = 4096 on 8 ranks: ramp of 384, 640, 896 rows + 1 tile(s) of 1152 rows + 1 tail of "
                    "1024 rows"),
    ("timeline_r8", "cut of M = 1024 on 8 ranks: ramp of 256 rows + 2 tile(s) of 384 rows + 0 tail of 0 rows"),
    # a short product: one slice's fixed costs outweigh any overlap
    ("cut.r4", "cut of M = 1000 on 4 ranks: 1 tile(s) of 1000 rows + 0 tail of 0 rows"),
])
def test_the_tiling_cuts_where_the_overlap_pays(cli, monkeypatch, case, logged):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    code, out, err = cli("tiling", PKG, "--case", case, "-j", "1")
    assert code == 0, err
    assert logged in out + err


@pytest.mark.slow
def test_a_short_m_is_not_cut(spec, monkeypatch, capsys):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    case = spec.case("odd")
    SimRunner(jobs=1).run_ranks(spec, case, 0, CHIP, make_rank_inputs(spec, case, 0))
    assert "cut of M = 77 on 2 ranks: 1 tile(s) of 77 rows + 0 tail" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("attrs, message", [
    ({"reduce_op": "max"}, "attr reduce_op is 'max': only 'sum' is supported"),
    ({"is_trans_a": True}, "attr is_trans_a is true: x1 cannot be transposed"),
    ({"comm_turn": 1}, "attr comm_turn is 1: only 0 is supported"),
])
def test_unsupported_attrs_are_refused_by_the_tiling(spec, attrs, message):
    case = spec.case("odd")
    case = dataclasses.replace(case, attrs=case.attrs | attrs)
    with pytest.raises(KernelError, match=re.escape(message)):
        SimRunner(jobs=1).run_ranks(spec, case, 0, CHIP, make_rank_inputs(spec, case, 0))


# Broken copies of the kernel, chosen at run time by MAR_BROKEN: 1 never commits the last tile (and waits for
# none), 2 waits before the first Commit, 3 makes rank 1 cut its tiles into twice as many slices (the repeat count
# doubled, each slice half as long: the same bytes, so the disagreement is the only defect).
BROKEN = [
    ('#include "matmul_all_reduce_tiling_data.h"\n',
     '#include "matmul_all_reduce_tiling_data.h"\n#include <cstdlib>\n'
     'static inline int Broken() { const char* e = std::getenv("MAR_BROKEN"); return e ? std::atoi(e) : 0; }\n'
     'static inline uint32_t Split(uint32_t rank) { return Broken() == 3 && rank == 1 ? 2 : 1; }\n'),
    ("if (op_.lead) hccl_.Commit(HandleOf(tile));  // @commit",
     "if (op_.lead && !(Broken() == 1 && tile + 1 == tiles)) hccl_.Commit(HandleOf(tile));"),
    ("for (uint32_t i = 0; i < t_.cut.tileCnt; ++i) hccl_.Wait(tileHandle_);  // @wait",
     "for (uint32_t i = 0; Broken() != 1 && i < t_.cut.tileCnt; ++i) hccl_.Wait(tileHandle_);"),
    ("hccl_.AllReduce(staging, y, tileElems, dtype, HCCL_REDUCE_SUM, uint8_t(t_.cut.tileCnt));  // @prepare_tile",
     "hccl_.AllReduce(staging, y, tileElems / Split(hccl_.GetRankId()), dtype, HCCL_REDUCE_SUM, "
     "uint8_t(t_.cut.tileCnt * Split(hccl_.GetRankId())));\n"
     "            if (Broken() == 2) hccl_.Wait(tileHandle_);"),
]


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    dst = tmp_path_factory.mktemp("mar") / "matmul_all_reduce"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")  # the family sources it includes
    header = dst / "op_kernel" / "matmul_all_reduce.h"
    text = header.read_text()
    for old, new in BROKEN:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    header.write_text(text)
    spec = load(dst)
    return spec, SimRunner(jobs=1, timeout_s=120)


@pytest.mark.slow
@pytest.mark.parametrize("variant, message", [
    ("1", r"Hccl::Finalize: Finalize with work outstanding: handle 0, .*committed 0 of its 1 slice\(s\) "
          r"\(a missing Commit\)"),
    ("2", r"Hccl::Wait: Wait on handle 0, .*with no slice committed and not waited for"),
    ("3", r"Hccl::AllReduce: mismatched collective sequences across ranks.*repeat 1.*repeat 2|"
          r"Hccl::AllReduce: mismatched collective sequences across ranks.*repeat 2.*repeat 1"),
])
def test_broken_kernels_end_in_their_diagnostic(broken, monkeypatch, variant, message):
    spec, runner = broken
    case = spec.case("odd")
    monkeypatch.setenv("MAR_BROKEN", variant)
    with pytest.raises(KernelError) as exc:
        runner.run_ranks(spec, case, 0, CHIP, make_rank_inputs(spec, case, 0))
    text = exc.value.message
    assert re.search(message, text, re.S), text
    assert "rank " in text and "matmul_all_reduce.h:" in text
    assert "no result after" not in text  # a diagnostic, not the timeout


@pytest.mark.slow
def test_the_unbroken_copy_passes(broken, monkeypatch):
    spec, runner = broken
    monkeypatch.delenv("MAR_BROKEN", raising=False)
    (r,) = verify_spec(spec, runner, Selection(keyword="odd", dtype="float16"))
    assert r.status == "pass", r.message


@pytest.mark.slow
def test_opkit_tiling_of_a_multi_rank_case_is_its_rank_0s(cli):
    code, out, err = cli("tiling", PKG, "--case", "cut.r4", "-j", "1")
    assert code == 0, err
    fields = dict(re.findall(r"^\s+cut\.(rankDim|tileCnt|tailCnt|tileM|tailM)\s+(\d+)", out, re.M))
    assert fields == {"rankDim": "4", "tileM": "1000", "tileCnt": "1", "tailM": "0", "tailCnt": "0"}, out


@pytest.mark.slow
@pytest.mark.parametrize("case, direct", [("bias.r2", "1"), ("trans_b", "1"), ("odd", "0"), ("smoke.r2", "0")])
def test_without_x3_the_cube_writes_the_send_buffer(cli, case, direct):
    # without x3 Fixpipe rounds the pieces into staging (no fp32 piece buffers: staging follows the fp32 bias);
    # with x3 the vector epilogue adds it before the one rounding
    code, out, err = cli("tiling", PKG, "--case", case, "-j", "1")
    assert code == 0, err
    fields = dict(re.findall(r"^\s+(cut\.direct|cut\.pieceOffset|stagingOffset|hasBias|N)\s+(\d+)", out, re.M))
    assert fields["cut.direct"] == direct, out
    bias_bytes = -(-int(fields["N"]) * 4 // 512) * 512 if fields["hasBias"] == "1" else 0
    assert int(fields["cut.pieceOffset"]) == bias_bytes, out
    assert (int(fields["stagingOffset"]) == bias_bytes) == (direct == "1"), out


# The small cases are not worth cutting (a slice's launch and step latencies outweigh the overlap), so a copy of
# the package whose tiling forces a ramp of two growing tiles (64 and 96 rows), long tiles of 128 rows and a
# short tail runs the cut path of the kernel: every ramp tile its own AllReduce, committed as it is computed.
FORCED = "mc2::ChooseCut(M, false, [&](const mc2::Cut& c) { return Modelled(c, N, K, rankDim, aicNum, modelN); }, true);"


@pytest.fixture(scope="module")
def ramped(tmp_path_factory):
    dst = tmp_path_factory.mktemp("mar_ramp") / "matmul_all_reduce"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns(".opkit", "__pycache__"))
    shutil.copytree(PKG.parent / "common", dst.parent / "common")
    tiling = dst / "op_host" / "matmul_all_reduce_tiling.cpp"
    text = tiling.read_text()
    assert text.count(FORCED) == 1
    tiling.write_text(text.replace(FORCED, "[&] { bool ok = false; mc2::Cut c = mc2::RampCutOf(M, 2, 64, 128, ok); "
                                           "return ok ? c : mc2::CutOf(M, 1); }();"))
    return load(dst)


@pytest.mark.slow
@pytest.mark.parametrize("name, logged", [
    ("cut.r4", "cut of M = 1000 on 4 ranks: ramp of 64, 96 rows + 6 tile(s) of 128 rows + 1 tail of 72 rows"),
    ("bias.r2", "cut of M = 300 on 2 ranks: ramp of 64, 96 rows + 1 tile(s) of 128 rows + 1 tail of 12 rows"),
])
def test_a_ramp_of_growing_tiles_passes_on_every_rank(ramped, monkeypatch, capsys, name, logged):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    results = verify_spec(ramped, SimRunner(jobs=1), Selection(keyword=name))
    assert [r.status for r in results] == ["pass", "pass"], [r.message for r in results]
    assert logged in capsys.readouterr().err


@pytest.mark.slow
def test_the_serial_of_a_cut_counts_one_allreduce_of_the_output(ramped, cli, tmp_path):
    """opkit perf's serial baseline of a cut run is the unfused equivalent: the ramp's, the tile's and the tail's
    AllReduces (four prepares into y) count as one AllReduce of the whole output, unsliced."""
    from opkit.perf.comm import collective_us, link_model

    js = tmp_path / "perf.json"
    code, out, err = cli("perf", ramped.path.parent, "--case", "bias.r2", "--trace-only", "--json", js)
    assert code == 0, out + err
    perf = json.loads(js.read_text())["perf"]
    y_bytes = 300 * 200 * 2
    assert [c["repeat"] for c in perf["collectives"]] == [1, 1, 1, 1]  # ramp 64, 96, one tile of 128, tail 12
    assert sum(c["slice_bytes"] * c["repeat"] for c in perf["collectives"]) == y_bytes
    assert [(c["kind"], c["op"], c["bytes"], c["handles"]) for c in perf["serial_collectives"]] == [
        ("AllReduce", "sum", y_bytes, [0, 1, 2, 3])]
    one = collective_us("AllReduce", y_bytes, 2, link_model(CHIP))
    assert perf["comm_us"] == pytest.approx(one)
    assert perf["comm_us"] < sum(c["unsliced_us"] for c in perf["collectives"])  # the four, one by one
    assert perf["serial_us"] == pytest.approx(perf["compute_us"] + one)
    assert "1 collective(s), AllReduce 0.1144 MiB per rank, from 4 prepared, unsliced" in out, out
    assert f"serial: AllReduce (sum, fp16) of {y_bytes:,} bytes per rank" in out, out
