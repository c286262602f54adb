// opkit simulator (host side): ops-base's log and check macros (op_common/log/log.h, also found as
// log/log.h), with ops-base's interface:
//
//   OP_LOGE/OP_LOGW/OP_LOGI/OP_LOGD(op, fmt, ...)   op: a context pointer (TilingContext*,
//                                                   InferShapeContext*, ...; "OpType:NodeName"),
//                                                   a const char* or a std::string
//   OP_LOGE_WITHOUT_REPORT(op, fmt, ...)            an error record without an error-manager report
//   OP_CHECK_IF(cond, log_statement, action)        when cond: runs log_statement, then action
//                                                   (the caller's own `return ...;`, `break`, ...)
//   OP_CHECK_NULL_WITH_CONTEXT(context, ptr)        when ptr is null: "<ptr> is nullptr!" and
//                                                   `return ge::GRAPH_FAILED;`
//   OP_LOGE_WITH_INVALID_* / OP_LOGE_FOR_INVALID_*  the predefined error messages (EZ0001...)
//   D_OP_LOGE/W/I/D, OpLogSub, OP_LOGE_LIBOPAPI_REPORT, likely/unlikely, Ops::Base::ToString
//
// A record is written only when its level is on (OPKIT_LOG_LEVEL, default warning: errors and
// warnings); under it the arguments are not evaluated, as with CANN's CheckLogLevel. What is
// written goes to opkit's host log (opkit_host/oplog.h) and is shown under the diagnostic when the
// op's tiling, InferShape or InferDataType then fails.
#pragma once
#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "base/dlog_pub.h"
#include "base/err_msg.h"
#include "exe_graph/runtime/shape.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "op_common/op_host/util/opbase_export.h"
// Operator sources call memset_s/memcpy_s having included only this header and the register/
// headers: CANN's installed tree brings securec in through them.
#include "securec.h"

constexpr int32_t OP_MODULE_ID = OP;

#ifndef OP_SUBMOD_NAME
#define OP_SUBMOD_NAME "OPS_BASE"
#endif

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace Ops {
namespace Base {

inline uint64_t GetTid() { return static_cast<uint64_t>(syscall(__NR_gettid)); }

// The text of an op name: a C string (nullptr reads "nil") or a std::string.
inline const char* GetSafeStr(const char* name) { return name == nullptr ? "nil" : name; }
inline const char* GetSafeStr(const std::string& name) { return name.c_str(); }

template <class T>
constexpr bool IsContextType() {
    using D = typename std::decay<T>::type;
    return !std::is_same<const char*, D>::value && !std::is_same<char*, D>::value && !std::is_same<std::string, D>::value;
}

// What a log line names the op by: the string itself, or for a context "NodeType:NodeName".
inline const std::string& GetOpInfo(const std::string& str) { return str; }
inline const char* GetOpInfo(const char* str) { return str == nullptr ? "nil" : str; }
template <class T>
typename std::enable_if<IsContextType<T>(), std::string>::type GetOpInfo(T context) {
    if (context == nullptr) return "nil:nil";
    const char* type = context->GetNodeType();
    const char* name = context->GetNodeName();
    return std::string(type ? type : "nil") + ":" + (name ? name : "nil");
}

// ToString of a dtype ("DT_FLOAT16"), a format ("ND"), a shape ("[2, 3]") and a list of shapes.
inline std::string ToString(ge::DataType type) { return ge::TypeUtils::DataTypeToSerialString(type); }
inline std::string ToString(ge::Format format) { return ge::TypeUtils::FormatToSerialString(format); }
inline std::string ToString(const gert::Shape& shape) {
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < shape.GetDimNum(); ++i) os << (i ? ", " : "") << shape.GetDim(i);
    os << "]";
    return os.str();
}
inline std::string ToString(const std::vector<const gert::Shape*>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] ? ToString(*v[i]) : std::string("nil"));
    return s + "]";
}

// The predefined messages: every argument becomes text (std::string(x)), as ops-base does.
template <class... A>
inline void OpkitReportPredefined(const char* code, const std::string& entity, const char* file, int line,
                                  const char* func, const char* fmt, const A&... args) {
    ::opkit::host::oplog::log(::opkit::host::oplog::kError, file, line, func, entity, code, fmt,
                              std::string(args).c_str()...);
}

}  // namespace Base
}  // namespace Ops

// ---- the records -----------------------------------------------------------------------------

