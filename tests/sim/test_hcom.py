"""The host-side HCCL queries of an MC2 tiling (opkit/sim/include/hccl/hcom.h, CANN's HcomGetRankSize and
HcomGetRankId): on each rank's thread of a multi-rank run they give the world size and that rank; outside a run a
world of OPKIT_SIM_WORLD_SIZE ranks (default one; what `opkit tiling` of a multi-rank case sets); a null group or
result pointer is HCCL_E_PARA (1)."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize("size, rank, want", [("4", "2", "single 0 0 4 2"), ("8", None, "single 0 0 8 0"),
                                              ("99", "1", "single 0 0 1 0"), ("x", None, "single 0 0 1 0"),
                                              ("4", "4", "single 0 0 4 0")])
def test_outside_a_run_the_world_comes_from_the_environment(exe, size, rank, want):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPKIT_SIM_")} | {"OPKIT_SIM_WORLD_SIZE": size}
    if rank is not None:
        env["OPKIT_SIM_RANK_ID"] = rank
    out = subprocess.run([str(exe), "2"], capture_output=True, text=True, timeout=60, check=True, env=env).stdout
    lines = out.split("\n")
    assert lines[0] == want
    assert sorted(line for line in lines if line.startswith("rank ")) == ["rank 0 0 0 2 0", "rank 1 0 0 2 1"]
