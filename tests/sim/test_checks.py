"""The simulator's hardware-faithful checks: each scenario ends the run with a precise diagnostic."""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, marked_line

SRC = CPP / "checks_harness.cpp"


@pytest.fixture(scope="module")
def exe():
    return build(SRC)


def line_of(name: str) -> int:
    return marked_line(SRC, name)


def run(exe, scenario: str, timeout: float = 60, env=None):
    return subprocess.run([str(exe), scenario], capture_output=True, timeout=timeout, env=env)


ERRORS = {
    # the 256 B GetCoreMemSize keeps back for the AIC-AIV channel: in use in a mix launch
    "mix_ub_kfc_touched": [r"Duplicate: writes UB bytes \[196352, 196416\), past the 196352 bytes the chip "
                           r"\(ascend910b2\) offers"],
    "ub_past_phys_touched": [r"Duplicate: writes UB bytes \[196608, 196864\), past the 196352 bytes"],
    "ub_phys_over": [r"UB capacity exceeded", r"1 x 262144 bytes", r"offers 196352 bytes", r"261120 bytes over"],
    "local_oob_past_ub": [r"Duplicate: destination local tensor out of bounds: writes UB bytes \[196096, 196736\)",
                          r"past the 196352 bytes the chip \(ascend910b2\) offers"],
    "clobber_read": [r"Muls: reads UB bytes \[256, 288\) of the buffer initialised at .*checks_harness.cpp:\d+, which the "
                     r"out-of-bounds write of Duplicate at .*checks_harness.cpp:\d+ overwrote", r"corrupted data"],
    "sort_index_unwritten": [r"GetValue: scalar read of element 63", r"never written"],
    "que_events_enqueued": [r"EnQue: no free hardware event ID for V_MTE3: all 8 are held",
                            r"event 7: TQue::EnQue at .*checks_harness.cpp:\d+", r"at most 8 on Atlas A2"],
    "que_events_freed": [r"FreeTensor: no free hardware event ID for MTE3_V: all 8 are held",
                         r"event 0: TQue::FreeTensor at .*checks_harness.cpp:\d+"],
    "que_user_pos_orders_user_pipes": [r"Adds: missing pipe synchronisation", r"written on pipe MTE2", r"read on pipe V"],
    "que_user_pos_mismatch": [r"DeQue with user positions waits for event MTE2_V, but the tensor was enqueued with "
                              r"MTE2_MTE3 \(MTE2 -> MTE3\)", r"must name the same user positions"],
    "que_user_pos_plain_deque": [r"DeQue waits for event MTE2_V, but the tensor was enqueued with MTE2_MTE3"],
    "misaligned": [r"DataCopy: UB address 16 is not 32-byte aligned"],
    "len32": [r"48 bytes is not a multiple of 32 B", r"would copy only 32 bytes"],
    "gm_oob": [r"DataCopy: GM read of 256 bytes", r"outside every host allocation", r"byte offset 3968"],
    "gm_oob_out": [r"DataCopy: GM write of 64 bytes", r"outside every host allocation"],
    "gm_getvalue_oob": [r"GlobalTensor::GetValue: GM read of 2 bytes", r"outside every host allocation"],
    "local_getvalue_oob": [r"SetValue: index 16 is out of bounds of a local tensor of 16 elements"],
    "uninit_to_gm": [r"never-written UB bytes would reach GM", r"byte 2 of the source"],
    "uninit_scalar": [r"GetValue: scalar read of element 5", r"never written"],
    "sync_missing_mte2_v": [r"Muls: missing pipe synchronisation", r"written on pipe MTE2 \(DataCopy at .*checks_harness.cpp:\d+\)",
                            r"read on pipe V", r"MTE2_V"],
    "sync_missing_v_s": [r"GetValue: missing pipe synchronisation", r"pipe V \(Muls", r"read on pipe S", r"V_S"],
    "sync_missing_mte3_mte2": [r"read on pipe MTE3", r"written on pipe MTE2", r"MTE3_MTE2"],
    "crosscore_deadlock": [r"CrossCoreWaitFlag: deadlock: waits for cross-core flag 5", r"AIC block \d/3", r"returned: AIV 0, AIV 1"],
    "crosscore_aiv_only": [r"cross-core flags need a MIX kernel type"],
    "partial_overlap": [r"Adds: destination UB bytes \[32, 288\) partially overlap source bytes \[0, 256\)"],
    "wait_without_set": [r"no SetFlag has set", r"would hang"],
    "pad_dummy_undefined": [r"never-written UB bytes would reach GM", r"byte 0 of the source"],
    "deque_empty": [r"DeQue on an empty queue"],
    "alloc_exhausted": [r"all 2 buffers of this queue are in use"],
    "enque_depth": [r"EnQue beyond the queue depth 1"],
    "double_free": [r"double free"],
    "never_freed": [r"never freed with FreeTensor"],
    "syncall_deadlock": [r"SyncAll: deadlock", r"block(\(s\))? 2 returned without reaching SyncAll"],
    "workspace_small": [r"GetLibApiWorkSpaceSize", r"16777216 bytes"],
    "reserved_ub_clash": [r"Sigmoid: this API uses Ascend C's reserved UB area", r"--cce-disable-asc-reserved-ubuf"],
}


