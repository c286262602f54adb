"""op.yaml's comparison hook (``compare:``): loading, calling, reporting, and its errors.

The kernel is a stand-in runner: MoeGatingTopK's golden outputs in the device dtypes, optionally
broken in one place, so that what the hook decides is known.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.errors import SpecError
from opkit.numerics import np_dtype
from opkit.run.types import RunOutput
from opkit.spec import load
from opkit.verify.golden import run_golden
from opkit.verify.pipeline import Selection, verify_spec
from opkit.verify.report import table, thresholds_lines, write_json, write_junit

ROOT = Path(__file__).resolve().parents[1]
MOE = ROOT / "ops" / "moe" / "moe_gating_top_k"


class GoldenRouter:
    """Returns the golden's routing in the device dtypes; ``bug`` breaks it in row 0."""

    def __init__(self, bug: str | None = None):
        self.bug = bug

    def run(self, spec, case, column, chip, inputs):
        out = run_golden(spec, case, inputs)
        idx = out["expert_idx"].astype(np.int32).copy()
        y = out["y"].copy()
        if self.bug == "wrong_index":  # an expert nowhere near the k-th score
            scores = np.asarray(inputs["x"], dtype=np.float64)[0]
            idx[0, -1] = int(np.argmin(scores))
        elif self.bug == "swap_weights":  # right experts, weights attached to the wrong ones
            y[0, [0, 1]] = y[0, [1, 0]]
        elif self.bug == "swap_near_tie":  # expert 0 instead of the near-equal expert 1 (first place)
            k = idx.shape[1]
            idx[0] = [0, 1][:k] if k <= 2 else idx[0]
            y[0] = y[0][::-1] if k == 2 else y[0]
        elif self.bug == "swap_equal_order":  # reverse two experts of exactly equal score
            idx[0, [0, 1]] = idx[0, [1, 0]]
            y[0, [0, 1]] = y[0, [1, 0]]
        result = {"expert_idx": idx, "y": y.astype(np_dtype(spec.outputs[0].dtypes[column]))}
        if "out" in out:
            result["out"] = out["out"].astype(np.float32)
        return RunOutput(result)


@pytest.fixture(scope="module")
def spec():
    return load(MOE)


def _copy(tmp_path: Path) -> Path:
    return fresh_copy(MOE, tmp_path / "moe_gating_top_k")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


# --- loading ----------------------------------------------------------------------------------

def test_the_moe_spec_declares_its_hook(spec):
    assert spec.compare is not None and spec.compare.where == "golden.py:compare_routing"
    assert spec.compare.outputs == ("y", "expert_idx")
    assert all(c.compare == spec.compare for c in spec.cases)


@pytest.mark.parametrize("old,new,message", [
    ("function: compare_routing", "function: compare_routes",
     "compare.function: comparison hook: file 'golden.py' defines no function 'compare_routes'"),
    ("outputs: [y, expert_idx]", "outputs: [y, idx]", "compare.outputs[1]: 'idx' is not an output"),
    ("outputs: [y, expert_idx]", "outputs: [y, expert_idx]\n  options: {tolerance: 1e-5}",
     "compare_routing() has no parameter 'tolerance'"),
    ("outputs: [y, expert_idx]", "outputs: [y, expert_idx]\n  options: {check: 1}",
     "check: verify passes these itself"),
    ("    tags: [smoke]\n    shapes: {x: [16, 256]", "    tags: [smoke]\n    compare: true\n    shapes: {x: [16, 256]",
     "cases[0].compare: true is not a comparison hook"),
    ("    tags: [smoke]\n    shapes: {x: [16, 256]",
     "    tags: [smoke]\n    compare: {options: {rtol: 1e-6, width: 2}}\n    shapes: {x: [16, 256]",
     "cases[0].compare.options: comparison hook: golden.py:"),
    ("  function: compare_routing\n", "  functon: compare_routing\n", "did you mean 'function'"),
])
def test_spec_errors_name_the_line_and_the_fix(tmp_path, old, new, message):
    pkg = _copy(tmp_path)
    _edit(pkg / "op.yaml", old, new)
    with pytest.raises(SpecError) as info:
        load(pkg)
    text = "\n".join(info.value.problems)
    assert message in text, text
    assert text.startswith(str(pkg / "op.yaml") + ":")


