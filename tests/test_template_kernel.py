"""Kernels in the template tiling-key style: `template <...> __global__ __aicore__ void op(...)`.

The package is the vector template's instance with its kernel turned into a function template of
two parameters declared with ASCENDC_TPL_ARGS_DECL; only the instantiation the tiling selects
computes the op, every other one writes zeros, so a passing verify proves the dispatch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import fresh_copy

from opkit.build import kernel_entry
from opkit.build.toolchain import BuildError
from opkit.spec import load

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
CHIP = "ascend910b2"

KEY_HEADER = """\
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
ASCENDC_TPL_ARGS_DECL(AxpyRelu, ASCENDC_TPL_UINT_DECL(MODE, 2, ASCENDC_TPL_UI_LIST, 0, 2, 5),
                      ASCENDC_TPL_BOOL_DECL(RELU, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 0, 5),
                                     ASCENDC_TPL_BOOL_SEL(RELU, 1)),
                ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 2),
                                     ASCENDC_TPL_BOOL_SEL(RELU, 0)));
"""

KERNEL = """\
#include "axpy_relu.h"
#include "axpy_relu_tiling_key.h"

template <uint32_t MODE, bool RELU>
__global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    REGISTER_TILING_DEFAULT(AxpyReluTilingData);
    GET_TILING_DATA_WITH_STRUCT(AxpyReluTilingData, tilingData, tiling);
    (void)workspace;
    if constexpr (MODE == %(mode)s && RELU) {
        AxpyReluKernel::AxpyRelu<DTYPE_X> op;
        op.Init(x, y, z, tilingData);
        op.Process();
    } else {
        (void)x; (void)y; (void)z;  // the wrong instantiation computes nothing: verify would fail
    }
}
"""


def _package(root: Path, mode: int, key_values: str) -> Path:
    pkg = root / "axpy_relu"
    fresh_copy(ROOT / "ops" / "examples" / "axpy_relu", pkg)
    (pkg / "op_kernel" / "axpy_relu_tiling_key.h").write_text(KEY_HEADER)
    (pkg / "op_kernel" / "axpy_relu.cpp").write_text(KERNEL % {"mode": mode})
    tiling = pkg / "op_host" / "axpy_relu_tiling.cpp"
    text = tiling.read_text()
    text = text.replace('#include "../op_kernel/axpy_relu_tiling_data.h"',
                        '#include "../op_kernel/axpy_relu_tiling_data.h"\n#include "../op_kernel/axpy_relu_tiling_key.h"')
    assert text.count("    return ge::GRAPH_SUCCESS;\n}") == 1
    text = text.replace("    return ge::GRAPH_SUCCESS;\n}",
                        f"    context->SetTilingKey(GET_TPL_TILING_KEY({key_values}));\n    return ge::GRAPH_SUCCESS;\n}}")
    tiling.write_text(text)
    return pkg


def test_template_kernel_is_recognised(tmp_path):
    pkg = _package(tmp_path, 5, "5, 1")
    assert kernel_entry.is_template_kernel(load(pkg))
    assert not kernel_entry.is_template_kernel(load(ROOT / "ops" / "examples" / "axpy_relu"))


def test_instantiations_follow_the_selections(tmp_path):
    spec = load(_package(tmp_path, 5, "5, 1"))
    described = {"tiling_key_templates": [{
        "op_type": "AxpyRelu",
        "params": [{"name": "MODE", "type": "uint", "bit_width": 2, "values": [0, 2, 5]},
                   {"name": "RELU", "type": "bool", "bit_width": 1, "values": [0, 1]}],
        "selections": [[{"name": "MODE", "type": "uint", "values": [0, 5]}, {"name": "RELU", "type": "bool", "values": [1]}],
                       [{"name": "MODE", "type": "uint", "values": [2]}, {"name": "RELU", "type": "bool", "values": [0]},
                        {"name": "kernel_type", "type": "kernel_type", "values": [2]}]]}]}
    # MODE is encoded by its index in the declaration (0, 1, 2) in bits 0-1, RELU in bit 2.
    assert kernel_entry.instantiations(spec, described) == [(1, [2, 0]), (4, [0, 1]), (6, [5, 1])]
    src = kernel_entry.shim_source(spec, described)
    assert "&axpy_relu<5, true>" in src and "case 6ULL:" in src and "no kernel instantiation" in src
    with pytest.raises(BuildError, match="no ASCENDC_TPL_ARGS_DECL\\(AxpyRelu"):
        kernel_entry.instantiations(spec, {"tiling_key_templates": []})


def test_template_kernel_builds_and_verifies(cli, tmp_path):
    pkg = _package(tmp_path, 5, "5, 1")
    code, out, err = cli("verify", str(pkg), "--soc", CHIP, "-k", "tiny*", "--out", tmp_path / "v")
    assert code == 0, out + err
    gen = list((pkg / ".opkit" / "sim" / "gen").glob("entry-*.cpp"))
    assert gen and all("switch (tiling_key)" in g.read_text() for g in gen)


def test_wrong_instantiation_fails_verify(cli, tmp_path):
    # The tiling picks MODE=0: that instantiation exists but computes nothing, so z is never written.
    pkg = _package(tmp_path, 5, "0, 1")
    code, out, err = cli("verify", str(pkg), "--soc", CHIP, "-k", "tiny*", "--dtype", "float32", "--out", tmp_path / "v")
    assert code != 0 and "unwritten output" in out + err and "output 'z' were never written" in out + err


def test_template_kernel_without_declaration_is_a_clear_error(cli, tmp_path):
    pkg = _package(tmp_path, 5, "5, 1")
    (pkg / "op_kernel" / "axpy_relu_tiling_key.h").write_text(
        "#pragma once\n#define GET_TPL_TILING_KEY(...) 0ULL\n")
    code, out, err = cli("build", str(pkg), "--soc", CHIP)
    assert code != 0 and "Traceback" not in err
    assert "is a function template, but the host sources register no ASCENDC_TPL_ARGS_DECL(AxpyRelu" in out + err
