"""What an op's host code logs reaches the user: when its tiling fails after OP_LOGE, the message
opkit prints carries the logged line (file, function, op, text); OP_LOGD/OP_LOGI stay quiet unless
OPKIT_LOG_LEVEL asks for them, and then a successful run prints them too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import fresh_copy

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CHIP = "ascend910b2"
ANCHOR = "    const float* alpha = attrs->GetAttrPointer<float>(0);\n"
ADDED = """    OP_LOGD(context, "debug: %lu elements", static_cast<unsigned long>(totalLength));
    OP_LOGI(context->GetNodeName(), "info: tiling starts");
    OP_CHECK_IF(totalLength < 8,
                OP_LOGE(context, "x has %lu elements; this tiling needs at least 8", static_cast<unsigned long>(totalLength)),
                return ge::GRAPH_FAILED);
"""

INFER_ADDED = """    OP_CHECK_IF(xShape->GetDimNum() == 3,
                OP_LOGE(context->GetNodeName(), "x is %zu-D; this InferShape takes 1-D or 2-D", xShape->GetDimNum()),
                return ge::GRAPH_FAILED);
"""


@pytest.fixture(scope="module")
def pkg(tmp_path_factory) -> Path:
    """axpy_relu whose tiling logs with the ops-base macros and refuses fewer than 8 elements (case `tiny` has
    7), and whose InferShape refuses 3-D shapes (case `multi_dim`)."""
    dst = tmp_path_factory.mktemp("oplog") / "axpy_relu"
    fresh_copy(ROOT / "ops" / "examples" / "axpy_relu", dst)
    tiling = dst / "op_host" / "axpy_relu_tiling.cpp"
    text = tiling.read_text()
    assert text.count(ANCHOR) == 1
    text = text.replace(ANCHOR, ANCHOR + ADDED)
    text = text.replace('#include "register/op_def_registry.h"\n', '#include "log/log.h"\n#include "register/op_def_registry.h"\n')
    tiling.write_text(text)
    infer = dst / "op_host" / "axpy_relu_infershape.cpp"
    text = infer.read_text()
    anchor = "    gert::Shape* zShape = context->GetOutputShape(0);\n"
    assert text.count(anchor) == 1
    text = text.replace(anchor, INFER_ADDED + anchor).replace(
        '#include "register/op_def_registry.h"\n', '#include "log/log.h"\n#include "register/op_def_registry.h"\n')
    infer.write_text(text)
    return dst


def _line_of(pkg: Path, needle: str) -> int:
    lines = (pkg / "op_host" / "axpy_relu_tiling.cpp").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_failing_tiling_shows_what_it_logged(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.delenv("OPKIT_LOG_LEVEL", raising=False)
    code, out, err = cli("run", str(pkg), "--case", "tiny", "--dtype", "float32", "--out", tmp_path / "o.npz",
                         "--soc", CHIP)
    assert code != 0
    text = out + err
    assert "Traceback" not in text
    assert "TilingAxpyRelu" in text and "returned ge::GRAPH_FAILED" in text
    line = _line_of(pkg, "OP_LOGE(context")
    assert f"[ERROR] EZ9999 axpy_relu_tiling.cpp:{line} TilingAxpyRelu() [AxpyRelu:AxpyRelu]: x has 7 elements; " \
           "this tiling needs at least 8" in text
    # debug and info are counted, not shown, and the message says how to see them
    assert "debug: 7 elements" not in text and "info: tiling starts" not in text
    assert "2 more below WARNING: OPKIT_LOG_LEVEL=debug shows them" in text


def test_debug_level_shows_debug_lines_under_the_error(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "debug")
    code, out, err = cli("run", str(pkg), "--case", "tiny", "--dtype", "float32", "--out", tmp_path / "o.npz",
                         "--soc", CHIP)
    assert code != 0
    text = out + err
    assert "the op logged 3 messages" in text
    assert "[DEBUG]" in text and "debug: 7 elements" in text
    assert "[INFO]" in text and "[AxpyRelu]: info: tiling starts" in text  # a name, not a context
    assert text.index("debug: 7 elements") < text.index("info: tiling starts") < text.index("x has 7 elements")


def test_successful_run_is_quiet_unless_asked(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.delenv("OPKIT_LOG_LEVEL", raising=False)
    code, out, err = cli("run", str(pkg), "--case", "smoke", "--dtype", "float32", "--out", tmp_path / "a.npz",
                         "--soc", CHIP)
    assert code == 0, out + err
    assert "elements" not in out + err

    monkeypatch.setenv("OPKIT_LOG_LEVEL", "info")
    code, out, err = cli("run", str(pkg), "--case", "smoke", "--dtype", "float32", "--out", tmp_path / "b.npz",
                         "--soc", CHIP)
    assert code == 0, out + err
    assert "[INFO]" in err and "info: tiling starts" in err
    assert "debug: 2048 elements" not in err  # under the level asked for


def test_verify_reports_the_logged_line_for_the_failing_case(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.delenv("OPKIT_LOG_LEVEL", raising=False)
    code, out, err = cli("verify", str(pkg), "--soc", CHIP, "-k", "tiny", "--dtype", "float32", "--out", tmp_path / "v")
    assert code != 0
    assert "x has 7 elements; this tiling needs at least 8" in out + err
    (case,) = json.loads((tmp_path / "v" / "results.json").read_text())["cases"]
    assert "x has 7 elements" in json.dumps(case)


def test_a_bad_level_is_a_warning_not_a_crash(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_LOG_LEVEL", "loud")
    code, out, err = cli("run", str(pkg), "--case", "tiny", "--dtype", "float32", "--out", tmp_path / "o.npz",
                         "--soc", CHIP)
    assert code != 0
    text = out + err
    assert "x has 7 elements" in text  # the default level (warning) applies


def test_failing_infershape_shows_what_it_logged(cli, pkg, tmp_path, monkeypatch):
    monkeypatch.delenv("OPKIT_LOG_LEVEL", raising=False)
    code, out, err = cli("run", str(pkg), "--case", "multi_dim", "--out", tmp_path / "o.npz", "--soc", CHIP)
    assert code != 0
    text = out + err
    assert "InferShape of AxpyRelu returned" in text
    assert "axpy_relu_infershape.cpp:" in text and "InferShapeAxpyRelu() [AxpyRelu]: x is 3-D; this InferShape takes" \
        in text
