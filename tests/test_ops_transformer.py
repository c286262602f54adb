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
