// Exercises the ops-base layer, securec and CANN's log interface of the simulator's host headers
// and prints one "key=value" line per observation, for tests/sim_host/test_opbase.py.
// argv[1] (optional) names a case that must end the run with a diagnostic instead.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "alog_pub.h"
#include "base/err_msg.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "infershape_broadcast_util.h"
#include "log/error_code.h"
#include "log/log.h"
#include "platform/platform_info.h"
#include "register/op_impl_registry.h"
#include "securec.h"
#include "util/math_util.h"
#include "util/platform_util.h"
#include "util/shape_util.h"

namespace oplog = opkit::host::oplog;

static void Put(const char* key, long long v) { std::printf("%s=%lld\n", key, v); }
static void PutS(const char* key, const std::string& v) { std::printf("%s=%s\n", key, v.c_str()); }
static size_t Records() { return oplog::state().records.size(); }
static const oplog::Record& Last() { return oplog::state().records.back(); }

static int g_evaluated = 0;
static int Touch() { return ++g_evaluated; }

static ge::graphStatus NullCheck(const gert::TilingContext* context, const void* ptr) {
    OP_CHECK_NULL_WITH_CONTEXT(context, ptr);
    return ge::GRAPH_SUCCESS;
}

static int CheckIf(int v, int* actions) {
    OP_CHECK_IF(v > 3, OP_LOGE("CheckIf", "v=%d is above 3", v), { ++*actions; return -1; });
    return v;
}

