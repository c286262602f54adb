"""`opkit doctor` against fake environments: PATH holds fake executables that print versions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from opkit import doctor
from opkit.backends import cann_env
from opkit.doctor import Check, diagnose, parse_version, render, sim_ready

NPU_SMI_INFO = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 23.0.6                   Version: 23.0.6                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B2               | OK            | 93.5        40                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3397 / 65536         |
+===========================+===============+====================================================+
| 1     910B2               | OK            | 90.1        41                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3397 / 65536         |
+===========================+===============+====================================================+
"""

# A fake compiler: prints a version; "compiles" by writing an executable that prints what the
# real probe programs print. Behaviour is steered by variables baked into the script.
FAKE_CXX = '''
import os, sys
VERSION = {version!r}
FAIL_ALL = {fail_all!r}
FAIL_F16C = {fail_f16c!r}
SIGILL = {sigill!r}
args = sys.argv[1:]
if args == ["--version"]:
    print(VERSION)
    sys.exit(0)
if FAIL_ALL or (FAIL_F16C and "-mf16c" in args):
    print("cc1plus: error: unrecognized command-line option", file=sys.stderr)
    sys.exit(1)
out = args[args.index("-o") + 1]
body = "import os, signal\\nos.kill(os.getpid(), signal.SIGILL)\\n" if SIGILL and "-mf16c" in args else \\
    "print('c++17 ok'); print('f16c ok')\\n"
with open(out, "w") as fh:
    fh.write("#!" + sys.executable + "\\n" + body)
os.chmod(out, 0o755)
'''


def fake(bin_dir: Path, name: str, body: str) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    p = bin_dir / name
    p.write_text(f"#!{sys.executable}\n{body}")
    p.chmod(0o755)
    return p


def printer(text: str, rc: int = 0) -> str:
    return f"import sys\nsys.stdout.write({text!r})\nsys.exit({rc})\n"


def fake_cxx(bin_dir: Path, name: str = "g++", version: str = "g++ (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
             fail_all: bool = False, fail_f16c: bool = False, sigill: bool = False) -> Path:
    return fake(bin_dir, name, FAKE_CXX.format(version=version, fail_all=fail_all, fail_f16c=fail_f16c,
                                               sigill=sigill))


@pytest.fixture(autouse=True)
def no_default_toolkit(monkeypatch):
    """Never pick up a CANN installed on the machine running the tests."""
    monkeypatch.setattr(cann_env, "DEFAULT_TOOLKIT_DIRS", [])
    monkeypatch.setattr(doctor.platform, "machine", lambda: "x86_64")


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


@pytest.fixture
def cann(tmp_path) -> dict[str, str]:
    """A fake machine with a complete CANN install and an NPU."""
    root = tmp_path / "Ascend" / "ascend-toolkit"
    toolkit = root / "latest"
    (toolkit / "opp" / "vendors").mkdir(parents=True)
    (toolkit / "opp" / "vendors" / "config.ini").write_text("load_priority=customize\n")
    (toolkit / "opp" / "vendors" / "config.ini").chmod(0o644)
    (root / "set_env.sh").write_text("export ASCEND_HOME_PATH=...\n")
    (toolkit / "version.cfg").write_text(
        "runtime_running_version=[7.3.0.1.231:8.0.RC2]\ntoolkit_running_version=[7.3.0.1.231:8.0.RC2]\n")
    bin_dir = tmp_path / "bin"
    fake_cxx(bin_dir)
    fake(bin_dir, "cmake", printer("cmake version 3.22.1\n\nCMake suite maintained and supported by Kitware.\n"))
    fake(bin_dir, "bisheng", printer("BiSheng Enterprise 2.5.0.B040 clang version 15.0.5\n"))
    fake(bin_dir, "npu-smi", printer(NPU_SMI_INFO))
    fake(bin_dir, "msopgen", printer(""))
    return {"PATH": str(bin_dir), "HOME": str(tmp_path / "home"), "ASCEND_HOME_PATH": str(toolkit),
            "ASCEND_OPP_PATH": str(toolkit / "opp")}


