"""The cann-cpu backend (CANN's CPU-debug mode) against the fake CANN tree's stand-in tikicpulib."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fake_cann import copy_package as package
from fake_cann import make_fake_cann, needs_cmake
from fake_cann import no_cann_env as bare_env
from fake_cann import run_opkit as opkit
from helpers import fresh_copy

from opkit.backends import cann_cpu
from opkit.backends.cann_cpu_runner import compare_outputs

pytestmark = needs_cmake


LAYOUTS = Path(__file__).resolve().parent / "fixtures" / "layouts"
OPTRANS = LAYOUTS / "optrans"


@pytest.fixture
def fake(tmp_path):
    return make_fake_cann(tmp_path / "cann")


def test_build_writes_a_cpu_debug_project_per_column(tmp_path, fake):
    pkg = package(tmp_path)
    r = opkit(["build", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "-j", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "built 3 CPU-debug executable(s) with CANN's tikicpulib" in r.stdout
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float16"
    assert (proj / "build" / "opkit_cpu_debug").is_file()
    cmake = (proj / "CMakeLists.txt").read_text()
    assert "target_link_libraries(opkit_cpu_debug PRIVATE tikicpulib::Ascend910B2)" in cmake
    assert '"DTYPE_X=half"' in cmake and "ASCENDC_CPU_DEBUG" in cmake
    assert str(pkg / "op_kernel" / "axpy_relu.cpp") in cmake  # the user's own kernel file, not a copy
    launcher = (proj / "launcher.cpp").read_text()
    assert ('extern "C" __global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, '
            "GM_ADDR tiling);") in launcher
    assert "ICPU_RUN_KF(axpy_relu, blocks, a[0], a[1], a[2], a[3], a[4]);" in launcher
    assert "SetKernelMode(AscendC::KernelMode::AIV_MODE)" in launcher


def test_verify_runs_the_cases_on_the_cpu_model(tmp_path, fake):
    pkg = package(tmp_path)
    out = tmp_path / "verify"
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--tags", "smoke", "--out",
               str(out), "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "6 passed, 0 failed, 0 errors" in r.stdout
    data = json.loads((out / "results.json").read_text())
    assert data["opkit"]["backend"] == "cann-cpu"
    import jsonschema

    from opkit.verify.report import schema_path

    jsonschema.validate(data, json.loads(schema_path().read_text()))
    assert len(fake.calls("tikicpulib")) == 6  # every run went through the CPU-debug executable
    assert not (out / "traces").exists()


def test_run_beside_the_simulator(tmp_path, fake):
    pkg = package(tmp_path)
    r = opkit(["run", str(pkg), "--backend", "cann-cpu", "--case", "tiny", "--soc", "ascend910b2", "--out",
               str(tmp_path / "o.npz"), "--beside-sim"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "CANN's CPU model beside opkit's simulator" in r.stdout
    assert "cann-cpu: fake tikicpulib: CPU-debug run" in r.stderr
    assert "ran on CANN's CPU model AxpyRelu" in r.stdout


def test_kernel_error_points_at_the_users_file(tmp_path, fake):
    pkg = package(tmp_path)
    kernel = pkg / "op_kernel" / "axpy_relu.cpp"
    lines = kernel.read_text().splitlines()
    lines.insert(12, "    FAKE_CANN_ERROR;")
    kernel.write_text("\n".join(lines) + "\n")
    r = opkit(["build", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "-j", "1"], fake.env())
    assert r.returncode == 1, r.stdout + r.stderr
    assert "CANN's CPU-debug build failed" in r.stderr
    assert "op_kernel/axpy_relu.cpp:13:" in r.stderr and "FAKE_CANN_ERROR" in r.stderr
    assert "Traceback" not in r.stderr


def test_refusals(tmp_path, fake):
    pkg = package(tmp_path)
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--perf"], fake.env())
    assert r.returncode == 2 and "--perf models times from the simulator's traces" in r.stderr
    r = opkit(["run", str(pkg), "--case", "tiny", "--out", str(tmp_path / "o.npz"), "--beside-sim"], fake.env())
    assert r.returncode == 2 and "--beside-sim compares CANN's CPU model with the simulator" in r.stderr
    no_lib = make_fake_cann(tmp_path / "nolib", tikicpulib=False)
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu"], no_lib.env())
    assert r.returncode == 2 and "missing tikicpulib (CPU-debug library)" in r.stderr
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu"], bare_env(tmp_path))
    assert r.returncode == 2 and "missing CANN toolkit" in r.stderr


def test_a_registered_tiling_class_gets_cann_s_kernel_side_struct(tmp_path, fake):
    """An ops-transformer-style kernel (REGISTER_TILING_DATA_CLASS, GET_TILING_DATA): the CPU-debug project gets
    the kernel-side struct and GET_TILING_DATA from the tiling-data step, included before the kernel as CANN's op
    project does, and the kernel runs on the CPU model against the fake CANN headers."""
    from opkit import sim

    tree = fresh_copy(OPTRANS, tmp_path / "optrans")
    pkg = tree / "demos" / "row_scale"
    out = tmp_path / "verify"
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--dtype", "float32", "--out",
               str(out), "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed, 0 failed, 0 errors" in r.stdout
    assert len(fake.calls("tikicpulib")) == 2
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float32"
    header = (proj / "tiling_data.h").read_text()
    assert "struct RowScaleTilingData {" in header and "#define GET_TILING_DATA(tiling_data, tiling_arg)" in header
    assert "OPKIT_TILING_DATA_TYPE" not in header  # CANN's macro, not the simulator's
    cmake = (proj / "CMakeLists.txt").read_text()
    assert f'COMPILE_OPTIONS "-include;{proj / "tiling_data.h"}"' in cmake
    # Only the package's own folders (and its include-alias tree) on the kernel's include path: CANN's headers
    # come from tikicpulib's target, never opkit's simulator or its build folder.
    includes = cmake.split("target_include_directories(opkit_cpu_debug PRIVATE ", 1)[1].split(")\n", 1)[0]
    assert str(sim.include_dir().parent) not in includes and ".opkit/sim" not in includes


def test_the_simulator_s_tiling_header_does_not_compile_against_the_fake(tmp_path, fake):
    """The check above can fail: the CPU-debug build given the simulator build's tiling header (or none) fails."""
    tree = fresh_copy(OPTRANS, tmp_path / "optrans")
    pkg = tree / "demos" / "row_scale"
    args = ["build", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "-j", "1"]
    r = opkit(args, fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float32"
    sim_style = "#define OPKIT_TILING_DATA_TYPE ::RowScaleTilingData\n"
    (proj / "tiling_data.h").write_text(sim_style)
    build = proj / "build"
    r = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert r.returncode != 0 and "the kernel sees opkit's simulator tiling header" in r.stdout + r.stderr
    (proj / "tiling_data.h").write_text("// no tiling-data step\n")
    r = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert r.returncode != 0 and "opkit_tiling_default_t__" in r.stdout + r.stderr


def test_a_template_kernel_runs_the_instantiation_its_tiling_key_selects(tmp_path, fake):
    """The template-kernel fixture of the simulator's tests: only the instantiation the tiling selects computes,
    every other one writes nothing, so a passing verify proves the launcher's dispatch."""
    from test_template_kernel import _package

    pkg = _package(tmp_path, 5, "5, 1")
    args = ["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--dtype", "float32", "-k",
            "tiny*", "--out", str(tmp_path / "v"), "-j", "1", "--workers", "1"]
    r = opkit(args, fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 failed, 0 errors" in r.stdout and len(fake.calls("tikicpulib")) >= 1
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float32"
    launcher = (proj / "launcher.cpp").read_text()
    # MODE is encoded by its index in the declaration (0, 2, 5 -> 0, 1, 2) in bits 0-1, RELU in bit 2.
    assert "case 6ULL: {  // MODE=5, RELU=1" in launcher and "&axpy_relu<5, true>;" in launcher
    assert "case 1ULL: {  // MODE=2, RELU=0" in launcher and "&axpy_relu<2, false>;" in launcher
    assert f'#include "{pkg / "op_kernel" / "axpy_relu.cpp"}"' in launcher  # the instantiations' unit
    cmake = (proj / "CMakeLists.txt").read_text()
    assert "add_executable(opkit_cpu_debug launcher.cpp)" in cmake
    # A tiling key no instantiation has (MODE=2 with RELU: key 5) stops the launcher with the keys it has; the
    # host tiling refuses that combination first (GET_TPL_TILING_KEY), so the executable is called directly.
    r = subprocess.run([str(proj / "build" / "opkit_cpu_debug"), "5", "1", "n", "n", "n", "z:0", "z:0"],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert "tiling key 5 has no kernel instantiation (the ASCENDC_TPL_SEL lists of AxpyRelu give the keys 1, 4, 6)" \
        in r.stderr
    bad = _package(tmp_path / "bad", 5, "2, 1")
    r = opkit([*args[:1], str(bad), *args[2:]], fake.env())
    assert r.returncode == 1 and "the combination (MODE=2, RELU=1) is in no ASCENDC_TPL_ARGS_SEL" in r.stdout


def test_a_template_kernel_reads_a_registered_tiling_class(tmp_path, fake):
    """Both together (the template tiling-key style and BEGIN_TILING_DATA_DEF): the launcher includes the generated
    tiling header before the kernel, whose instantiations it dispatches to (PAD from the tiling: 0 and 1)."""
    from test_fixture_layouts import template_key_leaky_clamp

    pkg = template_key_leaky_clamp(LAYOUTS / "msopgen" / "leaky_clamp", tmp_path / "leaky_clamp")
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--dtype", "float32", "--out",
               str(tmp_path / "v"), "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed, 0 failed, 0 errors" in r.stdout
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float32"
    launcher = (proj / "launcher.cpp").read_text()
    kernel = pkg / "op_kernel" / "leaky_clamp.cpp"
    assert launcher.index(f'#include "{proj / "tiling_data.h"}"') < launcher.index(f'#include "{kernel}"')
    assert "&leaky_clamp<false>;" in launcher and "&leaky_clamp<true>;" in launcher


@pytest.mark.parametrize("where", ["optrans/demos/cache_accum", "msopgen/complex_scale"])
def test_in_place_and_reference_outputs_are_written_back(tmp_path, fake, where):
    """cache_accum's output cache_ref is GE's reference form (the kernel gets the input cache's buffer for it);
    complex_scale writes its result into its input x. The launcher reads those inputs in and writes them back,
    and the outputs are read from them: without the write-back the golden would not match."""
    pkg = fresh_copy(LAYOUTS, tmp_path / "layouts") / where
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--tags", "smoke", "--out",
               str(tmp_path / "v"), "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 failed, 0 errors" in r.stdout and len(fake.calls("tikicpulib")) >= 2
    launcher = next((pkg / ".opkit" / "cann-cpu").glob("*/launcher.cpp")).read_text()
    if pkg.name == "cache_accum":  # the reference-form output has a parameter of its own, aliased to the input
        assert ("void cache_accum(GM_ADDR x, GM_ADDR cache, GM_ADDR y, GM_ADDR cache_ref, GM_ADDR workspace, "
                "GM_ADDR tiling);") in launcher
    else:  # the in-place output is no kernel parameter
        assert "void complex_scale(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling);" in launcher


API = LAYOUTS.parent / "api"
REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["list_sum", "list_scale"])
def test_list_tensors_run_on_the_cpu_model(tmp_path, fake, name):
    """A dynamic (list) input and output: the launcher builds each list's ListTensorDesc block in GmAlloc'd memory
    with the simulator harness's writer, and copies a list output back into a list of arrays."""
    pkg = package(tmp_path, API / name)
    out = tmp_path / "v"
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--out", str(out), "-j", "1",
               "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"pass {name}::three[float32@ascend910b2]" in r.stdout and "1 passed, 0 failed, 0 errors" in r.stdout
    assert len(fake.calls("tikicpulib")) == 1
    proj = pkg / ".opkit" / "cann-cpu" / "ascend910b2-float32"
    from opkit import sim

    writer = (sim.include_dir().parent / "host" / "list_tensor_block.h").read_text()
    assert (proj / cann_cpu.LIST_HEADER).read_text() == writer  # one writer for both backends
    assert '#include "opkit_list_tensor.h"' in (proj / "launcher.cpp").read_text()
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "--out", str(tmp_path / "w"),
               "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("broken,message", [
    ("(static_cast<uint64_t>(k) << 32)", "malformed list tensor: 1 tensors of 1 dims do not end at the data-pointer "
                                         "offset 56"),
    ("w[0] = w.size() * sizeof(uint64_t);", "data-pointer offset 7 (word 0) is not a multiple of 8"),
])
def test_a_list_block_laid_out_wrong_fails_in_the_kernel(tmp_path, fake, monkeypatch, broken, message):
    """The kernel decodes the block the launcher writes (ListTensorDesc): a writer that puts a wrong index or a wrong
    data-pointer offset into it makes the run fail with the decoder's message."""
    import numpy as np

    import opkit.ops
    from opkit.errors import OpkitError

    good = cann_cpu.list_tensor_writer()
    assert broken in good
    bad = good.replace(broken, {"(static_cast<uint64_t>(k) << 32)": "(static_cast<uint64_t>(k + 1) << 32)",
                                "w[0] = w.size() * sizeof(uint64_t);": "w[0] = w.size();"}[broken])
    monkeypatch.setattr(cann_cpu, "list_tensor_writer", lambda: bad)
    monkeypatch.setattr(os, "environ", fake.env())
    op = opkit.ops.load(package(tmp_path, API / "list_sum"), backend="cann-cpu", chip="ascend910b2")
    with pytest.raises(OpkitError, match="the kernel failed on CANN's CPU model") as exc:
        op(xs=[np.ones(64, np.float32)] * 3, scale=1.0)
    assert message in exc.value.message


