"""golden.py runs guarded: an exit, exception, hang or crash in it is an ERROR of that case naming the line,
never a silent success, a traceback or a hung run (issue: nothing silent, unbounded or lost, item 1)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hostile import hostile_package, install_fake_sim

from opkit.errors import OpkitError
from opkit.spec import load
from opkit.verify.pipeline import Selection, verify_spec

TINY = Selection(keyword="tiny", dtype="float32")


@pytest.fixture
def fake_sim(monkeypatch):
    return install_fake_sim(monkeypatch)


def _one(pkg, runner, timeout=30.0):
    from hostile import FakeSim

    from opkit.verify import usercode

    with usercode.guarded(timeout):
        (r,) = verify_spec(load(pkg), runner or FakeSim(), TINY)
    return r


def test_sys_exit_in_the_golden_fails_the_run_and_still_writes_junit(cli, tmp_path, fake_sim):
    pkg = hostile_package(tmp_path, """
        import sys


        def axpy_relu(x, y, alpha=1.0):
            sys.exit(0)
    """)
    junit = tmp_path / "report.xml"
    code, out, err = cli("verify", pkg, "-k", "tiny", "--junit", junit, "--out", tmp_path / "res", cwd=tmp_path)
    assert code == 1, out + err
    assert "golden.py:5: called sys.exit(0)" in out and "Traceback" not in out + err
    assert "nothing was verified" in err
    root = ET.parse(junit).getroot()
    assert int(root.get("errors")) == int(root.get("tests")) == 3  # tiny in each of its three dtype columns


@pytest.mark.parametrize("body, expect", [
    ("raise KeyboardInterrupt", "golden.py:2: raised KeyboardInterrupt"),
    ("import os; os._exit(3)", "golden.py:2: called os._exit(3)"),
    ("raise SystemExit('bye')", "golden.py:2: called sys.exit('bye')"),
    ("import ctypes; ctypes.string_at(0)", "crashed (SIGSEGV)"),
])
def test_every_way_out_of_the_golden_is_a_case_error(tmp_path, body, expect):
    pkg = hostile_package(tmp_path, f"def axpy_relu(x, y, alpha=1.0):\n    {body}\n")
    r = _one(pkg, None)
    assert r.status == "error" and expect in r.message and str(pkg / "golden.py") in r.message


def test_a_hanging_golden_is_stopped_by_the_timeout_and_names_its_line(tmp_path):
    pkg = hostile_package(tmp_path, """
        def axpy_relu(x, y, alpha=1.0):
            while True: pass  # one line: the dump may land on the test or on the body
    """)
    r = _one(pkg, None, timeout=1.0)
    assert r.status == "error"
    assert "golden.py:2: axpy_relu() did not return within 1 s (--timeout)" in r.message


def test_the_worker_is_restarted_after_a_crash(tmp_path):
    """One case crashes the golden's process; the next case of the same package runs normally."""
    from hostile import FakeSim

    from opkit.verify import usercode

    pkg = hostile_package(tmp_path, """
        import numpy as np


        def axpy_relu(x, y, alpha=1.0):
            if np.asarray(x).size == 7:
                import ctypes
                ctypes.string_at(0)
            return {"z": np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}
    """)
    with usercode.guarded(30):
        results = verify_spec(load(pkg), FakeSim(), Selection(dtype="float32"))
    by_case = {r.case: r for r in results}
    assert by_case["tiny"].status == "error" and "golden.py:7:" in by_case["tiny"].message
    assert by_case["smoke"].status == "pass" and by_case["odd_tail"].status == "pass"


def test_a_generator_that_exits_is_an_error_and_generators_keep_their_stream(tmp_path):
    from hostile import FakeSim

    from opkit.run.inputs import make_inputs
    from opkit.verify.golden import custom_generators

    pkg = hostile_package(tmp_path, """
        import sys

        import numpy as np


        def axpy_relu(x, y, alpha=1.0):
            return {"z": np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}


        def ramp(shape, dtype, rng, attrs):
            return rng.uniform(-1, 1, size=shape)


        def leave(shape, dtype, rng, attrs):
            sys.exit(2)
    """)
    text = (pkg / "op.yaml").read_text().replace("attrs: {alpha: 2.0}}", "attrs: {alpha: 2.0}, "
                                                 "init: {x: {custom: ramp}}, special: {x: [nan]}}")
    (pkg / "op.yaml").write_text(text)
    spec = load(pkg)
    case = spec.case("tiny")
    got = make_inputs(spec, case, 2, custom_generators(spec))["x"]
    # the same draws as calling the generator in this process (the rng continues after it for the special values)
    rng = np.random.default_rng([case.seed, 2, 0])
    want = rng.uniform(-1, 1, size=(7,))
    assert np.array_equal(np.isnan(got).nonzero()[0].size, 1)
    assert np.allclose(got[~np.isnan(got)], want.astype(np.float32)[~np.isnan(got)])
    (pkg / "op.yaml").write_text(text.replace("custom: ramp", "custom: leave"))
    r = _one(pkg, FakeSim())
    assert r.status == "error" and "leave() failed" in r.message and "called sys.exit(2)" in r.message


