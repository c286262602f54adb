"""Conformance of the simulator's ops-base layer, securec, CANN's log interface and the host names
around them (tests/sim_host/cpp/opbase_check.cpp prints what each one does): the behaviour
ops-base, libboundscheck and CANN document."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from sim_host_util import ROOT, build_program, key_values

from opkit.build import program


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return build_program("opbase_check", tmp_path_factory.mktemp("opbase"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPKIT_LOG_LEVEL"}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def kv(exe) -> dict[str, str]:
    return key_values(exe, env=_env())


def test_log_macros_name_the_op_by_context_or_string(kv):
    assert kv["threshold"] == "2"  # warning by default
    assert kv["loge.op"] == "MyOp:my_node"  # a context: NodeType:NodeName
    assert kv["loge.text"] == "error 7" and kv["loge.level"] == "3" and kv["loge.func"] == "main"
    assert kv["loge.where_file"] == "opbase_check.cpp"
    assert kv["loge.code"] == "EZ9999"  # OP_LOGE also reports to the error manager
    assert kv["logw.op"] == "StrName" and kv["logw.level"] == "2"
    assert kv["logw_null.op"] == "nil"  # a null C string
    assert kv["loge_nullctx.op"] == "nil:nil"  # a null context
    assert kv["getopinfo.ctx"] == "MyOp:my_node"
    assert kv["without_report.code"] == ""
    assert kv["d_op_loge.text"] == "direct 2" and kv["oplogsub.op"] == "Sub"


def test_records_under_the_level_are_not_formatted(kv):
    # CANN formats nothing under its level; neither are the arguments evaluated
    assert kv["below.recorded"] == "0" and kv["below.evaluated"] == "0"


def test_debug_level_keeps_debug_records(exe):
    kv = key_values(exe, env=_env(OPKIT_LOG_LEVEL="debug"))
    assert kv["threshold"] == "0"
    assert kv["below.recorded"] == "2" and kv["below.evaluated"] == "2"
    assert kv["check_log_level.debug"] == "1" and kv["alog_check.debug"] == "1"
    kv = key_values(exe, env=_env(OPKIT_LOG_LEVEL="3"))  # CANN's numeric scale: error
    assert kv["threshold"] == "3" and kv["check_log_level.warn"] == "0"


def test_reports_merge_with_the_line_they_repeat(kv):
    assert kv["report_merged.code"] == "E89999"
    assert int(kv["records_after_report"]) == int(kv["report_merged.count_same"]) + 1
    assert kv["report.code"] == "E69999" and kv["report.text"] == "standalone 5"


def test_op_check_if_runs_the_log_and_the_callers_action(kv):
    assert kv["check_if.pass"] == "2" and kv["check_if.actions_after_pass"] == "0"
    assert kv["check_if.fail"] == "-1" and kv["check_if.actions_after_fail"] == "1"
    assert kv["check_if.text"] == "v=5 is above 3"


def test_op_check_null_with_context_returns_graph_failed(kv):
    assert kv["check_null.ok"] == "0"
    assert kv["check_null.rc_is_graph_failed"] == "1"
    assert kv["check_null.text"] == "ptr is nullptr!" and kv["check_null.op"] == "my_node"


def test_predefined_error_messages(kv):
    assert kv["invalid_input_shape.code"] == "EZ0001"
    assert kv["invalid_input_shape.text"] == "The 1th input of MyOp has incorrect shape [[2, 3]]. It should be [[2, 4]]."
    assert kv["invalid_attr.text"] == "Attribute alpha of MyOp has incorrect value -1. It should be positive."
    assert kv["invalid_input.text"] == "Parameter x of MyOp is required, but it is empty."
    assert kv["invalid_dtype_reason.code"] == "EZ0020"
    assert kv["invalid_dtype_reason.text"] == "Parameter x of MyOp has incorrect dtype DT_INT8. Reason: int8 needs a scale."
    assert kv["invalid_shapes_reason.text"] == ("Parameters x and y of MyOp have incorrect shapes [1] and [2]. "
                                                 "Reason: they must match.")
    assert kv["invalid_tensornum.text"] == "Parameter xs of MyOp has invalid tensor num 3. It should be 2."
    assert kv["invalid_listsize_reason.text"] == "Parameter xs of MyOp has incorrect element nums 3. Reason: at most 2."
    assert kv["error_code.vector_inner"] == "89999" and kv["error_code.invalid_shape"] == "70009"


def test_to_string(kv):
    assert kv["tostring.dtype"] == "DT_FLOAT16" and kv["tostring.format"] == "ND"
    assert kv["tostring.shape"] == "[2, 3]" and kv["tostring.scalar"] == "[]"
    assert kv["tostring.shapes"] == "[[2, 3], []]"
    assert kv["likely"] == "1" and kv["unlikely"] == "0"


def test_cann_log_interface(kv):
    assert kv["check_log_level.debug"] == "0" and kv["check_log_level.warn"] == "1"
    assert kv["check_log_level.error"] == "1"
    assert kv["alog_check.debug"] == "0" and kv["alog_check.error"] == "1"
    assert kv["alog_check.out_of_range"] == "0" and kv["alog_check.negative"] == "0"
    assert kv["dlog.text"] == "dlog 3" and kv["alog.text"] == "alog w"
    assert kv["alog_record.rc"] == "0" and kv["alog_record.null_fmt"] == "-1"


@pytest.mark.parametrize("key,value", [
    ("ceildiv.7_2", 4), ("ceildiv.8_2", 4), ("ceildiv.m7_2", -3), ("ceildiv.m7_m2", 4), ("ceildiv.7_0", 7),
    ("ceildiv.0_5", 0), ("ceildiv.u7_2", 4), ("ceildiv.u64max_2", 1),
    ("ceilalign.7_4", 8), ("ceilalign.8_4", 8), ("ceilalign.7_0", 0), ("ceilalign.saturates", 255),
    ("floordiv.7_2", 3), ("floordiv.7_0", 7), ("flooralign.7_4", 4), ("flooralign.7_0", 0),
    ("isfloatequal.close", 1), ("isfloatequal.far", 0), ("isfloatequal.nan", 0), ("isfloatequal.inf", 1),
    ("isfloatequal.inf_minf", 0),
    ("lastpow2.0", 1), ("lastpow2.1", 1), ("lastpow2.100", 64), ("lastpow2.128", 128),
    # MurmurHash3 x86_32 reference values
    ("murmur.empty_seed0", 0), ("murmur.test_seed0", 0xBA6BD213), ("murmur.hello_world_seed0", 0xC0363E43),
    ("murmur.test_seed_default", 1),
    ("split_parts.ok", 1), ("split_parts.count", 3), ("split_parts.factor", 4), ("split_parts.tail", 2),
    ("split_parts.more_parts_than_len", 1), ("split_parts.more_count", 2), ("split_parts.bad", 0),
    ("split_factor.ok", 1), ("split_factor.count", 3), ("split_factor.factor", 4), ("split_factor.tail", 2),
    ("split_factor.single_factor", 0), ("split_factor.single_tail", 3), ("split_factor.bad", 0),
])
def test_math_util(kv, key, value):
    assert int(kv[key]) == value


def test_shape_util(kv):
    assert kv["axis.in"] == "1" and kv["axis.out"] == "0"
    assert kv["axis.scalar0"] == "1" and kv["axis.scalar1"] == "0"
    assert kv["unknown_rank.is"] == "1" and kv["unknown_rank.dims"] == "1" and kv["unknown_rank.known_shape"] == "0"
    assert kv["unknown_shape.is"] == "1" and kv["unknown_shape.dims"] == "3" and kv["unknown_shape.known"] == "0"
    # a negative rank logs an error and leaves the shape alone
    assert kv["unknown_shape.bad_rank_logged"] == "1" and kv["unknown_shape.bad_rank_kept"] == "3"


def test_broadcast_util(kv):
    assert kv["bcast.ok"] == "1" and kv["bcast.shape"] == "[4, 5, 3]"
    assert kv["bcast.dynamic"] == "[-1, 7]"  # an unknown dimension takes the known one
    assert kv["bcast.zero"] == "[0, 3]"
    assert kv["bcast.bad"] == "0"
    assert kv["bcast.unknown_rank"] == "[-2]"
    assert kv["bcast.list"] == "1" and kv["bcast.list_shape"] == "[4, 5, 3]"
    assert kv["bcast.infershape"] == "0" and kv["bcast.infershape_out"] == "[4, 5, 3]"
    assert kv["bcast.infershape_bad_is_failed"] == "1"


def test_platform_util(kv):
    assert kv["platform.aiv"] == "48" and kv["platform.aic"] == "24"
    assert kv["platform.ub"] == "196352"  # GetCoreMemSize(UB): 910B reports 256 B less
    assert kv["platform.workspace"] == str(16 * 1024 * 1024)
    assert kv["platform.ub_block"] == "32" and kv["platform.vreg"] == "256"
    assert kv["platform.cacheline"] == "256" and kv["platform.sector"] == "128"
    assert kv["platform.null_ctx"] == "0" and kv["platform.no_platform"] == "0"


def test_platform_info_structs(kv):
    assert kv["platform_info.rc"] == "0"
    assert kv["platform_info.short_soc"] == "Ascend910B" and kv["platform_info.soc_version"] == "Ascend910B2"
    assert kv["platform_info.ai_core_cnt"] == "24" and kv["platform_info.vector_core_cnt"] == "48"
    assert kv["platform_info.ub_size"] == "196608"
    assert kv["platform_info.rc_without_platform"] != "0"


def test_type_utils_and_formats(kv):
    assert kv["dtlen.fp16.ok"] == "1" and kv["dtlen.fp16"] == "2"
    assert kv["dtlen.int64.ok"] == "1" and kv["dtlen.int64"] == "8"
    assert kv["dtlen.int4.ok"] == "0" and kv["dtlen.int4.untouched"] == "99"
    assert kv["dtlen.undefined.ok"] == "0"
    assert kv["sizeof.int4"] == "1004" and kv["bit_offset"] == "1000"
    assert kv["format_name.nz"] == "FRACTAL_NZ" and kv["format_name.nd"] == "ND"
    assert kv["format_name.bad"] == "UNKNOWN_FORMAT"


def test_tensor_shape_is_a_storage_shape(kv):
    assert kv["tensor.shape.origin_dim1"] == "3" and kv["tensor.shape.storage_dim1"] == "16"
    assert kv["tensor.storage_dim1"] == "16" and kv["tensor.origin_dim1"] == "3"
    assert kv["tensor.mutable_storage_dim1"] == "32"


@pytest.mark.parametrize("key,value", [
    ("memset_s.ok", 0), ("memset_s.ok_bytes", 1), ("memset_s.too_long", 162), ("memset_s.too_long_filled", 1),
    ("memset_s.zero_max", 34), ("memset_s.null", 22),
    ("memcpy_s.ok", 0), ("memcpy_s.ok_bytes", 1), ("memcpy_s.too_long", 162), ("memcpy_s.too_long_zeroed", 1),
    ("memcpy_s.null_src", 150), ("memcpy_s.null_src_zeroed", 1), ("memcpy_s.null_dest", 22),
    ("memcpy_s.big_max", 34), ("memcpy_s.overlap", 182), ("memcpy_s.overlap_zeroed", 1),
    ("memmove_s.overlap", 0), ("memmove_s.overlap_bytes", 1), ("memmove_s.too_long", 162),
    ("strcpy_s.ok", 0), ("strcpy_s.too_long", 162), ("strcpy_s.too_long_cleared", 1), ("strcpy_s.null_src", 150),
    ("strncpy_s.ok", 0), ("strcat_s.ok", 0), ("strncat_s.ok", 0), ("strncat_s.too_long", 162),
    ("strncat_s.too_long_cleared", 1), ("strcat_s.too_long", 162), ("strcat_s.too_long_cleared", 1),
    ("sprintf_s.ok", 5), ("sprintf_s.too_long", -1), ("sprintf_s.too_long_cleared", 1),
    ("snprintf_s.ok", 3), ("snprintf_s.truncated_by_count", -1), ("snprintf_s.truncated_by_max", -1),
    ("snprintf_s.truncated_by_max_cleared", 1), ("snprintf_s.truncate_flag", -1),
    ("eok", 0), ("einval_and_reset", 22 | 128), ("erange_and_reset", 34 | 128), ("eoverlap_and_reset", 54 | 128),
])
def test_securec_codes(kv, key, value):
    assert int(kv[key]) == value


def test_securec_text(kv):
    assert kv["strcpy_s.ok_text"] == "abcde" and kv["strncpy_s.ok_text"] == "abc"
    assert kv["strncat_s.ok_text"] == "abcd"
    assert kv["strcat_s.ok_text"] == "abcde" and kv["sprintf_s.ok_text"] == "12-34"
    assert kv["snprintf_s.truncated_by_count_text"] == "abc"  # count < destMax: the truncated text stays
    assert kv["snprintf_s.truncate_flag_text"] == "abcde"  # (size_t)-1: truncated to destMax - 1


def test_host_failure_lists_the_logged_lines(exe):
    r = subprocess.run([str(exe), "fail_after_log"], capture_output=True, text=True, env=_env(), timeout=60)
    assert r.returncode == 3
    lines = r.stderr.splitlines()
    assert lines[0] == "opkit-sim: error: probe: stopped on purpose"
    assert lines[1] == "  the op logged 2 messages:"
    assert lines[2].startswith("    [WARNING] opbase_check.cpp:") and lines[2].endswith("main() [MyOp:my_node]: first 1")
    assert lines[3].startswith("    [ERROR] EZ9999 opbase_check.cpp:") and lines[3].endswith("[Named]: second line")
    assert len(lines) == 4


def test_live_lines_when_a_level_is_set(exe):
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=_env(OPKIT_LOG_LEVEL="info"), timeout=60)
    assert r.returncode == 0
    live = [x for x in r.stderr.splitlines() if x.startswith("opkit-sim: log: ")]
    assert any("[INFO]" in x and "info 1" in x for x in live)  # the debug call before it was skipped
    assert not any("[DEBUG]" in x for x in live)
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=_env(), timeout=60)
    assert "opkit-sim: log: " not in r.stderr  # nothing live by default


def test_bad_level_warns_and_uses_the_default(exe):
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=_env(OPKIT_LOG_LEVEL="chatty"), timeout=60)
    assert r.returncode == 0
    assert "opkit-sim: warning: OPKIT_LOG_LEVEL: 'chatty' is not a log level" in r.stderr
    assert "threshold=2" in r.stdout


HEADERS = [
    "log/log.h", "log/error_code.h", "op_common/log/log.h", "op_common/log/error_code.h", "util/math_util.h",
    "util/shape_util.h", "util/platform_util.h", "util/opbase_export.h", "op_common/op_host/util/math_util.h",
    "op_common/op_host/util/shape_util.h", "op_common/op_host/util/platform_util.h",
    "op_common/op_host/infershape_broadcast_util.h", "infershape_broadcast_util.h", "securec.h", "securectype.h",
    "alog_pub.h", "base/alog_pub.h", "dlog_pub.h", "base/dlog_pub.h", "toolchain/slog.h", "base/err_msg.h",
    "error_manager/error_manager.h", "platform/platform_info.h", "platform/platform_info_def.h",
    "tiling/opkit_softmax_tiling.h", "opkit_host/oplog.h",
] + sorted(f"runtime/{p.name}" for p in (ROOT / "opkit" / "sim" / "include" / "runtime").glob("*.h"))


@pytest.mark.parametrize("header", HEADERS)
def test_header_compiles_on_its_own(header, tmp_path):
    src = tmp_path / "one.cpp"
    src.write_text(f'#include "{header}"\n#include "{header}"\nint main() {{ return 0; }}\n')
    r = program.check_syntax(src, chip="ascend910b", flags=["-Wall", "-Wextra", "-Werror"])
    assert r.returncode == 0, r.stderr[-3000:]