def test_the_list_block_is_cann_s_layout(tmp_path):
    """list_tensor_block.h against the layout CANN documents for ListTensorDesc (the data-pointer offset; per tensor
    {uint32 dim, uint32 index, uint64 shape[dim]}; the data pointers), and its pointer-only form for rank 0."""
    import struct

    from opkit import sim

    src = tmp_path / "dump.cpp"
    src.write_text("""#include <cstdio>
#include "list_tensor_block.h"
static void dump(const std::vector<std::vector<int64_t>>& s, const std::vector<uint64_t>& p) {
    std::string e;
    for (uint64_t w : opkit::list_tensor::Block(s, p, &e)) std::printf("%llx ", (unsigned long long)w);
    std::printf("|%s\\n", e.c_str());
}
int main() {
    dump({{37, 64}, {130, 200}, {16, 16}}, {0x1000, 0x2000, 0x3000});
    dump({{}, {}}, {0x10, 0x20});
    dump({{4}, {4, 4}}, {0x10, 0x20});
}
""")
    subprocess.run(["g++", "-std=c++17", f"-I{sim.include_dir().parent / 'host'}", str(src), "-o",
                    str(tmp_path / "dump")], check=True)
    lines = subprocess.run([str(tmp_path / "dump")], capture_output=True, text=True, check=True).stdout.splitlines()

    def words(line: str) -> bytes:
        return b"".join(struct.pack("<Q", int(w, 16)) for w in line.split("|")[0].split())

    shapes = [(37, 64), (130, 200), (16, 16)]
    descs = b"".join(struct.pack("<IIQQ", 2, i, *s) for i, s in enumerate(shapes))
    assert words(lines[0]) == struct.pack("<Q", 8 + len(descs)) + descs + struct.pack("<QQQ", 0x1000, 0x2000, 0x3000)
    assert words(lines[1]) == struct.pack("<QIIQQQ", 24, 0, 2, 0xFFFFFFFF, 0x10, 0x20)
    assert lines[2] == "|the tensors of a dynamic input must have one rank (ListTensorDesc)"


