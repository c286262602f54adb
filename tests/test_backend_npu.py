"""verify / run --backend cann: the cases on an NPU through the installed package's aclnn API, against the fake
CANN tree (its libascendcl and libnnopbase record every call; its aclnn AxpyRelu computes z = relu(x + alpha*y) from
the aclTensors it is given, in their dtype, so a case passes; FAKE_CANN_WRONG_RESULT=1 makes it wrong, and verify
reports the mismatch as it would for a wrong kernel)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from fake_cann import copy_package as package
from fake_cann import installed_copy, make_fake_cann, needs_cmake
from fake_cann import run_opkit as opkit

pytestmark = needs_cmake


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("npu")
    fake = make_fake_cann(tmp / "cann")
    pkg = package(tmp)
    before = opkit(["verify", str(pkg), "--backend", "cann", "-k", "tiny", "--soc", "ascend910b2", "--out",
                    str(tmp / "before")], fake.env())
    assert opkit(["build", str(pkg), "--backend", "cann"], fake.env()).returncode == 0
    assert opkit(["install", str(pkg)], fake.env()).returncode == 0
    return fake, pkg, before


def test_verify_before_install_names_the_missing_step(installed):
    _, pkg, before = installed
    assert before.returncode == 1
    assert "no installed aclnn library" in before.stdout and f"opkit install {pkg}" in before.stdout


def golden(x, y, alpha):
    return np.maximum(x.astype(np.float64) + alpha * y.astype(np.float64), 0.0)


@pytest.mark.parametrize("dtype,acl", [("float16", 1), ("float32", 0)])
def test_verify_passes_through_aclnn(installed, tmp_path, dtype, acl):
    fake, pkg, _ = installed
    start = len(fake.calls("acl"))
    out = tmp_path / "v"
    r = opkit(["verify", str(pkg), "--backend", "cann", "-k", "tiny", "--dtype", dtype, "--soc", "ascend910b2",
               "--out", str(out), "--junit", str(tmp_path / "junit.xml"), "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "outputs from NPU device 0 through aclnn" in r.stdout and "1 passed, 0 failed, 0 errors" in r.stdout
    data = json.loads((out / "results.json").read_text())
    assert data["opkit"]["backend"] == "cann" and [c["status"] for c in data["cases"]] == ["pass"]
    suite = ET.parse(tmp_path / "junit.xml").getroot()
    cases = suite.findall(".//testcase")
    assert len(cases) == 1 and not any(c.find("failure") is not None or c.find("error") is not None for c in cases)
    assert suite.iter("testsuite").__next__().get("failures") == "0"
    calls = [c["argv"] for c in fake.calls("acl")[start:]]
    names = [c[0] for c in calls]
    assert names[:2] == ["aclInit", "aclrtSetDevice"] and calls[1][1] == "0"
    assert [c[1] for c in calls if c[0] == "aclCreateTensor"] == [f"dtype={acl} format=2 shape=7,"] * 3
    assert ["aclrtMemcpy", f"2:{7 * (2 if acl == 1 else 4)}"] in calls  # z copied back from the device
    assert names.index("aclrtSynchronizeStream") < names.index("aclFinalize")
    ops = [c["argv"] for c in fake.calls("aclnn") if c["argv"][0].startswith("aclnnAxpyRelu")][-2:]
    assert ops == [["aclnnAxpyReluGetWorkspaceSize", "attr=2"], ["aclnnAxpyRelu", "workspace=4096"]]


def test_a_wrong_device_result_is_reported(installed, tmp_path):
    fake, pkg, _ = installed
    out = tmp_path / "v"
    r = opkit(["verify", str(pkg), "--backend", "cann", "-k", "tiny", "--dtype", "float32", "--soc", "ascend910b2",
               "--out", str(out), "--junit", str(tmp_path / "junit.xml")], fake.env(FAKE_CANN_WRONG_RESULT="1"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "0 passed, 1 failed, 0 errors" in r.stdout
    assert "FAIL axpy_relu::tiny[float32@ascend910b2]" in r.stdout and "z: 0.0000% of finite elements match" in r.stdout
    assert "worst elements:" in r.stdout  # the mismatch report, as for a wrong kernel on the simulator
    data = json.loads((out / "results.json").read_text())
    assert data["opkit"]["backend"] == "cann" and data["cases"][0]["status"] == "fail"
    assert ET.parse(tmp_path / "junit.xml").getroot().find(".//failure") is not None


def test_device_option_and_a_missing_device(installed, tmp_path):
    fake, pkg, _ = installed
    start = len(fake.calls("acl"))
    r = opkit(["verify", str(pkg), "--backend", "cann", "-k", "tiny", "--dtype", "float32", "--soc", "ascend910b2",
               "--device", "3", "--out", str(tmp_path / "a")], fake.env(FAKE_CANN_NO_DEVICE="1"))
    assert r.returncode == 1
    assert "aclrtSetDevice(3) returned 107001: EE1001: fake CANN: the device is not available" in r.stdout
    assert ["aclrtSetDevice", "3"] in [c["argv"] for c in fake.calls("acl")[start:]]


def test_run_on_the_device(installed, tmp_path):
    fake, pkg, _ = installed
    out = tmp_path / "o.npz"
    r = opkit(["run", str(pkg), "--backend", "cann", "--case", "tiny", "--dtype", "float16", "--soc", "ascend910b2",
               "--out", str(out)], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    from opkit.run.inputs import make_inputs
    from opkit.spec import load

    spec = load(pkg)
    case = next(c for c in spec.cases if c.name == "tiny")
    column = next(k for k in range(spec.n_columns) if spec.inputs[0].dtypes[k] == "float16")
    ins = make_inputs(spec, case, column)  # the inputs opkit run makes for the case (seeded)
    with np.load(out) as z:
        assert z["z"].shape == (7,) and z["z"].dtype == np.float16 and z["z"].any()
        want = golden(ins["x"], ins["y"], 2.0).astype(np.float16)
        np.testing.assert_allclose(z["z"].astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-3)


def test_perf_option_of_verify_is_refused_on_the_device(installed):
    fake, pkg, _ = installed
    r = opkit(["verify", str(pkg), "--backend", "cann", "--perf"], fake.env())
    assert r.returncode == 2 and "not with --backend cann" in r.stderr


def test_perf_measures_with_msprof_beside_the_model(installed):
    from fake_cann import FAKE_TASK_DURATION_US

    fake, pkg, _ = installed
    start = len(fake.calls("msprof"))
    r = opkit(["perf", str(pkg), "--backend", "cann", "--case", "tiny", "--dtype", "float16", "--soc", "ascend910b2"],
              fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "modelled time" in r.stdout  # the simulator's model, as without --backend
    line = next(x for x in r.stdout.splitlines() if x.startswith("measured on NPU device 0:"))
    assert f"{FAKE_TASK_DURATION_US:.3f} us (msprof op, Task Duration, OpBasicInfo.csv)" in line
    assert "measured / modelled = " in line and "on ascend910b2" in line
    argv = fake.calls("msprof")[start]["argv"]
    assert argv[0] == "op" and argv[1].startswith("--output=") and "opkit.backends.aclnn_worker" in argv


def test_sanitize_runs_each_case_under_mssanitizer(installed, tmp_path):
    fake, pkg, _ = installed
    start = len(fake.calls("mssanitizer"))
    args = ["verify", str(pkg), "--backend", "cann", "-k", "tiny", "--dtype", "float16", "--soc", "ascend910b2",
            "--sanitize", "--out"]
    r = opkit([*args, str(tmp_path / "a")], fake.env(FAKE_CANN_SANITIZER_ERROR="1"))
    assert r.returncode == 1
    assert "mssanitizer (memcheck) reports:" in r.stdout and "====== ERROR: illegal read of size 32" in r.stdout
    argv = fake.calls("mssanitizer")[start]["argv"]
    assert argv[0] == "--tool=memcheck" and "opkit.backends.aclnn_worker" in argv
    clean = opkit([*args, str(tmp_path / "b")], fake.env())
    assert clean.returncode == 0 and "mssanitizer" not in clean.stdout and "1 passed, 0 failed" in clean.stdout
    r = opkit(["verify", str(pkg), "--sanitize"], fake.env())
    assert r.returncode == 2 and "--sanitize runs the cases under CANN's mssanitizer" in r.stderr


def _use(monkeypatch, env):
    for k in [k for k in __import__("os").environ if k.startswith("ASCEND_")]:
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def test_python_api_on_the_device(installed, monkeypatch):
    import opkit.ops

    fake, pkg, _ = installed
    _use(monkeypatch, fake.env())
    op = opkit.ops.load(pkg, backend="cann", chip="ascend910b2", backend_options={"vendor": "customize",
                                                                                    "device": 2})
    rng = np.random.default_rng(3)
    x = rng.standard_normal(33).astype(np.float16)
    y = rng.standard_normal(33).astype(np.float16)
    start = len(fake.calls("acl"))
    z = op(x=x, y=y, alpha=-0.5)
    assert isinstance(z, np.ndarray) and z.dtype == np.float16 and z.shape == (33,)
    np.testing.assert_allclose(z.astype(np.float32), golden(x, y, -0.5).astype(np.float16).astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    assert op.last_info["backend"] == "cann" and op.last_info["device"] == 2
    z32 = op(x=x.astype(np.float32), y=y.astype(np.float32), alpha=2.0)
    np.testing.assert_allclose(z32, golden(x.astype(np.float32), y.astype(np.float32), 2.0), rtol=1e-6)
    calls = [c["argv"] for c in fake.calls("acl")[start:]]
    assert ["aclrtSetDevice", "2"] in calls
    assert [c[1].split()[0] for c in calls if c[0] == "aclCreateTensor"] == ["dtype=1"] * 3 + ["dtype=0"] * 3


def test_python_api_refusals_on_the_device(installed, monkeypatch, tmp_path):
    import subprocess

    import opkit.ops
    from opkit.errors import OpkitError

    fake, pkg, _ = installed
    _use(monkeypatch, fake.env(ASCEND_OPP_PATH=str(tmp_path / "opp")))  # an opp folder without the package
    (tmp_path / "opp" / "vendors").mkdir(parents=True)
    with pytest.raises(OpkitError) as exc:
        opkit.ops.load(pkg, backend="cann")
    msg = exc.value.message
    assert msg.startswith("opkit.ops.load('axpy_relu', backend='cann'): axpy_relu: no installed aclnn library")
    assert f"opkit build {pkg} --backend cann && opkit install {pkg}" in msg
    lib = tmp_path / "opp" / "vendors" / "customize" / "op_api" / "lib"
    lib.mkdir(parents=True)
    (tmp_path / "other.c").write_text("int aclnnOtherGetWorkspaceSize(void) { return 0; }\n")
    subprocess.run(["g++", "-x", "c", "-shared", "-fPIC", str(tmp_path / "other.c"), "-o",
                    str(lib / "libcust_opapi.so")], check=True)
    with pytest.raises(OpkitError) as exc:
        opkit.ops.load(pkg, backend="cann")
    msg = exc.value.message
    assert msg.startswith(f"opkit.ops.load('axpy_relu', backend='cann'): {lib / 'libcust_opapi.so'}: loads, but has "
                          "no aclnnAxpyReluGetWorkspaceSize, aclnnAxpyRelu") and "check OP_ADD in op_host" in msg


REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "api"


@pytest.fixture(scope="module")
def lists(tmp_path_factory):
    """The list fixtures built and installed on a fake CANN, each for its own vendor (one libcust_opapi each)."""
    tmp = tmp_path_factory.mktemp("npu-lists")
    fake = make_fake_cann(tmp / "cann")
    pkgs = {}
    for name, src in (("list_sum", FIXTURES / "list_sum"), ("list_scale", FIXTURES / "list_scale"),
                      ("grouped_gemm", REPO / "ops" / "gmm" / "grouped_gemm")):
        vendor = name.replace("_", "")
        pkgs[name] = (installed_copy(fake, tmp, src, vendor), vendor)
    return fake, pkgs


@pytest.mark.parametrize("name,shapes", [("list_sum", ["64,"] * 3 + ["64,"]),
                                         ("list_scale", ["64,", "128,", "256,"] * 2)])
def test_list_tensors_go_to_aclnn_as_tensor_lists(lists, tmp_path, name, shapes):
    fake, pkgs = lists
    pkg, vendor = pkgs[name]
    start = len(fake.calls("acl"))
    out = tmp_path / "v"
    r = opkit(["verify", str(pkg), "--backend", "cann", "--vendor", vendor, "--soc", "ascend910b2", "--out", str(out),
               "--junit", str(tmp_path / "junit.xml")], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"pass {name}::three[float32@ascend910b2]" in r.stdout and "1 passed, 0 failed, 0 errors" in r.stdout
    assert json.loads((out / "results.json").read_text())["cases"][0]["status"] == "pass"
    calls = [c["argv"] for c in fake.calls("acl")[start:]]
    assert [c[1] for c in calls if c[0] == "aclCreateTensor"] == [f"dtype=0 format=2 shape={s}" for s in shapes]
    lists_made = [c[1] for c in calls if c[0] == "aclCreateTensorList"]
    assert lists_made == (["size=3"] if name == "list_sum" else ["size=3", "size=3"])  # xs (and ys)
    assert [c[0] for c in calls].count("aclDestroyTensorList") == len(lists_made)
    r = opkit(["verify", str(pkg), "--backend", "cann", "--vendor", vendor, "--soc", "ascend910b2", "--out",
               str(tmp_path / "w")], fake.env(FAKE_CANN_WRONG_RESULT="1"))
    assert r.returncode == 1 and "0 passed, 1 failed, 0 errors" in r.stdout


def test_a_grouped_gemm_runs_through_aclnn_tensor_lists(lists, tmp_path):
    """ops/gmm/grouped_gemm: x, weight, bias and y are lists; the transposed case has two problems."""
    fake, pkgs = lists
    pkg, vendor = pkgs["grouped_gemm"]
    start = len(fake.calls("acl"))
    r = opkit(["verify", str(pkg), "--backend", "cann", "--vendor", vendor, "--soc", "ascend910b2", "-k", "transposed",
               "--dtype", "float16", "--out", str(tmp_path / "v")], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pass grouped_gemm::transposed[float16-float32@ascend910b2]" in r.stdout and "1 passed" in r.stdout
    calls = [c["argv"] for c in fake.calls("acl")[start:]]
    sizes = [c[1] for c in calls if c[0] == "aclCreateTensorList"]
    assert sizes == ["size=2"] * 4  # x, weight, bias, y
    assert fake.calls("aclnn")[-2]["argv"] == ["aclnnGroupedGemmGetWorkspaceSize", "attr=1"]  # transpose_weight


def test_python_api_takes_and_returns_lists_on_the_device(lists, monkeypatch):
    import opkit.ops

    fake, pkgs = lists
    _use(monkeypatch, fake.env())
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (16, 40, 8)]
    scale = opkit.ops.load(pkgs["list_scale"][0], backend="cann", backend_options={"vendor": "listscale"})
    ys = scale(xs=xs, scale=-1.5)
    assert isinstance(ys, list) and [y.shape for y in ys] == [(16,), (40,), (8,)]
    for x, y in zip(xs, ys, strict=True):
        np.testing.assert_allclose(y, -1.5 * x, rtol=1e-6)
    same = [x[:8] for x in xs]
    total = opkit.ops.load(pkgs["list_sum"][0], backend="cann", backend_options={"vendor": "listsum"})
    np.testing.assert_allclose(total(xs=same, scale=0.5), 0.5 * np.sum(same, axis=0), rtol=1e-6)


MC2 = REPO / "ops" / "mc2" / "matmul_all_reduce"


@pytest.fixture(scope="module")
def mc2(tmp_path_factory):
    """ops/mc2/matmul_all_reduce built and installed on a fake CANN (its aclnnMatmulAllReduce all-reduces through
    the fake HCCL communicator its group attr names)."""
    tmp = tmp_path_factory.mktemp("npu-mc2")
    fake = make_fake_cann(tmp / "cann")
    return fake, installed_copy(fake, tmp, MC2, "mc2")


def _mc2_verify(mc2, tmp_path, *extra, **env):
    fake, pkg = mc2
    return opkit(["verify", str(pkg), "--backend", "cann", "--vendor", "mc2", "--soc", "ascend910b2", "--dtype",
                  "float16", "--out", str(tmp_path / "v"), "--workers", "1", *extra], fake.env(**env))


def test_a_multi_rank_case_runs_one_process_per_rank(mc2, tmp_path):
    """2 and 4 ranks (and 8): a worker per rank on its device, rank 0's root info shared through a file, each rank's
    communicator name as the group attr, every rank's y compared with the golden."""
    fake, _ = mc2
    start = len(fake.calls())
    r = _mc2_verify(mc2, tmp_path, "-k", "smoke")
    assert r.returncode == 0, r.stdout + r.stderr
    for ranks in (2, 4, 8):
        assert f"pass matmul_all_reduce::smoke.r{ranks}[float16@ascend910b2]" in r.stdout
    assert "3 passed, 0 failed, 0 errors" in r.stdout
    calls = [c["argv"] for c in fake.calls()[start:]]
    assert sum(c[0] == "HcclGetRootInfo" for c in calls) == 3  # rank 0 of each run
    inits = sorted(c[1] for c in calls if c[0] == "HcclCommInitRootInfo")
    assert inits == sorted([f"nranks={n} rank={k}" for n in (2, 4, 8) for k in range(n)])
    assert sorted(c[1] for c in calls if c[0] == "aclrtSetDevice") == sorted(str(k) for n in (2, 4, 8)
                                                                             for k in range(n))
    names = {c[1] for c in calls if c[0] == "HcclGetCommName"}
    assert len(names) == 3 and all(n.startswith("fake_hccl_") for n in names)
    groups = [c[1] for c in calls if c[0] == "aclnnMatmulAllReduceGetWorkspaceSize"]
    assert len(groups) == 14 and {g.removeprefix("group=") for g in groups} == names  # not op.yaml's 'world'
    assert sum(c[0] == "AllReduce" for c in calls) == 14 and sum(c[0] == "HcclCommDestroy" for c in calls) == 14
    case = json.loads((tmp_path / "v" / "results.json").read_text())["cases"][0]
    assert case["status"] == "pass"
    r = _mc2_verify(mc2, tmp_path, "-k", "odd", FAKE_CANN_WRONG_RESULT="1")
    assert r.returncode == 1 and "0 passed, 1 failed, 0 errors" in r.stdout, r.stdout + r.stderr


