// opkit simulator (host side): where the log lines of host code go (OP_LOGE/W/I/D of ops-base,
// CANN's DlogRecord/AlogRecord, REPORT_INNER_ERR_MSG).
//
// Records at or above the threshold are kept in memory (the last kKeep of them); calls under it
// are counted, their arguments not evaluated (CANN formats nothing under its level either). When host code then fails -- its
// tiling, InferShape, InferDataType or TilingParse returns an error, or a host interface stops the
// run -- opkit::host::fail prints the records of the current request at or above the threshold
// as indented lines under its one `opkit-sim: error:` line, so the user sees what the op logged.
//
// OPKIT_LOG_LEVEL sets the threshold: debug, info, warning (the default), error, off -- or CANN's
// numbers 0..4 (ASCEND_GLOBAL_LOG_LEVEL's scale: 0 debug, 1 info, 2 warning, 3 error, 4 none).
// When it is set, records at or above it are also printed as they happen, one
// `opkit-sim: log: ` line each on stderr.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

namespace opkit {
namespace host {
namespace oplog {

enum Level : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

struct Record {
    int level = kInfo;
    std::string where;  // file:line (file without its directories)
    std::string func;   // the function that logged
    std::string op;     // "OpType:NodeName" or the name the code gave
    std::string code;   // error code of a report (EZ9999, E89999, ...), or empty
    std::string text;
};

constexpr size_t kKeep = 256;   // records kept per request
constexpr size_t kShown = 40;   // records printed under an error line

struct State {
    std::mutex mu;
    std::deque<Record> records;
    size_t dropped = 0;     // records pushed out of `records`
    size_t below = 0;       // records under the threshold since the last reset
    int threshold = -1;     // -1: not read yet
    bool live = false;
    bool bad_env = false;
    std::string env_text;
};

inline State& state() {
    static State s;
    return s;
}

inline const char* level_name(int level) {
    switch (level) {
        case kDebug: return "DEBUG";
        case kInfo: return "INFO";
        case kWarning: return "WARNING";
        case kError: return "ERROR";
        default: return "LOG";
    }
}

// Parses an OPKIT_LOG_LEVEL value; -1 if it is not one.
inline int parse_level(const char* v) {
    if (v == nullptr) return -1;
    std::string s(v);
    for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (s == "debug" || s == "0") return kDebug;
    if (s == "info" || s == "1") return kInfo;
    if (s == "warning" || s == "warn" || s == "2") return kWarning;
    if (s == "error" || s == "3") return kError;
    if (s == "off" || s == "none" || s == "null" || s == "4") return kOff;
    return -1;
}

inline void read_env_locked(State& s) {
    if (s.threshold >= 0) return;
    const char* v = std::getenv("OPKIT_LOG_LEVEL");
    s.threshold = kWarning;
    if (v != nullptr && *v != '\0') {
        const int t = parse_level(v);
        if (t < 0) {
            s.bad_env = true;
            s.env_text = v;
        } else {
            s.threshold = t;
            s.live = true;
        }
    }
    if (s.bad_env)
        std::fprintf(stderr,
                     "opkit-sim: warning: OPKIT_LOG_LEVEL: '%s' is not a log level (debug, info, warning, error, off "
                     "or 0..4); using warning\n",
                     s.env_text.c_str());
}

inline int threshold() {
    State& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    read_env_locked(s);
    return s.threshold;
}

// CANN's "is this level on?" question (CheckLogLevel / AlogCheckDebugLevel): 1 or 0.
inline int enabled(int level) { return level >= threshold() && level < kOff ? 1 : 0; }

inline std::string base_name(const char* file) {
    if (file == nullptr) return "?";
    const char* slash = std::strrchr(file, '/');
    return slash ? slash + 1 : file;
}

inline std::string render(const Record& r) {
    std::string line = std::string("[") + level_name(r.level) + "]";
    if (!r.code.empty()) line += " " + r.code;
    if (!r.where.empty()) line += " " + r.where;
    if (!r.func.empty()) line += " " + r.func + "()";
    if (!r.op.empty()) line += " [" + r.op + "]";
    return line + ": " + r.text;
}

inline void add(Record r) {
    State& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    read_env_locked(s);
    while (!r.text.empty() && (r.text.back() == '\n' || r.text.back() == '\r')) r.text.pop_back();
    for (auto& c : r.text) c = (c == '\n' || c == '\r') ? ' ' : c;  // one line per record
    if (r.level < s.threshold) {  // not kept, as CANN does not write a record under its level
        ++s.below;
        return;
    }
    if (!r.code.empty() && !s.records.empty()) {  // a report of the line just logged (OP_LOGE does both)
        Record& last = s.records.back();
        if (last.code.empty() && last.text == r.text) {
            last.code = r.code;
            return;
        }
    }
    if (s.live) {
        std::fprintf(stderr, "opkit-sim: log: %s\n", render(r).c_str());
        std::fflush(stderr);
    }
    s.records.push_back(std::move(r));
    if (s.records.size() > kKeep) {
        s.records.pop_front();
        ++s.dropped;
    }
}

inline std::string vformat_c(const char* fmt, va_list ap) {
    if (fmt == nullptr) return "";
    va_list ap2;
    va_copy(ap2, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0) return "";
    std::string out(static_cast<size_t>(n), '\0');
    std::vsnprintf(&out[0], out.size() + 1, fmt, ap);
    return out;
}

// The entry point of the log macros: printf-style text, formatted only when kept.
inline void vlog(int level, const char* file, int line, const char* func, const std::string& op, const char* code,
                 const char* fmt, va_list ap) {
    Record r;
    r.level = level;
    if (file != nullptr) r.where = base_name(file) + ":" + std::to_string(line);
    if (func != nullptr) r.func = func;
    r.op = op;
    if (code != nullptr) r.code = code;
    r.text = vformat_c(fmt, ap);
    add(std::move(r));
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
inline void log(int level, const char* file, int line, const char* func, const std::string& op, const char* code,
                const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(level, file, line, func, op, code, fmt, ap);
    va_end(ap);
}

// A log call under the threshold: its arguments are not evaluated (as in CANN), only counted.
inline void note_below() {
    State& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    ++s.below;
}

// Forget the records (the harness calls it at the start of each request).
inline void reset() {
    State& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    s.records.clear();
    s.dropped = 0;
    s.below = 0;
}

// The records at or above the threshold, as indented lines for under an error line ("" if none).
inline std::string shown_block() {
    State& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    read_env_locked(s);
    const size_t n = s.records.size();
    if (n == 0) return "";
    std::string out = "  the op logged " + std::to_string(n) + (n == 1 ? " message" : " messages");
    if (s.threshold > kDebug && s.below > 0)
        out += " (" + std::to_string(s.below) + " more below " + level_name(s.threshold) +
               ": OPKIT_LOG_LEVEL=debug shows them)";
    out += ":\n";
    size_t skip = n > kShown ? n - kShown : 0;
    if (skip > 0 || s.dropped > 0)
        out += "    ... " + std::to_string(skip + s.dropped) + " earlier messages not shown\n";
    for (const auto& r : s.records) {
        if (skip > 0) {
            --skip;
            continue;
        }
        out += "    " + render(r) + "\n";
    }
    return out;
}

}  // namespace oplog
}  // namespace host
}  // namespace opkit