def test_hook_needing_an_argument_verify_does_not_pass(tmp_path):
    pkg = _copy(tmp_path)
    _edit(pkg / "golden.py", "def compare_routing(actual, golden, inputs, attrs, dtypes, check, tol=None,",
          "def compare_routing(actual, golden, inputs, attrs, dtypes, check, width, tol=None,")
    with pytest.raises(SpecError, match=r"compare_routing\(\) needs 'width', which verify does not pass"):
        load(pkg)
    _edit(pkg / "op.yaml", "outputs: [y, expert_idx]", "outputs: [y, expert_idx]\n  options: {width: 3}")
    assert load(pkg).compare.options == {"width": 3}


def test_case_overrides(tmp_path):
    pkg = _copy(tmp_path)
    _edit(pkg / "op.yaml", "    tags: [smoke]\n    shapes: {x: [16, 256]",
          "    tags: [smoke]\n    compare: {options: {tol: 1.0e-5}}\n    shapes: {x: [16, 256]")
    _edit(pkg / "op.yaml", "    shapes: {x: [64, 8]}\n    attrs: {k: 2}\n    init: {x: normal}\n",
          "    shapes: {x: [64, 8]}\n    attrs: {k: 2}\n    init: {x: normal}\n    compare: false\n")
    s = load(pkg)
    assert s.case("deepseek_v3_smoke").compare.options == {"tol": 1e-5}
    assert s.case("mixtral_top2").compare is None and s.case("e2048_top2").compare == s.compare
    # without the hook, the profile judges every output: expert_idx exactly, as integers
    (r,) = verify_spec(s, GoldenRouter(), Selection(keyword="mixtral_top2", dtype="float32"))
    assert r.status == "pass" and r.compare is None
    assert [o.name for o in r.outputs] == ["y", "expert_idx"] and r.outputs[1].thresholds["exact"]
    (r,) = verify_spec(s, GoldenRouter(), Selection(keyword="deepseek_v3_smoke", dtype="float32"))
    assert r.compare.options == {"tol": 1e-5} and r.compare.thresholds["score_tol"] == 1e-5


# --- verify uses it -----------------------------------------------------------------------------

def test_correct_routing_passes_and_reports_what_the_hook_decided(spec, tmp_path):
    results = verify_spec(spec, GoldenRouter(), Selection(tags=["smoke"]))
    assert results and all(r.status == "pass" for r in results), [r.message for r in results if r.status != "pass"]
    r = next(x for x in results if x.case == "deepseek_v3_smoke" and x.dtype.startswith("bfloat16"))
    assert r.compare.function == "golden.py:compare_routing" and r.compare.outputs == ["y", "expert_idx"]
    assert r.compare.counts["rows"] == 16 and r.compare.counts["exact_rows"] == 16
    assert r.compare.counts["near_ties"] == 0
    # y was judged by the profile through check(); expert_idx only by the hook
    assert [o.name for o in r.outputs] == ["y"] and r.outputs[0].thresholds["profile"] == "mixed"
    assert r.outputs[0].thresholds["rtol"] == 2.0**-7
    with_out = next(x for x in results if x.case == "deepseek_v3_with_out")
    assert [o.name for o in with_out.outputs] == ["out", "y"]  # out by the profile, y by the hook's check
    write_json(results, tmp_path / "results.json")
    doc = json.loads((tmp_path / "results.json").read_text())
    hook = doc["cases"][0]["compare"]
    assert hook["passed"] and hook["counts"]["near_ties"] == 0 and "score_tol" in hook["thresholds"]
    write_junit(results, tmp_path / "r.xml")
    assert "y, expert_idx by golden.py:compare_routing: 16 exact, 0 near-tie" in (tmp_path / "r.xml").read_text()
    lines = thresholds_lines(results)
    assert any(line.startswith("golden.py:compare_routing (y, expert_idx): score_tol=") for line in lines)
    assert any(line.startswith("mixed (bfloat16): rtol=0.0078125") for line in lines)
    from rich.console import Console
    console = Console(width=250, record=True)
    console.print(table(results))
    text = console.export_text()
    assert "hook" in text and "16 exact, 0 near-tie" in text


def test_a_wrong_expert_fails_naming_the_row(spec):
    (r,) = verify_spec(spec, GoldenRouter("wrong_index"), Selection(keyword="deepseek_v3_smoke", dtype="float32"))
    assert r.status == "fail"
    assert r.compare.counts["failed_rows"] == 1 and r.compare.failures[0].startswith("row 0: ")
    assert r.message.startswith("golden.py:compare_routing: ") and "1 failed" in r.message


def test_misaligned_weights_fail_through_the_profile(spec):
    (r,) = verify_spec(spec, GoldenRouter("swap_weights"), Selection(keyword="mixtral_top2", dtype="float16"))
    assert r.status == "fail" and not r.compare.passed and r.compare.counts["failed_rows"] == 0
    (y,) = r.outputs
    assert not y.passed and {m.index for m in y.worst} == {(0, 0), (0, 1)}


