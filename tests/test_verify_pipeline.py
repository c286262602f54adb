"""The verify pipeline (selection, inputs, golden, compare, results) with stand-in runners.

The simulator runner is tested with the simulator; here the runner is a NumPy emulation of the
kernel's arithmetic (float32 compute, one rounding), plus deliberately wrong ones.
"""

from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_copy

from opkit.errors import OpkitError, UsageError
from opkit.numerics import np_dtype
from opkit.run.types import RunOutput
from opkit.scaffold.new import new_package
from opkit.spec import load
from opkit.verify.pipeline import Selection, select, verify_spec

ROOT = Path(__file__).resolve().parents[1]
AXPY = ROOT / "ops" / "examples" / "axpy_relu"


class Float32Axpy:
    """z = relu(x + alpha*y) in float32, rounded once to z's dtype: what the kernel computes."""

    def __init__(self, bug: str | None = None):
        self.bug = bug
        self.calls = []

    def run(self, spec, case, column, chip, inputs):
        self.calls.append((case.name, column, chip))
        if self.bug == "crash":
            raise OpkitError("kernel aborted: DataCopy length 34 B is not a multiple of 32 B")
        x = inputs["x"].astype(np.float32)
        y = inputs["y"].astype(np.float32)
        z = np.maximum(x + np.float32(case.attrs["alpha"]) * y, np.float32(0))
        if self.bug == "tail" and z.size > 100:
            z.reshape(-1)[-3:] = 0  # a kernel that drops the ragged tail
        return RunOutput({"z": z.astype(np_dtype(spec.outputs[0].dtypes[column]))})


@pytest.fixture(scope="module")
def spec():
    return load(AXPY)


def test_correct_kernel_passes_every_case(spec):
    sel = Selection(tags=["smoke"])
    results = verify_spec(spec, Float32Axpy(), sel)
    assert {(r.case, r.dtype) for r in results} == {(c, d) for c in ("smoke", "odd_tail")
                                                     for d in ("float16", "bfloat16", "float32")}
    assert all(r.status == "pass" for r in results), [r.message for r in results]
    assert all(r.soc == "ascend910b2" and r.profile == "mixed" for r in results)


def test_wrong_tail_fails_with_the_elements(spec):
    results = verify_spec(spec, Float32Axpy("tail"), Selection(keyword="odd_tail", dtype="float16"))
    (r,) = results
    assert r.status == "fail" and "z:" in r.message
    worst = r.outputs[0].worst
    assert worst and {m.index for m in worst} <= {(100000,), (100001,), (100002,)}
    assert all(m.actual == 0.0 and m.golden > 0 for m in worst)


def test_kernel_errors_are_case_errors(spec):
    (r,) = verify_spec(spec, Float32Axpy("crash"), Selection(keyword="tiny", dtype="float32"))
    assert r.status == "error" and "not a multiple of 32 B" in r.message


def test_selection(spec):
    assert {j.case.name for j in select(spec, Selection(keyword="*tail*"))} == {"odd_tail"}
    assert {j.column for j in select(spec, Selection(dtype="bfloat16"))} == {1}
    assert {j.chip for j in select(spec, Selection(keyword="smoke", chips=["ascend910b4", "ascend910_93"]))} == {
        "ascend910b4", "ascend910_9382"}
    with pytest.raises(UsageError, match="does not target ascend310p"):
        select(spec, Selection(chips=["ascend310p3"]))
    with pytest.raises(UsageError):
        select(spec, Selection(chips=["ascend999"]))


def test_special_values_follow_the_golden(spec):
    (r,) = verify_spec(spec, Float32Axpy(), Selection(keyword="special_values", dtype="float32"))
    assert r.status == "pass", r.message
    assert r.outputs[0].finite < r.outputs[0].count  # NaN/Inf were generated and matched by position


def test_compute_not_implemented_names_both_lines(tmp_path):
    spec_file = tmp_path / "s.yaml"
    spec_file.write_text("""
name: my_gate
family: custom
socs: [ascend910b]
kernel: vector
inputs: [{name: a, dtypes: [float16]}]
outputs: [{name: b, dtypes: [float16]}]
golden: golden.py:my_gate
cases: [{name: smoke, shapes: {a: [64]}}]
""")
    pkg = new_package(spec_file=spec_file, directory="out", cwd=tmp_path).path
    (r,) = verify_spec(load(pkg), Float32Axpy(), Selection())
    assert r.status == "error"
    assert r.message.startswith("compute not implemented: op_kernel/my_gate.h:")
    assert " and golden.py:" in r.message


def test_golden_failures_are_clear(tmp_path):
    pkg = new_package("gold_op", directory=".", cwd=tmp_path).path
    (pkg / "golden.py").write_text("def gold_op(x, y, alpha):\n    return {'z': x[10**9]}\n")
    (r, *_) = verify_spec(load(pkg), Float32Axpy(), Selection(keyword="tiny"))
    assert r.status == "error" and "golden.py:2: IndexError" in r.message
    (pkg / "golden.py").write_text("def gold_op(x, y, alpha):\n    return {'w': x}\n")
    (r, *_) = verify_spec(load(pkg), Float32Axpy(), Selection(keyword="tiny"))
    assert r.status == "error" and "expected the outputs ['z']" in r.message


def test_full_cases_only_on_request(spec):
    assert "large" not in {j.case.name for j in select(spec, Selection())}
    assert {j.case.name for j in select(spec, Selection(full=True))} >= {"large", "smoke"}
    assert {j.case.name for j in select(spec, Selection(tags=["full"]))} == {"large"}


