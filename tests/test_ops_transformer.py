"""ops-transformer's own operators, their op_host/ and op_kernel/ untouched, adopted and verified.

Needs a checkout of hicann/ops-transformer (the tests were written against commit c29bc10): set
OPKIT_OPS_TRANSFORMER to its path, else these tests skip. Only op.yaml, golden.py and build options
are written, by `opkit adopt` and by the edits below (what a user adds: the math, the attr condition of
an output, a comparison hook, a case for a tiling-key path the unit tests do not cover). The
committed layout fixtures (tests/test_fixture_layouts.py, tests/test_adopt.py) cover the same
mechanisms without a checkout.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OT = os.environ.get("OPKIT_OPS_TRANSFORMER")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not OT, reason="set OPKIT_OPS_TRANSFORMER to an ops-transformer "
                                                                 "checkout to run its operators")]
CHIP = "ascend910b2"

ADD_GOLDEN = "def add_example(x1, x2):\n    return {'y': x1 + x2}\n"
BN1D_CASE = """- name: prefill_bn1d
  shapes: {x: [1, 2, 512, 64], cos: [1, 1, 512, 64], sin: [1, 1, 512, 64]}
  dtype: bfloat16
  tiling_key: 4000
"""


ARPE_GOLDEN = """import numpy as np


def _rotate(x, mode):
    d = x.shape[-1]
    if mode == "half":
        return np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    q = d // 4
    return np.concatenate([-x[..., q:2 * q], x[..., :q], -x[..., 3 * q:], x[..., 2 * q:3 * q]], axis=-1)


def apply_rotary_pos_emb(query, key, cos, sin, *, layout=1, rotary_mode="half"):
    return {"q_out": query * cos + _rotate(query, rotary_mode) * sin,
            "k_out": key * cos + _rotate(key, rotary_mode) * sin}
"""
# Past the small path (key 1): many rows per core take the cast path (key 4) in every dtype.
ARPE_CASES = "".join(f"""- name: rows_{dt}
  shapes: {{query: [4, 64, 32, 128], key: [4, 64, 2, 128], cos: [4, 64, 1, 128], sin: [4, 64, 1, 128]}}
  dtype: {dt}
  tiling_key: 4