def test_a_grouped_gemm_runs_on_the_cpu_model(tmp_path, fake):
    """ops/gmm/grouped_gemm: four list arguments (x, weight, bias, y), a cube kernel."""
    pkg = package(tmp_path, REPO / "ops" / "gmm" / "grouped_gemm")
    r = opkit(["verify", str(pkg), "--backend", "cann-cpu", "--soc", "ascend910b2", "-k", "transposed", "--dtype",
               "float16", "--out", str(tmp_path / "v"), "-j", "1", "--workers", "1"], fake.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pass grouped_gemm::transposed[float16-float32@ascend910b2]" in r.stdout and "1 passed" in r.stdout
    assert len(fake.calls("tikicpulib")) == 1


def test_python_api_takes_and_returns_lists_on_the_cpu_model(tmp_path, fake, monkeypatch):
    import numpy as np

    import opkit.ops

    monkeypatch.setattr(os, "environ", fake.env())
    scale = opkit.ops.load(package(tmp_path, API / "list_scale"), backend="cann-cpu", chip="ascend910b2")
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (16, 40, 8)]
    ys = scale(xs=xs, scale=-1.5)
    assert isinstance(ys, list) and [y.shape for y in ys] == [(16,), (40,), (8,)]
    for x, y in zip(xs, ys, strict=True):
        np.testing.assert_allclose(y, -1.5 * x, rtol=1e-6)


