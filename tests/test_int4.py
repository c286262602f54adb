"""int4 (CANN DT_INT4): int8 values in [-8, 7] on the host, two per byte for the kernel; and the pieces
`opkit tiling` reads layouts and attrs with (columns by format, attrs of an OpDef that declares none,
gdb's ptype /o)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fake_cann import needs_cmake

from opkit import data_io
from opkit.build.opdef_check import differences
from opkit.build.struct_layout import parse_ptype
from opkit.dtypes import DTYPES
from opkit.errors import OpkitError
from opkit.numerics import device_bytes, from_device, int_range_problem, to_device
from opkit.run.inputs import make_inputs
from opkit.run.tiling import decode, nested
from opkit.spec import load_string

SPEC = """name: w4
family: t
socs: [ascend910b]
kernel: vector
inputs:
  - {name: x, dtypes: [float16, float16], shape: [M, K]}
  - {name: w, dtypes: [int4, int8], shape: [K, N]}
outputs:
  - {name: y, dtypes: [float16, float16], shape: [M, N]}
golden: golden.py:f
cases:
  - {name: a, shapes: {x: [3, 5], w: [5, 7]}}
"""


def test_int4_is_cann_dt_int4():
    d = DTYPES["int4"]
    assert (d.ge, d.ge_value, d.cpp, d.bits, d.packed, d.value_range) == ("DT_INT4", 29, "int4b_t", 4, True, (-8, 7))
    assert not DTYPES["int8"].packed and DTYPES["int8"].value_range is None


def test_packing_puts_the_even_element_in_the_low_nibble():
    # LocalTensor<int4b_t>::SetValue (asc-devkit impl/basic_api/kernel_tensor_impl.h): index 2i shifts by 0, 2i+1 by 4
    packed = to_device(np.array([1, -2, 7, -8, 0], dtype=np.int8), "int4")
    assert packed.dtype == np.uint8 and packed.tolist() == [0xE1, 0x87, 0x00]  # odd count: last high nibble 0
    assert device_bytes(5, "int4") == 3 and device_bytes(5, "int8") == 5 and device_bytes(3, "float16") == 6


def test_unpacking_restores_every_value():
    values = np.random.default_rng(1).integers(-8, 8, size=(9, 13)).astype(np.int8)
    back = from_device(to_device(values, "int4"), "int4", values.size)
    assert back.dtype == np.int8 and np.array_equal(back.reshape(values.shape), values)


def test_out_of_range_values_are_refused():
    assert int_range_problem(np.array([0, 8]), "int4") == "int4 holds values in [-8, 7]; got 8"
    assert int_range_problem(np.array([0.5]), "int4").startswith("int4 values must be integers")
    assert int_range_problem(np.array([300]), "int32") is None
    with pytest.raises(ValueError, match="got -9"):
        to_device(np.array([-9], dtype=np.int8), "int4")
    with pytest.raises(OpkitError, match=r"w: int4 holds values in \[-8, 7\]; got 9"):
        data_io.from_npz_array(np.array([9], dtype=np.int8), "int4", "data.npz:w")
    ok = data_io.from_npz_array(np.array([-8, 7], dtype=np.int8), "int4", "data.npz:w")
    assert ok.tolist() == [-8, 7]


def test_spec_inputs_and_request_file():
    spec = load_string(SPEC)
    w = spec.inputs[1]
    assert w.dtypes == ("int4", "int8")
    case = spec.cases[0]
    inputs = make_inputs(spec, case, 0)
    assert inputs["w"].dtype == np.int8 and inputs["w"].min() >= -8 and inputs["w"].max() <= 7
    assert len(np.unique(inputs["w"])) > 8  # drawn over int4's range, not int8's default [-10, 10]

    from opkit.run.sim_runner import SimRunner

    work = Path(__import__("tempfile").mkdtemp())
    req = SimRunner().request(spec, case, 0, "ascend910b2", inputs, work)
    entry = req["inputs"][1]
    raw = np.fromfile(entry["file"], dtype=np.uint8)
    assert entry["dtype"] == "int4" and raw.size == 18  # 35 values, two per byte
    assert np.array_equal(from_device(raw, "int4", 35).reshape(5, 7), inputs["w"])
    json.dumps(req)


def test_an_init_outside_int4_is_a_clear_error():
    spec = load_string(SPEC.replace("w: [5, 7]}}", "w: [5, 7]}, init: {w: {randint: [-10, 10]}}}"))
    with pytest.raises(OpkitError, match=r"case 'a', input 'w': int4 holds values in \[-8, 7\]"):
        make_inputs(spec, spec.cases[0], 0)


def test_columns_that_differ_only_in_format_are_distinct():
    text = SPEC.replace("{name: w, dtypes: [int4, int8], shape: [K, N]}",
                        "{name: w, dtypes: [int4, int4], formats: [ND, FRACTAL_NZ], shape: [K, N]}")
    assert load_string(text).n_columns == 2
    with pytest.raises(OpkitError, match="dtype column 1 repeats column 0"):
        load_string(text.replace("FRACTAL_NZ", "ND"))


def _described(attrs: list[dict]) -> dict:
    spec = load_string(SPEC.replace("cases:", "attrs:\n  - {name: alpha, type: float, default: 1.0}\ncases:"))
    params = [{"name": p.name, "param_type": p.param, "dtypes": list(p.dtypes), "formats": list(p.formats)}
              for p in spec.params]
    return spec, {"ops": [{"op_type": spec.op_type, "inputs": params[:2], "outputs": params[2:], "attrs": attrs,
                           "socs": ["ascend910b"]}]}


def test_an_opdef_without_attrs_takes_op_yamls():
    spec, described = _described([])  # FlashAttentionScore's OpDef declares none: they come from its graph IR
    assert differences(spec, described) == []
    spec, described = _described([{"name": "beta", "type": "float", "required": False, "default": 1.0}])
    assert differences(spec, described) == ["- attrs: ['alpha']", "+ attrs: ['beta']"]


PTYPE = """/* offset      |    size */  type = struct Outer {
/*      0      |       8 */    uint64_t rows;
/*      8      |       4 */    float eps;
/* XXX  4-byte hole      */
/*     16      |      12 */    struct Inner {
/*     16      |       4 */        int32_t a;
/*     20      |       8 */        uint16_t b[2][2];

                                   /* total size (bytes):   12 */
                               } inner;
/*     28      |      24 */    struct Inner pair[2];
/*     52: 0   |       4 */    unsigned int flag : 1;
/*     56      |       1 */    bool on;
                               void reset(void);

                               /* total size (bytes):   64 */
                             }