""" for dt in ("float16", "bfloat16", "float32"))


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + p.read_bytes())
    return h.hexdigest()


def _verify(cli, pkg: Path, out: Path) -> list[dict]:
    code, stdout, stderr = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", out, "--force")
    assert code == 0, stdout + stderr
    return json.loads((out / "results.json").read_text())["cases"]


@pytest.fixture
def ot() -> Path:
    return Path(OT).resolve()


def test_interleave_rope_every_tiling_key_path(cli, ot, tmp_path):
    folder = ot / "posembedding" / "interleave_rope"
    before = _digest(folder / "op_host") + _digest(folder / "op_kernel")
    pkg = tmp_path / "interleave_rope"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    shutil.copyfile(ROOT / "ops" / "posembedding" / "interleave_rope" / "golden.py", pkg / "golden.py")
    (pkg / "op.yaml").write_text((pkg / "op.yaml").read_text() + BN1D_CASE)  # S >= 512 with cos over S: key 4000
    cases = _verify(cli, pkg, tmp_path / "v")
    assert {c["status"] for c in cases} == {"pass"}
    from opkit.spec import load

    assert {c.tiling_key for c in load(pkg).cases} == {1000, 2000, 3000, 4000}  # each case checks its key
    assert _digest(folder / "op_host") + _digest(folder / "op_kernel") == before


def test_moe_gating_top_k_every_tiling_key_path(cli, ot, tmp_path):
    folder = ot / "moe" / "moe_gating_top_k"
    pkg = tmp_path / "moe_gating_top_k"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    shutil.copyfile(ROOT / "ops" / "moe" / "moe_gating_top_k" / "golden.py", pkg / "golden.py")
    text = (pkg / "op.yaml").read_text()
    text = text.replace("- name: out\n  dtypes: [float32, float32, float32]\n",
                        "- name: out\n  dtypes: [float32, float32, float32]\n  when: out_flag\n")
    text = text.replace("golden: golden.py:moe_gating_top_k\n", "golden: golden.py:moe_gating_top_k\ncompare:\n"
                        "  function: compare_routing\n  outputs: [y, expert_idx]\n")
    (pkg / "op.yaml").write_text(text)
    cases = _verify(cli, pkg, tmp_path / "v")
    assert {c["status"] for c in cases} == {"pass"}
    from opkit.spec import load

    assert {c.tiling_key for c in load(pkg).cases} == {0, 1, 2}  # full load, without groups, generalised


def test_add_example_builds_and_verifies(cli, ot, tmp_path):
    folder = ot / "examples" / "add_example"
    pkg = tmp_path / "add_example"
    # The example's tiling names Ops::Math::OpTiling, a namespace ops-transformer does not have (its helper
    # lives in Ops::Transformer::OpTiling, common/src/tiling_base): a define maps the name (docs/fidelity.md).
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include",
                         "--alias", f"example/add_example={folder}", "--source",
                         ot / "common" / "src" / "tiling_base" / "tiling_util.cpp", "-D", "Math=Transformer",
                         "--soc", CHIP)
    assert code == 0, out + err
    (pkg / "golden.py").write_text(ADD_GOLDEN)
    text = (pkg / "op.yaml").read_text().replace("x1: [8, 64]", "x1: [2, 4, 16, 32]").replace(
        "x2: [8, 64]", "x2: [2, 4, 16, 32]")  # its tiling takes 4-D shapes
    (pkg / "op.yaml").write_text(text)
    cases = _verify(cli, pkg, tmp_path / "v")
    assert len(cases) == 2 and {c["status"] for c in cases} == {"pass"}  # float32 and int32


def test_apply_rotary_pos_emb_outputs_in_the_reference_form(cli, ot, tmp_path):
    """Its OpDef outputs are named like its inputs (query, key: updated in place, GE's reference form), and its
    kernel picks the half path with `#if ORIG_DTYPE_QUERY == DT_FLOAT16`."""
    folder = ot / "posembedding" / "apply_rotary_pos_emb"
    before = _digest(folder / "op_host") + _digest(folder / "op_kernel")
    pkg = tmp_path / "apply_rotary_pos_emb"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    from opkit.spec import load

    assert [(o.name, o.ref) for o in load(pkg).outputs] == [("q_out", "query"), ("k_out", "key")]
    (pkg / "golden.py").write_text(ARPE_GOLDEN)
    (pkg / "op.yaml").write_text((pkg / "op.yaml").read_text() + ARPE_CASES)
    cases = _verify(cli, pkg, tmp_path / "v")
    assert len(cases) == 6 and {c["status"] for c in cases} == {"pass"}
    assert {c.tiling_key for c in load(pkg).cases} == {1, 4}
    assert _digest(folder / "op_host") + _digest(folder / "op_kernel") == before


# The tiling key GroupedMatmul's tiling UT expects (tests/utest/ts_grouped_matmul_utils.h GMMEncodeTilingKey):
# dtype codes of x, weight, y (GMM_TPL_FLOAT16 = 1) in bytes 0-2, then transpose x, transpose weight, group list type.
def _gmm_key(x: int, w: int, y: int, trans_x: int, trans_w: int, group_list_type: int) -> int:
    return x | w << 8 | y << 16 | trans_x << 24 | trans_w << 25 | group_list_type << 26


GMM_CASES = """cases:
- name: ut_case4
  tags: [smoke]
  description: GroupedMatmul_Case4 of tests/utest/ts_grouped_matmul_tiling.cpp (split M, 4 groups of 64 rows)
  shapes: {x: [[256, 512]], weight: [[4, 512, 128]], bias: [[4, 128]], scale: [], offset: [], antiquant_scale: [],
    antiquant_offset: [], group_list: [4]}
  init: {group_list: {constant: 64}}
  attrs: {split_item: 3, dtype: -1, group_type: 0, group_list_type: 1}
  dtype: 0
- name: example
  description: examples/test_aclnn_grouped_matmul.cpp (2 groups, the group list as counts)
  shapes: {x: [[512, 256]], weight: [[2, 256, 256]], bias: [[2, 256]], scale: [], offset: [], antiquant_scale: [],
    antiquant_offset: [], group_list: [2]}
  init: {group_list: {constant: 256}}
  attrs: {split_item: 3, group_type: 0, group_list_type: 1, tuning_config: [512]}
  dtype: 0
"""


def _tiling(cli, pkg: Path, case: str) -> dict:
    code, out, err = cli("tiling", pkg, "--case", case, "--soc", CHIP, "-j", "1", "--json")
    assert code == 0, out + err
    return json.loads(out)


def test_grouped_matmul_adopts_and_its_tiling_runs(cli, ot, tmp_path):
    folder = ot / "gmm" / "grouped_matmul"
    before = _digest(folder / "op_host") + _digest(folder / "op_kernel")
    pkg = tmp_path / "grouped_matmul"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err  # int4 weight columns, ND and FRACTAL_NZ columns of the same dtypes
    text = (pkg / "op.yaml").read_text()
    assert "int4" in text and "FRACTAL_NZ" in text
    (pkg / "op.yaml").write_text(text[:text.index("cases:")] + GMM_CASES)
    res = _tiling(cli, pkg, "ut_case4")
    assert res["tiling_key"] == _gmm_key(1, 1, 1, 0, 0, 1) == 67174657  # the key the UT expects
    assert res["block_dim"] == 24 and res["tiling_class"] == "GMMTilingData"  # every AI core (kFullTilingBlockDim)
    base, mm = res["fields"]["gmmBaseParams"], res["fields"]["mmTilingData"]
    assert (base["groupNum"], base["m"], base["groupListType"], base["hasBias"]) == (4, 256, 1, 1)
    assert (mm["M"], mm["N"], mm["Ka"]) == (256, 128, 512)  # the nested TCubeTiling, decoded
    assert res["output_shapes"] == {"y": [[256, 128]]}
    doc = _tiling(cli, pkg, "example")
    assert doc["tiling_key"] == _gmm_key(1, 1, 1, 0, 0, 1)
    assert doc["fields"]["gmmBaseParams"]["groupNum"] == 2 and doc["fields"]["mmTilingData"]["Ka"] == 256
    assert doc["output_shapes"] == {"y": [[512, 256]]}
    assert _digest(folder / "op_host") + _digest(folder / "op_kernel") == before


# The golden of GroupedMatmul's split-M form (group_type 0, split_item 3: one x, one y): each group's rows of x times
# its weight, plus its bias, in float64; the group list as counts (group_list_type 1) or as a running sum (0).
GMM_GOLDEN = """import numpy as np


def grouped_matmul(*, x, weight, bias, group_list=None, group_list_type=0, **_):
    a = np.asarray(x[0], dtype=np.float64)
    counts = np.asarray(group_list, dtype=np.int64)
    if group_list_type == 0:
        counts = np.diff(np.concatenate([[0], counts]))
    y = np.zeros((a.shape[0], weight[0].shape[-1]))
    start = 0
    for g, c in enumerate(counts):
        rows = slice(start, start + int(c))
        y[rows] = a[rows] @ np.asarray(weight[0][g], dtype=np.float64) + (bias[0][g] if bias else 0.0)
        start += int(c)
    return {"y": [y]}


def uneven(shape, dtype, rng, attrs):
    return np.array([40, 0, 88], dtype=dtype)
"""
GMM_RUN_CASES = """- name: uneven_groups
  description: 3 groups of 40, 0 and 88 rows (an empty group; M, N and K not multiples of the base block)
  shapes: {x: [[128, 320]], weight: [[3, 320, 200]], bias: [[3, 200]], scale: [], offset: [], antiquant_scale: [],
    antiquant_offset: [], group_list: [3]}
  init: {group_list: {custom: uneven}}
  attrs: {split_item: 3, group_type: 0, group_list_type: 1}
  dtype: 0
"""


def test_grouped_matmul_fp16_runs_and_verifies(cli, ot, tmp_path):
    folder = ot / "gmm" / "grouped_matmul"
    pkg = tmp_path / "grouped_matmul"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    text = (pkg / "op.yaml").read_text()
    (pkg / "op.yaml").write_text(text[:text.index("cases:")] + GMM_CASES + GMM_RUN_CASES)
    (pkg / "golden.py").write_text(GMM_GOLDEN)
    cases = _verify(cli, pkg, tmp_path / "v")  # the float16 column: its Matmul API on the cube, a half bias
    assert len(cases) == 3 and {c["status"] for c in cases} == {"pass"}, cases
    assert all(c["outputs"][0]["name"] == "y[0]" for c in cases)  # the list output, tensor by tensor


# FlashAttentionScore's OpDef declares no attrs (they come from its graph IR): the user states them in op.yaml,
# in the order its tiling reads them (flash_attention_score_tiling_general.cpp), with the aclnn docs' defaults.
FA_ATTRS = """attrs:
- {name: scale_value, type: float, default: 1.0}
- {name: keep_prob, type: float, default: 1.0}
- {name: pre_tockens, type: int, default: 2147483647}
- {name: next_tockens, type: int, default: 2147483647}
- {name: head_num, type: int}
- {name: input_layout, type: string}
- {name: inner_precise, type: int, default: 0}
- {name: sparse_mode, type: int, default: 0}
- {name: pse_type, type: int, default: 1}
"""
FA_CASES = """cases:
- name: example_sbh
  tags: [smoke]
  description: examples/test_aclnn_flash_attention_score.cpp (B=N=1, S1=S2=256, D=128, SBH, a 256x256 mask)
  shapes: {query: [256, 1, 128], key: [256, 1, 128], value: [256, 1, 128], atten_mask: [256, 256]}
  attrs: {scale_value: 0.08838834764831845, head_num: 1, input_layout: SBH}
  dtype: 8
- name: ut_netcase_000
  description: NetCase_000 of tests/utest/ts_fa/ts_fa_tc_redline_net.cpp (BNSD, keep_prob 0.9 with a drop mask)
  shapes: {query: [2, 10, 3840, 64], key: [2, 10, 512, 64], value: [2, 10, 512, 64], drop_mask: [2, 10, 3840, 64]}
  attrs: {scale_value: 0.125, keep_prob: 0.9, pre_tockens: 65536, next_tockens: 65536, head_num: 10,
    input_layout: BNSD}
  dtype: 0
"""


def test_flash_attention_score_tiling_runs(cli, ot, tmp_path):
    folder = ot / "attention" / "flash_attention_score"
    pkg = tmp_path / "flash_attention_score"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    text = (pkg / "op.yaml").read_text().replace("attrs: []\n", FA_ATTRS)
    (pkg / "op.yaml").write_text(text[:text.index("cases:")] + FA_CASES)
    doc = _tiling(cli, pkg, "example_sbh")
    assert doc["tiling_class"] == "FlashAttentionScoreGeneralTilingData" and doc["tiling_bytes"] == 1464
    p = doc["fields"]["inputParams"]
    assert (p["bSize"], p["n2Size"], p["gSize"], p["s1Size"], p["s2Size"], p["dSize"]) == (1, 1, 1, 256, 256, 128)
    assert p["scaleValue"] == pytest.approx(128 ** -0.5) and p["keepProb"] == 1.0
    assert doc["fields"]["bmm1TilingData"]["Ka"] == 128  # Q x K^T over D, in the nested TCubeTiling
    assert doc["output_shapes"]["attention_out"] == [256, 1, 128]
    ut = _tiling(cli, pkg, "ut_netcase_000")  # the UT expects success (it gives no tiling key)
    p = ut["fields"]["inputParams"]
    assert (p["bSize"], p["n2Size"], p["s1Size"], p["s2Size"], p["dSize"]) == (2, 10, 3840, 512, 64)
    assert p["keepProb"] == pytest.approx(0.9) and ut["block_dim"] == 24


def test_grouped_matmul_non_quantised_kernel_units_have_no_errors(cli, ot, tmp_path):
    """After `opkit adopt`, the kernel unit of each non-quantised column (x, weight and y all float16, or all
    bfloat16; ND and FRACTAL_NZ weights) as the build writes it (the generated shim, the generated tiling structs,
    every template instantiation), syntax-checked with the build's flags: 0 errors (docs/fidelity.md)."""
    from opkit.build import program, sim_backend
    from opkit.spec import load

    folder = ot / "gmm" / "grouped_matmul"
    if not (folder / "op_kernel" / "grouped_matmul.cpp").is_file():
        pytest.skip(f"{ot} is not an ops-transformer checkout (no gmm/grouped_matmul/op_kernel/grouped_matmul.cpp)")
    pkg = tmp_path / "grouped_matmul"
    code, out, err = cli("adopt", folder, "--dir", pkg, "-I", ot / "common" / "include", "--soc", CHIP)
    assert code == 0, out + err
    spec = load(pkg)
    by_name = {p.name: p for p in spec.params}
    columns = [c for c in range(spec.n_columns)
               if {by_name[n].dtypes[c] for n in ("x", "weight", "y")} in ({"float16"}, {"bfloat16"})]
    assert sorted({by_name["x"].dtypes[c] for c in columns}) == ["bfloat16", "float16"], columns
    for c in columns:
        unit = sim_backend.kernel_unit(sim_backend.plan(spec, CHIP, c), jobs=1)
        r = program.check_syntax(unit.source, chip=CHIP, flags=[*unit.flags, "-fmax-errors=0"])
        errors = [line for line in r.stderr.splitlines() if "error:" in line]
        assert r.returncode == 0 and not errors, f"column {c} ({spec.column_label(c)}): " + "\n".join(errors[:20])
