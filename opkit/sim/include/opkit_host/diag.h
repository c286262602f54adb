// opkit simulator (host side): the one diagnostic the host side ends a run with.
//
//   opkit-sim: error: <function>: <reason>
//
// on stderr, then exit code 3 (the kernel side's fail_at uses the same prefix and code).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

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
    std::fprintf(stderr, "opkit-sim: error: %s: %s\n", function, msg.c_str());
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
