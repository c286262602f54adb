"""The cann backend and opkit install against a fake CANN tree (tests/fake_cann.py); the refusals without CANN."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_cann import copy_package, make_fake_cann, needs_cmake, no_cann_env, run_opkit

from opkit.backends import cann, cann_env
from opkit.backends.install import InstallError, check_library

opkit = run_opkit
package = copy_package
bare_env = no_cann_env


@pytest.fixture
def fake(tmp_path):
    return make_fake_cann(tmp_path / "cann")


@pytest.mark.parametrize("args", [["build", "--backend", "cann"], ["verify", "--backend", "cann"],
                                  ["build", "--backend", "cann-cpu"], ["verify", "--backend", "cann-cpu"],
                                  ["run", "--backend", "cann", "--out", "o.npz"],
                                  ["perf", "--backend", "cann", "--case", "smoke"]])
def test_without_cann_one_message_exit_2(tmp_path, args):
    if any(Path(d).is_dir() for d in cann_env.DEFAULT_TOOLKIT_DIRS):
        pytest.skip("this machine has a CANN toolkit in a default folder, which opkit finds without variables")
    pkg = package(tmp_path)
    r = opkit([args[0], str(pkg), *args[1:]], bare_env(tmp_path), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("error: opkit ") and "cannot run on this machine" in r.stderr
    assert "missing CANN toolkit" in r.stderr and "set_env.sh" in r.stderr
    if args[:3] == ["build", "--backend", "cann"]:  # building needs the device compiler; running does not
        assert "missing bisheng on PATH" in r.stderr
    assert not (pkg / ".opkit" / "cann").exists()  # refused before any work


def test_running_on_the_npu_needs_no_build_tools(tmp_path):
    old = make_fake_cann(tmp_path / "old", version="8.0.RC2", asc=False, legacy=True)
    env = old.env()
    env["PATH"] = env["PATH"].split(":", 1)[1]  # no bisheng either
    r = opkit(["verify", str(package(tmp_path)), "--backend", "cann", "-k", "tiny", "--soc", "ascend910b2", "--out",
               str(tmp_path / "v")], env)
    assert "cannot run on this machine" not in r.stderr  # past the readiness check: it looks for the package
    assert r.returncode == 1 and "no installed aclnn library" in r.stdout


def test_unknown_backend(tmp_path):
    r = opkit(["build", str(package(tmp_path)), "--backend", "npu"], bare_env(tmp_path))
    assert r.returncode == 2 and "--backend npu: unknown (backends: sim, cann, cann-cpu)" in r.stderr


def test_discovery_order(tmp_path, fake):
    env = {"PATH": str(fake.bin), "HOME": str(tmp_path / "nohome")}
    assert cann_env.find_toolkit(env) == (None, "")
    assert cann_env.find_toolkit({**env, "ASCEND_OPP_PATH": str(fake.root / "opp")})[0] == fake.root
    assert cann_env.find_toolkit({**env, "ASCEND_HOME_PATH": str(fake.root)}) == (fake.root, "$ASCEND_HOME_PATH")
    assert cann_env.find_toolkit({"HOME": str(tmp_path / "cann")}) == (fake.root, "default location")
    assert cann_env.find_toolkit(env, explicit=fake.root) == (fake.root.resolve(), "--cann-path")
    found = cann_env.find({**env, "ASCEND_HOME_PATH": str(fake.root)})
    assert found.version == "8.5.0" and found.asc_cmake == fake.root / "lib64" / "cmake"


def test_toolkit_without_the_project_modules_is_refused(tmp_path):
    old = make_fake_cann(tmp_path / "old", version="8.0.RC2", asc=False, legacy=True)
    r = opkit(["build", str(package(tmp_path)), "--backend", "cann"], old.env())
    assert r.returncode == 2
    assert "missing CANN operator-project CMake" in r.stderr and "op_project_templates" in r.stderr
    assert "CANN 8.5 or newer" in r.stderr


@needs_cmake
def test_build_writes_the_project_and_the_run(tmp_path, fake):
    pkg = package(tmp_path)
    r = opkit(["build", str(pkg), "--backend", "cann", "-j", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    proj = pkg / ".opkit" / "cann" / "project"
    for rel in ("CMakePresets.json", "build.sh", "CMakeLists.txt", "op_host/CMakeLists.txt",
                "op_kernel/CMakeLists.txt", "framework/CMakeLists.txt", "op_host/axpy_relu_tiling.cpp",
                "op_kernel/axpy_relu.cpp", "op_kernel/axpy_relu_tiling_data.h"):
        assert (proj / rel).is_file(), rel
    cache = json.loads((proj / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert cache["ASCEND_CANN_PACKAGE_PATH"]["value"] == str(fake.root)
    assert cache["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b;ascend910_93"
    assert cache["vendor_name"]["value"] == "customize"
    runs = list((proj / "build_out").glob("custom_opp_*.run"))
    assert len(runs) == 1 and f"built AxpyRelu: {runs[0]}" in r.stdout
    assert "[ 50%] Building kernel AxpyRelu for ascend910b" in r.stdout  # progress from the build
    compiled = [c["argv"] for c in fake.calls("bisheng")]
    assert sorted(a[a.index("-c") + 1] for a in compiled) == [str(proj / "op_kernel" / "axpy_relu.cpp")] * 2
    assert all(f"-I{proj / 'op_kernel'}" in a for a in compiled)  # npu_op_kernel_options reach bisheng
    calls = (proj / "build_out" / "fake_cann_calls.txt").read_text()
    assert "npu_op_code_gen\tSRC\t" in calls and "axpy_relu_def.cpp" in calls and "PACKAGE\tcustomize" in calls
    assert "npu_op_library\tcust_opapi\tACLNN" in calls and "npu_op_kernel_sources\tascendc_kernels\tOP_TYPE\tAxpyRelu"\
        in calls

    # a second build rewrites nothing; a file that leaves the package leaves the project
    again = opkit(["build", str(pkg), "--backend", "cann", "--soc", "ascend910b2"], fake.env())
    assert again.returncode == 0 and "up to date" not in again.stdout  # the compute units changed
    cache = json.loads((proj / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert cache["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b"
    same = opkit(["build", str(pkg), "--backend", "cann", "--soc", "ascend910b2"], fake.env())
    assert "(up to date;" in same.stdout
    (pkg / "op_kernel" / "extra.h").write_text("// extra\n")
    opkit(["build", str(pkg), "--backend", "cann"], fake.env())
    assert (proj / "op_kernel" / "extra.h").is_file()
    (pkg / "op_kernel" / "extra.h").unlink()
    opkit(["build", str(pkg), "--backend", "cann"], fake.env())
    assert not (proj / "op_kernel" / "extra.h").exists()


@needs_cmake
def test_kernel_error_is_shown_in_the_users_file(tmp_path, fake):
    pkg = package(tmp_path)
    kernel = pkg / "op_kernel" / "axpy_relu.cpp"
    lines = kernel.read_text().splitlines()
    lines.insert(10, "    FAKE_CANN_ERROR;")
    kernel.write_text("\n".join(lines) + "\n")
    r = opkit(["build", str(pkg), "--backend", "cann"], fake.env())
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert "the CANN build failed" in r.stderr
    assert "op_kernel/axpy_relu.cpp:11:5: error: use of undeclared identifier 'FAKE_CANN_ERROR'" in r.stderr
    assert ".opkit/cann/project/op_kernel" not in r.stderr.split("full log:")[0]


@needs_cmake
def test_package_step_failure(tmp_path, fake):
    r = opkit(["build", str(package(tmp_path)), "--backend", "cann"], fake.env(FAKE_CANN_FAIL="package"))
    assert r.returncode == 1 and "CMake Error: fake CANN: packing the operator package failed" in r.stderr
    assert "full log:" in r.stderr


@needs_cmake
def test_install_default_and_path(tmp_path, fake):
    pkg = package(tmp_path)
    before = opkit(["install", str(pkg)], fake.env())
    assert before.returncode == 2 and "build it first with opkit build" in before.stderr
    assert opkit(["build", str(pkg), "--backend", "cann"], fake.env()).returncode == 0
    r = opkit(["install", str(pkg)], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    vendor = fake.root / "opp" / "vendors" / "customize"
    assert (vendor / "op_api" / "lib" / "libcust_opapi.so").is_file()
    assert "aclnnAxpyReluGetWorkspaceSize, aclnnAxpyRelu load" in r.stdout
    assert f"export LD_LIBRARY_PATH={vendor}/op_api/lib:" in r.stdout
    mine = tmp_path / "mine"
    r = opkit(["install", str(pkg), "--path", str(mine)], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"source {mine}/vendors/customize/bin/set_env.bash" in r.stdout
    assert any(f"--install-path={mine}" in c["argv"] for c in fake.calls("installer"))
    wrong = opkit(["install", str(pkg), "--vendor", "acme"], fake.env())
    assert wrong.returncode == 2 and "built for vendor 'customize'" in wrong.stderr


def test_bad_vendor_name(tmp_path, fake):
    r = opkit(["build", str(package(tmp_path)), "--backend", "cann", "--vendor", "a/b"], fake.env())
    assert r.returncode == 2 and "--vendor 'a/b'" in r.stderr


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
def test_library_without_the_operator_symbols(tmp_path):
    src = tmp_path / "lib.c"
    src.write_text("int aclnnOtherGetWorkspaceSize(void) { return 0; }\n")
    lib = tmp_path / "libcust_opapi.so"
    subprocess.run(["g++", "-x", "c", "-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    with pytest.raises(InstallError, match="has no aclnnAxpyReluGetWorkspaceSize, aclnnAxpyRelu"):
        check_library(lib, ["aclnnAxpyReluGetWorkspaceSize", "aclnnAxpyRelu"], dict(os.environ))
    with pytest.raises(InstallError, match="dlopen failed"):
        check_library(tmp_path / "missing.so", ["x"], dict(os.environ))


def test_map_paths():
    files = {"op_kernel/k.cpp": Path("/pkg/op_kernel/k.cpp"), "op_host/a/t.cpp": Path("/src/op_host/a/t.cpp")}
    text = ("/p/.opkit/cann/project/op_kernel/k.cpp:3:1: error: x\n"
            "/p/.opkit/cann/project/build_out/kernel_src/op_host/a/t.cpp:9:2: warning: y\n"
            "/p/.opkit/cann/project/build_out/autogen/aclnn_k.cpp:1:1: error: z")
    out = cann.map_paths(text, Path("/p/.opkit/cann/project"), files)
    assert out.splitlines() == ["/pkg/op_kernel/k.cpp:3:1: error: x", "/src/op_host/a/t.cpp:9:2: warning: y",
                                "/p/.opkit/cann/project/build_out/autogen/aclnn_k.cpp:1:1: error: z"]


REAL_CANN = os.environ.get("OPKIT_REAL_CANN")


def _both_projects(tmp_path: Path, env: dict[str, str], msopgen: str, toolkit: Path) -> tuple[Path, Path]:
    """opkit's project of the axpy_relu example for ascend910b and msopgen gen's for the same prototype."""
    from opkit.backends import cann_project
    from opkit.spec import load

    pkg = package(tmp_path)
    assert opkit(["export-msopgen", str(pkg), "-o", str(tmp_path / "proto.json")], env).returncode == 0
    out = tmp_path / "msopgen"
    r = subprocess.run([msopgen, "gen", "-i", str(tmp_path / "proto.json"), "-f", "aclnn", "-lan", "cpp", "-c",
                        "ai_core-ascend910b", "-out", str(out)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    found = cann_env.find(env, toolkit)
    assert found is not None, f"{toolkit}: no toolkit there"
    return cann_project.write_project(load(pkg), found, chips=["ascend910b"]).root, out


@pytest.mark.skipif(not REAL_CANN, reason="opt-in: set OPKIT_REAL_CANN to a CANN toolkit folder (with msopgen) to "
                    "compare the generated project with msopgen gen's")
def test_project_matches_msopgen_gen(tmp_path):
    from opkit.backends.project_compare import differences

    env = dict(os.environ, ASCEND_HOME_PATH=REAL_CANN)
    msopgen = shutil.which("msopgen", path=env.get("PATH")) or str(Path(REAL_CANN) / "python" / "site-packages" /
                                                                   "bin" / "msopgen")
    ours, theirs = _both_projects(tmp_path, env, msopgen, Path(REAL_CANN))
    assert differences(ours, theirs, "AxpyRelu") == []


def test_the_msopgen_comparison_runs_on_the_fake_msopgen(tmp_path, fake):
    from opkit.backends.project_compare import differences, targets

    ours, theirs = _both_projects(tmp_path, fake.env(), str(fake.bin / "msopgen"), fake.root)
    assert fake.calls("msopgen")[-1]["argv"][:2] == ["gen", "-i"]
    assert differences(ours, theirs, "AxpyRelu") == []  # the presets' values, the files, the targets
    assert {("npu_op_library", "cust_opapi", "ACLNN"), ("npu_op_kernel_sources", "ascendc_kernels", "AxpyRelu"),
            ("npu_op_package_add", "${vendor_name}", "ascendc_kernels"), ("add_subdirectory", "op_kernel"),
            ("npu_op_package", "${vendor_name}")} <= targets(theirs)
    # a project that differs in what matters is reported, one sentence per difference
    presets = json.loads((ours / "CMakePresets.json").read_text())
    cache = presets["configurePresets"][0]["cacheVariables"]
    cache["ASCEND_COMPUTE_UNIT"]["value"] = "ascend310p"
    cache["ENABLE_BINARY_PACKAGE"]["value"] = "OFF"
    del cache["ENABLE_TEST"]
    cache["ASCEND_PYTHON_EXECUTABLE"]["value"] = "/opt/py/bin/python3"  # a machine path: not compared
    (ours / "CMakePresets.json").write_text(json.dumps(presets))
    (ours / "op_kernel" / "axpy_relu.cpp").unlink()
    (ours / "op_host" / "CMakeLists.txt").write_text(
        (ours / "op_host" / "CMakeLists.txt").read_text().replace("cust_op_proto GRAPH", "cust_op_proto SHARED"))
    assert differences(ours, theirs, "AxpyRelu") == [
        "CMakePresets.json: msOpGen sets ENABLE_TEST, opkit does not",
        "CMakePresets.json: ENABLE_BINARY_PACKAGE is 'OFF' (BOOL) in opkit's project, 'True' (BOOL) in msOpGen's",
        "CMakePresets.json: ASCEND_COMPUTE_UNIT is 'ascend310p' (STRING) in opkit's project, 'ascend910b' (STRING) in "
        "msOpGen's",
        "msOpGen writes op_kernel/axpy_relu.cpp; opkit's project has no op_kernel/axpy_relu.cpp",
        "msOpGen's project calls npu_op_library(cust_op_proto GRAPH); opkit's does not",
    ]


def test_fake_msopgen_fails_as_msopgen_does(tmp_path, fake):
    r = subprocess.run([str(fake.bin / "msopgen"), "gen", "-i", str(tmp_path / "none.json"), "-c",
                        "ai_core-ascend910b", "-out", str(tmp_path / "o")], capture_output=True, text=True,
                       env=fake.env())
    assert r.returncode == 1 and "give -lan cpp for Ascend C" in r.stderr


@needs_cmake
def test_doctor_reports_each_backend_ready_on_the_fake_toolkit(fake):
    from opkit.doctor import diagnose, render

    checks = diagnose(fake.env())
    by = {c.name: c for c in checks}
    assert by["backend cann"].ok is True and by["backend cann"].found.startswith("ready: CANN toolkit")
    assert by["backend cann-cpu"].ok is True
    text = render(checks)
    assert "cann backend, builds: ready" in text and "cann backend, NPU runs: ready" in text
    assert "cann-cpu backend: ready" in text


def test_doctor_names_the_missing_bisheng(fake):
    from opkit.doctor import diagnose

    env = fake.env()
    env["PATH"] = env["PATH"].split(":", 1)[1]  # the toolkit installed, set_env.sh not sourced
    c = {c.name: c for c in diagnose(env)}["backend cann"]
    assert c.ok is False and "bisheng on PATH" in c.found and c.fix == f"source {fake.root.parent / 'set_env.sh'}"


def test_build_options_reach_the_project(tmp_path, fake):
    from opkit.backends import cann_project
    from opkit.spec import load

    pkg = package(tmp_path)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "util.h").write_text("#pragma once\n")
    (tmp_path / "extra.cpp").write_text("// extra host source\n")
    text = (pkg / "op.yaml").read_text() + \
        "build: {include_dirs: [../shared], sources: [../extra.cpp], defines: [USE_FAST=1], flags: [-Wno-unused]}\n"
    (pkg / "op.yaml").write_text(text)
    proj = cann_project.write_project(load(pkg), cann_env.find(fake.env()), vendor="acme", chips=["ascend910_9382"])
    host = (proj.root / "op_host" / "CMakeLists.txt").read_text()
    kernel = (proj.root / "op_kernel" / "CMakeLists.txt").read_text()
    shared = str((tmp_path / "shared").resolve())
    assert str((tmp_path / "extra.cpp").resolve()) in host and "${CMAKE_CURRENT_SOURCE_DIR}/axpy_relu_def.cpp" in host
    assert f"target_include_directories(cust_optiling PRIVATE {shared})" in host
    assert "target_compile_definitions(cust_op_proto PRIVATE USE_FAST=1)" in host
    assert f"-I{shared}" in kernel and "-DUSE_FAST=1" in kernel and "-Wno-unused" in kernel
    presets = json.loads((proj.root / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert presets["vendor_name"]["value"] == "acme" and presets["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910_93"
    assert json.loads((proj.root / "opkit-project.json").read_text())["files"]["op_kernel/axpy_relu.cpp"] == \
        str(pkg / "op_kernel" / "axpy_relu.cpp")