def test_complete_cann_machine(cann):
    checks = diagnose(cann)
    c = by_name(checks)
    for name in ["Python", "C++17 compiler", "fast half conversions (-mf16c)", "cmake", "ASCEND_HOME_PATH",
                 "ASCEND_OPP_PATH", "CANN set_env.sh", "CANN toolkit version", "bisheng", "npu-smi", "msopgen"]:
        assert c[name].ok is True, (name, c[name])
    assert "g++ 11.4.0" in c["C++17 compiler"].found
    assert c["cmake"].found.startswith("cmake 3.22.1")
    version = c["CANN toolkit version"].found
    assert version.startswith("8.0.RC2 (from ") and "version.cfg" in version
    assert c["CANN set_env.sh"].found.endswith("ascend-toolkit/set_env.sh")
    assert "BiSheng Enterprise 2.5.0" in c["bisheng"].found
    assert "driver 23.0.6" in c["npu-smi"].found and "2 x 910B2 (opkit chip ascend910b2)" in c["npu-smi"].found
    backend = c["backend cann"]  # CANN 8.0.RC2 has no find_package(ASC) project modules
    assert backend.ok is False and backend.found == "not ready: missing CANN operator-project CMake"
    assert "CANN 8.5 or newer" in backend.fix
    assert c["backend sim"].ok is True and c["backend cann-cpu"].ok is False
    assert sim_ready(checks)
    text = render(checks)
    assert "cann backend, builds: NOT ready (missing CANN operator-project CMake; see above)" in text
    assert "sim backend: ready" in text


def test_bare_machine_without_anything(tmp_path):
    checks = diagnose({"PATH": str(tmp_path / "empty")})
    c = by_name(checks)
    cxx = c["C++17 compiler"]
    assert cxx.ok is False and "no C++ compiler" in cxx.found
    assert "sim backend" in cxx.blocks and "g++" in cxx.fix
    assert c["fast half conversions (-mf16c)"].ok is None
    # Without any CANN, its pieces are optional, not failures; each says what it would block.
    for name in ["cmake", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "CANN set_env.sh", "CANN toolkit version", "bisheng",
                 "npu-smi", "msopgen"]:
        assert c[name].ok is None, (name, c[name])
    assert "NPU builds" in c["bisheng"].blocks and "install the CANN toolkit" in c["bisheng"].fix
    assert not sim_ready(checks)
    assert "sim backend: NOT ready" in render(checks)


def test_compiler_with_only_cann_missing_is_sim_ready(tmp_path):
    fake_cxx(tmp_path / "bin", "clang++", version="Ubuntu clang version 14.0.0-1ubuntu1.1")
    checks = diagnose({"PATH": str(tmp_path / "bin")})
    c = by_name(checks)
    assert c["C++17 compiler"].ok and "clang 14.0.0" in c["C++17 compiler"].found
    assert sim_ready(checks) and "NPU builds" in c["CANN toolkit version"].blocks


def test_doctor_and_build_share_compiler_discovery(tmp_path):
    # clang 9 is too old for the simulator's headers: doctor says so with the build's own minimum,
    # and both walk the same candidates ($CXX first, one binary listed once).
    from opkit.build.toolchain import MIN_CLANG, compiler_candidates

    clang = fake_cxx(tmp_path / "bin", "clang++", version="clang version 9.0.1")
    c = by_name(diagnose({"PATH": str(tmp_path / "bin")}))["C++17 compiler"]
    assert c.ok is False and f"needs clang {MIN_CLANG} or newer" in c.found
    env = {"PATH": str(tmp_path / "bin"), "CXX": f"{clang} -O2"}
    assert compiler_candidates(env) == [(str(clang), "$CXX")]


def test_old_gcc_is_refused_and_a_newer_cxx_is_used(tmp_path):
    bin_dir = tmp_path / "bin"
    fake_cxx(bin_dir, "g++", version="g++ (GCC) 8.5.0 20210514 (Red Hat 8.5.0-4)")
    c = by_name(diagnose({"PATH": str(bin_dir)}))["C++17 compiler"]
    assert c.ok is False and "g++ 8.5.0" in c.found and "too old (needs g++ 9 or newer" in c.found
    assert "g++-11" in c.fix
    newer = fake_cxx(tmp_path / "other", "g++-12", version="g++-12 (Debian 12.2.0-14) 12.2.0")
    c = by_name(diagnose({"PATH": str(bin_dir), "CXX": str(newer)}))["C++17 compiler"]
    assert c.ok is True and "g++ 12.2.0" in c.found and "from $CXX" in c.found


def test_unusable_cxx_is_named_when_another_compiler_is_used(tmp_path):
    fake_cxx(tmp_path / "bin")
    old = fake_cxx(tmp_path / "old", "g++-7", version="g++-7 (Ubuntu 7.5.0-6ubuntu2) 7.5.0")
    c = by_name(diagnose({"PATH": str(tmp_path / "bin"), "CXX": str(old)}))["C++17 compiler"]
    assert c.ok is True and c.found.startswith("g++ 11.4.0") and "not used: g++ 7.5.0" in c.found


