"""The Matmul API on the cube data path (matmul_cube_harness.cpp): the trace of the API equals the trace of the
same tiles done by hand with the cube instructions; the work runs on the AIC (MIX server, AIC-only inline);
sync/async calls, two AIV clients of one AIC, C to UB through the GM workspace, UB operands, bias, atomic;
the capacity diagnostics raised from inside the Matmul and the broken-kernel corpus."""

from __future__ import annotations

import json
import os
import re
import subprocess

import numpy as np
import pytest
from sim_util import CPP, build

SRC = CPP / "matmul_cube_harness.cpp"
rng = np.random.default_rng(21)


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def nz(x):
    """A [R, C] matrix in CANN's NZ layout: column blocks of 16 elements, each R rounded up to 16 rows."""
    r, c = x.shape
    p = np.zeros((-(-r // 16) * 16, -(-c // 16) * 16), x.dtype)
    p[:r, :c] = x
    return np.ascontiguousarray(p.reshape(p.shape[0], -1, 16).transpose(1, 0, 2))


def run(exe, tmp_path, scenario, m, n, k, c0=None, trace=False):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    sa, sb = (nz(a), nz(b)) if scenario == "nz" else (a, b)
    if scenario == "orgk":  # A stored with 16 more columns than K (never read)
        sa = np.concatenate([a, rng.uniform(-1, 1, (m, 16)).astype(np.float16)], axis=1)
    bias = rng.uniform(-1, 1, n).astype(np.float32)
    c = np.zeros((m, n), np.float32) if c0 is None else c0.astype(np.float32)
    if scenario == "nzc":
        c = nz(c)
    if scenario == "orgk":  # C rows of N + 8 elements: the last 8 of each row stay as they were
        c = np.full((m, n + 8), 7.0, np.float32)
    d = tmp_path / scenario
    d.mkdir(parents=True)
    for name, arr in [("a", sa), ("b", sb), ("bias", bias), ("c", c)]:
        (d / f"{name}.bin").write_bytes(arr.tobytes())
    env = dict(os.environ)
    if trace:
        env["OPKIT_SIM_TRACE"] = str(d / "trace.json")
    r = subprocess.run([str(exe), str(d), scenario, str(m), str(n), str(k)], capture_output=True, text=True, env=env, timeout=120)
    out = np.frombuffer((d / "out.bin").read_bytes(), np.float32).reshape(c.shape) if r.returncode == 0 else None
    t = json.loads((d / "trace.json").read_text()) if trace and r.returncode == 0 else None
    return a, b, bias, c, out, r, t


def gemm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def line_of(tag):
    for i, line in enumerate(SRC.read_text().splitlines(), 1):
        if re.search(rf"// .*@{tag}\b", line):
            return i
    raise KeyError(tag)


def core_trace(t, core_type):
    """Per pipe (instrs, bytes, repeats) and per instruction class of the cores of one type, summed."""
    pipes, classes = {}, {}
    for c in t["cores"]:
        if c["core_type"] != core_type:
            continue
        for p, v in c["pipes"].items():
            s = pipes.setdefault(p, [0, 0, 0])
            for j, key in enumerate(("instrs", "bytes", "repeats")):
                s[j] += v[key]
        for i in c["instructions"]:
            s = classes.setdefault((i["pipe"], i["api"], i["dtype"]), [0, 0, 0])
            for j, key in enumerate(("count", "bytes", "repeats")):
                s[j] += i[key]
    return pipes, classes


def test_trace_of_the_api_equals_the_hand_kernel(exe, tmp_path):
    m, n, k = 70, 45, 100  # tails in every dimension
    a, b, _, _, api, r, ta = run(exe, tmp_path, "api", m, n, k, trace=True)
    assert r.returncode == 0, r.stderr
    _, _, _, _, hand, r2, th = run(exe, tmp_path, "hand", m, n, k, trace=True)
    assert r2.returncode == 0, r2.stderr
    np.testing.assert_allclose(api, gemm(a, b), rtol=1e-5, atol=1e-5)
    pa, ca = core_trace(ta, "AIC")
    ph, ch = core_trace(th, "AIC")
    assert pa == ph
    assert ca == ch
    # the real movement: 3 x 2 tiles, 4 K steps each -> 24 Mmads; A and B panels copied per tile
    assert ca[("M", "Mmad", "float16")][0] == 24
    assert ca[("MTE2", "DataCopy", "float16")][0] == 48
    assert ca[("FIX", "Fixpipe", "float32")][0] == 6
    assert ca[("FIX", "Fixpipe", "float32")][1] == m * n * 4


def test_small_base_blocks_accumulate_with_the_pipe_m_barrier_cann_inserts(exe, tmp_path):
    """32 x 32 base blocks, (32 / 16) * (32 / 16) = 4 < 10, four K steps with L0A/L0B ping-ponged: each Mmad of a
    tile accumulates onto the previous one's L0C with no flag between them, so the Matmul must put the
    PipeBarrier<PIPE_M> of the Mmad page between them, as CANN's does (the same-pipe check would stop it)."""
    a, b, _, _, out, r, t = run(exe, tmp_path, "db_l0", 70, 45, 100, trace=True)
    assert r.returncode == 0, r.stderr
    assert "same-pipe" not in r.stderr, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    _, classes = core_trace(t, "AIC")
    assert classes[("M", "Mmad", "float16")][0] == 24


def test_mix_work_runs_on_the_aic_and_results_match(exe, tmp_path):
    a, b, _, _, out, r, t = run(exe, tmp_path, "mix", 40, 48, 72, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    aic, _ = core_trace(t, "AIC")
    aiv, _ = core_trace(t, "AIV")
    assert {"MTE2", "MTE1", "M", "FIX"} <= set(aic)
    assert "M" not in aiv and "FIX" not in aiv


@pytest.mark.parametrize("scenario", ["async", "async_self"])
def test_async_iterate_all_then_wait(exe, tmp_path, scenario):
    a, b, _, _, out, r, _ = run(exe, tmp_path, scenario, 33, 40, 50)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)


def test_two_aiv_clients_of_one_aic(exe, tmp_path):
    a, b, _, _, out, r, t = run(exe, tmp_path, "two", 90, 64, 48, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    _, classes = core_trace(t, "AIC")
    # 45 rows per client -> 2 x 2 tiles each, all served by the one AIC
    assert classes[("FIX", "Fixpipe", "float32")][0] == 8


def test_ibshare_b_copies_the_shared_matrix_once_for_both_aivs(exe, tmp_path):
    # both AIVs of the AIC multiply their half of A's rows by the same B: without IBShare each job copies B into L1,
    # with it (B's MatmulType IBSHARE, CFG_IBSHARE_NORM) the second job finds it there; the results are the same
    m, n, k = 64, 64, 96
    b_bytes = k * n * 2
    mte2 = {}
    for scenario in ("halves", "share_b"):
        a, b, _, _, out, r, t = run(exe, tmp_path, scenario, m, n, k, trace=True)
        assert r.returncode == 0, r.stderr
        np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
        pipes, _ = core_trace(t, "AIC")
        mte2[scenario] = pipes["MTE2"][1]
    a_bytes = m * k * 2 * (n // 32)  # A's rows are copied again for each of the two 32-column tiles
    assert mte2["halves"] == a_bytes + 2 * b_bytes
    assert mte2["share_b"] == a_bytes + b_bytes


def _job_mte2_bytes(trace):
    """MTE2 bytes of the AIC's jobs, by the posting AIV (0 or 1): the AIC's events from a job's mm_run to its mm_done."""
    aivs = [c for c in trace["cores"] if c.get("core_type") == "AIV"]
    poster = {e["job"]: i for i, c in enumerate(aivs) for e in c["events"] if e.get("ev") == "mm_post"}
    aic = next(c for c in trace["cores"] if c.get("core_type") == "AIC")
    out, job = {0: 0, 1: 0}, None
    for e in aic["events"]:
        if e.get("ev") == "mm_run":
            job = e["job"]
        elif e.get("ev") == "mm_done":
            job = None
        elif job is not None and e.get("ev") == "op" and e.get("pipe") == "MTE2":
            out[poster[job]] += e["bytes"]
    return out


def test_ibshare_copy_is_charged_to_the_first_aiv_whatever_the_host_order(exe, tmp_path):
    # the model serves AIV 0's job of a pair first, so the shared B copy is AIV 0's job's even when the host ran
    # AIV 1's job first ("share_b_late"): that job's traced copy is taken back and the counts agree with the trace
    m, n, k = 64, 64, 96
    b_bytes = k * n * 2
    a_half = m // 2 * k * 2 * (n // 32)
    for scenario in ("share_b", "share_b_late"):
        a, b, _, _, out, r, t = run(exe, tmp_path, scenario, m, n, k, trace=True)
        assert r.returncode == 0, r.stderr
        np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
        assert _job_mte2_bytes(t) == {0: a_half + b_bytes, 1: a_half}, scenario
        pipes, classes = core_trace(t, "AIC")
        assert pipes["MTE2"][1] == 2 * a_half + b_bytes, scenario
        assert sum(v[1] for key, v in classes.items() if key[0] == "MTE2") == 2 * a_half + b_bytes, scenario


def test_ibshare_matrix_takes_its_own_size_in_l1(exe, tmp_path):
    # stepKa = stepKb = 8 (256 K, more than K 96) with depths of 16: the shared B [96, 2048] (384 KiB) is held at its own
    # size, not as 64 tiles of 256 K (1 MiB, more than L1); a B that is itself too large for L1 [96, 4096] is still refused
    a, b, _, _, out, r, _ = run(exe, tmp_path, "share_b_deep", 64, 2048, 96)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    *_, r, _ = run(exe, tmp_path / "big", "share_b_deep", 64, 4096, 96)
    assert r.returncode != 0 and "IBShare B: the whole B (singleCoreK x singleCoreN) in L1" in r.stderr, r.stderr
    # B's 96 x 4096 x 2 B = 786432 plus A's three K blocks, cached (Norm copies one base block: 32 x 32 x 2 B each)
    assert "L1 capacity exceeded: the Matmul needs 792576 bytes" in r.stderr, r.stderr


def test_a_block_the_previous_tile_left_in_l1_is_not_copied_again(exe, tmp_path):
    # the Norm template keeps the base blocks it copied in A1/B1: with A's whole K in one copy that the depth
    # holds (K 32 = baseK x stepKa, depthA1 1), the second 32-column tile of the row reuses A's block; with K 64
    # (two copies, more than the depth) every tile copies it
    for k, a_copies in ((32, 1), (64, 2)):
        a, b, _, _, out, r, t = run(exe, tmp_path / f"k{k}", "mix", 32, 64, k, trace=True)
        assert r.returncode == 0, r.stderr
        np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
        pipes, _ = core_trace(t, "AIC")
        assert pipes["MTE2"][1] == a_copies * 32 * k * 2 + k * 64 * 2, k


def test_the_next_tile_copies_while_the_tile_computes(exe, tmp_path):
    # CANN's Norm template drains nothing at the end of a tile: with K blocks streamed through two L1 buffers and
    # two L0 halves, the second tile's first copy goes into the buffer the tile's third K block has left, so it
    # starts before the first tile's last Mmad ends; with one buffer each it waits for the last K block's loads
    from opkit.perf.model import model_trace

    for scenario, overlap in (("stream2", True), ("api", False)):
        a, b, _, _, out, r, t = run(exe, tmp_path, scenario, 32, 64, 128, trace=True)  # 2 tiles, 4 K blocks each
        assert r.returncode == 0, r.stderr
        np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
        tasks = model_trace(t, "ascend910b2", keep_graph=True).graph.tasks
        aic = [i for i, c in enumerate(t["cores"]) if c["core_type"] == "AIC"][0]
        on = {p: [x for x in tasks if x.core == aic and x.pipe == p and x.klass] for p in ("MTE2", "MTE1", "M")}
        # A and B per K block; one Mmad per K block, replayed in pieces with the unit flag (docs/perf.md)
        assert len(on["MTE2"]) == 16 and len(on["M"]) % 8 == 0, scenario
        per = len(on["M"]) // 8
        next_copy, last_mmad = on["MTE2"][8], on["M"][4 * per - 1]
        last_load = max((x for x in on["MTE1"] if x.end <= last_mmad.start), key=lambda x: x.end)
        if overlap:
            assert next_copy.start < last_mmad.end, scenario
        else:
            assert next_copy.start >= last_load.end, scenario


def test_matmul_objects_of_one_core_share_their_buffers(exe, tmp_path):
    # CANN's objects start their buffers at one shared start (shareMode 0): two objects of 384 KiB of L1 each fit the
    # 512 KiB of L1 together, and the second's result (the same product into the same C) is right
    a, b, _, _, out, r, _ = run(exe, tmp_path, "two_objects", 512, 512, 512)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-4)  # fp32 sums of 512 products


def test_c_to_ub_through_the_workspace(exe, tmp_path):
    m, n, k = 50, 40, 64
    a, b, _, _, out, r, t = run(exe, tmp_path, "ub", m, n, k, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, 2 * gemm(a, b), rtol=1e-5, atol=1e-5)
    aic, _ = core_trace(t, "AIC")
    aiv, _ = core_trace(t, "AIV")
    # L0C -> GM workspace on the AIC (FIX), workspace -> UB on the AIV (MTE2): every C byte once each way
    assert aic["FIX"][1] == m * n * 4
    assert aiv["MTE2"][1] == m * n * 4
    assert "FIX" not in aiv


def test_a_from_ub(exe, tmp_path):
    a, b, _, _, out, r, t = run(exe, tmp_path, "local", 32, 40, 48, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    aiv, _ = core_trace(t, "AIV")
    assert aiv["MTE3"][1] == 32 * 48 * 2  # UB -> GM workspace on the client


def test_bias_through_the_bias_table(exe, tmp_path):
    a, b, bias, _, out, r, t = run(exe, tmp_path, "bias", 37, 45, 70, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b) + bias, rtol=1e-5, atol=1e-5)
    _, classes = core_trace(t, "AIC")
    assert classes[("MTE1", "DataCopy", "float32")][0] == 4  # L1 -> BiasTable once per tile


def test_atomic_adds_onto_c(exe, tmp_path):
    c0 = rng.uniform(-1, 1, (30, 34)).astype(np.float32)
    a, b, _, _, out, r, _ = run(exe, tmp_path, "atomic", 30, 34, 20, c0=c0)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, c0 + gemm(a, b), rtol=1e-5, atol=1e-5)


def test_async_tiles_then_end(exe, tmp_path):
    a, b, _, _, out, r, _ = run(exe, tmp_path, "async_tiles", 50, 70, 40)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)


def test_org_shape_strides_of_a_and_c(exe, tmp_path):
    a, b, _, _, out, r, _ = run(exe, tmp_path, "orgk", 40, 36, 50)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out[:, :36], gemm(a, b), rtol=1e-5, atol=1e-5)
    assert np.all(out[:, 36:] == 7.0)


def test_nz_operands_are_copied_without_nd2nz(exe, tmp_path):
    m, n, k = 40, 48, 70
    a, b, _, _, out, r, t = run(exe, tmp_path, "nz", m, n, k, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    pipes, _ = core_trace(t, "AIC")
    # no ND2NZ conversion: whole 32-B rows of the stored column blocks (16 elements) move, per 32 x 32 tile and K step of 32
    def spans(total):
        return [min(32, total - i) for i in range(0, total, 32)]
    blocks = lambda x: -(-x // 16)  # noqa: E731
    a_bytes = len(spans(n)) * sum(rows * blocks(kc) * 32 for rows in spans(m) for kc in spans(k))
    b_bytes = len(spans(m)) * sum(kc * blocks(cols) * 32 for cols in spans(n) for kc in spans(k))
    assert pipes["MTE2"][1] == a_bytes + b_bytes


def test_c_to_gm_in_nz_format(exe, tmp_path):
    a, b, _, _, out, r, _ = run(exe, tmp_path, "nzc", 40, 56, 48)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, nz(gemm(a, b)), rtol=1e-5, atol=1e-5)


def test_iterate_batch_normal_layout(exe, tmp_path):
    m, n, k = 60, 40, 48  # three A matrices of 20 rows one after another, B shared
    a, b, _, _, out, r, _ = run(exe, tmp_path, "batch", m, n, k)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)


def test_local_workspace_is_checked_and_leaves_the_910b_data_path_alone(exe, tmp_path):
    """SetLocalWorkspace with a VECCALC buffer of MatmulGetTmpBufSize's ubSize (2 x transLength): the result is the
    product and the Matmul's movement is that of the same call without it (on 910B the cube needs no UB staging)."""
    a, b, _, _, out, r, t = run(exe, tmp_path, "lws", 40, 48, 72, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b), rtol=1e-5, atol=1e-5)
    *_, r2, t2 = run(exe, tmp_path, "mix", 40, 48, 72, trace=True)
    assert r2.returncode == 0, r2.stderr
    assert core_trace(t, "AIC") == core_trace(t2, "AIC")
    assert core_trace(t, "AIV") == core_trace(t2, "AIV")


