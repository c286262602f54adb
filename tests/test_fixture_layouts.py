"""Operator folders in the layouts Ascend developers already have build and verify unmodified.

The fixtures (tests/fixtures/layouts/) are operators of our own in ops-transformer's layout (tiling in
op_host/op_tiling/, a tiling base class and shared sources in the library's common/, an include
prefix that differs from the folder, aclnn files in op_host/ that must be left out) and in msOpGen's
(op_host/<op>.cpp + op_host/<op>_tiling.h with BEGIN_TILING_DATA_DEF). None of their C++ has a line
for opkit: the kernels call GET_TILING_DATA without REGISTER_TILING_DEFAULT.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import fresh_copy

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parent / "fixtures" / "layouts"
CHIP = "ascend910b2"


@pytest.fixture(scope="module")
def layouts(tmp_path_factory) -> Path:
    return fresh_copy(FIXTURES, tmp_path_factory.mktemp("layouts"))


def _copy(src: Path, dst: Path) -> None:
    """A fresh copy of a fixture: without the build output an earlier test left in it."""
    fresh_copy(src, dst)


def _tiling_keys(pkg: Path) -> set[int]:
    """The tiling key each case of the package ran with, in its first dtype column."""
    from opkit.run.inputs import make_inputs
    from opkit.run.sim_runner import SimRunner
    from opkit.spec import load

    spec = load(pkg)
    runner = SimRunner(jobs=1)
    return {runner.run(spec, case, case.columns[0], CHIP, make_inputs(spec, case, case.columns[0])).info["tiling_key"]
            for case in spec.cases}


@pytest.mark.parametrize("pkg, keys", [
    ("optrans/demos/row_scale", {100, 200}),
    ("optrans/demos/sq_diff", {1, 2}),
    ("msopgen/leaky_clamp", {1, 2}),
    ("msopgen/complex_scale", {0}),  # complex64, written in place (no output in its OpDef)
    ("optrans/demos/cache_accum", {0}),  # an output in GE's reference form, '#if ORIG_DTYPE_X == DT_FLOAT16'
    ("msopgen/mm_bias", set(range(1, 9))),  # CANN's Matmul sample style: bias and both transposes by tiling key
    ("msopgen/mm_leaky_relu", {1}),  # the fused style: Iterate + GetTensorC to VECIN + a vector epilogue, mix kernel
])
def test_layout_fixture_builds_and_verifies(cli, layouts, tmp_path, pkg, keys):
    code, out, err = cli("verify", layouts / pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0, out + err
    assert "0 failed, 0 errors" in out and "simulator warning" not in out, out
    results = json.loads((tmp_path / "v" / "results.json").read_text())
    assert {c["status"] for c in results["cases"]} == {"pass"}
    assert _tiling_keys(layouts / pkg) == keys  # every tiling-key path of the fixture is covered


def test_aclnn_and_graph_files_are_left_out_unless_asked(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "row_scale"
    text = (pkg / "op.yaml").read_text()
    (pkg / "op.yaml").write_text(text.replace("  sources:", "  host_exclude: [op_api]\n  sources:"))
    code, out, err = cli("build", pkg, "--soc", CHIP, "-j", "1")
    assert code != 0
    assert "fallback_row_scale.cpp" in out + err and "fallback/fallback_comm.h" in out + err
    assert "Traceback" not in out + err


def test_missing_build_paths_are_one_clear_message(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "sq_diff"
    text = (pkg / "op.yaml").read_text()
    text = text.replace("[../../common/include]", "[../../common/inc]").replace("shape_utils.cpp", "nope_*.cpp")
    (pkg / "op.yaml").write_text(text)
    code, out, err = cli("build", pkg, "--soc", CHIP)
    assert code != 0 and "Traceback" not in out + err
    msg = out + err
    assert "build.include_dirs[0]" in msg and "'../../common/inc' does not exist" in msg
    assert "build.sources[0]" in msg and "matches no file" in msg


def test_include_environment_and_options_are_in_the_cache_key(layouts, monkeypatch):
    from opkit.build import sim_backend
    from opkit.spec import load

    spec = load(layouts / "optrans" / "demos" / "sq_diff")
    base = sim_backend.plan(spec, CHIP, 0).exe
    monkeypatch.setenv("CPLUS_INCLUDE_PATH", str(layouts))
    assert sim_backend.plan(spec, CHIP, 0).exe != base
    monkeypatch.delenv("CPLUS_INCLUDE_PATH")
    assert sim_backend.plan(spec, CHIP, 0).exe == base
    shared = layouts / "optrans" / "common" / "src" / "shape_utils.cpp"
    old = shared.read_text()
    shared.write_text(old + "\n// changed\n")
    try:
        assert sim_backend.plan(spec, CHIP, 0).exe != base  # an extra source outside the package
    finally:
        shared.write_text(old)
    with_define = type(spec.build)(**{**spec.build.__dict__, "defines": ("SQ_DIFF_TRACE=1",)})
    spec.build = with_define
    changed = sim_backend.plan(spec, CHIP, 0)
    assert changed.exe != base and all("-DSQ_DIFF_TRACE=1" in u.flags for u in changed.units if "host-" in u.obj.name)
    spec.build = type(spec.build)(**{**spec.build.__dict__, "defines": ()})
    header = layouts / "optrans" / "common" / "include" / "fixture_base" / "tiling_flow.h"
    os.utime(header)  # a touch without a change rebuilds nothing
    assert sim_backend.plan(spec, CHIP, 0).exe == base


def test_without_infershape_output_shapes_come_from_op_yaml(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "sq_diff"
    (pkg / "op_host" / "sq_diff_infershape.cpp").unlink()
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0 and "0 failed, 0 errors" in out, out + err
    code, out, err = cli("build", pkg, "--soc", CHIP)
    assert code == 0, out + err
    text = (pkg / "op.yaml").read_text()
    (pkg / "op.yaml").write_text(text.replace("{name: z, dtypes: [float16, float32], shape: [...N]}",
                                              "{name: z, dtypes: [float16, float32]}"))
    code, out, err = cli("build", pkg, "--soc", CHIP)
    assert code != 0 and "Traceback" not in out + err
    assert "infershape function: not registered" in out + err and "outputs ['z']: no 'shape'" in out + err


def test_a_soc_the_simulator_does_not_model_is_skipped_with_a_note(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "sq_diff"
    d = pkg / "op_host" / "sq_diff_def.cpp"
    d.write_text(d.read_text().replace('AddConfig("ascend910b");', 'AddConfig("ascend910_95");\n'
                                       '        this->AICore().AddConfig("ascend910b");'))
    text = (pkg / "op.yaml").read_text()
    (pkg / "op.yaml").write_text(text.replace("socs: [ascend910b]", "socs: [ascend910_95, ascend910b]"))
    code, out, err = cli("build", pkg, "-j", "1")
    assert code == 0, out + err
    assert "skipping ascend910_95 (registered, not modelled by the simulator)" in out
    assert "op.yaml matches the OpDef" in out
    code, out, err = cli("verify", pkg, "-j", "1", "--out", tmp_path / "v")
    assert code == 0 and "0 failed, 0 errors" in out and "@ascend910b2" in out, out + err
    code, out, err = cli("verify", pkg, "--soc", "ascend910_95", "--out", tmp_path / "v2")
    assert code != 0 and "Traceback" not in out + err
    assert "the simulator does not model ascend910_95" in out + err
    from opkit.listing import list_packages

    rows = {r.name: r for r in list_packages(tmp_path / "optrans")}
    assert rows["sq_diff"].socs == "ascend910b, ascend910_95 (not modelled)"


def test_a_kernel_with_its_own_tiling_struct_gets_none_generated(cli, layouts, tmp_path):
    """flash_attention_score_grad's way: the kernel defines structs under the host classes' names and
    names its default with REGISTER_TILING_DEFAULT; generating them too would define them twice."""
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "sq_diff"
    (pkg / "op_kernel" / "sq_diff_tiling_data.h").write_text(
        "#pragma once\n#include <cstdint>\n"
        "struct SqDiffTilingData {\n    int64_t total;\n    int64_t perCore;\n    int32_t tile;\n"
        "    uint8_t reserved[2];\n};\n")
    k = pkg / "op_kernel" / "sq_diff.cpp"
    text = k.read_text().replace('#include "sq_diff_tiling_key.h"', '#include "sq_diff_tiling_key.h"\n'
                                 '#include "sq_diff_tiling_data.h"')
    k.write_text(text.replace("    GET_TILING_DATA(tilingData, tiling);",
                              "    REGISTER_TILING_DEFAULT(SqDiffTilingData);\n    GET_TILING_DATA(tilingData, tiling);"))
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0 and "0 failed, 0 errors" in out, out + err
    assert not list((pkg / ".opkit" / "sim" / "gen").glob("tiling-*.h"))


def test_another_architectures_entry_with_its_own_tiling_struct_changes_nothing(cli, layouts, tmp_path):
    """moe_finalize_routing_v2's way: op_kernel/ also holds the entry of another architecture
    (<op>_apt.cpp) that declares its own struct with REGISTER_TILING_DEFAULT; the entry built here
    does not include it, so its structs are still generated."""
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "sq_diff"
    (pkg / "op_kernel" / "sq_diff_apt.cpp").write_text(
        '#include "kernel_operator.h"\nstruct SqDiffRegbaseTilingData { int64_t total; };\n'
        'extern "C" __global__ __aicore__ void sq_diff_apt(GM_ADDR tiling)\n'
        "{\n    REGISTER_TILING_DEFAULT(SqDiffRegbaseTilingData);\n    GET_TILING_DATA(t, tiling);\n}\n")
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0 and "0 failed, 0 errors" in out, out + err
    assert list((pkg / ".opkit" / "sim" / "gen").glob("tiling-*.h"))


TPL_KEY_HEADER = """\
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
ASCENDC_TPL_ARGS_DECL(LeakyClamp, ASCENDC_TPL_BOOL_DECL(PAD, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_BOOL_SEL(PAD, 0, 1)));
"""


def template_key_leaky_clamp(src: Path, dst: Path) -> Path:
    """A copy at ``dst`` of the msopgen leaky_clamp fixture ``src`` in the template tiling-key style (ASCENDC_TPL_*,
    GET_TPL_TILING_KEY on the host, a ``template <bool PAD>`` kernel entry) beside its BEGIN_TILING_DATA_DEF class."""
    pkg = fresh_copy(src, dst)
    (pkg / "op_kernel" / "leaky_clamp_tiling_key.h").write_text(TPL_KEY_HEADER)
    host = pkg / "op_host" / "leaky_clamp.cpp"
    text = host.read_text().replace('#include "leaky_clamp_tiling.h"',
                                    '#include "leaky_clamp_tiling.h"\n#include "../op_kernel/leaky_clamp_tiling_key.h"')
    host.write_text(text.replace("context->SetTilingKey(tail ? KEY_TAIL : KEY_ALIGNED);",
                                 "context->SetTilingKey(GET_TPL_TILING_KEY(tail ? 1 : 0));"))
    kernel = pkg / "op_kernel" / "leaky_clamp.cpp"
    text = kernel.read_text().replace('#include "kernel_operator.h"',
                                      '#include "kernel_operator.h"\n#include "leaky_clamp_tiling_key.h"')
    start = text.index('extern "C"')
    kernel.write_text(text[:start] + (
        "template <bool PAD>\n"
        "__global__ __aicore__ void leaky_clamp(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)\n"
        "{\n    GET_TILING_DATA(tilingData, tiling);\n    LeakyClampKernel<DTYPE_X, PAD> op;\n"
        "    op.Init(x, y, tilingData);\n    op.Process();\n}\n"))
    return pkg


def test_a_template_kernel_reads_a_macro_defined_tiling_class(cli, layouts, tmp_path):
    """The template tiling-key style (ASCENDC_TPL_*) and BEGIN_TILING_DATA_DEF together: both come from
    the host-only harness's describe."""
    pkg = template_key_leaky_clamp(layouts / "msopgen" / "leaky_clamp", tmp_path / "leaky_clamp")
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--out", tmp_path / "v")
    assert code == 0 and "0 failed, 0 errors" in out and "simulator warning" not in out, out + err
    assert _tiling_keys(pkg) == {0, 1}


