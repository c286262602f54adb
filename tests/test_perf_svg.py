"""The SVG timeline (`opkit.perf.svg_timeline`, `opkit perf --svg`): rows and boxes from the trace, window
clipping, one clear message for every user error, and the packages' README pictures present and referenced."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from opkit.errors import UsageError
from opkit.perf import svg_timeline as st

ROOT = Path(__file__).resolve().parents[1]
ROPE = ROOT / "ops" / "posembedding" / "interleave_rope"
NS = "{http://www.w3.org/2000/svg}"
PICTURES = {
    "ops/attention/flash_attention_score": "docs/timeline.svg",
    "ops/mc2/matmul_all_reduce": "docs/timeline.svg",
    "ops/mc2/all_gather_matmul": "docs/timeline.svg",
    "ops/mc2/matmul_reduce_scatter": "docs/timeline.svg",
}


def _meta(pid: int, name: str, threads: list[str]) -> list[dict]:
    ev = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}}]
    ev += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": i, "args": {"name": t}} for i, t in enumerate(threads)]
    return ev


def _x(pid: int, tid: int, name: str, ts: float, dur: float) -> dict:
    return {"ph": "X", "pid": pid, "tid": tid, "name": name, "ts": ts, "dur": dur}


PIPES = ["S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "sync"]


def one_rank() -> dict:
    ev = _meta(0, "AIC 0", PIPES) + _meta(1, "AIV 0", PIPES) + _meta(2, "AIV 1", PIPES) + _meta(3, "AIV 2", PIPES)
    ev += [_x(0, 2, "Mmad", 0.0, 10.0), _x(0, 2, "Mmad", 30.0, 10.0), _x(0, 4, "DataCopy GM->L1", 0.0, 5.0),
           _x(1, 1, "SoftmaxFlashV2", 12.0, 8.0), _x(1, 0, "scalar", 0.0, 50.0), _x(1, 7, "drain", 0.0, 3.0),
           _x(2, 5, "DataCopy UB->GM", 45.0, 5.0), _x(2, 1, "SetFlag", 1.0, 1.0),
           _x(3, 1, "Add", 0.0, 60.0)]  # AIV 2 is not a default row
    return {"traceEvents": ev, "otherData": {"op": "demo", "case": "c", "dtype": "float16", "chip": "ascend910b2"}}


def two_ranks() -> dict:
    ev = []
    for r in range(2):
        base = r * 1000
        ev += _meta(base, f"rank {r} AIC 0", PIPES) + _meta(base + 1, f"rank {r} AIV 0", PIPES)
        ev += _meta(base + 999, f"rank {r} HCCL", ["link"])
        ev += [_x(base, 2, "Mmad", 0.0, 20.0), _x(base + 1, 7, "Hccl::Commit #0.0", 20.0, 0.0),
               _x(base + 1, 0, "Hccl::Wait #0.0", 50.0, 0.0005),
               _x(base + 999, 0, "AllReduce #0.0", 20.0, 15.0), _x(base + 999, 0, "AllReduce #0.1", 35.0, 15.0)]
    return {"traceEvents": ev, "otherData": {"op": "mc2", "case": "c", "ranks": 2}}


def _svg(doc: dict, **kw) -> ET.Element:
    return ET.fromstring(st.render_svg(doc, **kw))


def _labels(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(f"{NS}text") if t.get("class") == "l" and t.get("text-anchor") == "end"]


def _boxes(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]


def test_rows_and_boxes_of_one_rank() -> None:
    root = _svg(one_rank())
    assert root.tag == f"{NS}svg" and root.get("width") == "1000"
    # the default cores (AIC 0, AIV 0, AIV 1), the drawn pipes only (no S, no sync), cube pipes first
    assert _labels(root) == ["AIC 0 M", "AIC 0 MTE2", "AIV 0 V", "AIV 1 MTE3"]
    tips = sorted(b.find(f"{NS}title").text for b in _boxes(root))
    assert tips == ["DataCopy GM->L1", "DataCopy UB->GM", "Mmad", "Mmad", "SoftmaxFlashV2"]
    legend = {t.text for t in root.iter(f"{NS}text") if t.get("class") == "l" and t.get("text-anchor") is None}
    assert legend == {"DataCopy", "Mmad", "SoftmaxFlashV2"}
    # one colour per API
    fill = {b.find(f"{NS}title").text.split()[0]: b.get("fill") for b in _boxes(root)}
    assert len(set(fill.values())) == 3


def test_time_axis_and_box_positions() -> None:
    root = _svg(one_rank())
    ticks = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "t" and t.get("text-anchor") == "middle"]
    assert ticks[0] == "0" and ticks[-1] == "50"
    mm = sorted((float(b.get("x")), float(b.get("width"))) for b in _boxes(root)
                if b.find(f"{NS}title").text == "Mmad")
    plot = 1000 - st.LABEL_W_MIN - 16
    assert mm[0][0] == pytest.approx(st.LABEL_W_MIN, abs=0.1)
    assert mm[1][0] == pytest.approx(st.LABEL_W_MIN + plot * 30 / 50, abs=0.1)
    assert mm[0][1] == pytest.approx(plot * 10 / 50, abs=0.1)


def test_deterministic() -> None:
    assert st.render_svg(one_rank()) == st.render_svg(one_rank())


def test_chosen_cores_and_colour_by_pipe() -> None:
    root = _svg(one_rank(), cores=["AIV 2"], color_by="pipe")
    assert _labels(root) == ["AIV 2 V"]
    with pytest.raises(UsageError, match="AIV 9: not in the trace"):
        st.render_svg(one_rank(), cores=["AIV 9"])
    with pytest.raises(UsageError, match="colour by"):
        st.render_svg(one_rank(), color_by="rainbow")


def test_window_clips_boxes() -> None:
    root = _svg(one_rank(), window=(5.0, 35.0))
    assert "AIV 1 MTE3" not in _labels(root)  # 45..50 lies outside
    plot = 1000 - st.LABEL_W_MIN - 16
    mm = sorted((float(b.get("x")), float(b.get("width"))) for b in _boxes(root)
                if b.find(f"{NS}title").text == "Mmad")
    assert mm[0] == pytest.approx((st.LABEL_W_MIN, plot * 5 / 30), abs=0.1)  # 0..10 clipped to 5..10
    assert mm[1] == pytest.approx((st.LABEL_W_MIN + plot * 25 / 30, plot * 5 / 30), abs=0.1)  # 30..40 to 30..35
    assert "5 .. 35 us" in st.render_svg(one_rank(), window=(5.0, 35.0))


def test_empty_window() -> None:
    with pytest.raises(UsageError, match="holds no instruction.*0:50 us"):
        st.render_svg(one_rank(), window=(100.0, 200.0))
    with pytest.raises(UsageError, match="END must be after START"):
        st.render_svg(one_rank(), window=(60.0, None))


def test_parse_window() -> None:
    assert st.parse_window("1.5:20") == (1.5, 20.0)
    assert st.parse_window(":20") == (None, 20.0)
    assert st.parse_window("3:") == (3.0, None)
    assert st.parse_window(None) is None
    for bad in ("abc", "5", "20:10", "1:2:3"):
        with pytest.raises(UsageError, match="window"):
            st.parse_window(bad)


def test_multi_rank_rows() -> None:
    root = _svg(two_ranks())
    assert _labels(root) == ["rank 0 AIC 0 M", "rank 0 AIV 0 hccl", "rank 0 HCCL link", "rank 1 HCCL link"]
    tips = [b.find(f"{NS}title").text for b in _boxes(root)]
    # the link's slices are never merged; the core's Commit and Wait are marks
    assert tips.count("AllReduce #0.0") == 2 and tips.count("AllReduce #0.1") == 2
    assert "Hccl::Commit #0.0" in tips and "Hccl::Wait #0.0" in tips
    assert "2 ranks" in st.render_svg(two_ranks())


def test_long_labels_widen_the_label_column() -> None:
    ev = _meta(0, "rank 12 AIV 40", PIPES) + [_x(0, 4, "DataCopy", 0.0, 1.0)]
    root = _svg({"traceEvents": ev}, cores=["rank 12 AIV 40"])
    box = _boxes(root)[0]
    assert float(box.get("x")) > st.LABEL_W_MIN  # the plot starts right of the longer label
    assert float(box.get("x")) + float(box.get("width")) == pytest.approx(1000 - 16, abs=0.1)


def test_merging_keeps_the_picture_small() -> None:
    ev = _meta(0, "AIV 0", PIPES) + [_x(0, 1, "Add", i * 0.01, 0.008) for i in range(20000)]
    text = st.render_svg({"traceEvents": ev})
    boxes = _boxes(ET.fromstring(text))
    assert len(boxes) == 1 and boxes[0].find(f"{NS}title").text == "Add x20000"
    assert len(text) < 5000


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such trace file"):
        st.load_trace(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UsageError, match="not JSON"):
        st.load_trace(bad)
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    with pytest.raises(UsageError, match="no traceEvents"):
        st.load_trace(other)
    empty = tmp_path / "empty.json"
    empty.write_text('{"traceEvents": []}')
    with pytest.raises(UsageError, match="names no AIC or AIV"):
        st.render_svg(st.load_trace(empty))


def test_module_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(one_rank()))
    out = tmp_path / "t.svg"
    assert st.main([str(trace), "-o", str(out), "--window", "0:20", "--cores", "AIC 0, AIV 0"]) == 0
    root = ET.parse(out).getroot()
    assert _labels(root) == ["AIC 0 M", "AIC 0 MTE2", "AIV 0 V"]
    assert st.main([str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    assert st.main([str(trace), "-o", str(out), "--window", "90:100"]) == 2
    assert st.main([str(trace), "-o", str(tmp_path / "no" / "dir.svg")]) == 2
    err = capsys.readouterr().err
    assert "no such trace file" in err and "holds no instruction" in err and "cannot be written" in err
    assert "Traceback" not in err


def _clean_error(code: int, out: str, err: str, text: str) -> None:
    assert code != 0
    assert text in err, err
    assert "Traceback" not in out + err


def test_cli_svg_errors_before_running(cli, tmp_path: Path) -> None:
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--svg-window", "0:5"), "give --svg FILE too")
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--svg", str(tmp_path)), "is a folder")
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--svg", str(tmp_path / "no" / "a.svg")),
                 "does not exist")
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--svg", str(tmp_path / "a.svg"), "--svg-window", "9:1"),
                 "END must be after START")


def test_cli_svg(cli, tmp_path: Path) -> None:
    svg, trace = tmp_path / "t.svg", tmp_path / "t.json"
    code, out, err = cli("perf", str(ROPE), "--case", "smoke", "--trace-only", "--svg", str(svg))
    assert code == 0, out + err
    assert "timeline picture" in out and not list(tmp_path.glob("*.json"))  # no trace file left behind
    root = ET.parse(svg).getroot()
    assert _labels(root) and all(lab.startswith("AIV 0 ") for lab in _labels(root))  # a vector-only kernel
    assert _boxes(root)
    # with --trace too: the picture is that trace's
    code, out, err = cli("perf", str(ROPE), "--case", "smoke", "--trace-only", "--svg", str(svg), "--trace",
                         str(trace), "--svg-cores", "AIV 0", "--svg-window", "0:")
    assert code == 0, out + err
    assert svg.read_text() == st.render_svg(st.load_trace(trace), cores=["AIV 0"], window=(0.0, None))
    _clean_error(*cli("perf", str(ROPE), "--case", "smoke", "--trace-only", "--svg", str(svg), "--svg-cores",
                      "AIV 7"), "cores AIV 7: not in the trace; it has AIV 0")


@pytest.mark.parametrize("pkg", sorted(PICTURES))
def test_readme_pictures_exist_and_are_referenced(pkg: str) -> None:
    pic = ROOT / pkg / PICTURES[pkg]
    assert pic.is_file(), pic
    assert pic.stat().st_size < 300_000
    root = ET.parse(pic).getroot()
    assert root.tag == f"{NS}svg" and _boxes(root)
    readme = (ROOT / pkg / "README.md").read_text()
    timeline = readme[readme.rindex("## Timeline"):]  # the README's last section
    assert re.search(r"\]\(" + re.escape(PICTURES[pkg]) + r"\)", timeline), "the picture is not linked"
    assert "--svg " + pkg + "/" + PICTURES[pkg] in timeline, "the command that made it is not given"
