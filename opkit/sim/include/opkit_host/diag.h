// opkit simulator (host side): the one diagnostic the host side ends a run with.
//
//   opkit-sim: error: <function>: <reason>
//     [ERROR] foo_tiling.cpp:42 CheckShapes() [Foo:Foo]: ...   (what the op logged, see oplog.h)
//
// on stderr, then exit code 3 (the kernel side's fail_at uses the same prefix and code).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "opkit_host/oplog.h"

namespace opkit {
namespace host {

inline std::string vformat(const char* f, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = std::vsnprintf(nullptr, 0, f, ap2);
    va_end(ap2);
    std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(&s[0], s.size() + 1, f, ap);
    return s;
}

inline std::string format(const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string s = vformat(f, ap);
    va_end(ap);
    return s;
}

constexpr int kExitCode = 3;

[[noreturn]] inline void fail(const char* function, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string msg = vformat(f, ap);
    va_end(ap);
    std::fflush(stdout);
    // The op's own log lines of this request follow, indented (they belong to this diagnostic).
    const std::string logged = oplog::shown_block();
    std::fprintf(stderr, "opkit-sim: error: %s: %s\n%s", function, msg.c_str(), logged.c_str());
    std::fflush(stderr);
    std::_Exit(kExitCode);
}

inline void warn(const char* function, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    std::string msg = vformat(f, ap);
    va_end(ap);
    std::fprintf(stderr, "opkit-sim: warning: %s: %s\n", function, msg.c_str());
    std::fflush(stderr);
}

}  // namespace host
}  // namespace opkit