def test_device_option_places_the_ranks(mc2, tmp_path):
    fake, _ = mc2
    for option, devices in (("4", ["4", "5"]), ("1,3", ["1", "3"])):
        start = len(fake.calls("acl"))
        r = _mc2_verify(mc2, tmp_path, "-k", "odd", "--device", option)
        assert r.returncode == 0, r.stdout + r.stderr
        assert sorted(c["argv"][1] for c in fake.calls("acl")[start:] if c["argv"][0] == "aclrtSetDevice") == devices
    r = _mc2_verify(mc2, tmp_path, "-k", "trans_b", "--device", "0,1")  # a 4-rank case
    assert r.returncode == 1 and "--device 0,1: 2 devices for a case of 4 ranks: give one device per rank " \
        "(0,1,2,3) or the first one (--device 0)" in r.stdout, r.stdout + r.stderr
    r = _mc2_verify(mc2, tmp_path, "-k", "odd", "--device", "0,0")
    assert r.returncode == 2 and "--device 0,0: give an NPU number (0), or one distinct number per rank" in r.stderr


def test_a_hanging_rank_ends_every_rank_at_the_timeout(mc2, tmp_path):
    r = _mc2_verify(mc2, tmp_path, "-k", "odd", "--timeout", "3", FAKE_HCCL_HANG_RANK="1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no result from every rank after 3 s; every rank still running was ended" in r.stdout
    for k in (0, 1):
        assert f"rank {k} (device {k}): no result (still running: it waits in a collective or hangs); ended" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_a_rank_whose_device_fails_ends_in_its_error(mc2, tmp_path):
    r = _mc2_verify(mc2, tmp_path, "-k", "trans_b", FAKE_CANN_BAD_DEVICE="2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("rank 2 (device 2): aclrtSetDevice(2) returned 107001: EE1001: fake CANN: the device is not available "
            "(the other ranks were ended: 0, 1, 3)") in r.stdout


def test_python_api_runs_a_multi_rank_operator_on_the_devices(mc2, monkeypatch):
    import opkit.ops

    fake, pkg = mc2
    _use(monkeypatch, fake.env())
    op = opkit.ops.load(pkg, backend="cann", backend_options={"vendor": "mc2", "device": "2"})
    rng = np.random.default_rng(7)
    ranks = [{"x1": rng.standard_normal((16, 32)).astype(np.float16),
              "x2": (0.1 * rng.standard_normal((32, 24))).astype(np.float16)} for _ in range(2)]
    ys = op(ranks, group="world")
    want = sum(m["x1"].astype(np.float32) @ m["x2"].astype(np.float32) for m in ranks)
    assert len(ys) == 2
    for y in ys:
        np.testing.assert_allclose(y.astype(np.float32), want, rtol=2e-3, atol=2e-3)
    assert [i["device"] for i in op.last_info["ranks"]] == [2, 3]


def test_run_writes_each_rank_s_outputs(mc2, tmp_path):
    fake, pkg = mc2
    out = tmp_path / "o.{rank}.npz"
    r = opkit(["run", str(pkg), "--backend", "cann", "--vendor", "mc2", "--case", "odd", "--soc", "ascend910b2",
               "--out", str(out), "--device", "3"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rank 0/2" in r.stdout and "rank 1/2" in r.stdout
    y0, y1 = (np.load(tmp_path / f"o.{k}.npz")["y"] for k in (0, 1))
    assert y0.shape == (77, 130) and np.array_equal(y0, y1)  # the all-reduced sum on both ranks


def test_perf_measures_every_rank_with_msprof_beside_the_modelled_fused_time(mc2):
    from fake_cann import FAKE_TASK_DURATION_US

    fake, pkg = mc2
    start = len(fake.calls("msprof"))
    r = opkit(["perf", str(pkg), "--backend", "cann", "--vendor", "mc2", "--case", "odd", "--soc", "ascend910b2",
               "--trace-only", "--device", "2"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fused (modelled)" in r.stdout  # the emulated ranks' model, as without --backend
    line = next(x for x in r.stdout.splitlines() if x.startswith("measured on 2 NPUs:"))
    assert f"{FAKE_TASK_DURATION_US:.3f} us, the slowest rank's (rank 0; msprof op, Task Duration, " \
        "OpBasicInfo.csv of each rank); modelled fused " in line and "measured / modelled = " in line
    assert f"per rank (us): rank 0 (device 2) {FAKE_TASK_DURATION_US:.3f}, rank 1 (device 3) " \
        f"{FAKE_TASK_DURATION_US:.3f}" in r.stdout
    calls = fake.calls("msprof")[start:]
    outputs = sorted(c["argv"][1] for c in calls)
    assert len(calls) == 2 and all(c["argv"][0] == "op" and "opkit.backends.aclnn_worker" in c["argv"] for c in calls)
    assert [o.rsplit("/", 1)[1] for o in outputs] == ["rank0", "rank1"]  # one profile folder per rank
    bad = opkit(["perf", str(pkg), "--backend", "cann", "--vendor", "mc2", "--case", "odd", "--device", "1,x"],
                fake.env())
    assert bad.returncode == 2 and "--device 1,x" in bad.stderr and "Traceback" not in bad.stderr
