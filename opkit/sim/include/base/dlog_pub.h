// opkit simulator (host side): CANN's log interface (base/dlog_pub.h): the level constants,
// CheckLogLevel and DlogRecord. Records go to opkit's host log (opkit_host/oplog.h): kept for the
// diagnostic of a failing run, printed live when OPKIT_LOG_LEVEL is set. Module ids are accepted
// and not distinguished.
#pragma once
#include <cstdarg>
#include <cstdint>

#include "opkit_host/oplog.h"

#ifndef DLOG_DEBUG
#define DLOG_DEBUG 0
#endif
#ifndef DLOG_INFO
#define DLOG_INFO 1
#endif
#ifndef DLOG_WARN
#define DLOG_WARN 2
#endif
#ifndef DLOG_ERROR
#define DLOG_ERROR 3
#endif
#ifndef DLOG_NULL
#define DLOG_NULL 4
#endif
#ifndef DLOG_EVENT
#define DLOG_EVENT 0x10
#endif
#ifndef DLOG_TYPE_DEBUG
#define DLOG_TYPE_DEBUG 0
#define DLOG_TYPE_RUN 1
#endif

// Module ids of CANN's log that operator code names (OP, HCCL, ...). opkit does not tell modules
// apart, so the values are its own.
#ifndef OPKIT_LOG_MODULE_IDS
#define OPKIT_LOG_MODULE_IDS
enum : int32_t {
    SLOG = 0,
    HCCL = 3,
    FMK = 4,
    RUNTIME = 7,
    CCE = 8,
    KERNEL = 24,
    GE = 45,
    OP = 58,
    TBE = 59,
    ASCENDCL = 66,
    AICPU = 70,
};
#endif

namespace opkit {
namespace host {
namespace oplog {
// DLOG_* level to opkit's level; DLOG_EVENT counts as info.
inline int from_dlog(int32_t level) {
    if (level == DLOG_EVENT) return kInfo;
    return level < kDebug ? kDebug : (level > kOff ? kOff : level);
}
}  // namespace oplog
}  // namespace host
}  // namespace opkit

extern "C" {
// 1 when a record of this level would be written, else 0.
inline int32_t CheckLogLevel(int32_t moduleId, int32_t logLevel) {
    (void)moduleId;
    if (logLevel < DLOG_DEBUG || logLevel >= DLOG_NULL) return logLevel == DLOG_EVENT ? 1 : 0;
    return opkit::host::oplog::enabled(logLevel);
}
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
inline void DlogRecord(int32_t moduleId, int32_t level, const char* fmt, ...) {
    if (CheckLogLevel(moduleId, level) != 1) {
        opkit::host::oplog::note_below();
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    opkit::host::oplog::vlog(opkit::host::oplog::from_dlog(level), nullptr, 0, nullptr, "", nullptr, fmt, ap);
    va_end(ap);
}
}