"""


def test_ptype_layouts_and_decoding():
    classes = parse_ptype(PTYPE, "Outer")
    assert classes["Outer"]["size"] == 64 and classes["Inner"]["size"] == 12
    fields = {f["name"]: f for f in classes["Outer"]["fields"]}
    assert set(fields) == {"rows", "eps", "inner", "pair", "on"}  # the bit-field and the method are not fields
    assert (fields["pair"]["kind"], fields["pair"]["type"], fields["pair"]["count"]) == ("struct_array", "Inner", 2)
    assert (fields["inner"]["kind"], fields["inner"]["offset"], fields["eps"]["offset"]) == ("struct", 16, 8)
    inner = {f["name"]: f for f in classes["Inner"]["fields"]}
    assert (inner["b"]["kind"], inner["b"]["offset"], inner["b"]["count"]) == ("array", 4, 4)  # relative to Inner
    data = bytearray(64)
    data[0:8] = (74).to_bytes(8, "little")
    data[8:12] = np.float32(0.5).tobytes()
    data[16:20] = (-3).to_bytes(4, "little", signed=True)
    data[20:28] = np.array([1, 2, 3, 4], dtype=np.uint16).tobytes()
    data[40:44] = (9).to_bytes(4, "little")  # pair[1].a
    data[56] = 1
    got, notes = decode(bytes(data), classes, "Outer")
    assert nested(got) == {"rows": 74, "eps": 0.5, "inner": {"a": -3, "b": [1, 2, 3, 4]},
                           "pair[0]": {"a": 0, "b": [0, 0, 0, 0]}, "pair[1]": {"a": 9, "b": [0, 0, 0, 0]}, "on": True}
    assert notes == []
    short, notes = decode(bytes(data[:20]), classes, "Outer")
    assert [f.path for f in short] == ["rows", "eps", "inner.a"] and any("past the 20 bytes" in n for n in notes)


# int4 on the CANN backends: tests/fixtures/api/int4_scale (an int4 input w and an int4 output r, of the view shape
# [320]; y float16) through the fake CANN's aclnn (cann) and its stand-in tikicpulib (cann-cpu).
INT4_SCALE = Path(__file__).resolve().parent / "fixtures" / "api" / "int4_scale"


@pytest.fixture(scope="module")
def int4_cann(tmp_path_factory):
    from fake_cann import installed_copy, make_fake_cann

    tmp = tmp_path_factory.mktemp("int4-cann")
    fake = make_fake_cann(tmp / "cann")
    return fake, installed_copy(fake, tmp, INT4_SCALE, "int4")


def _use(monkeypatch, env: dict[str, str]) -> None:
    import os

    for k in [k for k in os.environ if k.startswith("ASCEND_")]:
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def _swapped(values, dtype):
    """A wrong packing: element 2i in the high nibble."""
    packed = to_device(values, dtype)
    return ((packed >> 4) | (packed << 4)).astype(np.uint8) if DTYPES[dtype].packed else packed


def _unpacked(values, dtype):
    """A wrong packing: one int4 value per byte, as int8."""
    return np.ascontiguousarray(values).astype(np.int8).view(np.uint8) if DTYPES[dtype].packed else values


def _expected(w, scale):
    y = (w.astype(np.float16) * np.float16(scale)).astype(np.float16)
    return y, np.clip(np.rint(y.astype(np.float32)), -8, 7).astype(np.int8)


@needs_cmake
def test_int4_goes_to_aclnn_as_acl_int4_of_the_view_shape_packed(int4_cann, tmp_path):
    from fake_cann import run_opkit

    fake, pkg = int4_cann
    start = len(fake.calls("acl"))
    r = run_opkit(["verify", str(pkg), "--backend", "cann", "--vendor", "int4", "--soc", "ascend910b2", "--out",
                   str(tmp_path / "v")], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pass int4_scale::row[int4-float16@ascend910b2]" in r.stdout and "1 passed, 0 failed, 0 errors" in r.stdout
    calls = [c["argv"] for c in fake.calls("acl")[start:]]
    # w, y, r: ACL_INT4 (29) and ACL_FLOAT16 (1) of the view shape [320]; the int4 buffers 160 bytes (two per byte)
    assert [c[1] for c in calls if c[0] == "aclCreateTensor"] == ["dtype=29 format=2 shape=320,",
                                                                  "dtype=1 format=2 shape=320,",
                                                                  "dtype=29 format=2 shape=320,"]
    assert [c[1] for c in calls if c[0] == "aclrtMalloc"][:3] == ["160", "640", "160"]
    copies = [c[1] for c in calls if c[0] == "aclrtMemcpy"]
    assert copies[0] == "1:160" and copies[-2:] == ["2:640", "2:160"]  # w in; y and r back
    r = run_opkit(["verify", str(pkg), "--backend", "cann", "--vendor", "int4", "--soc", "ascend910b2", "--out",
                   str(tmp_path / "w")], fake.env(FAKE_CANN_WRONG_RESULT="1"))
    assert r.returncode == 1 and "0 passed, 1 failed, 0 errors" in r.stdout


@needs_cmake
def test_int4_runs_on_the_cpu_model_packed(tmp_path):
    from fake_cann import copy_package, make_fake_cann, run_opkit

    fake = make_fake_cann(tmp_path / "cann")
    pkg = copy_package(tmp_path, INT4_SCALE)
    r = run_opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--out", str(tmp_path / "v"),
                   "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pass int4_scale::row[int4-float16@ascend910b2]" in r.stdout and len(fake.calls("tikicpulib")) == 1
    cmake = (pkg / ".opkit" / "cann-cpu" / "ascend910b2-int4-float16" / "CMakeLists.txt").read_text()
    assert '"DTYPE_W=int4b_t"' in cmake and '"ORIG_DTYPE_W=29"' in cmake


@needs_cmake
@pytest.mark.parametrize("backend", ["cann", "cann-cpu"])
def test_a_wrong_int4_packing_gives_wrong_values(int4_cann, tmp_path, monkeypatch, backend):
    """The kernel (cann-cpu) and the aclnn operator (cann) read element 2i from the low nibble: inputs packed the
    other way round come back as other values, so the packing the runners use is the one they are checked with."""
    import opkit.ops
    import opkit.run.sim_runner as sim_runner

    fake, pkg = int4_cann
    _use(monkeypatch, fake.env())
    options = {"vendor": "int4"} if backend == "cann" else None
    op = opkit.ops.load(pkg, backend=backend, chip="ascend910b2", backend_options=options)
    w = np.random.default_rng(4).integers(-8, 8, size=320).astype(np.int8)
    want_y, want_r = _expected(w, 0.75)
    got = op(w=w, scale=0.75)
    assert np.array_equal(got.y, want_y) and np.array_equal(got.r, want_r)
    monkeypatch.setattr(sim_runner, "to_device", _swapped)
    got = op(w=w, scale=0.75)
    assert not np.array_equal(got.y, want_y)
    assert np.array_equal(got.y, _expected(from_device(_swapped(w, "int4"), "int4", 320), 0.75)[0])


@needs_cmake
def test_int4_given_one_value_per_byte_is_refused_before_the_device(int4_cann, monkeypatch):
    """An int4 buffer of one value per byte is not ACL_INT4's storage: the host step refuses it, naming the sizes."""
    import opkit.ops
    import opkit.run.sim_runner as sim_runner
    from opkit.run.sim_runner import KernelError

    fake, pkg = int4_cann
    _use(monkeypatch, fake.env())
    op = opkit.ops.load(pkg, backend="cann", chip="ascend910b2", backend_options={"vendor": "int4"})
    monkeypatch.setattr(sim_runner, "to_device", _unpacked)
    start = len(fake.calls("aclnn"))
    with pytest.raises(KernelError, match=r"input 'w': .*in_w.bin' has 320 bytes; shape \[320\] of int4 needs 160"):
        op(w=np.zeros(320, np.int8), scale=1.0)
    assert len(fake.calls("aclnn")) == start