int main(int argc, char** argv) {
    const std::string only = argc > 1 ? argv[1] : "";

    // ---- log macros -----------------------------------------------------------------------
    gert::ComputeNodeInfo node;
    node.type_ = "MyOp";
    node.name_ = "my_node";
    fe::PlatFormInfos platform;
    platform.OpkitSet("version", "Short_SoC_version", "Ascend910B");
    platform.OpkitSet("version", "SoC_version", "Ascend910B2");
    platform.OpkitSet("SoCInfo", "ai_core_cnt", "24");
    platform.OpkitSet("SoCInfo", "cube_core_cnt", "24");
    platform.OpkitSet("SoCInfo", "vector_core_cnt", "48");
    platform.OpkitSet("SoCInfo", "core_type_list", "CubeCore,VectorCore");
    platform.OpkitSet("AICoreSpec", "ub_size", "196608");
    platform.OpkitSet("opkit", "sys_workspace", "16777216");
    platform.OpkitSetMem(fe::LocalMemType::UB, 196608);
    gert::TilingContext ctx(&node);
    ctx.platform_ = &platform;

    if (only == "fail_after_log") {
        OP_LOGW(&ctx, "first %d", 1);
        OP_LOGE("Named", "second %s", "line");
        opkit::host::fail("probe", "stopped on purpose");
    }

    Put("threshold", oplog::threshold());
    OP_LOGE(&ctx, "error %d", 7);
    PutS("loge.op", Last().op);
    PutS("loge.text", Last().text);
    PutS("loge.code", Last().code);
    PutS("loge.func", Last().func);
    Put("loge.level", Last().level);
    PutS("loge.where_file", Last().where.substr(0, Last().where.find(':')));
    OP_LOGW(std::string("StrName"), "warn %s", "w");
    PutS("logw.op", Last().op);
    Put("logw.level", Last().level);
    const char* nul = nullptr;
    OP_LOGW(nul, "from a null name");
    PutS("logw_null.op", Last().op);
    const gert::TilingContext* no_ctx = nullptr;
    OP_LOGE(no_ctx, "no context");
    PutS("loge_nullctx.op", Last().op);
    const size_t before = Records();
    g_evaluated = 0;
    OP_LOGD(&ctx, "debug %d", Touch());
    OP_LOGI(&ctx, "info %d", Touch());
    Put("below.recorded", static_cast<long long>(Records() - before));
    Put("below.evaluated", g_evaluated);
    OP_LOGD("no format args");  // a name and no format, as ops-base accepts
    OP_LOGE_WITHOUT_REPORT("Quiet", "no report %d", 1);
    PutS("without_report.code", Last().code);
    D_OP_LOGE("Direct", "direct %d", 2);
    PutS("d_op_loge.text", Last().text);
    OpLogSub(OP, DLOG_ERROR, "Sub", "sub %s", "x");
    PutS("oplogsub.op", Last().op);
    REPORT_INNER_ERR_MSG("E89999", "sub %s", "x");  // a report of the line just logged
    PutS("report_merged.code", Last().code);
    Put("report_merged.count_same", static_cast<long long>(Records()));
    REPORT_INNER_ERR_MSG("E69999", "standalone %d", 5);
    PutS("report.code", Last().code);
    PutS("report.text", Last().text);
    Put("records_after_report", static_cast<long long>(Records()));

    int actions = 0;
    Put("check_if.pass", CheckIf(2, &actions));
    Put("check_if.actions_after_pass", actions);
    Put("check_if.fail", CheckIf(5, &actions));
    Put("check_if.actions_after_fail", actions);
    PutS("check_if.text", Last().text);

    int x = 1;
    Put("check_null.ok", NullCheck(&ctx, &x));
    const uint32_t rc = NullCheck(&ctx, nullptr);
    Put("check_null.rc_is_graph_failed", rc == ge::GRAPH_FAILED);
    PutS("check_null.text", Last().text);
    PutS("check_null.op", Last().op);

    OP_LOGE_WITH_INVALID_INPUT_SHAPE("MyOp", 1, "[2, 3]", "[2, 4]");
    PutS("invalid_input_shape.code", Last().code);
    PutS("invalid_input_shape.text", Last().text);
    OP_LOGE_WITH_INVALID_ATTR(std::string("MyOp"), "alpha", "-1", "positive");
    PutS("invalid_attr.text", Last().text);
    OP_LOGE_WITH_INVALID_INPUT("MyOp", "x");
    PutS("invalid_input.text", Last().text);
    OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON("MyOp", "x", "DT_INT8", "int8 needs a scale");
    PutS("invalid_dtype_reason.code", Last().code);
    PutS("invalid_dtype_reason.text", Last().text);
    OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON("MyOp", "x and y", "[1] and [2]", "they must match");
    PutS("invalid_shapes_reason.text", Last().text);
    OP_LOGE_FOR_INVALID_TENSORNUM("MyOp", "xs", 3, "2");
    PutS("invalid_tensornum.text", Last().text);
    OP_LOGE_FOR_INVALID_LISTSIZE_WITH_REASON("MyOp", "xs", "3", "at most 2");
    PutS("invalid_listsize_reason.text", Last().text);

    Put("error_code.vector_inner", Ops::Base::VECTOR_INNER_ERROR);
    Put("error_code.invalid_shape", Ops::Base::INVALID_SHAPE);

    PutS("tostring.dtype", Ops::Base::ToString(ge::DT_FLOAT16));
    PutS("tostring.format", Ops::Base::ToString(ge::FORMAT_ND));
    gert::Shape s23{2, 3};
    PutS("tostring.shape", Ops::Base::ToString(s23));
    gert::Shape scalar;
    PutS("tostring.scalar", Ops::Base::ToString(scalar));
    PutS("tostring.shapes", Ops::Base::ToString(std::vector<const gert::Shape*>{&s23, &scalar}));
    PutS("getopinfo.ctx", Ops::Base::GetOpInfo(&ctx));

    Put("likely", likely(3 > 2));
    Put("unlikely", unlikely(3 < 2));

    // ---- CANN log interface ---------------------------------------------------------------
    Put("check_log_level.debug", CheckLogLevel(OP, DLOG_DEBUG));
    Put("check_log_level.warn", CheckLogLevel(OP, DLOG_WARN));
    Put("check_log_level.error", CheckLogLevel(OP, DLOG_ERROR));
    Put("alog_check.debug", AlogCheckDebugLevel(OP, DLOG_DEBUG));
    Put("alog_check.error", AlogCheckDebugLevel(OP, DLOG_ERROR));
    Put("alog_check.out_of_range", AlogCheckDebugLevel(0, 100));
    Put("alog_check.negative", AlogCheckDebugLevel(0, -1));
    DlogRecord(OP, DLOG_ERROR, "dlog %d", 3);
    PutS("dlog.text", Last().text);
    Put("alog_record.rc", AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_WARN, "alog %s", "w"));
    PutS("alog.text", Last().text);
    Put("alog_record.null_fmt", AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_ERROR, nullptr));

    // ---- math_util ------------------------------------------------------------------------
    using namespace Ops::Base;
    Put("ceildiv.7_2", CeilDiv(7, 2));
    Put("ceildiv.8_2", CeilDiv(8, 2));
    Put("ceildiv.m7_2", CeilDiv(-7, 2));
    Put("ceildiv.m7_m2", CeilDiv(-7, -2));
    Put("ceildiv.7_0", CeilDiv(7, 0));
    Put("ceildiv.0_5", CeilDiv(0, 5));
    Put("ceildiv.u7_2", CeilDiv(7u, 2u));
    Put("ceildiv.u64max_2", static_cast<long long>(CeilDiv(UINT64_MAX, uint64_t{2}) == (UINT64_MAX / 2 + 1)));
    Put("ceilalign.7_4", CeilAlign(7, 4));
    Put("ceilalign.8_4", CeilAlign(8, 4));
    Put("ceilalign.7_0", CeilAlign(7, 0));
    Put("ceilalign.saturates", CeilAlign(uint8_t{250}, uint8_t{16}));
    Put("floordiv.7_2", FloorDiv(7, 2));
    Put("floordiv.7_0", FloorDiv(7, 0));
    Put("flooralign.7_4", FloorAlign(7, 4));
    Put("flooralign.7_0", FloorAlign(7, 0));
    Put("isfloatequal.close", IsFloatEqual(1.0f, 1.0f + 1e-8f));
    Put("isfloatequal.far", IsFloatEqual(1.0f, 1.001f));
    Put("isfloatequal.nan", IsFloatEqual(std::nanf(""), std::nanf("")));
    Put("isfloatequal.inf", IsFloatEqual(INFINITY, INFINITY));
    Put("isfloatequal.inf_minf", IsFloatEqual(INFINITY, -INFINITY));
    Put("lastpow2.0", static_cast<long long>(LastPow2(0)));
    Put("lastpow2.1", static_cast<long long>(LastPow2(1)));
    Put("lastpow2.100", static_cast<long long>(LastPow2(100)));
    Put("lastpow2.128", static_cast<long long>(LastPow2(128)));
    Put("murmur.empty_seed0", MurmurHash("", 0, 0));
    Put("murmur.test_seed0", MurmurHash("test", 4, 0));
    Put("murmur.hello_world_seed0", MurmurHash("Hello, world!", 13, 0));
    Put("murmur.test_seed_default", MurmurHash("test", 4) == MurmurHash("test", 4, 271828));
    SplitResult sr;
    Put("split_parts.ok", SplitIntoEqualByParts(10, 3, sr));
    Put("split_parts.count", sr.splitCount);
    Put("split_parts.factor", sr.splitFactor);
    Put("split_parts.tail", sr.splitTailFactor);
    Put("split_parts.more_parts_than_len", SplitIntoEqualByParts(2, 5, sr));
    Put("split_parts.more_count", sr.splitCount);
    Put("split_parts.bad", SplitIntoEqualByParts(0, 3, sr));
    Put("split_factor.ok", SplitIntoEqualByFactor(10, 4, sr));
    Put("split_factor.count", sr.splitCount);
    Put("split_factor.factor", sr.splitFactor);
    Put("split_factor.tail", sr.splitTailFactor);
    SplitIntoEqualByFactor(3, 8, sr);
    Put("split_factor.single_factor", sr.splitFactor);
    Put("split_factor.single_tail", sr.splitTailFactor);
    Put("split_factor.bad", SplitIntoEqualByFactor(5, 0, sr));

    // ---- shape_util -----------------------------------------------------------------------
    Put("axis.in", CheckAxisBounds(4, -4));
    Put("axis.out", CheckAxisBounds(4, 4));
    Put("axis.scalar0", CheckAxisBounds(0, 0));
    Put("axis.scalar1", CheckAxisBounds(0, -1));
    gert::Shape u;
    SetUnknownRank(u);
    Put("unknown_rank.is", IsUnknownRank(u));
    Put("unknown_rank.dims", static_cast<long long>(u.GetDimNum()));
    Put("unknown_rank.known_shape", IsUnknownRank(s23));
    SetUnknownShape(3, u);
    Put("unknown_shape.is", IsUnknownShape(u));
    Put("unknown_shape.dims", static_cast<long long>(u.GetDimNum()));
    Put("unknown_shape.known", IsUnknownShape(s23));
    const size_t n_before_bad_rank = Records();
    SetUnknownShape(-1, u);
    Put("unknown_shape.bad_rank_logged", static_cast<long long>(Records() - n_before_bad_rank));
    Put("unknown_shape.bad_rank_kept", static_cast<long long>(u.GetDimNum()));

    // ---- infershape_broadcast_util --------------------------------------------------------
    {
        gert::Shape a{4, 1, 3}, b{5, 1}, out;
        Put("bcast.ok", BroadcastShape(&a, &b, &out));
        PutS("bcast.shape", ToString(out));
        gert::Shape dyn{-1, 1}, c{1, 7};
        BroadcastShape(&dyn, &c, &out);
        PutS("bcast.dynamic", ToString(out));
        gert::Shape zero{0, 3}, one{1, 3};
        BroadcastShape(&zero, &one, &out);
        PutS("bcast.zero", ToString(out));
        gert::Shape bad1{2, 3}, bad2{4, 3};
        Put("bcast.bad", BroadcastShape(&bad1, &bad2, &out));
        gert::Shape rank;
        SetUnknownRank(rank);
        BroadcastShape(&a, &rank, &out);
        PutS("bcast.unknown_rank", ToString(out));
        Put("bcast.list", BroadcastShape(std::vector<const gert::Shape*>{&a, &b, &one}, &out));
        PutS("bcast.list_shape", ToString(out));
        gert::InferShapeContext ictx(&node);
        gert::Shape o;
        ictx.in_shapes_ = {&a, &b};
        ictx.out_shapes_ = {&o};
        Put("bcast.infershape", InferShape4Broadcast(&ictx));
        PutS("bcast.infershape_out", ToString(o));
        ictx.in_shapes_ = {&bad1, &bad2};
        Put("bcast.infershape_bad_is_failed", InferShape4Broadcast(&ictx, 2) == ge::GRAPH_FAILED);
    }

    // ---- platform_util --------------------------------------------------------------------
    Put("platform.aiv", GetAivCoreNum(&ctx));
    Put("platform.aic", GetAicCoreNum(&ctx));
    Put("platform.ub", GetUbSize(&ctx));
    Put("platform.workspace", GetWorkspaceSize(&ctx));
    Put("platform.ub_block", GetUbBlockSize(&ctx));
    Put("platform.vreg", GetVRegSize(&ctx));
    Put("platform.cacheline", GetCacheLineSize(&ctx));
    Put("platform.sector", GetSectorCacheLineSize(&ctx));
    const gert::TilingContext* none = nullptr;
    Put("platform.null_ctx", GetAivCoreNum(none));
    gert::TilingContext bare(&node);
    Put("platform.no_platform", GetUbSize(&bare));

    // ---- fe::PlatformInfo, TypeUtils, formats ---------------------------------------------
    fe::PlatformInfoManager::Instance().current_ = &platform;
    fe::PlatformInfo pi;
    fe::OptionalInfo oi;
    Put("platform_info.rc", fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(pi, oi));
    PutS("platform_info.short_soc", pi.str_info.short_soc_version);
    PutS("platform_info.soc_version", oi.soc_version);
    Put("platform_info.ai_core_cnt", pi.soc_info.ai_core_cnt);
    Put("platform_info.vector_core_cnt", pi.soc_info.vector_core_cnt);
    Put("platform_info.ub_size", static_cast<long long>(pi.ai_core_spec.ub_size));
    fe::PlatformInfoManager::Instance().current_ = nullptr;
    Put("platform_info.rc_without_platform",
        fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(pi, oi));
    uint32_t len = 99;
    Put("dtlen.fp16.ok", ge::TypeUtils::GetDataTypeLength(ge::DT_FLOAT16, len));
    Put("dtlen.fp16", len);
    Put("dtlen.int64.ok", ge::TypeUtils::GetDataTypeLength(ge::DT_INT64, len));
    Put("dtlen.int64", len);
    len = 99;
    Put("dtlen.int4.ok", ge::TypeUtils::GetDataTypeLength(ge::DT_INT4, len));
    Put("dtlen.int4.untouched", len);
    Put("dtlen.undefined.ok", ge::TypeUtils::GetDataTypeLength(ge::DT_UNDEFINED, len));
    Put("sizeof.int4", ge::GetSizeByDataType(ge::DT_INT4));
    Put("bit_offset", ge::kDataTypeSizeBitOffset);
    PutS("format_name.nz", ge::GetFormatName(ge::FORMAT_FRACTAL_NZ));
    PutS("format_name.nd", ge::GetFormatName(ge::FORMAT_ND));
    PutS("format_name.bad", ge::GetFormatName(static_cast<ge::Format>(200)));

    // ---- gert::Tensor and StorageShape as CANN has them -------------------------------------
    gert::StorageShape ss({2, 3}, {2, 16});
    gert::Tensor t(ss, gert::StorageFormat(ge::FORMAT_ND, ge::FORMAT_FRACTAL_NZ), ge::DT_FLOAT16);
    const gert::StorageShape& got = t.GetShape();
    Put("tensor.shape.origin_dim1", got.GetOriginShape().GetDim(1));
    Put("tensor.shape.storage_dim1", got.GetStorageShape().GetDim(1));
    Put("tensor.storage_dim1", t.GetStorageShape().GetDim(1));
    Put("tensor.origin_dim1", t.GetOriginShape().GetDim(1));
    t.MutableShape().MutableStorageShape().SetDim(1, 32);
    Put("tensor.mutable_storage_dim1", t.GetStorageShape().GetDim(1));

    // ---- securec ----------------------------------------------------------------------------
    char buf[8];
    std::memset(buf, 'x', sizeof buf);
    Put("memset_s.ok", memset_s(buf, sizeof buf, 'a', 4));
    Put("memset_s.ok_bytes", buf[3] == 'a' && buf[4] == 'x');
    Put("memset_s.too_long", memset_s(buf, sizeof buf, 'b', 9));
    Put("memset_s.too_long_filled", buf[7] == 'b');
    Put("memset_s.zero_max", memset_s(buf, 0, 'c', 0));
    Put("memset_s.null", memset_s(nullptr, 8, 0, 1));
    const char src[] = "abcdefghij";
    std::memset(buf, 'x', sizeof buf);
    Put("memcpy_s.ok", memcpy_s(buf, sizeof buf, src, 5));
    Put("memcpy_s.ok_bytes", std::memcmp(buf, "abcdexxx", 8) == 0);
    Put("memcpy_s.too_long", memcpy_s(buf, sizeof buf, src, 9));
    Put("memcpy_s.too_long_zeroed", buf[0] == 0 && buf[7] == 0);
    std::memset(buf, 'x', sizeof buf);
    Put("memcpy_s.null_src", memcpy_s(buf, sizeof buf, nullptr, 1));
    Put("memcpy_s.null_src_zeroed", buf[0] == 0);
    Put("memcpy_s.null_dest", memcpy_s(nullptr, 8, src, 1));
    Put("memcpy_s.big_max", memcpy_s(buf, static_cast<size_t>(SECUREC_MEM_MAX_LEN) + 1, src, 1));
    std::memcpy(buf, "01234567", 8);
    Put("memcpy_s.overlap", memcpy_s(buf + 1, 7, buf, 4));
    Put("memcpy_s.overlap_zeroed", buf[1] == 0 && buf[7] == 0 && buf[0] == '0');
    std::memcpy(buf, "01234567", 8);
    Put("memmove_s.overlap", memmove_s(buf + 1, 7, buf, 4));
    Put("memmove_s.overlap_bytes", std::memcmp(buf, "00123567", 8) == 0);
    Put("memmove_s.too_long", memmove_s(buf, sizeof buf, src, 9));
    char str[6];
    Put("strcpy_s.ok", strcpy_s(str, sizeof str, "abcde"));
    PutS("strcpy_s.ok_text", str);
    Put("strcpy_s.too_long", strcpy_s(str, sizeof str, "abcdef"));
    Put("strcpy_s.too_long_cleared", str[0] == '\0');
    Put("strcpy_s.null_src", strcpy_s(str, sizeof str, nullptr));
    Put("strncpy_s.ok", strncpy_s(str, sizeof str, "abcdefgh", 3));
    PutS("strncpy_s.ok_text", str);
    Put("strcat_s.ok", strcat_s(str, sizeof str, "de"));
    PutS("strcat_s.ok_text", str);
    Put("strcat_s.too_long", strcat_s(str, sizeof str, "f"));
    Put("strcat_s.too_long_cleared", str[0] == '\0');
    std::strcpy(str, "ab");
    Put("strncat_s.ok", strncat_s(str, sizeof str, "cdefgh", 2));
    PutS("strncat_s.ok_text", str);
    Put("strncat_s.too_long", strncat_s(str, sizeof str, "xyz", 3));
    Put("strncat_s.too_long_cleared", str[0] == '\0');
    Put("sprintf_s.ok", sprintf_s(str, sizeof str, "%d-%d", 12, 34));
    PutS("sprintf_s.ok_text", str);
    Put("sprintf_s.too_long", sprintf_s(str, sizeof str, "%d", 123456));
    Put("sprintf_s.too_long_cleared", str[0] == '\0');
    Put("snprintf_s.ok", snprintf_s(str, sizeof str, sizeof str - 1, "%s", "abc"));
    Put("snprintf_s.truncated_by_count", snprintf_s(str, sizeof str, 3, "%s", "abcdef"));
    PutS("snprintf_s.truncated_by_count_text", str);
    Put("snprintf_s.truncated_by_max", snprintf_s(str, sizeof str, 10, "%s", "abcdefgh"));
    Put("snprintf_s.truncated_by_max_cleared", str[0] == '\0');
    Put("snprintf_s.truncate_flag", snprintf_s(str, sizeof str, static_cast<size_t>(-1), "%s", "abcdefgh"));
    PutS("snprintf_s.truncate_flag_text", str);
    Put("eok", EOK);
    Put("einval_and_reset", EINVAL_AND_RESET);
    Put("erange_and_reset", ERANGE_AND_RESET);
    Put("eoverlap_and_reset", EOVERLAP_AND_RESET);
    return 0;
}
