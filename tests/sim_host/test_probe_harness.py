"""Host interfaces through a test operator (tests/sim_host/cpp/probe_op.cpp): IMPL_OP registration,
TilingParse, PlatformAscendC values per chip, a macro TilingData's serialised layout, attributes,
absent optional inputs, and the diagnostics of failing host code."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sim_host_util import chip_request, run_harness, write_request

from opkit.build import program

# ProbeTilingData, by the documented rule: a field sits at a multiple of its size, a struct at a
# multiple of 8, the size is a multiple of 8.
LAYOUT = {
    "flag": (0, "B"),
    "aic": (4, "I"),
    "aiv": (8, "I"),
    "ub": (16, "Q"),
    "l1": (24, "Q"),
    "l0": (32, "3Q"),
    "soc": (56, "h"),
    "sub": (64, "H"),
    "ws": (72, "I"),
    "scale": (76, "f"),
    "dim0": (80, "q"),
    "xAbsent": (88, "B"),
    "compileMagic": (92, "I"),
    "dimsSum": (96, "q"),
    "nameLen": (104, "B"),
    "verbose": (105, "B"),
    "coreNum": (108, "I"),
    "tsch": (112, "I"),
    "wSum": (116, "f"),
    "xHasData": (120, "B"),
}
SIZE = 128
SOC_ASCEND910B = 1  # platform_ascendc::SocVersion::ASCEND910B


def _request(tmp: Path, chip: str = "ascend910b2", attrs: list | None = None, with_x: bool = False) -> Path:
    np.arange(6, dtype=np.float32).tofile(tmp / "w.bin")
    np.zeros(3, np.float32).tofile(tmp / "x.bin")
    x = (
        {"name": "x", "dtype": "float32", "format": "ND", "shape": [3], "file": str(tmp / "x.bin")}
        if with_x
        else {"name": "x", "dtype": "float32", "format": "ND", "shape": None, "file": None}
    )
    req = {
        "op_type": "Probe",
        "chip": chip_request(chip),
        "inputs": [x, {"name": "w", "dtype": "float32", "format": "ND", "shape": [6], "file": str(tmp / "w.bin")}],
        "outputs": [{"name": "y", "dtype": "float32", "format": "ND", "file": str(tmp / "y.bin")}],
        "attrs": attrs if attrs is not None else [{"name": "mode", "type": "int", "value": 0}],
        "trace": None,
    }
    return write_request(tmp / "req.json", req)


def _fields(res: dict) -> dict:
    b = bytes.fromhex(res["tiling_data_hex"])
    out = {}
    for name, (off, fmt) in LAYOUT.items():
        v = struct.unpack_from("<" + fmt, b, off)
        out[name] = v if len(v) > 1 else v[0]
    return out


def test_layout_reported_by_describe(harnesses):
    r = subprocess.run([str(harnesses["probe"]), "describe"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    classes = {c["class"]: c for c in d["tiling_data_classes"]}
    probe = classes["ProbeTilingData"]
    assert probe["size"] == SIZE
    assert {f["name"]: f["offset"] for f in probe["fields"]} == {k: v[0] for k, v in LAYOUT.items()}
    assert classes["ProbeSub"]["size"] == 8
    l0 = next(f for f in probe["fields"] if f["name"] == "l0")
    assert (l0["kind"], l0["count"], l0["size"]) == ("array", 3, 24)
    op = next(o for o in d["ops"] if o["op_type"] == "Probe")
    assert [o["op_type"] for o in d["ops"]] == ["Probe", "ProbeDsl", "ProbeList", "ProbeMatmul"]
    assert op["tiling_data_class"] == "ProbeTilingData"
    assert op["has_tiling"] and op["has_tiling_parse"] and op["has_infershape"] and op["has_inferdatatype"]
    assert [(a["name"], a["type"], a["required"], a["default"]) for a in op["attrs"]] == [
        ("mode", "int", True, None),
        ("scale", "float", False, 0.5),
        ("dims", "list_int", False, [1, 2, 3]),
        ("name", "string", False, "probe"),
        ("verbose", "bool", False, False),
        ("grid", "list_list_int", False, [[1, 2], [3]]),
        ("eps", "float", False, 1e-20),
        ("opt_noval", "int", False, None),
    ]
    assert [p["param_type"] for p in op["inputs"]] == ["optional", "required"]
    assert op["outputs"][0]["dtypes"] == ["float32", "float32"]
    assert op["soc_configs"]["ascend910_93"] == {
        "dynamicCompileStatic.flag": "true",
        "dynamicShapeSupport.flag": "true",
        "opFile.value": "probe_apt",
    }


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend910b4", "ascend910_9382"])
def test_platform_values_of_the_chip(harnesses, tmp_path, chip):
    c = chip_request(chip)
    r = run_harness(harnesses["probe"], _request(tmp_path, chip))
    assert r.returncode == 0, r.stderr
    f = _fields(r.result)
    assert f["flag"] == 1
    assert (f["aic"], f["aiv"], f["coreNum"]) == (c["aic_cores"], c["aiv_cores"], c["aiv_cores"])
    assert f["ub"] == c["ub_reported"] == 192 * 1024 - 256
    assert f["l1"] == c["l1_reported"] == c["l1_size"] - 256
    assert f["l0"] == (c["l0a_size"], c["l0b_size"], c["l0c_size"])
    assert f["soc"] == SOC_ASCEND910B  # 910_93 reports ASCEND910B too
    assert f["ws"] == c["sys_workspace"] == 16 * 1024 * 1024
    assert f["tsch"] == 4  # ceil(7 slices / 2 AIV per AIC)
    assert f["compileMagic"] == 0xC0DE0000 + c["aic_cores"]  # TilingParse ran first, with the platform
    assert f["sub"] == 0xBEEF
    res = r.result
    assert res["tiling_bytes"] == SIZE and res["tiling_key"] == 7 and res["block_dim"] == 1
    assert res["workspace_bytes"] == c["sys_workspace"] + 1024


def test_attrs_defaults_and_values(harnesses, tmp_path):
    r = run_harness(harnesses["probe"], _request(tmp_path))
    f = _fields(r.result)
    assert (f["scale"], f["dimsSum"], f["nameLen"], f["verbose"]) == (0.5, 6, 5, 0)
    attrs = [
        {"name": "mode", "type": "int", "value": 0},
        {"name": "scale", "type": "float", "value": -3.25},
        {"name": "dims", "type": "list_int", "value": [10, 20]},
        {"name": "name", "type": "string", "value": "ab"},
        {"name": "verbose", "type": "bool", "value": True},
        {"name": "eps", "type": "float", "value": None},
    ]
    r = run_harness(harnesses["probe"], _request(tmp_path, attrs=attrs))
    assert r.returncode == 0, r.stderr
    f = _fields(r.result)
    assert (f["scale"], f["dimsSum"], f["nameLen"], f["verbose"]) == (-3.25, 30, 2, 1)


def test_optional_attr_without_default_is_zero(harnesses, tmp_path):
    # The tiling fails unless opt_noval is 0: absent it is; given 5 it is not.
    assert run_harness(harnesses["probe"], _request(tmp_path)).returncode == 0
    attrs = [{"name": "mode", "type": "int", "value": 0}, {"name": "opt_noval", "type": "int", "value": 5}]
    assert "GRAPH_FAILED" in _error_line(run_harness(harnesses["probe"], _request(tmp_path, attrs=attrs)))


def test_absent_optional_input(harnesses, tmp_path):
    # Without x, instance index 0 is w (6 elements) and GetOptionalInputShape(0) is null; the kernel
    # receives nullptr for x.
    r = run_harness(harnesses["probe"], _request(tmp_path))
    f = _fields(r.result)
    assert (f["dim0"], f["xAbsent"]) == (6, 1)
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    assert list(y) == [1.0, 7.0, 1.0, 0.0]
    r = run_harness(harnesses["probe"], _request(tmp_path, with_x=True))
    f = _fields(r.result)
    assert (f["dim0"], f["xAbsent"]) == (3, 0)
    assert np.fromfile(tmp_path / "y.bin", dtype=np.float32)[0] == 0.0


def _error_line(r) -> str:
    assert r.returncode == 3, (r.returncode, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("opkit-sim: error: ")]
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize(
    "mode, needles",
    [
        (1, ["opkit-sim: error: optiling::TilingProbe: ", "tiling of Probe on ascend910b2 returned ge::GRAPH_FAILED"]),
        (2, ["RuntimeAttrs::GetAttrPointer", "attribute 1 ('scale') is float and is read as an integer type"]),
        (3, ["optiling::TilingProbe", "without calling SetBlockDim"]),
        (4, ["GRAPH_FAILED", "GetTilingData<T>(): the struct has 4096 bytes", "capacity of 2048"]),
    ],
    ids=["graph-failed", "attr-read-as-wrong-type", "no-block-dim", "tiling-data-too-large"],
)
def test_failing_tiling(harnesses, tmp_path, mode, needles):
    path = _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": mode}])
    line = _error_line(run_harness(harnesses["probe"], path))
    for n in needles:
        assert n in line
    assert not (tmp_path / "y.bin").exists()


def test_template_tiling_key(harnesses, tmp_path):
    r = run_harness(harnesses["probe"], _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": 7}]))
    assert r.returncode == 0, r.stderr
    assert r.result["tiling_key"] == 1 | 1 << 3 | 27 << 4
    line = _error_line(
        run_harness(harnesses["probe"], _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": 8}]))
    )
    assert "GET_TPL_TILING_KEY: Probe: the combination (N=4, FLAG=1, D_T=27) is in no ASCENDC_TPL_ARGS_SEL" in line
    line = _error_line(
        run_harness(harnesses["probe"], _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": 9}]))
    )
    assert "N = 5 is not among the values ASCENDC_TPL_UINT_DECL declares" in line
    d = json.loads(subprocess.run([str(harnesses["probe"]), "describe"], capture_output=True, text=True).stdout)
    (t,) = d["tiling_key_templates"]
    assert t["op_type"] == "Probe"
    assert [(p["name"], p["type"], p["bit_width"], p["values"]) for p in t["params"]] == [
        ("N", "uint", 3, [2, 3, 4, 9]),
        ("FLAG", "bool", 1, [0, 1]),
        ("D_T", "dtype", 8, [0, 1, 27]),
    ]
    assert [p["name"] for p in t["selections"][0]] == ["kernel_type", "N", "FLAG", "D_T"]
    assert t["selections"][0][1]["values"] == [3, 9]


def test_init_value_output(harnesses, tmp_path):
    # y is InitValue(0): zero before the launch, and the kernel under tiling key 9 leaves it alone.
    path = _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": 6}])
    r = run_harness(harnesses["probe"], path)
    assert r.returncode == 0, r.stderr
    assert r.result["tiling_key"] == 9
    assert list(np.fromfile(tmp_path / "y.bin", dtype=np.float32)) == [0.0] * 4


def test_kernel_gm_diagnostic_names_the_tensor(harnesses, tmp_path):
    path = _request(tmp_path, attrs=[{"name": "mode", "type": "int", "value": 5}])
    line = _error_line(run_harness(harnesses["probe"], path))
    assert "kernel 'probe'" in line and "DataCopy" in line and "'input w'" in line


def test_required_attr_missing(harnesses, tmp_path):
    line = _error_line(run_harness(harnesses["probe"], _request(tmp_path, attrs=[])))
    assert "attribute 'mode' of Probe is required" in line


def test_required_input_missing(harnesses, tmp_path):
    path = _request(tmp_path)
    req = json.loads(path.read_text())
    req["inputs"][1]["file"] = None
    write_request(path, req)
    assert "'w' is a required input" in _error_line(run_harness(harnesses["probe"], path))


def test_malformed_request(harnesses, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"op_type": "Probe", "chip": {', encoding="utf-8")
    line = _error_line(run_harness(harnesses["probe"], path))
    assert "not valid JSON" in line and "line 1" in line


def test_value_depend_input_data_reaches_tiling(harnesses, tmp_path):
    # w is ValueDepend: tiling sums its data (0 + 1 + ... + 5); x is not: no host data although present.
    r = run_harness(harnesses["probe"], _request(tmp_path, with_x=True))
    assert r.returncode == 0, r.stderr
    f = _fields(r.result)
    assert (f["wSum"], f["xHasData"]) == (15.0, 0)


def test_describe_dsl(harnesses):
    r = subprocess.run([str(harnesses["probe"]), "describe"], capture_output=True, text=True, timeout=60)
    op = next(o for o in json.loads(r.stdout)["ops"] if o["op_type"] == "ProbeDsl")
    # DataTypeList with two types doubles the two base columns (base column outer).
    assert op["columns"] == 4
    ins = {p["name"]: p for p in op["inputs"]}
    assert [p["name"] for p in op["inputs"]] == ["a", "b", "c", "idx"]
    assert ins["a"]["dtypes"] == ["float16", "float16", "bfloat16", "bfloat16"]
    assert ins["b"]["dtypes"] == ["int32"] * 4 and ins["b"]["param_type"] == "optional"
    assert ins["c"]["dtypes"] == ins["a"]["dtypes"] and ins["c"]["param_type"] == "dynamic"
    assert ins["c"]["follow"] == "a"
    assert ins["idx"]["dtypes"] == ["int32", "int64", "int32", "int64"]
    assert ins["idx"]["value_depend"] == "optional" and ins["idx"]["dtype_list"] is True
    assert op["outputs"][0]["dtypes"] == ["float32"] * 4 and op["outputs"][0]["formats"] == ["ND"] * 4
    assert [(a["name"], a["type"], a["required"], a["default"]) for a in op["attrs"]] == [
        ("s", "string", True, None),
        ("fl", "list_float", False, [0.5, 1.5]),
        ("flags", "list_bool", False, [True, False]),
    ]
    assert op["hccl_groups"] == ["group_a", "group_b"]
    assert op["socs"] == ["ascend910b", "ascend310p"]
    assert op["soc_configs"]["ascend310p"] == {
        "needCheckSupport.flag": "false",
        "precision_reduce.flag": "true",
        "params": ["a"],
    }
    assert not (op["has_tiling"] or op["has_infershape"] or op["has_inferdatatype"] or op["has_tiling_parse"])
    assert op["unsimulated_hooks"] == ["SetCheckSupport"]


def test_dynamic_input(harnesses, tmp_path):
    shapes = [[2, 4], [3, 4], [1, 4]]
    files = []
    for k, shp in enumerate(shapes):
        f = tmp_path / f"xs{k}.bin"
        np.full(shp, 10.0 * (k + 1), np.float32).tofile(f)
        files.append(str(f))
    req = {
        "op_type": "ProbeList",
        "chip": chip_request(),
        "inputs": [{"name": "xs", "dtype": "float32", "format": "ND", "shape": shapes, "file": files}],
        "outputs": [{"name": "y", "dtype": "float32", "format": "ND", "file": str(tmp_path / "y.bin")}],
        "attrs": [],
        "trace": None,
    }
    r = run_harness(harnesses["probe_list"], write_request(tmp_path / "req.json", req))
    assert r.returncode == 0, r.stderr
    assert r.result["tiling_key"] == 303  # 3 tensors, the second has 3 rows
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    assert list(y) == [3.0, 2.0, 10.0, 20.0, 30.0, 0.0, 0.0, 0.0]


def test_host_only_harness_describes_and_refuses_to_run(harnesses, tmp_path):
    exe = harnesses["probe_host_only"]
    r = subprocess.run([str(exe), "describe"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert [o["op_type"] for o in json.loads(r.stdout)["ops"]] == ["Probe", "ProbeDsl", "ProbeList", "ProbeMatmul"]
    line = _error_line(run_harness(exe, _request(tmp_path)))
    assert "linked without a kernel" in line


def test_kernel_struct_header_matches_the_serialised_bytes(harnesses, tmp_path):
    from opkit.sim.host import kernel_struct_header

    d = json.loads(subprocess.run([str(harnesses["probe"]), "describe"], capture_output=True, text=True).stdout)
    (tmp_path / "tiling.h").write_text(kernel_struct_header(d["tiling_data_classes"]), encoding="utf-8")
    prog = tmp_path / "check.cpp"
    prog.write_text(
        '#include <cstdio>\n#include <cstring>\n#include <string>\n#include "tiling.h"\n'
        "int main(int, char** argv) {\n"
        "    std::string hex = argv[1];\n"
        "    unsigned char b[sizeof(ProbeTilingData)];\n"
        "    for (size_t i = 0; i < sizeof b; ++i)\n"
        "        b[i] = (unsigned char)std::stoi(hex.substr(2 * i, 2), nullptr, 16);\n"
        "    ProbeTilingData t;\n"
        "    std::memcpy(&t, b, sizeof t);\n"
        '    std::printf("%zu %zu %zu %u %u %llu %llu %u %g %u\\n", sizeof t, offsetof(ProbeTilingData, sub),\n'
        "                offsetof(ProbeTilingData, xHasData), t.aic, t.aiv, (unsigned long long)t.ub,\n"
        "                (unsigned long long)t.l0[2], t.sub.tag, t.scale, t.compileMagic);\n"
        "}\n",
        encoding="utf-8",
    )
    exe = program.compile_program([prog], flags=["-Wall", "-Werror"], name="probe_check").exe
    r = run_harness(harnesses["probe"], _request(tmp_path, "ascend910b4"))
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe), r.result["tiling_data_hex"]], capture_output=True, text=True, check=True).stdout
    c = chip_request("ascend910b4")
    assert out.split() == [
        str(SIZE),
        "64",
        "120",
        "20",
        "40",
        str(c["ub_reported"]),
        str(c["l0c_size"]),
        str(0xBEEF),
        "0.5",
        str(0xC0DE0000 + 20),
    ]


@pytest.mark.parametrize("m, k, n", [(300, 96, 520), (16, 16, 16)])
def test_matmul_tiling_drives_the_kernel_matmul(harnesses, tmp_path, m, k, n):
    # MultiCoreMatmulTiling on the host, the high-level Matmul in a MIX 1:2 kernel on every cube core.
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    req = {
        "op_type": "ProbeMatmul",
        "chip": chip_request(),
        "inputs": [
            {"name": "a", "dtype": "float16", "format": "ND", "shape": [m, k], "file": str(tmp_path / "a.bin")},
            {"name": "b", "dtype": "float16", "format": "ND", "shape": [k, n], "file": str(tmp_path / "b.bin")},
        ],
        "outputs": [{"name": "c", "dtype": "float32", "format": "ND", "file": str(tmp_path / "c.bin")}],
        "attrs": [],
        # no kernel_type: the kernel's KERNEL_TASK_TYPE(PROBE_MATMUL_KEY, KERNEL_TYPE_MIX_AIC_1_2) picks the MIX 1:2
        # launch through the generated shim (under the vector default the Matmul would have no cube core)
        "trace": None,
    }
    r = run_harness(harnesses["probe"], write_request(tmp_path / "req.json", req))
    assert r.returncode == 0, r.stderr
    assert r.result["output_shapes"] == {"c": [m, n]}
    assert 1 <= r.result["block_dim"] <= chip_request()["aic_cores"]
    c = np.fromfile(tmp_path / "c.bin", dtype=np.float32).reshape(m, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_unknown_kernel_type(harnesses, tmp_path):
    path = _request(tmp_path)
    req = json.loads(path.read_text())
    req["kernel_type"] = "MIX_AIC_1_3"
    write_request(path, req)
    assert "kernel_type 'MIX_AIC_1_3' is not one of" in _error_line(run_harness(harnesses["probe"], path))