@pytest.mark.parametrize("scenario", list(ERRORS))
def test_error_diagnostics(exe, scenario):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert "opkit-sim: error: kernel '" in err and "block" in err
    for pat in ERRORS[scenario]:
        assert re.search(pat, err), (pat, err)
    assert f"checks_harness.cpp:{line_of(scenario)}" in err, err


# Checks of values (the written-state of UB bytes): off in trace-only mode, where no values exist.
VALUE_CHECKS = {"uninit_to_gm", "uninit_scalar", "pad_dummy_undefined", "sort_index_unwritten"}
TRACE_ONLY = {**os.environ, "OPKIT_TEST_TRACE_ONLY": "1"}


@pytest.mark.parametrize("scenario", [s for s in ERRORS if s not in VALUE_CHECKS])
def test_trace_only_mode_keeps_every_structural_diagnostic(exe, scenario):
    r = run(exe, scenario, env=TRACE_ONLY)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    for pat in ERRORS[scenario]:
        assert re.search(pat, err), (pat, err)
    assert f"checks_harness.cpp:{line_of(scenario)}" in err, err


@pytest.mark.parametrize("scenario", sorted(VALUE_CHECKS))
def test_trace_only_mode_has_no_written_state_checks(exe, scenario):
    assert run(exe, scenario).returncode == 3
    r = run(exe, scenario, env=TRACE_ONLY)
    assert r.returncode == 0, r.stderr.decode()


def test_trace_only_mode_moves_no_data(exe):
    full, only = run(exe, "double_buffer_depth1"), run(exe, "double_buffer_depth1", env=TRACE_ONLY)
    assert full.returncode == only.returncode == 0, only.stderr.decode()
    x = (np.arange(2048) % 100).astype(np.float16)
    assert np.array_equal(gm(full).view(np.float16)[512:1024], (x[:512] + np.float16(1)).astype(np.float16))
    assert np.array_equal(gm(only).view(np.float16)[512:1024], x[512:1024])  # GM output left as it was


def test_sort_keeps_each_pairs_written_state(exe):
    # the pairs with real scores carry their written indices; the never-written indices stay with the -inf
    # pairs at the tail (sort_index_unwritten reads one and fails; here only the written ones are read)
    r = run(exe, "sort_index_written")
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "Sort32: reads UB bytes that were never written (the pairs they reach are marked unwritten too)" in err


def test_more_que_buffers_than_documented_warn_and_run_while_events_last(exe):
    # InitBuffer page: at most 8 QUE buffers per TPosition on Atlas A2; what runs out is the event IDs in flight
    r = run(exe, "too_many_que_bufs")
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "warning" in err and "9 TQue buffers at this position" in err and "at most 8 per TPosition" in err
    assert f"checks_harness.cpp:{line_of('too_many_que_bufs')}" in err
    r = run(exe, "que_events_reused")  # 9 buffers declared, one in flight at a time
    assert r.returncode == 0 and "error" not in r.stderr.decode(), r.stderr.decode()


