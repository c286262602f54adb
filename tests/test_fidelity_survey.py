"""benchmarks/fidelity_survey.py's classification: a folder counts as Matmul or HCCL by what its kernel
really compiles, its own op_kernel/ sources and the library files their quoted #includes reach."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("fidelity_survey", ROOT / "benchmarks" / "fidelity_survey.py")
survey = importlib.util.module_from_spec(_spec)
sys.modules["fidelity_survey"] = survey  # dataclasses look their module up
_spec.loader.exec_module(survey)


def _op(root: Path, rel: str, kernel: dict[str, str]) -> Path:
    folder = root / rel
    (folder / "op_host").mkdir(parents=True)
    for name, text in kernel.items():
        p = folder / "op_kernel" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return folder


def test_a_sibling_kernel_reached_through_includes_decides_the_kind(tmp_path):
    _op(tmp_path, "attention/base", {"base.cpp": '#include "base_comm.h"\n', "base_comm.h": '#include "lib/matmul_intf.h"\n'})
    v2 = _op(tmp_path, "attention/base_v2", {"base_v2.cpp": '#include "../../base/op_kernel/base.cpp"\n'})
    # resolved against an include folder of the survey (common/include), two levels deep
    (tmp_path / "common" / "include" / "kernel").mkdir(parents=True)
    (tmp_path / "common" / "include" / "kernel" / "comm.h").write_text('#include "hccl_glue.h"\n')
    (tmp_path / "common" / "include" / "kernel" / "hccl_glue.h").write_text("auto c = GetHcclContext<0>();\n")
    mc = _op(tmp_path, "mc2/reduce", {"reduce.cpp": '#include "kernel/comm.h"\n'})
    plain = _op(tmp_path, "moe/plain", {"plain.cpp": '#include "kernel_operator.h"\n#include "missing.h"\n'})
    assert survey.kind_of(v2, tmp_path) == "matmul"
    assert survey.kind_of(mc, tmp_path) == "hccl"
    assert survey.kind_of(plain, tmp_path) == "plain"
    # a file outside the library is not followed, and an include cycle ends
    (tmp_path / "moe" / "plain" / "op_kernel" / "plain.cpp").write_text('#include "plain.cpp"\n#include "/usr/x.h"\n')
    assert survey.kind_of(plain, tmp_path) == "plain"