def test_adopt_names_a_reference_form_output_after_the_kernel_parameter(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "cache_accum"
    (pkg / "op.yaml").unlink()
    code, out, err = cli("adopt", pkg, "-I", tmp_path / "optrans" / "common" / "include",
                         "--source", tmp_path / "optrans" / "common" / "src" / "shape_utils.cpp")
    assert code == 0, out + err
    from opkit.spec import load

    spec = load(pkg)
    assert [(o.name, o.ref) for o in spec.outputs] == [("y", None), ("cache_ref", "cache")]
    assert spec.attrs[0].name == "scale" and spec.attrs[0].default == 2.0


def test_a_reference_form_output_must_keep_its_inputs_shape(cli, layouts, tmp_path):
    _copy(layouts / "optrans", tmp_path / "optrans")
    pkg = tmp_path / "optrans" / "demos" / "cache_accum"
    infer = pkg / "op_host" / "cache_accum_infershape.cpp"
    infer.write_text(infer.read_text().replace("*context->GetOutputShape(1) = *context->GetInputShape(1);",
                                               "*context->GetOutputShape(1) = *context->GetInputShape(0);"))
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "-k", "partial", "--out", tmp_path / "v")
    assert code != 0 and "Traceback" not in out + err
    assert "output 'cache' is input 'cache' (GE's reference form), of shape [12, 40], but InferShape gives [5, 40]" \
        in out + err


def test_a_matmul_tiling_the_chip_cannot_hold_is_one_clear_message(cli, layouts, tmp_path):
    # A fixed baseN of 512 with a bias: 512 float32 bias values do not fit the 1 KiB BiasTable, so
    # MultiCoreMatmulTiling::GetTiling returns -1 (as CANN's does) and says why.
    _copy(layouts / "msopgen" / "mm_leaky_relu", tmp_path / "mm_leaky_relu")
    pkg = tmp_path / "mm_leaky_relu"
    host = pkg / "op_host" / "mm_leaky_relu.cpp"
    host.write_text(host.read_text().replace("BASE_N = 128;", "BASE_N = 512;"))
    code, out, err = cli("verify", pkg, "--soc", CHIP, "-j", "1", "--tags", "smoke", "--out", tmp_path / "v")
    msg = out + err
    assert code != 0 and "Traceback" not in msg
    assert "returned ge::GRAPH_FAILED" in msg
    assert "matmul_tiling::GetTiling: baseN 512: 512 float32 bias values exceed the BiasTable (1024 B)" in msg