// `"" fmt`: the format is a string literal, or nothing at all (OP_LOGD(name) logs an empty line), as
// with ops-base, whose macros paste it after their own prefix.
#define OPKIT_OP_LOG_RECORD(level, code, opInfo, fmt, ...)                                                           \
    do {                                                                                                             \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wformat-zero-length\"")                    \
        if (CheckLogLevel(OP_MODULE_ID, level) == 1)                                                                 \
            ::opkit::host::oplog::log(::opkit::host::oplog::from_dlog(level), __FILE__, __LINE__, __FUNCTION__,     \
                                      std::string(Ops::Base::GetSafeStr(opInfo)), code, "" fmt, ##__VA_ARGS__);      \
        else                                                                                                         \
            ::opkit::host::oplog::note_below();                                                                      \
        _Pragma("GCC diagnostic pop")                                                                                \
    } while (0)

#define OpLogSub(moduleId, level, opInfo, fmt, ...)                                                                  \
    do {                                                                                                             \
        (void)(moduleId);                                                                                            \
        OPKIT_OP_LOG_RECORD(level, nullptr, opInfo, fmt, ##__VA_ARGS__);                                             \
    } while (0)
#define OpLogErrSub(moduleId, level, opInfo, fmt, ...) OpLogSub(moduleId, level, opInfo, fmt, ##__VA_ARGS__)

#define OP_LOGE_LIBOPAPI_REPORT(opName, fmt, ...) \
    OPKIT_OP_LOG_RECORD(DLOG_ERROR, nullptr, Ops::Base::GetOpInfo(opName), fmt, ##__VA_ARGS__)

#define D_OP_LOGI(opName, fmt, ...) OpLogSub(OP_MODULE_ID, DLOG_INFO, opName, fmt, ##__VA_ARGS__)
#define D_OP_LOGW(opName, fmt, ...) OpLogSub(OP_MODULE_ID, DLOG_WARN, opName, fmt, ##__VA_ARGS__)
#define D_OP_LOGE(opName, fmt, ...) OpLogErrSub(OP_MODULE_ID, DLOG_ERROR, opName, fmt, ##__VA_ARGS__)
#define D_OP_LOGD(opName, fmt, ...) OpLogSub(OP_MODULE_ID, DLOG_DEBUG, opName, fmt, ##__VA_ARGS__)

#define OP_LOGI(opName, ...) D_OP_LOGI(Ops::Base::GetOpInfo(opName), __VA_ARGS__)
#define OP_LOGW(opName, ...) D_OP_LOGW(Ops::Base::GetOpInfo(opName), __VA_ARGS__)
#define OP_LOGD(opName, ...) D_OP_LOGD(Ops::Base::GetOpInfo(opName), __VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(opName, ...) OP_LOGE_LIBOPAPI_REPORT(opName, __VA_ARGS__)
// An error record that is also an error-manager report (EZ9999): one record here.
#define OP_LOGE(opName, ...) OPKIT_OP_LOG_RECORD(DLOG_ERROR, "EZ9999", Ops::Base::GetOpInfo(opName), __VA_ARGS__)

#define OP_CHECK_IF(condition, log, return_expr) \
    do {                                         \
        if (unlikely(condition)) {               \
            log;                                 \
            return_expr;                         \
        }                                        \
    } while (0)

#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                                                       \
    do {                                                                                               \
        if (unlikely((ptr) == nullptr)) {                                                              \
            const char* opkit_name_ =                                                                  \
                ((context) == nullptr || (context)->GetNodeName() == nullptr) ? "nil" : (context)->GetNodeName(); \
            OP_LOGE(opkit_name_, "%s is nullptr!", #ptr);                                              \
            return ge::GRAPH_FAILED;                                                                   \
        }                                                                                              \
    } while (0)

// ---- predefined error messages (code, then the message) ----------------------------------------

#define OPKIT_OP_PREDEF(code, entity, fmt, ...)                                                                    \
    do {                                                                                                           \
        if (CheckLogLevel(OP_MODULE_ID, DLOG_ERROR) == 1)                                                          \
            Ops::Base::OpkitReportPredefined(code, std::string(entity), __FILE__, __LINE__, __FUNCTION__, fmt,      \
                                             __VA_ARGS__);                                                         \
    } while (0)

#define OP_LOGE_WITH_INVALID_INPUT_SHAPE(entityName, index, incorrectShape, correctShape)                       \
    OPKIT_OP_PREDEF("EZ0001", entityName, "The %sth input of %s has incorrect shape [%s]. It should be [%s].",     \
                    std::to_string(index), std::string(entityName), incorrectShape, correctShape)
#define OP_LOGE_WITH_INVALID_ATTR(entityName, attrName, incorrectVal, correctVal)                                 \
    OPKIT_OP_PREDEF("EZ0002", entityName, "Attribute %s of %s has incorrect value %s. It should be %s.", attrName, \
                    std::string(entityName), incorrectVal, correctVal)
#define OP_LOGE_WITH_INVALID_ATTR_SIZE(entityName, attrName, incorrectSize, correctSize)                          \
    OPKIT_OP_PREDEF("EZ0003", entityName, "Attribute %s of %s has incorrect size %s. It should be %s.", attrName,  \
                    std::string(entityName), incorrectSize, correctSize)
#define OP_LOGE_WITH_INVALID_INPUT(entityName, paramName)                                                         \
    OPKIT_OP_PREDEF("EZ0004", entityName, "Parameter %s of %s is required, but it is empty.", paramName,           \
                    std::string(entityName))
#define OP_LOGE_WITH_INVALID_INPUT_SHAPESIZE(entityName, index, incorrectSize, correctSize)                       \
    OPKIT_OP_PREDEF("EZ0005", entityName, "The %sth input of %s has incorrect shape size %s. It should be %s.",     \
                    std::to_string(index), std::string(entityName), incorrectSize, correctSize)
#define OP_LOGE_WITH_INVALID_INPUT_FORMAT(entityName, paramName, dataFormat, expectedFormatList)                  \
    OPKIT_OP_PREDEF("EZ0006", entityName, "Input parameter %s of %s has incorrect format %s. It should be %s.",    \
                    paramName, std::string(entityName), dataFormat, expectedFormatList)
#define OP_LOGE_WITH_INVALID_INPUT_DTYPE(entityName, paramName, dataDtype, expectedDtypeList)                     \
    OPKIT_OP_PREDEF("EZ0007", entityName, "Input parameter %s of %s has incorrect dtype %s. It should be %s.",     \
                    paramName, std::string(entityName), dataDtype, expectedDtypeList)

// "Parameter <p> of <op> has incorrect <what> <value>. It should be <expected>." and the
// "Reason: <reason>." and plural ("Parameters ... have incorrect <what>s") forms.
#define OPKIT_OP_PREDEF_SHOULD(code, what, entityName, paramName, incorrect, correct)                             \
    OPKIT_OP_PREDEF(code, entityName, "Parameter %s of %s has incorrect " what " %s. It should be %s.", paramName,  \
                    std::string(entityName), incorrect, correct)
#define OPKIT_OP_PREDEF_REASON(code, what, entityName, paramName, incorrect, reason)                              \
    OPKIT_OP_PREDEF(code, entityName, "Parameter %s of %s has incorrect " what " %s. Reason: %s.", paramName,       \
                    std::string(entityName), incorrect, reason)
#define OPKIT_OP_PREDEF_REASONS(code, whats, entityName, paramNames, incorrect, reason)                           \
    OPKIT_OP_PREDEF(code, entityName, "Parameters %s of %s have incorrect " whats " %s. Reason: %s.", paramNames,   \
                    std::string(entityName), incorrect, reason)

#define OP_LOGE_FOR_INVALID_SHAPE(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0008", "shape", e, p, i, c)
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASON("EZ0009", "shape", e, p, i, r)
#define OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASONS("EZ0010", "shapes", e, p, i, r)
#define OP_LOGE_FOR_INVALID_SHAPEDIM(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0011", "shape dim", e, p, i, c)
#define OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASON("EZ0012", "shape dim", e, p, i, r)
#define OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(e, p, i, r) \
    OPKIT_OP_PREDEF_REASONS("EZ0013", "shape dims", e, p, i, r)
#define OP_LOGE_FOR_INVALID_SHAPESIZE(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0014", "shape size", e, p, i, c)
#define OP_LOGE_FOR_INVALID_SHAPESIZE_WITH_REASON(e, p, i, r) \
    OPKIT_OP_PREDEF_REASON("EZ0015", "shape size", e, p, i, r)
#define OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(e, p, i, r) \
    OPKIT_OP_PREDEF_REASONS("EZ0016", "shape sizes", e, p, i, r)
#define OP_LOGE_FOR_INVALID_FORMAT(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0017", "format", e, p, i, c)
#define OP_LOGE_FOR_INVALID_FORMAT_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASON("EZ0035", "format", e, p, i, r)
#define OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASONS("EZ0018", "formats", e, p, i, r)
#define OP_LOGE_FOR_INVALID_DTYPE(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0019", "dtype", e, p, i, c)
#define OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASON("EZ0020", "dtype", e, p, i, r)
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASONS("EZ0021", "dtypes", e, p, i, r)
#define OP_LOGE_FOR_INVALID_TENSORNUM(e, p, incorrectNum, c)                                                      \
    OPKIT_OP_PREDEF("EZ0022", e, "Parameter %s of %s has invalid tensor num %s. It should be %s.", p,             \
                    std::string(e), std::to_string(static_cast<int64_t>(incorrectNum)), c)
#define OP_LOGE_FOR_INVALID_TENSORNUMS_WITH_REASON(e, p, i, r)                                                    \
    OPKIT_OP_PREDEF("EZ0023", e, "Parameters %s of %s have invalid tensor nums %s. Reason: %s.", p, std::string(e), \
                    i, r)
#define OP_LOGE_FOR_INVALID_VALUE(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0024", "value", e, p, i, c)
#define OP_LOGE_FOR_INVALID_LISTSIZE(e, p, i, c) OPKIT_OP_PREDEF_SHOULD("EZ0025", "element nums", e, p, i, c)
#define OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASON("EZ0026", "value", e, p, i, r)
#define OP_LOGE_FOR_INVALID_VALUES_WITH_REASON(e, p, i, r) OPKIT_OP_PREDEF_REASONS("EZ0027", "values", e, p, i, r)
#define OP_LOGE_FOR_INVALID_STRIDE(e, p, i, c)                                                                    \
    OPKIT_OP_PREDEF("EZ0028", e, "Parameter %s of %s has incorrect stride %s, it should be %s.", p, std::string(e), \
                    i, c)
#define OP_LOGE_FOR_FILE_PATH(opName, filePath, reason) \
    OPKIT_OP_PREDEF("EZ0029", opName, "Input path %s is invalid. Reason: %s.", filePath, reason)
#define OP_LOGE_FOR_FILE_OPEN(opName, filePath, reason) \
    OPKIT_OP_PREDEF("EZ0030", opName, "Failed to open file %s. Reason: %s.", filePath, reason)
#define OP_LOGE_FOR_FILE_PARSE(opName, fileName, reason) \
    OPKIT_OP_PREDEF("EZ0031", opName, "Failed to parse file %s. Reason: %s.", fileName, reason)
#define OP_LOGE_FOR_INVALID_CONFIG(opName, configFile, item, value, expect)                                       \
    OPKIT_OP_PREDEF("EZ0032", opName,                                                                             \
                    "Value %s of configuration item %s in configuration file %s is invalid, it should be %s.", value, \
                    item, configFile, expect)
#define OP_LOGE_FOR_INVALID_CONFIG_WITH_REASON(opName, configFile, item, value, reason)                           \
    OPKIT_OP_PREDEF("EZ0033", opName,                                                                             \
                    "Value %s of configuration item %s in configuration file %s is invalid. Reason: %s.", value,   \
                    item, configFile, reason)
#define OP_LOGE_FOR_INVALID_CONFIGS_WITH_REASON(opName, configFile, items, values, reason)                        \
    OPKIT_OP_PREDEF("EZ0034", opName,                                                                             \
                    "Values %s of configuration items %s in configuration file %s are invalid. Reason: %s.", values, \
                    items, configFile, reason)
#define OP_LOGE_FOR_INVALID_GRAPH_NODE(nodeName, reason)                                                          \
    OPKIT_OP_PREDEF("EZ0036", nodeName, "The input graph contains an invalid node %s. Reason: %s.",               \
                    std::string(nodeName), reason)
#define OP_LOGE_FOR_INVALID_ARGUMENT_WITH_REASON(e, p, reason) \
    OPKIT_OP_PREDEF("EZ0037", e, "Parameter %s of %s is invalid. Reason: %s.", p, std::string(e), reason)
#define OP_LOGE_FOR_INVALID_LISTSIZE_WITH_REASON(e, p, i, r) \
    OPKIT_OP_PREDEF_REASON("EZ0038", "element nums", e, p, i, r)
