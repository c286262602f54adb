"""Simulator warnings reach the user: a run that passes but did something the NPU may not do the
same way (here: an event set and never waited for) is listed by `opkit verify`, in results.json and
by `opkit run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import fresh_copy

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    dst = tmp_path_factory.mktemp("warn") / "axpy_relu"
    fresh_copy(ROOT / "ops" / "examples" / "axpy_relu", dst)
    header = dst / "op_kernel" / "axpy_relu.h"
    text = header.read_text()
    anchor = "        if (coreLength_ == 0) {\n            return;\n        }\n"
    assert text.count(anchor) == 1
    header.write_text(text.replace(anchor, anchor + "        AscendC::SetFlag<AscendC::HardEvent::V_S>(0);  // never waited for\n"))
    return dst


def test_verify_lists_simulator_warnings(cli, pkg, tmp_path):
    code, out, err = cli("verify", str(pkg), "--soc", CHIP, "-k", "tiny*", "--dtype", "float32", "--out", tmp_path / "v")
    assert code == 0, out + err  # the results are right: a warning does not fail the case
    assert "simulator warning:" in out and "was set and never waited for" in out
    assert "1 run(s) had simulator warnings" in out
    (case,) = json.loads((tmp_path / "v" / "results.json").read_text())["cases"]
    assert case["warnings"] and "axpy_relu.h" in case["warnings"][0]


def test_run_prints_simulator_warnings(cli, pkg, tmp_path):
    code, out, err = cli("run", str(pkg), "--case", "tiny", "--dtype", "float32", "--out", tmp_path / "o.npz",
                         "--soc", CHIP)
    assert code == 0, out + err
    assert "simulator warning:" in err and "never waited for" in err
