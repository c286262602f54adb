"""TopK's host tiling functions (tests/sim_host/cpp/topk_tiling_check.cpp): the scratch sizes of
GetTopKMaxMinTmpSize and the TopkTiling fields TopKTilingFunc fills, worked out by hand from CANN's
tiling library for each case, on the Sort32/MrgSort chips (2201), the proposal chips (2002) and the
register-based ones (3510); both TopKTilingFunc overloads write the same bytes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from sim_host_util import build_program, key_values

ZERO = dict.fromkeys((
    "tmpLocalSize", "allDataSize", "innerDataSize", "sortRepeat", "mrgSortRepeat", "kAlignFourBytes", "kAlignTwoBytes",
    "maskOffset", "maskVreducev2FourBytes", "maskVreducev2TwoBytes", "mrgSortSrc1offset", "mrgSortSrc2offset",
    "mrgSortSrc3offset", "mrgSortTwoQueueSrc1Offset", "mrgFourQueueTailPara1", "mrgFourQueueTailPara2",
    "srcIndexOffset", "copyUbToUbBlockCount", "topkMrgSrc1MaskSizeOffset", "topkNSmallSrcIndexOffset",
    "vreduceValMask0", "vreduceValMask1", "vreduceIdxMask0", "vreduceIdxMask1", *(f"vreducehalfValMask{i}" for i in range(8)),
), 0)


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return build_program("topk_tiling_check", tmp_path_factory.mktemp("topk"))


@pytest.fixture(scope="module", params=["2201", "2002", "3510"])
def arch(request, exe) -> tuple[str, dict[str, str]]:
    return request.param, key_values(exe, request.param)


def fields(kv: dict[str, str], case: str) -> dict[str, int]:
    assert kv[f"{case}.ok"] == "1" and kv[f"{case}.tmp_ok"] == "1"
    assert kv[f"{case}.same_bytes"] == "1", "optiling::TopkTiling and AscendC::tiling::TopkTiling differ"
    return {f: int(kv[f"{case}.{f}"]) for f in ZERO}


def scratch(kv: dict[str, str], case: str) -> int:
    assert kv[f"{case}.max"] == kv[f"{case}.min"]
    return int(kv[f"{case}.max"])


def want(**set_fields: int) -> dict[str, int]:
    return {**ZERO, **set_fields}


def test_normal_mode_sort32_mrgsort_chip(exe):
    kv = key_values(exe, "2201")
    # 3 rows of 256 floats, k = 10, indices given: two buffers of 256 (score, index) pairs = 16 B per element
    assert scratch(kv, "nf") == 16 * 256
    assert fields(kv, "nf") == want(
        tmpLocalSize=4 * 256, allDataSize=768, innerDataSize=2 * 256, sortRepeat=256 // 32, mrgSortRepeat=256 // 4,
        kAlignFourBytes=16, kAlignTwoBytes=16, maskOffset=3 * 16, maskVreducev2FourBytes=20, maskVreducev2TwoBytes=40,
        mrgSortSrc1offset=2, mrgSortSrc2offset=4, mrgSortSrc3offset=6, mrgSortTwoQueueSrc1Offset=2,
        mrgFourQueueTailPara1=512, mrgFourQueueTailPara2=1, copyUbToUbBlockCount=256 * 8 // 32)
    # half, indices generated: 16 B per element plus the int32 indices; offsets counted in halves
    assert scratch(kv, "nh") == 20 * 256
    assert fields(kv, "nh") == want(
        tmpLocalSize=8 * 256 + 2 * 256, srcIndexOffset=8 * 256, allDataSize=768, innerDataSize=4 * 256, sortRepeat=8,
        mrgSortRepeat=64, kAlignFourBytes=16, kAlignTwoBytes=16, maskOffset=3 * 16, maskVreducev2FourBytes=20,
        maskVreducev2TwoBytes=40, mrgSortSrc1offset=4, mrgSortSrc2offset=8, mrgSortSrc3offset=12,
        mrgSortTwoQueueSrc1Offset=4, mrgFourQueueTailPara1=512, mrgFourQueueTailPara2=2, copyUbToUbBlockCount=64)


def test_small_mode_sort32_mrgsort_chip(exe):
    kv = key_values(exe, "2201")
    # 5 rows of 32 floats, k = 20, smallest, indices generated: 160 pairs, the 64-B GatherMask patterns,
    # the negated copy and the indices; the patterns pick 16 + 4 scores ("01") and indices ("10")
    assert scratch(kv, "sf") == 160 * 8 + 64 + 160 * 4 + 160 * 4
    assert fields(kv, "sf") == want(
        tmpLocalSize=320 + 160 + 16 + 160, allDataSize=160, innerDataSize=320, kAlignFourBytes=24, maskOffset=100,
        topkMrgSrc1MaskSizeOffset=480, topkNSmallSrcIndexOffset=496, vreduceValMask0=0x55555555, vreduceValMask1=0x55,
        vreduceIdxMask0=0xAAAAAAAA, vreduceIdxMask1=0xAA)
    # 4 rows of 32 halves, k = 6, largest, indices given: the first half-word of every four pairs
    assert scratch(kv, "sh") == 128 * 8 + 64
    assert fields(kv, "sh") == want(
        tmpLocalSize=512 + 32, allDataSize=128, innerDataSize=512, kAlignFourBytes=8, maskOffset=24,
        topkMrgSrc1MaskSizeOffset=512, vreduceIdxMask0=0b101010101010, vreducehalfValMask0=0x1111,
        vreducehalfValMask1=0x11)


def test_proposal_chip(exe):
    kv = key_values(exe, "2002")
    # 8-element proposals and their MrgSort4 double, plus the int32 indices (normal mode)
    assert scratch(kv, "nf") == 256 * 8 * 4 * 2 + 256 * 4
    assert fields(kv, "nf") == want(
        tmpLocalSize=256 * 16 + 256, srcIndexOffset=256 * 16, innerDataSize=256 * 8, sortRepeat=256 // 16,
        copyUbToUbBlockCount=256 * 8 * 4 // 32, mrgSortSrc1offset=8, mrgSortSrc2offset=16, mrgSortSrc3offset=24,
        mrgSortRepeat=64, kAlignFourBytes=16, kAlignTwoBytes=16, maskOffset=48)
    assert scratch(kv, "sh") == 128 * 8 * 2 * 2
    assert fields(kv, "sh") == want(
        tmpLocalSize=128 * 8 * 2, topkNSmallSrcIndexOffset=128 * 8 + 128, srcIndexOffset=128 * 8 + 2 * 128,
        innerDataSize=128 * 8, maskOffset=24, allDataSize=128, sortRepeat=8, copyUbToUbBlockCount=128 * 8 * 2 // 32,
        mrgSortTwoQueueSrc1Offset=128, mrgSortSrc1offset=256, vreduceIdxMask0=0b111111, vreduceValMask0=0b111111)


def test_register_based_chip(exe):
    kv = key_values(exe, "3510")
    assert scratch(kv, "nh") == 256 * 16 + 256 * 4
    assert fields(kv, "nh") == want(
        allDataSize=768, kAlignFourBytes=16, kAlignTwoBytes=16, sortRepeat=8, innerDataSize=4 * 256, maskOffset=48,
        maskVreducev2FourBytes=20, maskVreducev2TwoBytes=40, tmpLocalSize=256 * 20 // 2, srcIndexOffset=256 * 16 // 2)
    assert scratch(kv, "sf") == 160 * 8 + 160 * 4
    assert fields(kv, "sf") == want(allDataSize=160, innerDataSize=320, maskOffset=100, tmpLocalSize=320 + 160)


def test_every_chip_sizes_the_scratch_the_tiling_asks_for(arch):
    name, kv = arch
    for case, size in (("nf", 4), ("nh", 2), ("sf", 4), ("sh", 2)):
        assert fields(kv, case)["tmpLocalSize"] * size == scratch(kv, case), (name, case)


@pytest.mark.parametrize("case,message", [
    ("inner", "AscendC::TopKTilingFunc: the inner axis length 40 is not a multiple of 32"),
    ("k", "AscendC::TopKTilingFunc: k is 65; its range is [1, 64]"),
])
def test_arguments_outside_the_documented_ranges_warn_and_compute(exe, case, message):
    # CANN logs these and goes on computing
    r = subprocess.run([str(exe), "2201", case], capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert r.returncode == 0 and "odd.ok=1" in r.stdout
    assert "opkit-sim: warning: " + message in r.stderr


def test_a_zero_type_size_fails_the_tiling_and_radix_select_is_not_on_this_chip(exe):
    assert key_values(exe, "2201", "size0")["size0.ok"] == "0"
    r = subprocess.run([str(exe), "2201", "radix"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "radix.ok=0" in r.stdout
    assert "unsupported NpuArch of the TopK radix-select API (arch 2201" in r.stderr
