"""Poisoned outputs: bytes of an output nothing wrote, and reads of them, are reported (msSanitizer initcheck);
use after free of a TQue buffer (CPU-debug illegal access); two cores writing the same GM bytes in one SyncAll
phase without atomics (CPU-debug's cross-core overlap)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "sanitizer_harness.cpp"


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def run(exe, scenario: str, *extra: str):
    return subprocess.run([str(exe), scenario, *extra], capture_output=True, timeout=60)


def unwritten(r) -> tuple[int, list[tuple[int, int]]]:
    assert r.returncode == 0, r.stderr.decode()
    m = re.search(r"^unwritten (\d+)(.*)$", r.stdout.decode(), re.M)
    assert m, r.stdout.decode()
    return int(m.group(1)), [(int(a), int(b)) for a, b in re.findall(r"\[(\d+),(\d+)\)", m.group(2))]


@pytest.mark.parametrize("scenario", ["clean", "read_after_write", "raw_write", "int8_poison_value", "int8_clean",
                                      "untouched_ok", "uaf_realloc_ok",
                                      "overlap_atomic_ok", "overlap_phases_ok"])
def test_clean_kernels_leave_nothing_unwritten(exe, scenario):
    assert unwritten(run(exe, scenario)) == (0, [])


@pytest.mark.parametrize("scenario, ranges", [
    ("unwritten_none", [(0, 4096)]),            # nothing written at all
    ("unwritten_tail", [(4064, 4096)]),         # the last block 16 halves short
    ("unwritten_block", [(2048, 3072)]),        # block 2 returned early
    ("untouched_partial", [(2048, 3072)]),      # the mask covers block 3 only
    ("int8_half", [(2048, 4096)]),              # integer output: the byte pattern
    ("unwritten_pad_tail", [(4072, 4096)]),     # DataCopyPad of 1000 bytes: exact inside the last 32-byte block
    ("unwritten_holes", [(0, 10), (12, 128), (160, 1024)]),  # one element and one block of block 0 written
])
def test_unwritten_ranges(exe, scenario, ranges):
    assert unwritten(run(exe, scenario)) == (sum(b - a for a, b in ranges), ranges)


def test_poison_is_a_quiet_nan_for_floats_and_untouched_elements_keep_their_value(exe, tmp_path):
    out = tmp_path / "y.bin"
    unwritten(run(exe, "untouched_partial", str(out)))
    y = np.fromfile(out, dtype=np.uint16)
    assert (y[1024:1536] == 0x7EA5).all()   # block 2: poisoned, a quiet NaN carrying 0xA5
    assert np.isnan(y[1024:1536].view(np.float16)).all()
    assert (y[1536:] == 0).all()            # untouched by contract: the initial value
    assert not np.isnan(y[:1024].view(np.float16)).any()


def test_atomic_add_into_an_unwritten_output(exe):
    r = run(exe, "atomic_into_poison")
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert "uninitialised read: an atomic store adds into bytes" in err and "InitValue(0)" in err, err
    assert f"sanitizer_harness.cpp:{marked_line(SRC, 'atomic_into_poison')}" in err, err


@pytest.mark.parametrize("scenario, offset", [("read_before_write", 0), ("getvalue_before_write", 10)])
def test_uninitialised_read_of_an_output(exe, scenario, offset):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert "uninitialised read" in err and "that nothing has written" in err and "InitValue" in err, err
    m = re.search(r"AIV block (\d)/4: .* reaches bytes \[(\d+), \d+\)", err)  # whichever block reads first
    assert m and int(m.group(2)) == int(m.group(1)) * 1024 + offset, err
    assert f"sanitizer_harness.cpp:{marked_line(SRC, scenario)}" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("scenario, what", [("uaf_vector_read", "reads UB bytes [0, 1024)"),
                                            ("uaf_vector_write", "writes UB bytes [0, 1024)"),
                                            ("uaf_copy_out", "reads UB bytes [1024, 2048)")])
def test_use_after_free(exe, scenario, what):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert f"use after free: {what} of a queue buffer that FreeTensor at " in err, err
    assert re.search(r"FreeTensor at .*sanitizer_harness.cpp:\d+ gave back", err), err
    assert f"sanitizer_harness.cpp:{marked_line(SRC, scenario)}" in err, err


@pytest.mark.parametrize("scenario", ["overlap_off_by_one", "overlap_setvalue"])
def test_cross_core_write_overlap(exe, scenario):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    m = re.search(r"AIV block (\d)/4: (\S+): cross-core write overlap: writes bytes \[(\d+), (\d+)\) of '[^']*' that "
                  r"kernel 'overlap_kernel' AIV block (\d)/4 wrote \((\S+) at .*sanitizer_harness.cpp:(\d+)\) in the same "
                  r"SyncAll phase", err)
    assert m, err
    me, other = int(m.group(1)), int(m.group(5))
    lo, hi = int(m.group(3)), int(m.group(4))
    line = marked_line(SRC, scenario)
    if scenario == "overlap_off_by_one":  # whichever of two neighbours writes last reports
        assert abs(me - other) == 1 and (lo, hi) == (max(me, other) * 1024, max(me, other) * 1024 + 32), err
        assert int(m.group(7)) == line and f"sanitizer_harness.cpp:{line}" in err, err
    else:  # blocks 1 and 2 write element 512
        assert {me, other} == {1, 2} and (lo, hi) == (1024, 1026), err
        assert f"sanitizer_harness.cpp:{line}" in err or int(m.group(7)) == line, err
