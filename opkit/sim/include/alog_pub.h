// opkit simulator (host side): CANN's older log interface (alog_pub.h): AlogCheckDebugLevel and
// AlogRecord over the same host log as base/dlog_pub.h (opkit_host/oplog.h).
#pragma once
#include "base/dlog_pub.h"

extern "C" {
// 1 when a record of this level would be written, else 0 (also for a level out of range).
inline int32_t AlogCheckDebugLevel(uint32_t moduleId, int32_t level) {
    return CheckLogLevel(static_cast<int32_t>(moduleId), level);
}
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
inline int32_t AlogRecord(uint32_t moduleId, uint32_t logType, int32_t level, const char* fmt, ...) {
    (void)logType;
    if (fmt == nullptr) return -1;
    if (CheckLogLevel(static_cast<int32_t>(moduleId), level) != 1) {
        opkit::host::oplog::note_below();
        return 0;
    }
    va_list ap;
    va_start(ap, fmt);
    opkit::host::oplog::vlog(opkit::host::oplog::from_dlog(level), nullptr, 0, nullptr, "", nullptr, fmt, ap);
    va_end(ap);
    return 0;
}
}
