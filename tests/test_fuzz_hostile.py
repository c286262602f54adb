"""Property-based fuzzing of what a user hands opkit (item 7): .npz inputs, golden and hook misbehaviour,
command-line options. Whatever comes in: the exit code is 0, 1 or 2, no traceback, and nothing is written
outside the target."""

from __future__ import annotations

import io
import itertools
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hostile import hostile_package, install_fake_sim
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from opkit.spec import load
from opkit.verify.pipeline import Selection, verify_spec

FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])
_counter = itertools.count()


def snapshot(root: Path, skip: Path | None = None) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and (skip is None or skip not in p.parents) and "__pycache__" not in p.parts:
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


def _clean(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in out + err, out + err


# --- .npz inputs --------------------------------------------------------------------------------------------

DTYPES = ["float16", "float32", "float64", "int8", "int32", "uint16", "bool", "complex64"]
arrays = st.builds(
    lambda dtype, shape: np.zeros(shape, dtype=dtype),
    st.sampled_from(DTYPES),
    st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple),
)
npz_contents = st.one_of(
    st.dictionaries(st.sampled_from(["x", "y", "z", "alpha", "w"]), arrays, max_size=4),
    st.binary(max_size=64),  # not an .npz at all
)
attr_items = st.lists(st.one_of(st.sampled_from(["alpha=0.5", "alpha=nan", "alpha=", "alpha=[1]", "beta=1", "=",
                                                 "alpha=1e400", "alpha=true"]), st.text(max_size=8)), max_size=2)


@FUZZ
@given(content=npz_contents, attrs=attr_items, dtype=st.sampled_from([None, "0", "7", "float16", "int8"]))
def test_fuzzed_npz_inputs(cli, tmp_path, monkeypatch, content, attrs, dtype):
    install_fake_sim(monkeypatch)
    pkg = tmp_path / "pkg" / "axpy_relu"
    if not pkg.exists():
        hostile_package(tmp_path / "pkg")
    work = tmp_path / f"w{next(_counter)}"
    work.mkdir()
    src = work / "in.npz"
    if isinstance(content, bytes):
        src.write_bytes(content)
    else:
        buf = io.BytesIO()
        np.savez(buf, **content)
        src.write_bytes(buf.getvalue())
    before = snapshot(tmp_path, skip=work)
    args = ["run", pkg, "--inputs", src, "--out", work / "out" / "o.npz"]
    for a in attrs:
        args += ["--attr", a]
    if dtype is not None:
        args += ["--dtype", dtype]
    _clean(*cli(*args, cwd=work))
    assert snapshot(tmp_path, skip=work) == before  # nothing written outside the target
    assert {p.name for p in work.rglob("*") if p.is_file()} <= {"in.npz", "o.npz", "written.json"}


# --- golden and hook misbehaviour ---------------------------------------------------------------------------

GOOD_BODY = "return {'z': np.maximum(np.asarray(x) + float(alpha) * np.asarray(y), 0.0)}"
MISBEHAVIOUR = [
    GOOD_BODY,
    "return None",
    "return 'z'",
    "return {'q': x}",
    "return {'z': x, 'extra': x}",
    "return {'z': np.zeros(3)}",
    "return {'z': np.full(np.shape(x), np.nan)}",
    "return {'z': np.array(['a'] * np.size(x))}",
    "return {'z': np.asarray(x, dtype=object)}",
    "return [x]",
    "return {'z': (i for i in range(3))}",
    "print('noise ' * 1000); " + GOOD_BODY,
    "raise ValueError('bad golden')",
    "raise KeyboardInterrupt",
    "sys.exit({code})",
    "os._exit({code})",
    "raise MemoryError",
    "raise RecursionError",
    "return axpy_relu(x, y, alpha)",
    "import time; time.sleep(30)",
]