@pytest.mark.parametrize("scenario, patterns", [
    # over the capacity GetCoreMemSize reports, within the physical UB, and never touched there
    ("ub_over", [r"warning: .*UB capacity exceeded", r"offers 196352 bytes", r"32 bytes over",
                 r"within the physical memory: the bytes past the capacity are the Matmul API.s AIC-AIV channel"]),
    ("ub_queue_over", [r"warning: .*UB capacity exceeded", r"2 x 98208"]),
    # into the 256 B below the physical UB that GetCoreMemSize keeps for the Matmul API's AIC-AIV channel, in a
    # launch without cube cores (apply_rotary_pos_emb sizes its buffers with fe::PlatformInfo's full 192 KiB)
    ("ub_over_touched", [r"warning: .*Duplicate: writes UB bytes \[196352, 196416\), inside the 256 bytes below the "
                         r"physical 196608", r"unused in a launch without cube cores"]),
    # past the tensor into UB no buffer owns: nothing is corrupted
    ("local_oob", [r"warning: .*Add: destination local tensor out of bounds: writes UB bytes \[4096, 4224\)",
                   r"in UB no buffer owns: nothing is corrupted"]),
    # past the tensor into the next buffer, whose bytes are written again (or not read) before any read
    ("clobber_healed", [r"warning: .*Duplicate: destination local tensor out of bounds: writes UB bytes \[256, 288\)",
                        r"into the buffer initialised at .*checks_harness.cpp:\d+"]),
    ("clobber_elsewhere", [r"into the buffer initialised at"]),
])
def test_out_of_bounds_that_corrupts_nothing_warns(exe, scenario, patterns):
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    for pat in patterns:
        assert re.search(pat, err), (pat, err)


def test_a_stray_write_is_healed_by_a_rewrite_and_harmless_where_unread(exe):
    # clobber_read names the 32 bytes of b that the stray Duplicate overwrote; written again first, they
    # hold the new values; left alone and never read, they cost nothing
    healed = np.frombuffer(run(exe, "clobber_healed").stdout, np.uint8).view(np.float16)[:128]
    assert (healed[:32] == 6.0).all() and (healed[32:] == 4.0).all()
    elsewhere = np.frombuffer(run(exe, "clobber_elsewhere").stdout, np.uint8).view(np.float16)[:64]
    assert (elsewhere == 4.0).all()


def test_ub_exactly_usable_passes(exe):
    r = run(exe, "ub_exact")
    assert r.returncode == 0, r.stderr.decode()


@pytest.mark.parametrize("scenario", ["sync_ok_barrier", "pad_no_padding_defined", "double_buffer_depth1", "workspace_ok",
                                      "que_bind_copy"])
def test_valid_programs_pass(exe, scenario):
    r = run(exe, scenario)
    assert r.returncode == 0, r.stderr.decode()
    assert "error" not in r.stderr.decode()


def test_uninitialised_vector_read_warns_and_continues(exe):
    r = run(exe, "uninit_vector_warns")
    err = r.stderr.decode()
    assert r.returncode == 0
    assert "warning" in err and "never written" in err and f"checks_harness.cpp:{line_of('uninit_vector_warns')}" in err


def gm(r) -> np.ndarray:
    return np.frombuffer(r.stdout, np.uint8)


def test_datacopypad_layout_and_padding(exe):
    r = run(exe, "pad_values")
    assert r.returncode == 0, r.stderr.decode()
    x = (np.arange(2048) % 100).astype(np.float16)
    out = gm(r).view(np.float16)[512:512 + 30]
    # each GM block of 5 halves (10 B) followed by a 6 B gap; in UB: 2 pad, 5 data, 3 pad, then filler
    want = []
    for i in range(3):
        start = i * 8
        want += [-1, -1, *x[start:start + 5], -1, -1, -1]
    assert np.array_equal(out, np.array(want, np.float16))


def test_datacopy_params_strides(exe):
    r = run(exe, "params_copy")
    assert r.returncode == 0, r.stderr.decode()
    x = (np.arange(2048) % 100).astype(np.float16)
    out = gm(r).view(np.float16)[512:512 + 64]
    want = np.concatenate([x[32 * i: 32 * i + 16] for i in range(4)])
    assert np.array_equal(out, want)


def test_double_buffering_results(exe):
    r = run(exe, "double_buffer_depth1")
    x = (np.arange(2048) % 100).astype(np.float16)
    out = gm(r).view(np.float16)[512:1024]
    assert np.array_equal(out, (x[:512] + np.float16(1)).astype(np.float16))


