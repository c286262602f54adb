// opkit simulator (host side): CANN's error-message reporting (base/err_msg.h):
// REPORT_INNER_ERR_MSG(code, fmt, ...), REPORT_INNER_ERROR (its older name) and
// REPORT_PREDEFINED_ERR_MSG(code, keys, values). On the NPU these feed the error manager whose
// messages the framework prints when the call fails; here they are error records of the host log
// (opkit_host/oplog.h), shown under the diagnostic of a failing run with their code.
#pragma once
#include <string>
#include <vector>

#include "opkit_host/oplog.h"

namespace opkit {
namespace host {
namespace oplog {
inline void report_predefined(const char* code, const std::vector<const char*>& keys,
                              const std::vector<const char*>& values, const char* file, int line, const char* func) {
    std::string text;
    for (size_t i = 0; i < keys.size(); ++i) {
        text += (i ? ", " : "") + std::string(keys[i] ? keys[i] : "?") + "=" +
                (i < values.size() && values[i] ? values[i] : "");
    }
    log(kError, file, line, func, "", code, "%s", text.c_str());
}
}  // namespace oplog
}  // namespace host
}  // namespace opkit

#define REPORT_INNER_ERR_MSG(error_code, fmt, ...)                                                                   \
    do {                                                                                                             \
        if (::opkit::host::oplog::enabled(::opkit::host::oplog::kError))                                            \
            ::opkit::host::oplog::log(::opkit::host::oplog::kError, __FILE__, __LINE__, __FUNCTION__, "", error_code, \
                                      fmt, ##__VA_ARGS__);                                                           \
    } while (0)
#define REPORT_INNER_ERROR(error_code, fmt, ...) REPORT_INNER_ERR_MSG(error_code, fmt, ##__VA_ARGS__)
#define REPORT_PREDEFINED_ERR_MSG(error_code, keys, values)                                                           \
    do {                                                                                                             \
        if (::opkit::host::oplog::enabled(::opkit::host::oplog::kError))                                            \
            ::opkit::host::oplog::report_predefined(error_code, keys, values, __FILE__, __LINE__, __FUNCTION__);     \
    } while (0)
