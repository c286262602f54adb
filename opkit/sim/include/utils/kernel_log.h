// opkit simulator: kernel-side logging and assertions of Ascend C's CPU-debug mode:
// KERNEL_LOG(level, fmt, ...) prints one line prefixed with the core and the level;
// ASCENDC_ASSERT(cond, { action; }) runs the action (usually a KERNEL_LOG) and ends the run with
// one diagnostic at the caller's line when cond is false.
#pragma once
#include <cstdio>
#include <string>
#include "opkit_sim_runtime.h"

enum KernelLogLevel { KERNEL_DEBUG = 0, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR };

namespace opkit {
namespace sim {
inline const char* kernel_log_level(int level) {
    static const char* n[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    return level >= 0 && level < 4 ? n[level] : "LOG";
}
template <class... Args>
inline void kernel_log(int level, const char* file, int line, const char* f, Args... args) {
    std::string body = fmt(f, args...);
    std::fprintf(stderr, "[%s] [%s] %s:%d: %s\n", core_desc().c_str(), kernel_log_level(level), file, line, body.c_str());
}
}  // namespace sim
}  // namespace opkit

#ifndef KERNEL_LOG
#define KERNEL_LOG(level, ...) ::opkit::sim::kernel_log(int(level), __FILE__, __LINE__, __VA_ARGS__)
#endif
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                                      \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            behavior;                                                                                       \
            ::opkit::sim::fail_at("ASCENDC_ASSERT", ::opkit::sim::SrcLoc(__FILE__, __LINE__), "assertion `%s` failed", #cond); \
        }                                                                                                   \
    } while (0)
#endif