@pytest.mark.parametrize("scenario", ["que_user_pos_copy", "que_user_pos_gm_ub"])
def test_enque_deque_with_user_positions(exe, scenario):
    # EnQue/DeQue<srcUserPos, dstUserPos, T> order the pipes of the positions named (UB -> UB: MTE2 before MTE3;
    # GM -> UB: MTE2 before V), not those of the queue, and the data passes through unchanged
    r = run(exe, scenario)
    err = r.stderr.decode()
    assert r.returncode == 0 and "error" not in err, err
    x = (np.arange(2048) % 100).astype(np.float16)
    if scenario == "que_user_pos_copy":
        assert np.array_equal(gm(r).view(np.float16)[512:1024], x[:512])
    else:
        assert np.array_equal(gm(r).view(np.float16)[512:640], (x[:128] + np.float16(1)).astype(np.float16))


def test_syncall_orders_blocks(exe):
    r = run(exe, "syncall_ok")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    assert list(v[:4]) == [1, 2, 3, 4] and list(v[16:20]) == [10, 10, 10, 10]


def test_atomic_add_from_all_blocks(exe):
    r = run(exe, "atomic_add")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.float32)[:64]
    assert np.all(v == 1 + 2 + 3 + 4)


def test_user_workspace_is_offset_by_system_workspace(exe):
    r = run(exe, "workspace_ok")
    assert r.returncode == 0, r.stderr.decode()


def test_tiling_key_and_templated_kernel(exe):
    r = run(exe, "tiling_key")
    assert gm(r).view(np.int32)[0] == 7
    r = run(exe, "template_kernel")
    assert r.returncode == 0, r.stderr.decode()
    assert list(gm(r).view(np.int32)[:3]) == [23, 23, 23]


def test_syncall_watchdog_instead_of_a_hang(exe):
    import os

    env = dict(os.environ, OPKIT_SIM_SYNC_TIMEOUT="1")
    r = run(exe, "syncall_watchdog", timeout=30, env=env)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    # block 1 never arrives (on a loaded machine other blocks may be listed too)
    assert "watchdog" in err and re.search(r"block\(s\) [0-9, ]*\b1\b[0-9, ]* still have not reached SyncAll", err), err


def test_trace_json_per_block_per_pipe(exe, tmp_path):
    import json
    import os

    path = tmp_path / "trace.json"
    r = run(exe, "double_buffer_depth1", env=dict(os.environ, OPKIT_SIM_TRACE=str(path)))
    assert r.returncode == 0, r.stderr.decode()
    t = json.loads(path.read_text())
    assert t["kernel"] == "queue_kernel" and t["blocks"] == 1 and t["soc"] == "ascend910b2"
    core = t["cores"][0]
    assert core["pipes"]["MTE2"] == {"instrs": 4, "bytes": 4 * 256, "repeats": 4}
    assert core["pipes"]["MTE3"]["bytes"] == 4 * 256
    ins = {(i["pipe"], i["api"], i["dtype"]): i for i in core["instructions"]}
    assert ins[("V", "Adds", "float16")]["count"] == 4
    assert ins[("V", "Adds", "float16")]["repeats"] == 4  # 128 halves = one 256-B repeat each
    evs = core["events"]
    kinds = [e["ev"] for e in evs]
    assert kinds.count("enque") == 8 and kinds.count("deque") == 8
    assert {"ev": "enque", "buf": 0, "from": "MTE2", "to": "V"} in evs
    ops = [e for e in evs if e["ev"] == "op"]
    assert [o["pipe"] for o in ops[:3]] == ["MTE2", "V", "MTE3"]


def test_reserved_ub_area_respected(exe):
    r = run(exe, "reserved_ub_ok")
    assert r.returncode == 0, r.stderr.decode()


def test_reserved_ub_can_be_disabled():
    exe = build(SRC, flags=("-DOPKIT_SIM_DISABLE_ASC_RESERVED_UBUF",))
    r = run(exe, "reserved_ub_clash")
    assert r.returncode == 0, r.stderr.decode()


def test_capacities_follow_the_chip():
    exe = build(SRC, soc="ascend310p")  # 256 KiB UB, reported whole
    r = run(exe, "ub_over")
    assert r.returncode == 0, r.stderr.decode()
    r = run(exe, "workspace_small")  # 2 MiB system workspace on 310P
    assert r.returncode == 3 and "2097152 bytes on ascend310p3" in r.stderr.decode()


