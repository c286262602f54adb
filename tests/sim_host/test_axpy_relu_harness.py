"""The real ops/examples/axpy_relu host code and kernel, built into a harness: describe and run."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import yaml
from sim_host_util import AXPY, RunResult, chip_request, run_harness, write_request

BF16 = ml_dtypes.bfloat16


def _describe(exe: Path) -> dict:
    r = subprocess.run([str(exe), "describe"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_describe_matches_op_yaml(harnesses):
    spec = yaml.safe_load((AXPY / "op.yaml").read_text(encoding="utf-8"))
    d = _describe(harnesses["axpy_float16"])
    assert [o["op_type"] for o in d["ops"]] == [spec["op_type"]]
    op = d["ops"][0]
    for kind in ("inputs", "outputs"):
        assert [p["name"] for p in op[kind]] == [p["name"] for p in spec[kind]]
        for got, want in zip(op[kind], spec[kind], strict=True):
            assert got["dtypes"] == want["dtypes"]
            assert got["formats"] == [want["format"]] * len(want["dtypes"])
            assert got["param_type"] == "required"
    assert op["columns"] == len(spec["inputs"][0]["dtypes"])
    assert [(a["name"], a["type"], a["default"]) for a in op["attrs"]] == [
        (a["name"], a["type"], a["default"]) for a in spec["attrs"]
    ]
    assert all(a["required"] is False for a in op["attrs"])
    assert op["socs"] == spec["socs"]
    assert op["has_tiling"] and op["has_infershape"] and op["has_inferdatatype"]
    assert op["has_tiling_parse"] is False


def _request(
    tmp: Path, dtype: str, x: np.ndarray, y: np.ndarray, alpha: float | None, chip: str = "ascend910b2", **extra
) -> Path:
    x.tofile(tmp / "x.bin")
    y.tofile(tmp / "y.bin")
    req = {
        "op_type": "AxpyRelu",
        "chip": chip_request(chip),
        "inputs": [
            {"name": "x", "dtype": dtype, "format": "ND", "shape": list(x.shape), "file": str(tmp / "x.bin")},
            {"name": "y", "dtype": dtype, "format": "ND", "shape": list(y.shape), "file": str(tmp / "y.bin")},
        ],
        "outputs": [{"name": "z", "dtype": dtype, "format": "ND", "file": str(tmp / "z.bin")}],
        "attrs": [{"name": "alpha", "type": "float", "value": alpha}],
        "trace": None,
    }
    req.update(extra)
    return write_request(tmp / "req.json", req)


def _golden(x: np.ndarray, y: np.ndarray, alpha: float, dt) -> np.ndarray:
    return np.maximum(x.astype(np.float32) + np.float32(alpha) * y.astype(np.float32), 0).astype(dt)


def _tiling_fields(res: dict) -> tuple:
    # AxpyReluTilingData: u64 totalLength, formerLength, tailLength; u32 formerNum, tileLength; f32 alpha; u32 reserved.
    return struct.unpack("<QQQIIfI", bytes.fromhex(res["tiling_data_hex"]))


def test_run_float16_ragged(harnesses, tmp_path):
    rng = np.random.default_rng(1)
    n = 100003
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.uniform(-2, 2, n).astype(np.float16)
    r = run_harness(harnesses["axpy_float16"], _request(tmp_path, "float16", x, y, -0.5))
    assert r.returncode == 0, r.stderr
    z = np.fromfile(tmp_path / "z.bin", dtype=np.float16)
    want = _golden(x, y, -0.5, np.float16)
    np.testing.assert_allclose(z.astype(np.float32), want.astype(np.float32), rtol=2.0**-10, atol=2.0**-24)
    res = r.result
    assert res["output_shapes"] == {"z": [n]}
    assert 1 <= res["block_dim"] <= chip_request()["aiv_cores"]
    assert res["tiling_key"] == 0
    assert res["workspace_bytes"] == chip_request()["sys_workspace"]
    assert res["tiling_bytes"] == 40 == len(res["tiling_data_hex"]) // 2
    total, former_len, tail_len, former_num, tile, alpha, _ = _tiling_fields(res)
    assert total == n and alpha == -0.5
    assert former_num * former_len + (res["block_dim"] - former_num) * tail_len >= n
    assert tile % 64 == 0 and tile > 0


def test_run_bfloat16_multi_dim(harnesses, tmp_path):
    rng = np.random.default_rng(2)
    shape = (4, 33, 65)
    x = rng.standard_normal(shape).astype(BF16)
    y = rng.standard_normal(shape).astype(BF16)
    r = run_harness(
        harnesses["axpy_bfloat16"], _request(tmp_path, "bfloat16", x.view(np.uint16), y.view(np.uint16), 2.0)
    )
    assert r.returncode == 0, r.stderr
    z = np.fromfile(tmp_path / "z.bin", dtype=np.uint16).view(BF16).reshape(shape)
    want = _golden(x, y, 2.0, BF16)
    np.testing.assert_allclose(z.astype(np.float32), want.astype(np.float32), rtol=2.0**-7, atol=0)
    assert r.result["output_shapes"] == {"z": list(shape)}
    assert r.result["block_dim"] <= chip_request()["aiv_cores"]


def test_default_alpha_and_block_dim_follows_the_chip(harnesses, tmp_path):
    # 910B4 has 40 vector cores: a large input uses all of them and no more; alpha defaults to 1.0.
    n = 48 * 4096
    x = np.full(n, 0.5, np.float16)
    y = np.full(n, -0.25, np.float16)
    req = _request(tmp_path, "float16", x, y, None, chip="ascend910b4")
    r = run_harness(harnesses["axpy_float16"], req)
    assert r.returncode == 0, r.stderr
    assert r.result["block_dim"] == chip_request("ascend910b4")["aiv_cores"] == 40
    assert _tiling_fields(r.result)[5] == 1.0
    assert np.all(np.fromfile(tmp_path / "z.bin", dtype=np.float16) == np.float16(0.25))


def test_several_requests_in_one_process(harnesses, tmp_path):
    reqs = []
    for i, n in enumerate((7, 2048)):
        d = tmp_path / f"r{i}"
        d.mkdir()
        x = np.arange(n, dtype=np.float16) - 3
        reqs.append((_request(d, "float16", x, np.ones(n, np.float16), 2.0), x))
    r = run_harness(harnesses["axpy_float16"], *[p for p, _ in reqs])
    assert r.returncode == 0, r.stderr
    for p, x in reqs:
        res = json.loads(Path(str(p) + ".result.json").read_text())
        assert res["output_shapes"]["z"] == [x.size]
        z = np.fromfile(p.parent / "z.bin", dtype=np.float16)
        assert np.array_equal(z, _golden(x, np.ones_like(x), 2.0, np.float16))


def _fails(r: RunResult, *needles: str) -> str:
    assert r.returncode == 3, (r.returncode, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("opkit-sim: error: ")]
    assert len(lines) == 1, r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "mutate, needles",
    [
        (lambda q: q["attrs"].append({"name": "beta", "type": "float", "value": 1.0}), ["beta", "no such attribute"]),
        (
            lambda q: q["attrs"].__setitem__(0, {"name": "alpha", "type": "int", "value": 1}),
            ["alpha", "'int'", "'float'"],
        ),
        (lambda q: q["inputs"][1].__setitem__("dtype", "int16"), ["match none", "y=int16"]),
        (lambda q: q["outputs"][0].__setitem__("shape", [3, 5]), ["InferShapeAxpyRelu", "[15]", "[3, 5]"]),
        (lambda q: q["inputs"][0].__setitem__("shape", [16]), ["input 'x'", "30 bytes", "needs 32"]),
        (lambda q: q.__setitem__("op_type", "AxpyRelu2"), ["no OpDef registered", "AxpyRelu2", "AxpyRelu"]),
        (lambda q: q["inputs"].pop(), ["1 inputs given", "has 2"]),
        (
            lambda q: (q["chip"].pop("ub_reported"), q["chip"].__setitem__("opdef_key", "ascend310p")),
            ['AddConfig("ascend310p")', "ascend910b, ascend910_93"],
        ),
        (
            lambda q: (q["chip"].pop("ub_reported"), q["chip"].__setitem__("ub_size", 262144)),
            ["does not match the chip this harness was built for"],
        ),
        (
            lambda q: q["chip"].__setitem__("ub_size", 262144),
            ["ub_reported is 196352", "GetCoreMemSize(UB) gives 261888"],
        ),
        (lambda q: q.__setitem__("trace_only", "yes"), ['"trace_only" must be true, false or null']),
    ],
    ids=[
        "unknown-attr",
        "attr-type",
        "dtype-column",
        "output-shape",
        "file-size",
        "op-type",
        "input-count",
        "soc-not-configured",
        "chip-mismatch",
        "ub-reported",
        "trace-only-type",
    ],
)
def test_request_errors(harnesses, tmp_path, mutate, needles):
    x = np.ones(15, np.float16)
    path = _request(tmp_path, "float16", x, x, 1.0)
    req = json.loads(path.read_text())
    mutate(req)
    write_request(path, req)
    _fails(run_harness(harnesses["axpy_float16"], path), *needles)
    assert not Path(str(path) + ".result.json").exists()


def test_tiling_failure_names_the_function(harnesses, tmp_path):
    # x and y with different element counts: TilingAxpyRelu returns GRAPH_FAILED.
    path = _request(tmp_path, "float16", np.ones(16, np.float16), np.ones(8, np.float16), 1.0)
    line = _fails(run_harness(harnesses["axpy_float16"], path), "optiling::TilingAxpyRelu", "GRAPH_FAILED", "AxpyRelu")
    assert line.startswith("opkit-sim: error: optiling::TilingAxpyRelu: ")


def test_trace_file_is_written(harnesses, tmp_path):
    x = np.ones(4096, np.float16)
    trace = tmp_path / "t.json"
    path = _request(tmp_path, "float16", x, x, 1.0, trace=str(trace))
    r = run_harness(harnesses["axpy_float16"], path)
    assert r.returncode == 0, r.stderr
    t = json.loads(trace.read_text())
    assert t["kernel"] == "axpy_relu" and t["blocks"] == r.result["block_dim"]


def test_trace_only_request_then_a_full_one_in_one_process(harnesses, tmp_path):
    x = np.arange(4096, dtype=np.float16) - 100
    paths = []
    for i, only in enumerate((True, False)):
        d = tmp_path / f"r{i}"
        d.mkdir()
        p = _request(d, "float16", x, x, 0.5, trace=str(d / "t.json"))
        req = json.loads(p.read_text())
        req["trace_only"] = only
        paths.append(write_request(p, req))
    r = run_harness(harnesses["axpy_float16"], *paths)
    assert r.returncode == 0, r.stderr
    first, second = (json.loads(Path(str(p) + ".result.json").read_text()) for p in paths)
    assert first["trace_only"] is True and second["trace_only"] is False
    assert not (paths[0].parent / "z.bin").exists()  # a trace-only run writes no outputs
    z = np.fromfile(paths[1].parent / "z.bin", dtype=np.float16)
    assert np.array_equal(z, _golden(x, x, 0.5, np.float16))  # the mode does not leak into the next request
    t0, t1 = (json.loads((p.parent / "t.json").read_text()) for p in paths)
    assert t0["trace_only"] is True and t1["trace_only"] is False
    assert [c["events"] for c in t0["cores"]] == [c["events"] for c in t1["cores"]]