def test_compare_outputs():
    import numpy as np

    a = {"z": np.array([1.0, np.nan, 3.0], dtype=np.float32), "w": np.zeros(2)}
    b = {"z": np.array([1.0, np.nan, 3.5], dtype=np.float32), "w": np.zeros(3)}
    rows = {r["output"]: r for r in compare_outputs(a, b)}
    assert rows["z"]["differ"] == 1 and rows["z"]["max_abs_diff"] == 0.5
    assert rows["w"]["differ"] is None and "shapes [2] (cann-cpu) and [3] (sim)" in rows["w"]["note"]


def test_tikicpulib_chip_names():
    assert cann_cpu.tikicpulib_chip("ascend910b2") == "Ascend910B2"
    assert cann_cpu.tikicpulib_chip("ascend910_9382") == "Ascend910_9382"
    assert cann_cpu.tikicpulib_chip("ascend310p3") == "Ascend310P3"


def test_python_api_calls_the_kernel_on_the_cpu_model(tmp_path, fake, monkeypatch):
    """opkit.ops.load(..., backend="cann-cpu"): the call runs through the CPU-debug executable."""
    import numpy as np

    import opkit.ops

    monkeypatch.setattr(os, "environ", fake.env())
    pkg = package(tmp_path)
    op = opkit.ops.load(pkg, backend="cann-cpu", chip="ascend910b2")
    x = np.linspace(-2, 2, 4096, dtype=np.float32)
    y = np.linspace(1, -1, 4096, dtype=np.float32)
    z = op(x=x, y=y, alpha=0.5)
    assert np.allclose(z, np.maximum(x + 0.5 * y, 0), rtol=1e-6, atol=1e-6)
    assert len(fake.calls("tikicpulib")) == 1
    # a multi-rank operator is refused at load, with the reason (no HCCL server in CANN's CPU-debug library)
    from opkit.errors import UsageError

    mc2 = Path(__file__).resolve().parents[1] / "ops" / "mc2" / "matmul_all_reduce"
    with pytest.raises(UsageError, match=r"matmul_all_reduce is a multi-rank \(MC2\) operator: the cann-cpu backend "
                       r"does not run multi-rank operators \(CANN's CPU-debug library has no HCCL server"):
        opkit.ops.load(mc2, backend="cann-cpu", chip="ascend910b2")