def test_tiling_member_copy(exe):
    r = run(exe, "tiling_member")
    assert r.returncode == 0, r.stderr.decode()
    assert gm(r).view(np.int32)[0] == 402


def test_kernel_watchdog(exe):
    import os

    r = run(exe, "kernel_hang", timeout=30, env=dict(os.environ, OPKIT_SIM_KERNEL_TIMEOUT="1"))
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert re.search(r"watchdog: block\(s\) [0-9, ]*\b3 still running", err) and "sync_kernel" in err, err


def test_guard_zone_catches_raw_pointer_overrun(exe):
    r = run(exe, "raw_gm_overrun")
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert "guard zone of GM allocation" in err and "byte 6 after the end" in err and "move_kernel" in err


def test_misc_apis(exe):
    r = run(exe, "misc_api")
    assert r.returncode == 0, (r.returncode, r.stderr.decode())
    x = (np.arange(2048) % 100).astype(np.float16)
    h = gm(r).view(np.float16)
    # legacy DataCopyPad: 2 blocks of 6 B (3 halves), GM gap 2 B (1 half), right pad 2 halves of 1.0
    assert np.array_equal(h[512:517], np.array([x[0], x[1], x[2], 1, 1], np.float16))
    assert np.array_equal(h[517:522], np.array([x[4], x[5], x[6], 1, 1], np.float16))
    i = gm(r).view(np.int32)
    assert list(i[768:776]) == [-5] * 8 and list(i[776:784]) == [9] * 8


def test_mix_launch_core_ids(exe):
    r = run(exe, "mix_ids")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    assert list(v[100:103]) == [1000 + 300 + 10] * 3  # AIC: GetBlockNum() = 3, GetTaskRatio() = 1
    # AIV: block index 0..5 (two per AI core), sub-block index 0/1, task ratio 2
    assert list(v[200:206]) == [i * 100 + (i % 2) * 10 + 2 for i in range(6)]


def test_mix_cross_core_flags_mode2(exe):
    r = run(exe, "mix_crosscore")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    sums = [(2 * c + 1) + (2 * c + 2) for c in range(3)]
    assert list(v[500:503]) == sums
    assert list(v[400:406]) == [sums[i // 2] for i in range(6)]


def test_mix_cross_core_flags_mode0_syncs_all_cores_of_a_type(exe):
    r = run(exe, "mix_crosscore_mode0")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    assert list(v[810:816]) == [21] * 6  # every AIV sees all six AIVs' writes
    assert list(v[825:828]) == [60] * 3  # every AIC all three AICs'


def test_mix_cross_core_flags_mode1_syncs_the_two_aivs_of_a_core(exe):
    r = run(exe, "mix_crosscore_mode1")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    assert list(v[840:846]) == [100 + (i ^ 1) for i in range(6)]  # each AIV reads its partner's write


def test_mix_syncall_all_cores(exe):
    r = run(exe, "mix_syncall_false")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    total = sum(range(3)) + sum(10 + i for i in range(6))
    assert list(v[700:703]) == [total] * 3 and list(v[710:716]) == [total] * 6


def test_vector_work_is_a_noop_on_aic(exe):
    r = run(exe, "mix_vector_on_aic_is_noop")
    assert r.returncode == 0, r.stderr.decode()
    v = gm(r).view(np.int32)
    assert list(v[800:864]) == [5] * 64 and list(v[864:928]) == [0] * 64


def test_datacopypad_dummy_repeats_first_element(exe):
    r = run(exe, "pad_no_padding_defined")
    assert r.returncode == 0, r.stderr.decode()
    x = (np.arange(2048) % 100).astype(np.float16)
    out = gm(r).view(np.float16)[512:544]
    # two blocks of 3 halves, no padding: the rest of each 32-B UB block repeats the block's first element
    want = np.concatenate([[x[0], x[1], x[2]], [x[0]] * 13, [x[3], x[4], x[5]], [x[3]] * 13]).astype(np.float16)
    assert np.array_equal(out, want)


def test_printf_and_dump_tensor(exe):
    r = run(exe, "printf")
    assert r.returncode == 0, r.stderr.decode()
    text = r.stdout[:-4096].decode()
    assert "[kernel 'move_kernel' AIV block 0/1] value 3 of block 0" in text
    assert "DumpTensor desc=5 local (4 elements):" in text and "0 1 2 3" in text