@FUZZ
@given(body=st.sampled_from(MISBEHAVIOUR), code=st.integers(-3, 300), hook=st.booleans())
def test_fuzzed_golden_misbehaviour_is_never_a_crash_of_opkit(tmp_path, body, code, hook):
    from hostile import FakeSim

    from opkit.verify import usercode

    where = tmp_path / f"g{next(_counter)}"
    pkg = hostile_package(where, "")
    src = "import os\nimport sys\n\nimport numpy as np\n\n\ndef axpy_relu(x, y, alpha=1.0):\n    " + \
        body.replace("{code}", str(code)) + "\n"
    if hook:  # the same misbehaviour in a comparison hook, after a real check()
        hook_body = body.replace("return {'z': ", "return {'passed': True, 'summary': ").replace("{code}", str(code))
        src = ("import os\nimport sys\n\nimport numpy as np\n\n\ndef axpy_relu(x, y, alpha=1.0):\n    " + GOOD_BODY +
               "\n\n\ndef judge(actual, golden, inputs, attrs, dtypes, check):\n    x, y, alpha = inputs['x'], "
               "inputs['y'], attrs['alpha']\n    check('z', actual['z'], golden['z'])\n    " + hook_body + "\n")
        text = (pkg / "op.yaml").read_text().replace("precision: {profile: mixed}", "precision: {profile: mixed}\n"
                                                      "compare: {function: judge, outputs: [z]}")
        (pkg / "op.yaml").write_text(text)
    (pkg / "golden.py").write_text(textwrap.dedent(src))
    before = snapshot(where)
    with usercode.guarded(2.0):
        results = verify_spec(load(pkg), FakeSim(), Selection(keyword="tiny", dtype="float32"))
    (r,) = results
    assert r.status in ("pass", "fail", "error")
    if body == GOOD_BODY and not hook:
        assert r.status == "pass", r.message
    if r.status == "error":
        assert r.message and "Traceback" not in r.message
    assert snapshot(where) == before


# --- command-line options ------------------------------------------------------------------------------------

values = st.one_of(st.sampled_from(["-1", "0", "1", "nan", "inf", "1e9", "", ".", "..", "x", "out", "out/r.xml",
                                    "float16", "mixed", "smoke", "*", "8G", "-5k", "report.xml"]),
                   st.text(alphabet="abc./-_0123456789", max_size=6))
option = st.tuples(st.sampled_from(["--timeout", "-j", "--sweep-values", "--junit", "--out", "--profile", "--dtype",
                                    "-k", "--tags", "--soc", "--max-case-memory", "--full", "--sweep", "--force",
                                    "--no-trace", "--bogus"]), values)


@FUZZ
@given(opts=st.lists(option, max_size=4))
@example(opts=[("--out", "..")])  # a report above the working folder, as asked
@example(opts=[("--junit", "../r.xml"), ("--out", "../a")])
def test_fuzzed_verify_options(cli, tmp_path, monkeypatch, opts):
    install_fake_sim(monkeypatch)
    pkg = tmp_path / "pkg" / "axpy_relu"
    if not pkg.exists():
        hostile_package(tmp_path / "pkg")
    work = tmp_path / f"v{next(_counter)}"
    work.mkdir()
    args: list[str] = ["verify", str(pkg), "-k", "tiny"]
    for name, value in opts:
        args += [name] if name in ("--full", "--sweep", "--force", "--no-trace") else [name, value]
    before = snapshot(tmp_path, skip=work)
    _clean(*cli(*args, cwd=work))
    after = snapshot(tmp_path, skip=work)
    # outside the working folder opkit writes only where --out or --junit sends it (a value such as ".." names a
    # folder above it): the named folder's tree or the named file, and the write manifest (.opkit) beside it
    named = [(work / value).resolve() for name, value in opts if name in ("--out", "--junit") and value]

    def named_by_an_option(rel: str) -> bool:
        path = (tmp_path / rel).resolve()
        return any(path == t or t in path.parents or (path.parent.name == ".opkit" and path.parent.parent == t.parent)
                   for t in named)

    touched = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert all(named_by_an_option(k) for k in touched), (args, sorted(touched))


@pytest.mark.parametrize("argv", [
    ["new", "../../escape"], ["new", "x", "--template", "nope"], ["run", "--inputs", "missing.npz", "--out", "o.npz"],
    ["perf", "--case", "smoke", "--trace", "."], ["spec", "schema", "--out", "."], ["export-msopgen", "--out", "."],
    ["verify", "--junit", "."], ["list", "nowhere"], ["build", "-j", "-3"],
])
def test_hostile_argv_outside_a_package(cli, tmp_path, argv):
    before = snapshot(tmp_path)
    _clean(*cli(*argv, cwd=tmp_path))
    assert snapshot(tmp_path) == before