def test_cost_hooks_are_guarded(tmp_path):
    from opkit.perf.model import golden_costs
    from opkit.verify import usercode
    from opkit.verify.golden import user_module

    pkg = hostile_package(tmp_path, """
        def axpy_relu(x, y, alpha=1.0):
            return {"z": x}


        def flops(shapes, dtypes, attrs):
            return 1 // 0


        def hbm_bytes(shapes, dtypes, attrs):
            while True:
                pass
    """)
    spec = load(pkg)
    with usercode.guarded(1.0), pytest.raises(OpkitError, match=r"cost hook flops\(\) failed: golden.py:6: "
                                                                r"ZeroDivisionError"):
        golden_costs(user_module(spec), {"x": [4]}, {"x": "float16"}, {})
    (pkg / "golden.py").write_text((pkg / "golden.py").read_text().replace("1 // 0", "'many'"))
    with usercode.guarded(1.0), pytest.raises(OpkitError, match=r"flops\(\) returned 'many'; it must return a number"):
        golden_costs(user_module(spec), {"x": [4]}, {"x": "float16"}, {})
    (pkg / "golden.py").write_text((pkg / "golden.py").read_text().replace("'many'", "12"))
    with usercode.guarded(1.0), pytest.raises(OpkitError, match=r"hbm_bytes\(\) did not return within 1 s"):
        golden_costs(user_module(spec), {"x": [4]}, {"x": "float16"}, {})


def test_a_comparison_hook_calls_check_back_and_its_exit_is_an_error(tmp_path):
    from hostile import FakeSim

    from opkit.verify import usercode

    pkg = hostile_package(tmp_path, """
        import numpy as np


        def axpy_relu(x, y, alpha=1.0):
            return {"z": np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}


        def judge(actual, golden, inputs, attrs, dtypes, check):
            r = check("z", actual["z"], golden["z"])
            if attrs["alpha"] < 0:
                raise SystemExit(1)
            return {"passed": bool(r.passed), "summary": "judged by check"}
    """)
    text = (pkg / "op.yaml").read_text().replace("precision: {profile: mixed}",
                                                "precision: {profile: mixed}\ncompare: {function: judge, outputs: [z]}")
    (pkg / "op.yaml").write_text(text)
    r = _one(pkg, FakeSim())
    assert r.status == "pass" and r.compare.summary == "judged by check" and [o.name for o in r.outputs] == ["z"]
    with usercode.guarded(30):
        (bad,) = verify_spec(load(pkg), FakeSim(), Selection(keyword="odd_tail", dtype="float32"))
    assert bad.status == "error" and "golden.py:11: called sys.exit(1)" in bad.message


def test_a_golden_returning_the_wrong_shape_is_a_golden_error_not_a_kernel_fail(tmp_path):
    from hostile import FakeSim

    pkg = hostile_package(tmp_path, """
        import numpy as np


        def axpy_relu(x, y, alpha=1.0):
            return {"z": np.zeros(3)}
    """)
    r = _one(pkg, FakeSim())
    assert r.status == "error" and "returned 'z' with shape [3]" in r.message and "the golden is wrong" in r.message
    (pkg / "golden.py").write_text("import numpy as np\n\n\ndef axpy_relu(x, y, alpha=1.0):\n"
                                   "    return {'z': np.array(['a'] * 7)}\n")
    r = _one(pkg, FakeSim())
    assert r.status == "error" and "as <U1 data" in r.message


def test_large_arrays_travel_exactly_and_leave_no_files(tmp_path):
    """Buffers of 1 MiB or more go through the shared folder (mapped, then removed), both ways."""
    import os

    from opkit.verify import usercode

    golden = tmp_path / "golden.py"
    golden.write_text("import numpy as np\n\ndef twice(a, b):\n    return {'a': a * 2, 'b': b[::-1].copy(), "
                      "'small': a[:3]}\n")
    a = np.random.default_rng(0).standard_normal(300_000)  # 2.4 MB: out of band
    b = np.arange(1 << 19, dtype=np.int32)  # 2 MiB
    with usercode.guarded(60):
        out = usercode.module(golden).twice(a, b)
        shared = usercode._shared_dir()
        assert os.listdir(shared) == []  # every file was mapped and removed by its reader
    assert np.array_equal(out["a"], a * 2) and np.array_equal(out["b"], b[::-1]) and np.array_equal(out["small"], a[:3])
    out["a"][0] = 1.0  # the mapping is private and writable, as an array the golden returned would be