def test_custom_opp_path_entries_must_be_absolute_and_exist(tmp_path, cann):
    assert "ASCEND_CUSTOM_OPP_PATH" not in by_name(diagnose(cann))
    vendor = tmp_path / "vendors" / "mine"
    vendor.mkdir(parents=True)
    c = by_name(diagnose(dict(cann, ASCEND_CUSTOM_OPP_PATH=str(vendor))))["ASCEND_CUSTOM_OPP_PATH"]
    assert c.ok is True
    c = by_name(diagnose(dict(cann, ASCEND_CUSTOM_OPP_PATH=f"{vendor}:vendors/x:{tmp_path}/gone")))
    c = c["ASCEND_CUSTOM_OPP_PATH"]
    assert c.ok is False and "'vendors/x' is relative" in c.found and "gone' is missing" in c.found


def test_compiler_that_cannot_build_cxx17(tmp_path):
    fake_cxx(tmp_path / "bin", fail_all=True)
    checks = diagnose({"PATH": str(tmp_path / "bin")})
    c = by_name(checks)["C++17 compiler"]
    assert c.ok is False and "does not compile with -std=c++17: cc1plus: error" in c.found
    assert not sim_ready(checks)


@pytest.mark.parametrize("kw,expected", [
    ({"fail_f16c": True}, "does not compile with -std=c++17 -O1 -mf16c"),
    ({"sigill": True}, "the program fails: killed by signal 4"),
])
def test_f16c_unavailable_is_reported_not_fatal(tmp_path, kw, expected):
    fake_cxx(tmp_path / "bin", **kw)
    checks = diagnose({"PATH": str(tmp_path / "bin")})
    c = by_name(checks)
    f16c = c["fast half conversions (-mf16c)"]
    assert f16c.ok is None and expected in f16c.found and "software conversions" in f16c.blocks
    assert c["C++17 compiler"].ok is True and sim_ready(checks)


def test_f16c_not_applicable_off_x86(tmp_path, monkeypatch):
    monkeypatch.setattr(doctor.platform, "machine", lambda: "aarch64")
    fake_cxx(tmp_path / "bin")
    f16c = by_name(diagnose({"PATH": str(tmp_path / "bin")}))["fast half conversions (-mf16c)"]
    assert f16c.ok is None and "not applicable on aarch64" in f16c.found


def test_old_cmake_matters_once_cann_is_in_use(tmp_path, cann):
    fake(tmp_path / "bin", "cmake", printer("cmake version 3.16.3\n"))
    c = by_name(diagnose(cann))["cmake"]
    assert c.ok is False and "cmake 3.16.3" in c.found and "older than 3.19" in c.found and "cann backend" in c.blocks
    bare = by_name(diagnose({"PATH": str(tmp_path / "bin")}))["cmake"]
    assert bare.ok is None and "3.16.3" in bare.found


def test_cann_environment_problems(tmp_path, cann):
    env = dict(cann, ASCEND_HOME_PATH=str(tmp_path / "nowhere"), ASCEND_OPP_PATH=str(tmp_path / "noopp"))
    c = by_name(diagnose(env))
    assert c["ASCEND_HOME_PATH"].ok is False and "no such directory" in c["ASCEND_HOME_PATH"].found
    assert c["ASCEND_OPP_PATH"].ok is False and "noopp (no such directory)" in c["ASCEND_OPP_PATH"].found
    # No toolkit found any more: its files cannot be checked, and the tools on PATH still are.
    assert c["CANN toolkit version"].ok is False and c["bisheng"].ok is True


def test_toolkit_installed_but_environment_not_sourced(tmp_path, cann, monkeypatch):
    toolkit = cann["ASCEND_HOME_PATH"]
    monkeypatch.setattr(cann_env, "DEFAULT_TOOLKIT_DIRS", [toolkit])
    (tmp_path / "bin" / "bisheng").unlink()
    bisheng = Path(toolkit) / "compiler" / "ccec_compiler" / "bin" / "bisheng"
    fake(bisheng.parent, "bisheng", printer("bisheng clang version 15.0.5\n"))
    env = {"PATH": cann["PATH"], "HOME": cann["HOME"]}
    c = by_name(diagnose(env))
    home = c["ASCEND_HOME_PATH"]
    assert home.ok is False and f"a toolkit is installed at {toolkit}" in home.found
    assert home.fix == f"source {Path(toolkit).parent / 'set_env.sh'}"
    assert c["ASCEND_OPP_PATH"].ok is False  # CANN is there, so a missing variable is a real problem
    assert c["CANN toolkit version"].ok is True and "default location" in c["CANN toolkit version"].found
    assert c["bisheng"].ok is True and "not on PATH" in c["bisheng"].found


