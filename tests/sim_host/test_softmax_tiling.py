"""The SoftMax family's host tiling functions (tests/sim_host/cpp/softmax_tiling_check.cpp): the
scratch sizes and SoftMaxTiling fields CANN's Ascend C tiling library computes, worked out by hand
from its formulas for each case, on a 2201 (910B) and a 3510 (register-based) chip."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from sim_host_util import build_program, key_values

FIELDS = ("srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize", "reduceM",
          "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize")


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return build_program("softmax_tiling_check", tmp_path_factory.mktemp("softmax"))


@pytest.fixture(scope="module")
def v220(exe) -> dict[str, str]:
    return key_values(exe, "2201")


@pytest.fixture(scope="module")
def v350(exe) -> dict[str, str]:
    return key_values(exe, "3510")


def tiling(kv: dict[str, str], prefix: str) -> dict[str, int]:
    assert kv[f"{prefix}.same_bytes"] == "1", "optiling::SoftMaxTiling and AscendC::tiling::SoftMaxTiling differ"
    return {f: int(kv[f"{prefix}.{f}"]) for f in FIELDS}


def plan(m, k, per_block, base, rng, tail):
    return {"srcM": m, "srcK": k, "srcSize": m * k, "outMaxM": m, "outMaxK": per_block, "outMaxSize": m * per_block,
            "splitM": base, "splitK": k, "splitSize": base * k, "reduceM": base, "reduceK": per_block,
            "reduceSize": base * per_block, "rangeM": rng, "tailM": tail, "tailSplitSize": tail * k,
            "tailReduceSize": tail * per_block}


def test_softmax_sizes(v220, v350):
    # 128 x 64 half: per row 16 (one block of max/sum) + 64 + 64 (a basic unit) floats
    assert int(v220["sm.max"]) == 128 * (16 + 64 + 64) * 4
    assert int(v220["sm.min"]) == (16 + 64 + 64) * 4
    # register-based: the whole source, at least 128 x (16 + 64) floats
    assert int(v350["sm.max"]) == 128 * (16 + 64 + 64) * 4
    assert int(v350["sm.min"]) == max(128 * (8 + 64) + 64 * 4 + 128, 128 * (16 + 64)) * 4


def test_softmax_tiling_basic_block_rows_divide_srcm(v220):
    # 16 KiB = 4096 floats / 144 per row = 28 rows -> 24 (multiple of 8) -> 16 (a divisor of 128)
    assert tiling(v220, "sm.basic") == plan(128, 64, 16, 16, 8, 0)


def test_softmax_tiling_with_a_tail(v220):
    # 100 x 32 float, 4 KiB: 1024 / (8 + 32 + 64) = 9 rows -> 8; 12 blocks and 4 rows left
    assert tiling(v220, "sm.tail") == plan(100, 32, 8, 8, 12, 4)


def test_softmax_tiling_whole_source_in_one_block(v220):
    assert tiling(v220, "sm.whole") == plan(4, 64, 16, 4, 1, 0)


def test_flash_v2_sizes(v220, v350):
    # 64 x 128 half source, float max/sum (8 per block): a half row needs 2 blocks + 128 + 64 floats
    assert int(v220["v2.max"]) == 64 * (8 * 2 + 128 + 64) * 4
    assert int(v220["v2.min"]) == (8 * 2 + 128 + 64) * 4
    assert int(v220["v2.max_basic"]) == 64 * (8 + 128 + 64) * 4
    assert int(v220["v2.min_basic"]) == 8 * (8 + 128 + 64) * 4
    assert int(v220["v2.min_brc"]) == (8 * 2 + 128 + 64) * 16 * 4  # times the 16 rows of a half block
    assert int(v350["v2.min"]) == (128 + 64 * (8 * 2 + 128 + 8)) * 4
    assert int(v350["v2.max"]) == 64 * (8 * 2 + 128 + 64) * 4
    assert int(v350["v2.min_brc"]) == max(64 * (8 + 128) + 64 * 4 + 64, 64 * (8 + 128)) * 4


def test_flash_v2_tiling(v220):
    # 32 KiB = 8192 floats / 208 = 39 rows -> 32; the basic-block path: 8192 / 200 = 40 -> 32 (divides 64)
    assert tiling(v220, "v2.update") == plan(64, 128, 8, 32, 2, 0)
    assert tiling(v220, "v2.basic") == plan(64, 128, 8, 32, 2, 0)


def test_is_basic_block(v220):
    assert v220["basic_block.k128_half"] == "1"
    assert v220["basic_block.k64_half"] == "0"  # under 256 bytes of half
    assert v220["basic_block.k64_float"] == "1"
    assert v220["basic_block.zero_size"] == "0"
    assert v220["basic_block.with_tail"] == "0"


def test_grad_and_flash(v220, v350):
    assert int(v220["grad.max_float"]) == 16 * (8 * 2 + 64 + 64) * 4
    assert int(v220["grad.max_half"]) == 16 * (16 * 2 + 64 * 3 + 64) * 4
    assert int(v220["grad.min_float_front"]) == (8 + 64 + 64) * 4
    assert int(v220["grad.min_float"]) == (8 * 2 + 64 + 64) * 4
    assert int(v350["grad.min_float_front"]) == 64 * 4 and int(v350["grad.min_float"]) == 128 * 4
    assert tiling(v220, "grad") == plan(16, 64, 8, 1, 16, 0)  # 256 floats / 136: one row per block
    assert int(v220["flash.max_update"]) == 16 * (8 * 4 + 64 * 2) * 4
    assert int(v220["flash.min_update"]) == (8 * 4 + 64 * 2) * 4
    assert int(v220["flash.max"]) == 16 * (8 + 64 + 64) * 4
    assert int(v350["flash.min_update"]) == 16 * (8 + 64) * 4
    assert tiling(v220, "flash") == plan(16, 64, 8, 4, 4, 0)  # 640 floats / 160


@pytest.mark.parametrize("case,message", [
    ("type_size", "AscendC::SoftMaxTilingFunc: the data type size is 3; the SoftMax APIs support 2 (half) and 4"),
    ("empty_shape", "AscendC::GetSoftMaxMaxTmpSize: the source shape has 0 elements"),
    ("no_workspace", "AscendC::SoftMaxFlashV2TilingFunc: localWorkSpaceSize is 0"),
    ("type_size2", "AscendC::GetSoftMaxFlashV2MinTmpSize: dataTypeSize2 is 8"),
])
def test_rejected_arguments_are_diagnostics(exe, case, message):
    r = subprocess.run([str(exe), "2201", case], capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert r.returncode == 3
    assert r.stderr.startswith("opkit-sim: error: " + message)


def test_unaligned_last_axis_is_a_warning(exe):
    r = subprocess.run([str(exe), "2201", "unaligned"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "unaligned.srcK=7" in r.stdout
    assert "opkit-sim: warning: AscendC::SoftMaxTilingFunc: the last dimension (7 elements of 2 B) is not 32-byte" \
           in r.stderr
