"""The link and collective model (opkit.perf.comm): the algorithms' formulas on the 910B full mesh and the A3
ring, the figures they give against HCCL's fits and the published anchor, and the refusals."""

from __future__ import annotations

import pytest

from opkit.errors import UsageError
from opkit.perf.comm import KINDS, buffer_bytes, collective_us, link_model

MIB = float(1 << 20)


def test_the_chips_resolve_to_their_family_links():
    assert link_model("ascend910b2").topology == "mesh"
    assert link_model("ascend910b4") is link_model("ascend910b")
    assert link_model("ascend910_9382").topology == "ring"
    with pytest.raises(UsageError, match=r"ascend310p3: opkit has no model of the links .*ascend910_93, ascend910b"):
        link_model("ascend310p3")
    with pytest.raises(UsageError, match="no model of the links"):
        link_model("nochip")


def test_mesh_all_reduce_is_reduce_scatter_plus_all_gather():
    link = link_model("ascend910b2")
    n = 24 * MIB
    rs = collective_us("ReduceScatter", n, 8, link, launch=False)
    ag = collective_us("AllGather", n, 8, link, launch=False)
    ar = collective_us("AllReduce", n, 8, link, launch=False)
    assert ar == pytest.approx(rs + ag)
    # one step of n / p bytes on each link, all links at once: latency + (n / p) / B
    assert rs == pytest.approx(link.alpha(n / 8) + (n / 8) / (link.link_gbps * 1e3))
    assert collective_us("AllReduce", n, 8, link) == pytest.approx(ar + link.launch_us)


def test_ring_needs_p_minus_1_steps_per_phase():
    link = link_model("ascend910_9382")
    n, p = 16 * MIB, 8
    bw = link.link_gbps * 1e3
    assert collective_us("ReduceScatter", n, p, link, launch=False) == pytest.approx(
        (p - 1) * link.alpha_us + (p - 1) / p * n / bw)
    assert collective_us("AllReduce", n, p, link, launch=False) == pytest.approx(
        2 * (p - 1) * link.alpha_us + 2 * (p - 1) / p * n / bw)
    assert collective_us("AlltoAll", n, p, link, launch=False) == pytest.approx((p - 1) * (link.alpha_us + n / p / bw))


@pytest.mark.parametrize("mib, fit", [(8, 13.585 * 8 + 61.5), (16, 13.585 * 16 + 61.5), (64, 13.585 * 64 + 61.5),
                                      (1 / 64, 18.0)])
def test_910b_all_reduce_follows_hccls_8_rank_fit(mib, fit):
    # the HCCL fit of ops-transformer (hccl_performance.cpp): linear above 8 MiB, an 18 us floor for tiny messages
    assert collective_us("AllReduce", mib * MIB, 8, link_model("ascend910b2")) == pytest.approx(fit, rel=0.03)


def test_a3_all_reduce_follows_the_double_ring_fit():
    for mib in (4, 32, 64):
        got = collective_us("AllReduce", mib * MIB, 8, link_model("ascend910_9382"))
        assert got == pytest.approx(11.38 * mib + 248.2, rel=0.01)


def test_the_published_all_reduce_of_the_matmul_output_within_15_percent():
    # MatmulAllReduce anchor: 8 ranks, the 4096 x 8192 fp16 output (64 MiB per rank), 1025 us communication
    got = collective_us("AllReduce", 4096 * 8192 * 2, 8, link_model("ascend910b2"))
    assert abs(got / 1025.0 - 1) <= 0.15, got


def test_fewer_ranks_use_fewer_links_of_the_mesh():
    link = link_model("ascend910b2")
    n = 64 * MIB
    t2, t4, t8 = (collective_us("AllReduce", n, p, link, launch=False) for p in (2, 4, 8))
    assert t2 > t4 > t8  # each rank moves n / p over each of its p - 1 links
    assert collective_us("AllReduce", n, 1, link) == 0.0


def test_slicing_pays_the_launch_and_step_latency_per_slice():
    link = link_model("ascend910b2")
    whole = collective_us("AllReduce", 64 * MIB, 8, link)
    sliced = 4 * collective_us("AllReduce", 16 * MIB, 8, link)
    assert sliced > whole
    assert sliced - whole == pytest.approx(3 * (link.launch_us + 2 * link.alpha_large_us), rel=1e-6)


def test_buffer_bytes_of_each_kind():
    assert buffer_bytes("AllReduce", 100, 8) == 100
    for kind in ("AllGather", "ReduceScatter", "AlltoAll"):
        assert buffer_bytes(kind, 100, 8) == 800
    assert set(KINDS) == {"AllReduce", "AllGather", "ReduceScatter", "AlltoAll"}


def test_more_ranks_than_one_server_connects_is_refused():
    with pytest.raises(UsageError, match=r"16 ranks: the mesh of ascend910b connects 8 ranks in one server"):
        collective_us("AllReduce", MIB, 16, link_model("ascend910b2"))
    assert collective_us("AllReduce", MIB, 16, link_model("ascend910_9382")) > 0


def _mc2_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "mc2_perf.py"
    spec = importlib.util.spec_from_file_location("_mc2_perf", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _chain_us(rows: list[int], compute_us: float, startup_us: float, m: int, n: int, link) -> float:
    """Fused time of one cut as the overlap replay runs it: slice t leaves when its rows are computed (compute
    spread evenly over the rows) and slice t - 1 has landed."""
    per_row = (compute_us - startup_us) / m
    done = landed = 0.0
    for r in rows:
        done += per_row * r
        landed = max(done, landed) + collective_us("AllReduce", r * n * 2, 8, link)
    return landed + startup_us


def test_the_benchmarks_best_cut_is_the_best_of_every_cut():
    # benchmarks/mc2_perf.py's bound on what any cut saves: its dynamic programme against every cut of M into
    # slices of 512 rows (2^7 cuts), and its cut's own time
    import itertools

    bench = _mc2_benchmark()
    link = link_model("ascend910b2")
    for compute in (200.0, 913.6, 3000.0):
        t, rows = bench.best_cut(compute, 10.0, link, unit=512)
        assert sum(rows) == bench.M and all(r % 512 == 0 for r in rows)
        assert t == pytest.approx(_chain_us(rows, compute, 10.0, bench.M, bench.N, link))
        every = []
        for marks in itertools.product((False, True), repeat=bench.M // 512 - 1):
            cut, run = [], 512
            for mark in marks:
                if mark:
                    cut.append(run)
                    run = 0
                run += 512
            every.append(_chain_us(cut + [run], compute, 10.0, bench.M, bench.N, link))
        assert t == pytest.approx(min(every))
    # the anchor: no cut saves 40 % against the plain matmul (863.6 us) then the AllReduce, even at the roofline
    ar = collective_us("AllReduce", bench.M * bench.N * 2, 8, link)
    t, _ = bench.best_cut(786.7, 10.0, link)
    assert 1 - t / (863.6 + ar) < 0.40
