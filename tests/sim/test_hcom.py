"""The host-side HCCL queries of an MC2 tiling (opkit/sim/include/hccl/hcom.h, CANN's HcomGetRankSize and
HcomGetRankId): on each rank's thread of a multi-rank run they give the world size and that rank; outside a run a
world of one; a null group or result pointer is HCCL_E_PARA (1)."""

from __future__ import annotations

import subprocess

import pytest
from sim_util import CPP, build


@pytest.fixture(scope="module")
def exe():
    return build(CPP / "hcom_query.cpp")


@pytest.mark.parametrize("R", [2, 4, 8])
def test_each_rank_sees_the_world_size_and_its_rank(exe, R):
    out = subprocess.run([str(exe), str(R)], capture_output=True, text=True, timeout=60, check=True).stdout.split("\n")
    assert out[0] == "single 0 0 1 0"
    assert out[1] == "null 1 1"
    ranks = sorted(line for line in out if line.startswith("rank "))
    assert ranks == sorted(f"rank {r} 0 0 {R} {r}" for r in range(R))
