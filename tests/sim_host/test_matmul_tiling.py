"""The host Matmul tiling API (matmul_tiling::MultiCoreMatmulTiling / MatmulApiTiling) and the
host TCubeTiling class: tilings that the chip's L0A/L0B/L0C/L1 can hold and that cover the problem."""

from __future__ import annotations

import json
import subprocess

import pytest
from sim_host_util import CPP, ROOT

from opkit import sim

L0A = L0B = 64 * 1024
L0C = 128 * 1024
L1 = 512 * 1024 - 256
BYTES = {"fp16_big": 2, "fp32_small": 4, "int8_tall": 1, "bf16_square": 2}


@pytest.fixture(scope="module")
def tilings(tmp_path_factory) -> dict[str, dict]:
    exe = tmp_path_factory.mktemp("mm") / "matmul_tiling_check"
    src = CPP / "matmul_tiling_check.cpp"
    r = subprocess.run(
        [
            sim.find_cxx(),
            "-std=c++17",
            "-O0",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT / 'opkit/sim/include'}",
            str(src),
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(exe), "24"], capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        d = json.loads(line)
        out[d["case"]] = d
    out["_stderr"] = r.stderr
    return out


@pytest.mark.parametrize(
    "case, m, n, k",
    [
        ("fp16_big", 1000, 3000, 777),
        ("fp32_small", 17, 33, 9),
        ("int8_tall", 4096, 64, 1024),
        ("bf16_square", 2048, 2048, 4096),
    ],
)
def test_multicore_tiling_fits_and_covers(tilings, case, m, n, k):
    t = tilings[case]
    b = BYTES[case]
    assert t["rc"] == 0
    assert (t["M"], t["N"], t["Ka"], t["Kb"], t["singleCoreK"]) == (m, n, k, k, k)
    assert 1 <= t["usedCoreNum"] <= 24
    m_parts = -(-m // t["singleCoreM"])
    n_parts = -(-n // t["singleCoreN"])
    assert m_parts * n_parts == t["usedCoreNum"]
    assert t["singleCoreM"] % 16 == 0 and t["singleCoreN"] % 16 == 0
    assert t["baseM"] % 16 == 0 and t["baseN"] % 16 == 0 and (t["baseK"] * b) % 32 == 0
    assert 2 * t["baseM"] * t["baseK"] * b <= L0A
    assert 2 * t["baseN"] * t["baseK"] * b <= L0B
    assert t["baseM"] * t["baseN"] * 4 <= L0C
    bias = t["baseN"] * 4 if t["isBias"] else 0
    assert t["depthA1"] * t["baseM"] * t["baseK"] * b + t["depthB1"] * t["baseN"] * t["baseK"] * b + bias <= L1
    assert t["stepKa"] >= 1 and t["depthA1"] == 2 * t["stepKa"]
    assert (t["dbL0A"], t["dbL0C"], t["iterateOrder"]) == (2, 1, 0)


def test_small_problem_uses_few_cores(tilings):
    t = tilings["fp32_small"]
    assert t["usedCoreNum"] <= 6 and t["baseK"] == 16  # K = 9 rounded up to 32 bytes of float


def test_single_core_and_fix_split(tilings):
    t = tilings["single_core"]
    assert t["rc"] == 0 and t["usedCoreNum"] == 1
    assert (t["M"], t["N"], t["Ka"], t["singleCoreM"], t["singleCoreN"]) == (512, 512, 256, 128, 256)
    assert t["iterateOrder"] == 1  # SetTraverse(FIRSTN)
    assert tilings["fix_split_misaligned"]["rc"] == -1
    assert tilings["fix_split_too_big"]["rc"] == -1
    ok = tilings["fix_split_ok"]
    assert (ok["rc"], ok["baseM"], ok["baseN"], ok["baseK"]) == (0, 64, 128, 32)
    assert "multiples of 16" in tilings["_stderr"] and "exceed L0C" in tilings["_stderr"]


def test_macro_class_serialises_the_same_tiling(tilings):
    a, b = tilings["macro_class"], tilings["fp16_big"]
    assert {k: v for k, v in a.items() if k != "case"} == {k: v for k, v in b.items() if k != "case"}
    lay = tilings["macro_layout"]
    assert lay["size"] == 216 and lay["tail"] == 0x1122334455667788


def test_library_tiling_classes(tilings):
    # SoftMaxTiling: 16 uint32, the kernel struct's bytes; TopkTiling: 24 four-byte fields + 8 uint16.
    lib = tilings["library_sizes"]
    assert lib["softmax"] == lib["softmax_kernel"] == 64
    assert lib["topk"] == 112


def test_multicore_tiling_without_set_dim_is_one_core(tilings):
    # asc-devkit impl/adv_api/tiling/matmul/matmul_tiling_base.cpp: the constructors set blockDim = 1
    t = tilings["no_set_dim"]
    assert t["rc"] == 0 and t["usedCoreNum"] == 1
    assert (t["singleCoreM"], t["singleCoreN"], t["singleCoreK"]) == (256, 128, 512)
    assert tilings["set_dim_zero"]["rc"] == -1
    assert "SetDim was given a core count below 1" in tilings["_stderr"]