def test_exact_ties_in_the_wrong_order_fail(spec):
    # ties_softmax has logits on a coarse grid: row 0 holds equal top scores
    (r,) = verify_spec(spec, GoldenRouter(), Selection(keyword="ties_softmax", dtype="float32"))
    assert r.status == "pass", r.message
    (r,) = verify_spec(spec, GoldenRouter("swap_equal_order"), Selection(keyword="ties_softmax", dtype="float32"))
    assert r.status == "fail" and "tie rule" in r.compare.failures[0], r.compare.failures


NEAR_TIE = '''

def near_tie_logits(shape, dtype, rng, attrs):
    """Experts 0 and 1 a few float32 ulps apart in every row (expert 1 slightly ahead), the rest far below."""
    x = np.full(shape, -3.0)
    x[:, 0] = 2.0
    x[:, 1] = 2.0 + 4 * 2.0**-22
    return x
'''


@pytest.mark.parametrize("k,kind", [(2, "order"), (1, "k-boundary")])
def test_a_near_tie_choice_passes_and_is_reported(tmp_path, k, kind):
    pkg = _copy(tmp_path)
    (pkg / "golden.py").write_text((pkg / "golden.py").read_text() + NEAR_TIE)
    _edit(pkg / "op.yaml", "cases:\n", "cases:\n  - {name: near_tie, dtype: float32, shapes: {x: [4, 8]}, "
          f"attrs: {{k: {k}, norm_type: 1}}, init: {{x: {{custom: near_tie_logits}}}}}}\n")
    s = load(pkg)
    (r,) = verify_spec(s, GoldenRouter(), Selection(keyword="near_tie"))
    assert r.status == "pass" and r.compare.counts["exact_rows"] == 4  # the golden's own choice: exact
    (r,) = verify_spec(s, GoldenRouter("swap_near_tie"), Selection(keyword="near_tie"))
    assert r.status == "pass", r.message
    assert r.compare.counts["near_ties"] == 1 and r.compare.counts["exact_rows"] == 3
    assert r.compare.counts[f"near_ties_{kind.replace('-', '_')}"] == 1
    (tie,) = r.compare.details["near_ties"]
    assert tie["row"] == 0 and tie["kinds"] == [kind] and tie["golden"][0] == 1 and tie["actual"][0] == 0
    assert "1 near-tie" in r.compare.summary


def test_ratio_vs_reference_cannot_judge_through_a_hook(spec):
    (r,) = verify_spec(spec, GoldenRouter(), Selection(keyword="mixtral_top2", dtype="float16"),
                       profile="ratio-vs-reference")
    assert r.status == "error" and "ratio-vs-reference cannot judge 'y'" in r.message


# --- a hook that misbehaves ---------------------------------------------------------------------

@pytest.mark.parametrize("body,message", [
    ("    raise KeyError('scores')\n", "golden.py:{line}: KeyError: 'scores'"),
    ("    return [True]\n", "must return a dict with 'passed' (true or false)"),
    ("    return {'passed': 'yes'}\n", "it returned a dict with keys ['passed']"),
    ("    return {'passed': True, 'counts': {'near': 1.5}}\n", "'counts' is not a {str: int} dict"),
    ("    return {'passed': True, 'verdict': 1}\n", "unknown key(s) ['verdict']"),
    ("    return {'passed': True, 'details': {'x': object()}}\n", "['details']['x'] holds a object"),
    ("    check('out', actual['y'], golden['y'])\n    return {'passed': True}\n",
     "called check('out', ...); it judges y, expert_idx"),
])
def test_misbehaving_hooks_are_clear_errors(tmp_path, body, message):
    pkg = _copy(tmp_path)
    golden = pkg / "golden.py"
    text = golden.read_text(encoding="utf-8")
    head = "def compare_routing(actual, golden, inputs, attrs, dtypes, check, tol=None, rtol=SCORE_RTOL):\n"
    start = text.index(head)
    end = text.index("\ndef check_routing(")
    line = text[:start].count("\n") + 2
    golden.write_text(text[:start] + head + body + "\n" + text[end:], encoding="utf-8")
    (r,) = verify_spec(load(pkg), GoldenRouter(), Selection(keyword="mixtral_top2", dtype="float32"))
    assert r.status == "error"
    assert str(golden) in r.message and "compare_routing()" in r.message
    assert message.replace("{line}", str(line)) in r.message, r.message
