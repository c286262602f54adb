"""Performance model on hand-computed traces (every figure is modelled; no timing assertions).

Most tests use a toy chip with round numbers: clock 1000 MHz (1 cycle = 0.001 µs), no fixed
costs, GM->UB and UB->GM at 10 B/cycle per core, vector 1 cycle per repeat without start-up,
sync instructions free, and HBM bandwidth as given per test.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from opkit import soc
from opkit.perf import chip_params, golden_costs, model_run, model_trace, roofline_us
from opkit.perf.costs import ChipParams


def toy(hbm: float = 1e9, **kw: Any) -> ChipParams:
    base = chip_params("ascend910b2")
    fields: dict[str, Any] = dict(
        name="toy", clock_mhz=1000.0, aic_cores=1, aiv_cores=2, hbm_bytes_per_cycle=hbm,
        gm_to_ub=10.0, ub_to_gm=10.0, gm_to_l1=10.0, l1_to_l0=10.0, l0c_to_gm=10.0,
        gm_read_fixed=0.0, gm_write_fixed=0.0, onchip_copy_fixed=0.0, vector_startup=0.0, vector_drain=0.0,
        vector_cpr={k: 1.0 for k in base.vector_cpr}, mmad_fixed=0.0,
        scalar_cycles=0.0, sync_cycles=0.0, startup_us=5.0,
    )
    fields.update(kw)
    return dataclasses.replace(base, **fields)


def op(pipe: str, nbytes: int = 0, repeats: int = 0, api: str = "DataCopy") -> dict[str, Any]:
    return {"ev": "op", "pipe": pipe, "api": api, "dtype": "float16", "bytes": nbytes, "repeats": repeats}


def core(events: list[dict[str, Any]], block: int = 0, core_type: str = "AIV") -> dict[str, Any]:
    return {"block": block, "core_type": core_type, "pipes": {}, "instructions": [], "events": events}


def trace(*cores: dict[str, Any]) -> dict[str, Any]:
    return {"kernel": "hand", "soc": "toy", "blocks": len(cores), "cores": list(cores)}


def pipeline(tiles: int, buffers: int, in_bytes: int, v_repeats: int, out_bytes: int) -> list[dict[str, Any]]:
    """Events of the usual CopyIn / Compute / CopyOut loop with `buffers` buffers per queue.

    Buffers 0..buffers-1 belong to the VECIN queue (MTE2 -> V), 10.. to VECOUT (V -> MTE3).
    """
    ev: list[dict[str, Any]] = []
    for i in range(tiles):
        b_in, b_out = i % buffers, 10 + i % buffers
        ev += [{"ev": "alloc", "buf": b_in}, op("MTE2", in_bytes),
               {"ev": "enque", "buf": b_in, "from": "MTE2", "to": "V"}]
        ev += [{"ev": "deque", "buf": b_in}, {"ev": "alloc", "buf": b_out},
               op("V", 2 * v_repeats, v_repeats, api="Relu"),
               {"ev": "enque", "buf": b_out, "from": "V", "to": "MTE3"}, {"ev": "free", "buf": b_in}]
        ev += [{"ev": "deque", "buf": b_out}, op("MTE3", out_bytes), {"ev": "free", "buf": b_out}]
    return ev


def flag(kind: str, src: str, dst: str, ident: int = 0) -> dict[str, Any]:
    return {"ev": kind, "from": src, "to": dst, "id": ident}


def test_one_pipe_alone() -> None:
    # Two GM->UB copies of 1000 B on MTE2 at 10 B/cycle: 100 + 100 = 200 cycles = 0.2 µs.
    r = model_trace(trace(core([op("MTE2", 1000), op("MTE2", 1000)])), toy())
    assert r.steady_us == pytest.approx(0.2)
    assert r.per_pipe_busy_us == {"MTE2": pytest.approx(0.2)}


def test_fixed_cost_per_copy_and_vector_startup() -> None:
    # MTE2: 30 fixed + 1000/10 = 130 cycles; then (flag) V: 2 start-up + 8 repeats x 2 (binary) = 18.
    # Total 148 cycles.
    p = toy(gm_read_fixed=30.0, vector_startup=2.0, vector_cpr={**toy().vector_cpr, "binary": 2.0})
    ev = [op("MTE2", 1000), flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V"),
          op("V", 2048, 8, api="Add")]
    r = model_trace(trace(core(ev)), p)
    assert r.steady_us == pytest.approx(0.148)
    assert r.per_pipe_busy_us["V"] == pytest.approx(0.018)


def test_double_buffering_overlaps_pipes() -> None:
    # 3 tiles, each: MTE2 1000 B = 100 cycles, V 100 repeats = 100 cycles, MTE3 1000 B = 100.
    # Two buffers per queue: fill 300 + (3 - 1) x max stage 100 = 500 cycles.
    # One buffer per queue: tile i+1's copy-in waits for tile i's compute to free the input and
    # tile i+1's compute waits for tile i's copy-out to free the output:
    #   MTE2 0-100, V 100-200, MTE3 200-300; MTE2 200-300, V 300-400, MTE3 400-500;
    #   MTE2 400-500, V 500-600, MTE3 600-700  -> 700 cycles.
    double = model_trace(trace(core(pipeline(3, 2, 1000, 100, 1000))), toy())
    single = model_trace(trace(core(pipeline(3, 1, 1000, 100, 1000))), toy())
    assert double.steady_us == pytest.approx(0.5)
    assert single.steady_us == pytest.approx(0.7)
    # each pipe is busy 300 cycles either way
    assert double.per_pipe_busy_us == {q: pytest.approx(0.3) for q in ("V", "MTE2", "MTE3")}


def test_dependency_chain_serialises() -> None:
    # MTE2 -> V -> MTE3 -> (next tile) MTE2 through SetFlag/WaitFlag: nothing overlaps.
    # Per tile 100 + 50 + 100 = 250 cycles; 2 tiles = 500 cycles.
    ev: list[dict[str, Any]] = []
    for i in range(2):
        if i:
            ev.append(flag("wait_flag", "MTE3", "MTE2"))
        ev += [op("MTE2", 1000), flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V"),
               op("V", 100, 50, api="Relu"), flag("set_flag", "V", "MTE3"),
               flag("wait_flag", "V", "MTE3"), op("MTE3", 1000), flag("set_flag", "MTE3", "MTE2")]
    r = model_trace(trace(core(ev)), toy())
    assert r.steady_us == pytest.approx(0.5)
    # the same ops without the flags overlap: MTE2 200, V 100, MTE3 200 in parallel -> 200 cycles
    free = [e for e in ev if e["ev"] == "op"]
    assert model_trace(trace(core(free)), toy()).steady_us == pytest.approx(0.2)


def test_wait_into_scalar_stalls_issue() -> None:
    # V 100 cycles, then WaitFlag V->S (GetValue after V) stalls the scalar unit, so the MTE2 copy
    # issued after it starts at 100: 100 + 100 = 200 cycles (without the wait: max(100, 100) = 100).
    ev = [op("V", 200, 100, api="Relu"), flag("set_flag", "V", "S"), flag("wait_flag", "V", "S"),
          op("MTE2", 1000)]
    assert model_trace(trace(core(ev)), toy()).steady_us == pytest.approx(0.2)
    assert model_trace(trace(core([ev[0], ev[3]])), toy()).steady_us == pytest.approx(0.1)


def _shared_bw_case(hbm: float, double: bool) -> float:
    # 4 tiles, each MTE2 1000 B and MTE3 1000 B at up to 100 B/cycle per pipe, V free.
    p = toy(hbm=hbm, gm_to_ub=100.0, ub_to_gm=100.0)
    if double:
        ev = pipeline(4, 2, 1000, 0, 1000)
    else:  # single buffer used in place: the next copy-in waits for the copy-out (MTE3 -> MTE2)
        ev = []
        for i in range(4):
            if i:
                ev.append(flag("wait_flag", "MTE3", "MTE2"))
            ev += [op("MTE2", 1000), flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V"),
                   op("V", 0, 0, api="Relu"), flag("set_flag", "V", "MTE3"),
                   flag("wait_flag", "V", "MTE3"), op("MTE3", 1000), flag("set_flag", "MTE3", "MTE2")]
    return model_trace(trace(core(ev)), p).steady_us


def test_double_buffering_gains_nothing_when_mte2_and_mte3_share_gm_bandwidth() -> None:
    # Serial (in place): 4 x (10 + 10) = 80 cycles whatever the HBM bandwidth (one copy at a time,
    # 100 B/cycle each).
    # Double buffered, HBM 1e9 B/cycle: MTE2 copies 0-10, 10-20, 20-30, 30-40 and MTE3 copies
    # 10-20 .. 40-50 run side by side -> 50 cycles.
    # Double buffered, HBM 100 B/cycle: whenever MTE2 and MTE3 copy together each gets 50 B/cycle;
    # HBM is busy from 0 to the end with 8 x 1000 B -> 8000 / 100 = 80 cycles: no gain.
    assert _shared_bw_case(1e9, double=False) == pytest.approx(0.08)
    assert _shared_bw_case(100.0, double=False) == pytest.approx(0.08)
    assert _shared_bw_case(1e9, double=True) == pytest.approx(0.05)
    assert _shared_bw_case(100.0, double=True) == pytest.approx(0.08)


def test_gm_bandwidth_shared_by_cores() -> None:
    # Two cores each copy 1000 B (cap 10 B/cycle each). HBM 10 B/cycle: 5 B/cycle each -> 200 cycles.
    # HBM 15 B/cycle: 7.5 each -> 133.3 cycles. Ample HBM: 100 cycles.
    tr = trace(core([op("MTE2", 1000)], 0), core([op("MTE2", 1000)], 1))
    assert model_trace(tr, toy(hbm=10.0)).steady_us == pytest.approx(0.2)
    assert model_trace(tr, toy(hbm=15.0)).steady_us == pytest.approx(0.2 / 1.5)
    assert model_trace(tr, toy()).steady_us == pytest.approx(0.1)


def test_sync_all_across_cores() -> None:
    # Core 0: MTE2 1000 B (100 cycles), SyncAll, V 100 repeats (100 cycles) -> 200.
    # Core 1: SyncAll, V 100 -> waits for core 0's copy: 100 + 100 = 200 (100 without SyncAll).
    v = op("V", 200, 100, api="Relu")
    tr = trace(core([op("MTE2", 1000), {"ev": "sync_all"}, v], 0), core([{"ev": "sync_all"}, v], 1))
    r = model_trace(tr, toy())
    assert [c.cycles for c in r.cores] == [pytest.approx(200.0), pytest.approx(200.0)]
    tr_free = trace(core([op("MTE2", 1000), v], 0), core([v], 1))
    assert [c.cycles for c in model_trace(tr_free, toy()).cores] == [pytest.approx(100.0)] * 2


def test_cross_core_flag_mode2() -> None:
    # AIC 0: Fixpipe 1000 B to GM (100 cycles), CrossCoreSetFlag mode 2 flag 3.
    # AIV 0 and 1: CrossCoreWaitFlag 3, then V 50 -> both end at 150; the AIC at 100.
    aic = core([op("FIX", 1000, api="Fixpipe"), {"ev": "cross_set", "mode": 2, "flag": 3}], 0, "AIC")
    aivs = [core([{"ev": "cross_wait", "flag": 3}, op("V", 100, 50, api="Relu")], b) for b in (0, 1)]
    r = model_trace(trace(aic, *aivs), toy())
    assert [c.cycles for c in r.cores] == [pytest.approx(100.0), pytest.approx(150.0), pytest.approx(150.0)]


def test_startup_cost_from_soc_file() -> None:
    # 910B2: one GM->UB copy of 4700 B: 116 fixed + 4700 / 47 = 216 cycles at 1800 MHz
    # = 0.12 µs steady; modelled = steady + the pinned kernel start-up of socs.yaml.
    startup = soc.chip("ascend910b2")["perf"]["kernel_startup_us"]["value"]
    r = model_trace(trace(core([op("MTE2", 4700)])), "ascend910b2")
    assert r.steady_us == pytest.approx(216 / 1800)
    assert r.modelled_us == pytest.approx(216 / 1800 + startup)
    # a UB->GM copy has no fixed part (posted writes, socs.yaml): 6600 / 66 = 100 cycles
    assert model_trace(trace(core([op("MTE3", 6600)])), "ascend910b2").steady_us == pytest.approx(100 / 1800)
    assert r.modelled_us - r.steady_us == pytest.approx(10.0)


def test_cube_and_roofline() -> None:
    # Mmad fp16 with 64 fractals: 64 cycles; int8: 64 x 4096 / 8192 = 32 cycles (toy: no fixed cost).
    mm = {"ev": "op", "pipe": "M", "api": "Mmad", "dtype": "float16", "bytes": 64 * 4096, "repeats": 64}
    assert model_trace(trace(core([mm], 0, "AIC")), toy()).steady_us == pytest.approx(0.064)
    mm8 = dict(mm, dtype="int8")
    assert model_trace(trace(core([mm8], 0, "AIC")), toy()).steady_us == pytest.approx(0.032)
    # Roofline on the toy chip (1 AIC, 2 AIV, HBM 100 B/cycle): 1e6 vector flops / (2 x 128) =
    # 3906.25 cycles; 1e6 bytes / 100 = 10000 cycles -> bound 10 µs by HBM.
    p = toy(hbm=100.0)
    assert roofline_us(p, flops=1e6, hbm_bytes=1e6) == (pytest.approx(10.0), "hbm")
    # cube fp16: 1e9 flops / (1 x 2 x 4096) = 122070.3 cycles = 122.07 µs
    bound, by = roofline_us(p, flops=1e9, hbm_bytes=1e6, cube_dtype="float16")
    assert (bound, by) == (pytest.approx(1e9 / 8192 / 1000), "cube")
    assert roofline_us(p, flops=None, hbm_bytes=None) == (None, None)


def test_model_run_keys_and_efficiency() -> None:
    # 910B2 single copy as above: modelled = 216/1800 + 10 µs; bound = 4700 B / 1600 GB/s.
    tr = trace(core([op("MTE2", 4700)]))
    out = model_run(tr, "ascend910b", flops=None, hbm_bytes=4700)
    assert out["label"] == "modelled" and out["chip"] == "ascend910b2"
    assert set(out) >= {"modelled_us", "steady_us", "per_pipe_busy_us", "bound_us", "efficiency"}
    assert out["bound_us"] == pytest.approx(4700 / 1600e9 * 1e6)
    assert out["efficiency"] == pytest.approx(out["bound_us"] / out["modelled_us"])
    assert out["events_dropped"] == 0
    # launch bound: 1 AIV started, no flops -> still the HBM term
    assert out["bound_launch_us"] == pytest.approx(out["bound_us"])
    # 1e6 vector flops on the 1 AIV core launched: 1e6 / 128 = 7812.5 cycles = 4.34 µs;
    # with all 48 AIV: 162.8 cycles = 0.0904 µs (the HBM term 0.0029 µs binds neither)
    out2 = model_run(tr, "ascend910b2", flops=1e6, hbm_bytes=4700)
    assert out2["bound_us"] == pytest.approx(1e6 / (48 * 128) / 1800)
    assert out2["bound_launch_us"] == pytest.approx(1e6 / 128 / 1800)
    assert out2["efficiency_launch"] == pytest.approx(out2["bound_launch_us"] / out2["modelled_us"])
    assert model_run(tr, "ascend910b2")["efficiency"] is None
    tr["cores"][0]["events_dropped"] = 7
    assert model_run(tr, "ascend910b2")["events_dropped"] == 7


def test_every_chip_has_perf_constants_with_sources() -> None:
    for name in soc.chips():
        p = chip_params(name)
        assert p.hbm_bytes_per_cycle > 0 and p.startup_us > 0
        assert all("source" in v for v in p.sources.values())


def test_golden_hooks_feed_the_bound() -> None:
    # axpy_relu golden: flops = 3 per element, hbm_bytes = (2 + 2 + 2) B per element in fp16.
    # 100003 elements -> 300009 flops, 600018 bytes; 910B2 bound = 600018 B / 1600 GB/s.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "ops" / "examples" / "axpy_relu" / "golden.py"
    spec = importlib.util.spec_from_file_location("_axpy_golden", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    dt = {"x": "float16", "y": "float16", "z": "float16"}
    flops, nbytes = golden_costs(mod, {"x": [100003], "y": [100003]}, dt, {"alpha": 1.0})
    assert (flops, nbytes) == (300009.0, 600018.0)
    bound, by = roofline_us(chip_params("ascend910b2"), flops=flops, hbm_bytes=nbytes)
    assert by == "hbm" and bound == pytest.approx(600018 / 1600e9 * 1e6)
    assert golden_costs(object(), {}, {}, {}) == (None, None)


def test_composite_vector_api() -> None:
    # Sigmoid fp32 = Muls, Exp, Adds, Reciprocal: 4 x 2 start-up + 10 repeats x (1 + 2 + 1 + 1)
    # = 8 + 50 = 58 cycles (toy chip with 910B2's class table and a 2-cycle start-up).
    p = toy(vector_startup=2.0, vector_cpr=chip_params("ascend910b2").vector_cpr)
    ev = [{"ev": "op", "pipe": "V", "api": "Sigmoid", "dtype": "float32", "bytes": 2560, "repeats": 10}]
    r = model_trace(trace(core(ev)), p)
    assert r.steady_us == pytest.approx(0.058)
    assert r.unknown_apis == []
    ev[0]["api"] = "NotAnApi"
    assert model_trace(trace(core(ev)), p).unknown_apis == ["V:NotAnApi"]


def test_topk_and_the_softmax_family_are_priced_as_their_steps() -> None:
    p = toy(vector_startup=2.0, vector_cpr=chip_params("ascend910b2").vector_cpr)
    for api in ("TopK", "SoftMax", "SimpleSoftMax", "SoftmaxFlash", "SoftmaxFlashV2", "AdjustSoftMaxRes", "DropOut"):
        ev = [{"ev": "op", "pipe": "V", "api": api, "dtype": "float32", "bytes": 2560, "repeats": 10}]
        r = model_trace(trace(core(ev)), p)
        assert r.unknown_apis == [] and r.steady_us > 0.01, api  # more than one step's start-up and repeats


def test_pipe_barrier_all_drains_every_pipe() -> None:
    # MTE2 1000 B (100 cycles) and V 50 run side by side; PipeBarrier<PIPE_ALL> (pipe 6) makes the
    # next V wait for both: 100 + 50 = 150 cycles (without it: max(100, 50 + 50) = 100).
    v = op("V", 100, 50, api="Relu")
    ev = [op("MTE2", 1000), v, {"ev": "barrier", "pipe": 6}, v]
    assert model_trace(trace(core(ev)), toy()).steady_us == pytest.approx(0.15)
    ev[2] = {"ev": "barrier", "pipe": 1}  # PipeBarrier<PIPE_V>: V is in order anyway
    assert model_trace(trace(core(ev)), toy()).steady_us == pytest.approx(0.1)


def test_vector_pipeline_drains_where_the_v_pipe_must_be_empty() -> None:
    # vector_drain = 20: two Relus of 50 repeats back to back cost 100 cycles; a PipeBarrier<PIPE_V> between them
    # adds one drain (120); a SetFlag from V adds one more before MTE3's copy (1000 B, 100 cycles) can start.
    p = toy(vector_drain=20.0)
    v = op("V", 100, 50, api="Relu")
    assert model_trace(trace(core([v, v])), p).steady_us == pytest.approx(0.1)
    assert model_trace(trace(core([v, {"ev": "barrier", "pipe": 1}, v])), p).steady_us == pytest.approx(0.12)
    ev = [v, flag("set_flag", "V", "MTE3"), flag("wait_flag", "V", "MTE3"), op("MTE3", 1000)]
    r = model_trace(trace(core(ev)), p)
    assert r.steady_us == pytest.approx(0.17) and r.per_pipe_busy_us["V"] == pytest.approx(0.07)
    assert r.slowest_by_api_us["V drain"] == pytest.approx(0.02)  # listed by instruction, as "V drain"
    # an EnQue from V drains as a SetFlag does
    ev = [{"ev": "alloc", "buf": 0}, v, {"ev": "enque", "buf": 0, "from": "V", "to": "MTE3"},
          {"ev": "deque", "buf": 0}, op("MTE3", 1000)]
    assert model_trace(trace(core(ev)), p).steady_us == pytest.approx(0.17)
    # an advanced API drains between its steps: SoftmaxFlashV2's four element steps and five row steps, 9 - 1 drains
    sm = {"ev": "op", "pipe": "V", "api": "SoftmaxFlashV2", "dtype": "float32", "bytes": 2560, "repeats": 10,
          "rows": 8}
    assert (model_trace(trace(core([sm])), p).steady_us - model_trace(trace(core([sm])), toy()).steady_us
            == pytest.approx(8 * 0.02))
    # the chip's figure comes from A-add's published V busy times (socs.yaml)
    assert chip_params("ascend910b2").vector_drain > 0


def test_add_8192_squared_fp16_near_the_published_case() -> None:
    # Sanity anchor, not a calibration: A-add case "double buffer" (8192 x 8192 fp16 Add, 48 AIV,
    # 32 KB copies) measured 264.0 µs. Hand-written trace of that kernel: per core 85 tiles of
    # 2 x 32 KB in, Add (128 repeats), 32 KB out, two buffers per queue.
    # HBM term alone: 3 x 128 MiB / 1600 GB/s = 251.7 µs; the model adds the pipeline fill and the
    # 10 µs start-up. npu_perf_model §4.4 asks for ~15 %.
    ev: list[dict[str, Any]] = []
    for i in range(85):
        b = i % 2
        ev += [{"ev": "alloc", "buf": b}, {"ev": "alloc", "buf": 2 + b}, op("MTE2", 32768),
               op("MTE2", 32768), {"ev": "enque", "buf": b, "from": "MTE2", "to": "V"},
               {"ev": "enque", "buf": 2 + b, "from": "MTE2", "to": "V"}, {"ev": "deque", "buf": b},
               {"ev": "deque", "buf": 2 + b}, {"ev": "alloc", "buf": 10 + b},
               op("V", 32768, 128, api="Add"), {"ev": "enque", "buf": 10 + b, "from": "V", "to": "MTE3"},
               {"ev": "free", "buf": b}, {"ev": "free", "buf": 2 + b}, {"ev": "deque", "buf": 10 + b},
               op("MTE3", 32768), {"ev": "free", "buf": 10 + b}]
    out = model_run(trace(*[core(ev, b) for b in range(48)]), "ascend910b2",
                    hbm_bytes=3 * 8192 * 8192 * 2)
    assert out["bound_us"] == pytest.approx(251.66, rel=1e-3)
    assert out["steady_us"] >= out["bound_us"]
    assert out["modelled_us"] == pytest.approx(264.0, rel=0.15)


def test_cross_core_flag_mode0_releases_after_every_core_has_set() -> None:
    # Mode 0 between AIV cores: core 0 sets after 100 cycles of MTE2, core 1 right away; both
    # wait for the round, then V 50 -> both end at 150.
    v = op("V", 100, 50, api="Relu")
    c0 = core([op("MTE2", 1000), {"ev": "cross_set", "mode": 0, "flag": 2},
               {"ev": "cross_wait", "flag": 2}, v], 0)
    c1 = core([{"ev": "cross_set", "mode": 0, "flag": 2}, {"ev": "cross_wait", "flag": 2}, v], 1)
    r = model_trace(trace(c0, c1), toy())
    assert [c.cycles for c in r.cores] == [pytest.approx(150.0), pytest.approx(150.0)]


def test_replay_ends_with_awkward_numbers() -> None:
    # Late, tiny, odd-sized copies of three cores sharing a small HBM bandwidth: the replay must
    # finish, and the total equals 1e7 cycles of V plus (3 cores x 200 x 33 B) / 7 B/cycle.
    ev = [op("V", 1, 10**7, api="Relu"), flag("set_flag", "V", "MTE2"), flag("wait_flag", "V", "MTE2")]
    ev += [op("MTE2", 33) for _ in range(200)]
    r = model_trace(trace(*[core(ev, b) for b in range(3)]), toy(hbm=7.0))
    assert r.steady_us == pytest.approx((1e7 + 3 * 200 * 33 / 7.0) / 1000.0, rel=1e-9)


def test_short_bursts_move_at_the_alignment_factor() -> None:
    # A-512B: bursts shorter than the 512-B GM segment move at the factor of the pipe's rate; the
    # burst is bytes / repeats (one per ND row or block). 1000 B at 10 B/cycle = 100 cycles.
    p = toy(short_burst_bytes=512.0, short_burst_factor=0.5)
    long_rows = model_trace(trace(core([op("MTE2", 1000, 1)])), p)
    short_rows = model_trace(trace(core([op("MTE2", 1000, 10)])), p)  # ten 100-B rows
    assert long_rows.steady_us == pytest.approx(0.1)
    assert short_rows.steady_us == pytest.approx(0.2)
    writes = model_trace(trace(core([op("FIX", 1000, 4)], core_type="AIC")), p)  # 250-B rows out of L0C
    assert writes.steady_us == pytest.approx(0.2)


def test_l2_hits_of_re_read_bytes() -> None:
    from opkit.perf.model import l2_hit_fraction

    # An AIC reads the same 1000 B four times: 1000 B must come from HBM, 3000 B re-read it.
    reads = [op("MTE2", 1000, 1) for _ in range(4)]
    tr = trace(core(reads, core_type="AIC"))
    p = toy(hbm=10.0, gm_to_l1=40.0, l2_bytes=1e6, l2_read=20.0)
    assert l2_hit_fraction(tr, p, hbm_bytes=1000) == pytest.approx(0.75)
    assert l2_hit_fraction(tr, p, hbm_bytes=None) == 0.0
    assert l2_hit_fraction(tr, dataclasses.replace(p, l2_read=0.0), hbm_bytes=1000) == 0.0
    # a footprint twice the L2: half of the re-reads hit (est)
    assert l2_hit_fraction(tr, dataclasses.replace(p, l2_bytes=500.0), hbm_bytes=1000) == pytest.approx(0.375)
    # writes are not reads that must come from HBM: 1000 B in, 1000 B out, footprint 2000 B
    tw = trace(core(reads + [op("FIX", 1000, 1)], core_type="AIC"))
    assert l2_hit_fraction(tw, p, hbm_bytes=2000) == pytest.approx(0.75)
    # hits at the L2 rate (3000 B / 20 = 150 cycles), misses at the HBM share (1000 B / 10 = 100)
    res = model_trace(tr, p, l2_hit=0.75)
    assert res.steady_us == pytest.approx(0.25)
    assert model_trace(tr, p).steady_us == pytest.approx(0.4)  # no L2: 4000 B at 10 B/cycle


def test_l1_to_l0_rate_by_destination() -> None:
    # The trace names the arena an MTE1 copy fills; 2201 moves L1->L0A at 256 B/cycle, L1->L0B at 128
    # (A-2201), L1->BiasTable at 64 (K-arch); a record without "dst" uses the single l1_to_l0 figure.
    p = toy(l1_to_l0=10.0, l1_to_dst={"L0A": 40.0, "L0B": 20.0})

    def mte1(dst: str | None) -> float:
        e = op("MTE1", 4000, 8, api="LoadData")
        if dst is not None:
            e["dst"] = dst
        return model_trace(trace(core([e], core_type="AIC")), p).steady_us

    assert mte1("L0A") == pytest.approx(0.1)
    assert mte1("L0B") == pytest.approx(0.2)
    assert mte1(None) == pytest.approx(0.4)
    assert mte1("L0C") == pytest.approx(0.4)  # no rate of its own
    b2, p3 = chip_params("ascend910b2"), chip_params("ascend310p3")
    assert (b2.onchip_rate("L0A"), b2.onchip_rate("L0B"), b2.onchip_rate("BiasTable"), b2.onchip_rate("")) == (
        256.0, 128.0, 64.0, 128.0)
    assert p3.onchip_rate("L0A") == p3.onchip_rate("L0B") == p3.l1_to_l0 == 128.0  # no 2002 source: one figure


def test_softmax_per_row_steps_are_priced_by_rows() -> None:
    # SoftmaxFlashV2 fp32, 64 rows x 1024: 256 repeats over the scores (rowmax 7, x - max 2, exp 2, rowsum 3)
    # and, in the update form, 5 steps over the [64, 8] statistics: 8 repeats of 2 cycles each; 9 start-ups of 2.
    p = toy(vector_startup=2.0, vector_cpr=chip_params("ascend910b2").vector_cpr)
    rec = {"ev": "op", "pipe": "V", "api": "SoftmaxFlashV2", "dtype": "float32", "bytes": 65536, "repeats": 256}
    upd = model_trace(trace(core([{**rec, "rows": 64, "update": 1}])), p).steady_us
    assert upd == pytest.approx((9 * 2 + 256 * 14 + 5 * 8 * 2) / 1000)
    plain = model_trace(trace(core([{**rec, "rows": 64, "update": 0}])), p).steady_us
    assert plain == pytest.approx((4 * 2 + 256 * 14) / 1000)
    # a record without its row count (an older trace): the per-row steps over every element, an upper bound
    old = model_trace(trace(core([rec])), p).steady_us
    assert old == pytest.approx((9 * 2 + 256 * 14 + 5 * 256 * 2) / 1000) and old > upd
    # SoftMax: the two broadcasts of the row statistics are per row too
    sm = {**rec, "api": "SoftMax", "rows": 64, "update": 0}
    assert model_trace(trace(core([sm])), p).steady_us == pytest.approx((7 * 2 + 256 * 18 + 2 * 8 * 1) / 1000)


def test_unit_flag_hands_l0c_between_mmad_and_fixpipe_in_pieces() -> None:
    # two tiles, each an Mmad of 400 cycles and a Fixpipe of 4000 B at 10 B/cycle (400 cycles). With M -> FIX and
    # FIX -> M flags they run one after the other: 1600 cycles. With the unit flag (Matmul's Norm template) the
    # Fixpipe follows its Mmad piece by piece (4 pieces of 100) and the next Mmad follows the Fixpipe the same way:
    # M1 0-400, F1 100-500, M2 400-800 (piece j after F1's piece j), F2 500-900: 900 cycles
    def mmad(unit: int) -> dict[str, Any]:
        return {**op("M", 0, 400, "Mmad"), **({"unit": unit} if unit else {})}

    def fix(unit: int) -> dict[str, Any]:
        return {**op("FIX", 4000, 1, "Fixpipe"), **({"unit": unit} if unit else {})}

    def flag(kind: str, a: str, b: str) -> dict[str, Any]:
        return {"ev": kind, "from": a, "to": b, "id": 0}

    flags = [mmad(0), flag("set_flag", "M", "FIX"), flag("wait_flag", "M", "FIX"), fix(0),
             flag("set_flag", "FIX", "M"), flag("wait_flag", "FIX", "M"), mmad(0),
             flag("set_flag", "M", "FIX"), flag("wait_flag", "M", "FIX"), fix(0)]
    assert model_trace(trace(core(flags, core_type="AIC")), toy()).steady_us == pytest.approx(1.6)
    unit = [mmad(3), fix(3), mmad(3), fix(3)]
    res = model_trace(trace(core(unit, core_type="AIC")), toy(), keep_graph=True)
    assert res.steady_us == pytest.approx(0.9)
    assert res.cores[0].busy["M"] == pytest.approx(800) and res.cores[0].busy["FIX"] == pytest.approx(800)