def test_ratio_vs_reference_uses_a_reference(spec, tmp_path):

    from opkit.spec import load as load_spec

    pkg = tmp_path / "axpy"
    fresh_copy(AXPY, pkg)
    s = load_spec(pkg)
    (r,) = verify_spec(s, Float32Axpy(), Selection(keyword="odd_tail", dtype="float16"), profile="ratio-vs-reference")
    assert r.status == "pass", r.message
    assert r.outputs[0].thresholds["profile"] == "ratio-vs-reference"
    # golden.py may bring its own same-precision reference (here: float16 arithmetic all the way)
    golden = pkg / "golden.py"
    golden.write_text(golden.read_text() + "\n\ndef axpy_relu_reference(x, y, alpha=1.0):\n"
                      "    x, y = x.astype(np.float16), y.astype(np.float16)\n"
                      "    return {'z': np.maximum(x + np.float16(alpha) * y, np.float16(0))}\n")
    (r,) = verify_spec(load_spec(pkg), Float32Axpy(), Selection(keyword="odd_tail", dtype="float16"),
                       profile="ratio-vs-reference")
    assert r.status == "pass", r.message
    assert r.outputs[0].metrics["mere_ratio"] <= 1.0  # the kernel is no worse than the float16 reference


def _axpy_copy(tmp_path, precision: str, case_precision: str = "") -> Path:

    pkg = tmp_path / "axpy"
    fresh_copy(AXPY, pkg)
    text = (pkg / "op.yaml").read_text()
    text = text.replace("precision: {profile: mixed}", precision)
    if case_precision:
        text = text.replace("  - name: odd_tail\n", "  - name: odd_tail\n    precision: " + case_precision + "\n")
    (pkg / "op.yaml").write_text(text)
    return pkg


def test_precision_overrides_per_op_per_case_per_output(tmp_path):
    pkg = _axpy_copy(tmp_path, "precision: {profile: mixed, rtol: 0.004, outputs: {z: {atol: 0.002}}}",
                     "{pass_ratio: 0.999}")
    s = load(pkg)
    sel = Selection(keyword="smoke", dtype="float16")
    (r,) = verify_spec(s, Float32Axpy(), sel)
    th = r.outputs[0].thresholds
    assert (th["profile"], th["rtol"], th["atol"], th["pass_ratio"]) == ("mixed", 0.004, 0.002, 0.99)
    (r,) = verify_spec(s, Float32Axpy(), Selection(keyword="odd_tail", dtype="float16"))
    assert r.outputs[0].thresholds["pass_ratio"] == 0.999 and r.outputs[0].thresholds["rtol"] == 0.004
    # --profile naming another profile drops op.yaml's overrides (mixed's rtol is not msopst's diff threshold)
    (r,) = verify_spec(s, Float32Axpy(), sel, profile="msopst")
    assert r.outputs[0].thresholds["diff_thd"] == 0.01 and r.profile == "msopst"
    (r,) = verify_spec(s, Float32Axpy(), sel, profile="mixed")
    assert r.outputs[0].thresholds["rtol"] == 0.004


def test_a_case_switching_profile_starts_from_that_profiles_defaults(tmp_path):
    pkg = _axpy_copy(tmp_path, "precision: {profile: mixed, rtol: 0.004}", "{profile: msopst, pass_ratio: 0.99}")
    (r,) = verify_spec(load(pkg), Float32Axpy(), Selection(keyword="odd_tail", dtype="float16"))
    th = r.outputs[0].thresholds
    assert th["profile"] == "msopst" and th["diff_thd"] == 0.01 and th["pct_thd"] == pytest.approx(0.01)


@pytest.mark.parametrize("precision,case_precision,message", [
    ("precision: {profile: mixed, threshold: 0.01}", "",
     "precision.threshold: profile mixed does not read 'threshold' (it takes rtol, atol, pass_ratio"),
    ("precision: {profile: mixed}", "{profile: mere-mare, rtol: 0.01}",
     "cases[1].precision.rtol: profile mere-mare does not read 'rtol' (it takes threshold"),
    ("precision: {profile: eb, outputs: {w: {rtol: 0.01}}}", "",
     "precision.outputs.w: 'w' is not an output (outputs: z)"),
    ("precision: {profile: mixed, outputs: {z: {profile: eb, level: L1}}}", "",
     "precision.outputs.z.level: profile eb does not read 'level'"),
])
def test_precision_keys_must_fit_their_profile(tmp_path, precision, case_precision, message):
    from opkit.errors import SpecError

    pkg = _axpy_copy(tmp_path, precision, case_precision)
    with pytest.raises(SpecError) as info:
        load(pkg)
    assert any(message in p for p in info.value.problems), info.value.problems


def test_a_failing_input_generator_is_a_case_error(tmp_path):
    pkg = _axpy_copy(tmp_path, "precision: {profile: mixed}")
    text = (pkg / "op.yaml").read_text().replace("init: {x: normal, y: {uniform: [-2, 2]}}",
                                                 "init: {x: {custom: odd_only}, y: {uniform: [-2, 2]}}")
    (pkg / "op.yaml").write_text(text)
    golden = pkg / "golden.py"
    golden.write_text(golden.read_text() + "\n\ndef odd_only(shape, dtype, rng, attrs):\n"
                      "    return rng.normal(size=shape).reshape(-1, 2)\n")
    line = golden.read_text().count("\n")
    (r,) = verify_spec(load(pkg), Float32Axpy(), Selection(keyword="odd_tail", dtype="float16"))
    assert r.status == "error"
    assert f"golden.py: the input generator odd_only() failed for shape [100003]: golden.py:{line}: ValueError" \
        in r.message