def test_bias_from_ub(exe, tmp_path):
    a, b, bias, _, out, r, t = run(exe, tmp_path, "bias_ub", 37, 45, 70, trace=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(out, gemm(a, b) + bias, rtol=1e-5, atol=1e-5)
    aic, classes = core_trace(t, "AIC")
    assert classes[("MTE1", "DataCopy", "float32")][0] == 4  # L1 -> BiasTable once per tile, as with a GM bias
    aiv, _ = core_trace(t, "AIV")
    assert aiv["MTE3"][1] == 45 * 4  # UB -> GM workspace on the client: the N bias values once


ERRORS = {
    "nowait": ("nowait", [r"Matmul::WaitIterateAll", r"asynchronous IterateAll<false> called here \(waitIterateAll = true\) still outstanding",
                          r"call WaitIterateAll\(\)"]),
    "nowait_end": ("nowait_end", [r"Matmul::End: the asynchronous IterateAll<false> called at .*matmul_cube_harness.cpp:(\d+) "
                                  r"\(waitIterateAll = true\)",
                                  r"call WaitIterateAll\(\) before End\(\)"]),
    "no_iterate": ("no_iterate", [r"Matmul::GetTensorC: no tile: call Iterate\(\) first"]),
    "iterate_after_end": ("iterate_after_end", [r"Matmul::GetTensorC: no tile: call Iterate\(\) first"]),
    "aiv_only": ("aiv_only", [r"Matmul::IterateAll: the Matmul needs a cube core", r"starts only vector cores",
                              r"KERNEL_TYPE_MIX_AIC_1_2"]),
    "l1_over": ("l1_over", [r"Matmul::Init \(A1/B1 L1 buffers of the tiling: baseM 512, baseN 512, baseK 512",
                            r"L1 capacity exceeded", r"GetCoreMemSize"]),
    "l0c_over": ("l0c_over", [r"Matmul::Init \(CO1 L0C buffer of the tiling: baseM 256 x baseN 256 x 4 B\)",
                              r"L0C capacity exceeded: the Matmul needs 262144 bytes"]),
    "l0a_over": ("l0a_over", [r"Matmul::Init \(A2 L0A buffers of the tiling: baseM 256, baseK 256, dbL0A 1\)",
                              r"L0A capacity exceeded: the Matmul needs 131072 bytes", r"GetCoreMemSize"]),
    "l0b_over": ("l0b_over", [r"Matmul::Init \(B2 L0B buffers of the tiling: baseK 256, baseN 256, dbL0B 1\)",
                              r"L0B capacity exceeded: the Matmul needs 131072 bytes", r"GetCoreMemSize"]),
    "lws_small": ("lws_small", [r"Matmul::SetLocalWorkspace: tmpBuffer holds 4096 bytes; the tiling needs at least 8192",
                                r"max\(shareUbSize 0, 2 x transLength 4096\)", r"allocate at least 8192 bytes"]),
    "lws_pos": ("lws_pos", [r"Matmul::SetLocalWorkspace: tmpBuffer is a VECIN tensor in UB: it must be a VECCALC tensor",
                            r"of at least 8192 bytes"]),
    "lws_aic": ("lws_aic", [r"Matmul::SetLocalWorkspace: called on an AIC, which has no UB", r"remove it"]),
    "bias_ub_short": ("bias_ub_short", [r"Matmul::SetBias: the local bias holds 63 elements; the single shape's N is 64"]),
    "noserver": ("noserver", [r"AIV block 0/1: Matmul::IterateAll: the Matmul job cannot run: AIC 0 returned from the kernel "
                              r"without serving its AIVs", r"REGIST_MATMUL_OBJ must be reached"]),
    "nz_operand": ("nz_operand", [r"Matmul::IterateAll: Matmul operands in CubeFormat::ZN are not simulated: A and B are ND or NZ"]),
    "batch_layout": ("batch_layout", [r"Matmul::IterateBatch: layout BSNGD is not simulated", r"LayoutMode::NORMAL"]),
    "share_ab_iterate": ("share_ab_iterate", [r"Matmul::Iterate: IBShare is enabled on both A and B",
                                              r"only be computed with IterateAll into GM"]),
}


@pytest.mark.parametrize("scenario", list(ERRORS))
def test_broken_matmul_kernels_are_stopped(exe, tmp_path, scenario):
    tag, pats = ERRORS[scenario]
    *_, r, _ = run(exe, tmp_path, scenario, 64, 64, 64)
    assert r.returncode == 3, (r.returncode, r.stderr)
    err = r.stderr
    assert err.count("opkit-sim: error:") == 1, err
    for p in pats:
        assert re.search(p, err), f"{p!r} not in:\n{err}"
    assert f"matmul_cube_harness.cpp:{line_of(tag)}" in err, err
    if scenario == "nowait_end":
        assert re.search(r"called at .*matmul_cube_harness.cpp:(\d+)", err).group(1) == str(line_of("nowait_site"))