def test_version_from_install_info_and_missing_version(tmp_path, cann):
    toolkit = Path(cann["ASCEND_HOME_PATH"])
    (toolkit / "version.cfg").unlink()
    info = toolkit / "x86_64-linux" / "ascend_toolkit_install.info"
    info.parent.mkdir()
    info.write_text("package_name=Ascend-cann-toolkit\nversion=8.1.RC1\ninnerversion=V100R001C21\narch=x86_64\n")
    c = by_name(diagnose(cann))["CANN toolkit version"]
    assert c.ok is True and c.found.startswith("8.1.RC1 (from ") and "ascend_toolkit_install.info" in c.found
    info.unlink()
    (toolkit / "version.info").write_text("Version=8.5.0\n")
    c = by_name(diagnose(cann))["CANN toolkit version"]
    assert c.ok is True and c.found.startswith("8.5.0 (from ") and "version.info" in c.found
    (toolkit / "version.info").unlink()
    c = by_name(diagnose(cann))["CANN toolkit version"]
    assert c.ok is False and "neither version.cfg nor" in c.found


def test_unreadable_vendor_config_is_flagged(cann):
    cfg = Path(cann["ASCEND_OPP_PATH"]) / "vendors" / "config.ini"
    cfg.chmod(0o640)
    c = by_name(diagnose(cann))["ASCEND_OPP_PATH"]
    assert c.ok is False and "not readable by other users" in c.found and c.fix.startswith("chmod o+r")


def test_npu_smi_failing_or_listing_nothing(tmp_path, cann):
    fake(tmp_path / "bin", "npu-smi", printer("dcmi module initialize failed. ret is -8005\n", rc=255))
    c = by_name(diagnose(cann))["npu-smi"]
    assert c.ok is False and "dcmi module initialize failed" in c.found
    fake(tmp_path / "bin", "npu-smi", printer("+----+\n| NPU   Name | Health |\n"))
    c = by_name(diagnose(cann))["npu-smi"]
    assert c.ok is False and "no NPU listed" in c.found


def test_unknown_chip_names_are_shown_as_such(tmp_path, cann):
    fake(tmp_path / "bin", "npu-smi", printer(NPU_SMI_INFO.replace("910B2", "910X9")))
    assert "2 x 910X9 (no opkit chip data)" in by_name(diagnose(cann))["npu-smi"].found


@pytest.mark.parametrize("versions,ok,expected", [
    ({}, None, "not installed"),
    ({"torch": "2.5.1+cpu"}, None, "torch_npu not installed"),
    ({"torch_npu": "2.5.1.post1"}, False, "torch_npu 2.5.1.post1 without torch"),
    ({"torch": "2.4.0", "torch_npu": "2.5.1.post1"}, False, "which is built for torch 2.5.1"),
    ({"torch": "2.5.1", "torch_npu": "2.5.1.post1"}, True, "torch 2.5.1, torch_npu 2.5.1.post1"),
])
def test_torch_npu_must_match_torch(versions, ok, expected):
    c = doctor.check_torch(versions.get)
    assert c.ok is ok and expected in c.found
    if ok is False:
        assert c.fix.startswith("pip install torch==2.5.1")


def test_python_version_rule():
    assert doctor.check_python((3, 9, 18)).ok is False
    assert "Python 3.9.18" in doctor.check_python((3, 9, 18)).found
    assert doctor.check_python((3, 10, 0)).ok is True


@pytest.mark.parametrize("text,expected", [
    ("g++ (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", (11, 4, 0)),
    ("cmake version 3.25.1", (3, 25, 1)),
    ("Ubuntu clang version 14.0.0-1ubuntu1.1", (14, 0, 0)),
    ("x86_64-linux-gnu-g++-9 (Ubuntu 9.4.0) 9.4.0", (9, 4, 0)),
    ("no digits", None),
])
def test_parse_version(text, expected):
    assert parse_version(text) == expected


def test_this_machine_gives_a_complete_report(monkeypatch):
    monkeypatch.undo()  # the real machine, real defaults
    checks = diagnose()
    names = [c.name for c in checks]
    assert names[:4] == ["Python", "C++17 compiler", "fast half conversions (-mf16c)", "cmake"]
    assert names[-4:] == ["backend sim", "backend cann", "backend cann (NPU runs)", "backend cann-cpu"]
    assert all(c.ok is not False or (c.blocks and c.fix) for c in checks)
