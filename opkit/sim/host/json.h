// opkit simulator harness: a small JSON reader and writer (no third-party code).
//
// Reader: the full JSON grammar (objects keep their key order, numbers keep their text so that
// 64-bit integers survive). Writer: helpers that escape strings and print floats so that they
// read back to the same value.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace opkit {
namespace json {

struct Value {
    enum Type { Null, Bool, Number, String, Array, Object } type = Null;
    bool b = false;
    std::string text;  // number text or string value
    std::vector<Value> items;
    std::vector<std::pair<std::string, Value>> members;

    bool is_null() const { return type == Null; }
    const Value* find(const std::string& k) const {
        for (const auto& m : members)
            if (m.first == k) return &m.second;
        return nullptr;
    }
    double as_double() const { return std::strtod(text.c_str(), nullptr); }
    bool is_integer() const {
        if (type != Number) return false;
        for (char c : text)
            if (c == '.' || c == 'e' || c == 'E') return false;
        return true;
    }
};

class Parser {
public:
    explicit Parser(const std::string& s) : s_(s) {}
    Value parse() {
        Value v = value();
        ws();
        if (i_ != s_.size()) error("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void error(const std::string& what) const {
        size_t line = 1, col = 1;
        for (size_t k = 0; k < i_ && k < s_.size(); ++k) {
            if (s_[k] == '\n') { ++line; col = 1; } else { ++col; }
        }
        throw std::runtime_error(what + " at line " + std::to_string(line) + ", column " + std::to_string(col));
    }
    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool lit(const char* w) {
        size_t n = std::char_traits<char>::length(w);
        if (s_.compare(i_, n, w) == 0) { i_ += n; return true; }
        return false;
    }
    Value value() {
        ws();
        if (i_ >= s_.size()) error("unexpected end of input");
        Value v;
        char c = s_[i_];
        if (c == '{') {
            v.type = Value::Object;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == '}') { ++i_; return v; }
            for (;;) {
                ws();
                if (i_ >= s_.size() || s_[i_] != '"') error("expected a string key");
                std::string k = str();
                ws();
                if (i_ >= s_.size() || s_[i_] != ':') error("expected ':'");
                ++i_;
                v.members.emplace_back(std::move(k), value());
                ws();
                if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
                if (i_ < s_.size() && s_[i_] == '}') { ++i_; return v; }
                error("expected ',' or '}'");
            }
        }
        if (c == '[') {
            v.type = Value::Array;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == ']') { ++i_; return v; }
            for (;;) {
                v.items.push_back(value());
                ws();
                if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
                if (i_ < s_.size() && s_[i_] == ']') { ++i_; return v; }
                error("expected ',' or ']'");
            }
        }
        if (c == '"') { v.type = Value::String; v.text = str(); return v; }
        if (lit("true")) { v.type = Value::Bool; v.b = true; return v; }
        if (lit("false")) { v.type = Value::Bool; return v; }
        if (lit("null")) return v;
        if (lit("NaN")) { v.type = Value::Number; v.text = "nan"; return v; }
        if (lit("Infinity")) { v.type = Value::Number; v.text = "inf"; return v; }
        if (lit("-Infinity")) { v.type = Value::Number; v.text = "-inf"; return v; }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t st = i_;
            if (s_[i_] == '-') ++i_;
            while (i_ < s_.size() && (isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                                      s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
                ++i_;
            v.type = Value::Number;
            v.text = s_.substr(st, i_ - st);
            char* end = nullptr;
            std::strtod(v.text.c_str(), &end);
            if (end == v.text.c_str() || *end) error("malformed number '" + v.text + "'");
            return v;
        }
        error(std::string("unexpected character '") + c + "'");
    }
    static void utf8(std::string& o, uint32_t cp) {
        if (cp < 0x80) o += static_cast<char>(cp);
        else if (cp < 0x800) { o += static_cast<char>(0xC0 | (cp >> 6)); o += static_cast<char>(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
            o += static_cast<char>(0xE0 | (cp >> 12)); o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            o += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            o += static_cast<char>(0xF0 | (cp >> 18)); o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); o += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    uint32_t hex4() {
        if (i_ + 4 > s_.size()) error("short \\u escape");
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= h - '0';
            else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
            else error("bad \\u escape");
        }
        return v;
    }
    std::string str() {
        ++i_;  // opening quote
        std::string o;
        while (i_ < s_.size() && s_[i_] != '"') {
            char c = s_[i_++];
            if (c != '\\') { o += c; continue; }
            if (i_ >= s_.size()) break;
            char e = s_[i_++];
            switch (e) {
                case '"': o += '"'; break;
                case '\\': o += '\\'; break;
                case '/': o += '/'; break;
                case 'b': o += '\b'; break;
                case 'f': o += '\f'; break;
                case 'n': o += '\n'; break;
                case 'r': o += '\r'; break;
                case 't': o += '\t'; break;
                case 'u': {
                    uint32_t cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && i_ + 6 <= s_.size() && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
                        i_ += 2;
                        uint32_t lo = hex4();
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    utf8(o, cp);
                    break;
                }
                default: error(std::string("bad escape \\") + e);
            }
        }
        if (i_ >= s_.size()) error("unterminated string");
        ++i_;
        return o;
    }
    const std::string& s_;
    size_t i_ = 0;
};

inline Value parse(const std::string& s) { return Parser(s).parse(); }

// ---- writing
inline std::string quote(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            case '\t': o += "\\t"; break;
            default:
                if (c < 0x20) {
                    char b[8];
                    std::snprintf(b, sizeof b, "\\u%04x", c);
                    o += b;
                } else {
                    o += static_cast<char>(c);
                }
        }
    }
    return o + "\"";
}
// Shortest text that reads back as the same float (JSON has no NaN/Inf: they become null).
inline std::string number(float f) {
    if (!std::isfinite(f)) return "null";
    char b[64];
    for (int p = 6; p <= 9; ++p) {
        std::snprintf(b, sizeof b, "%.*g", p, static_cast<double>(f));
        if (std::strtof(b, nullptr) == f) break;
    }
    std::string s = b;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
}

}  // namespace json
}  // namespace opkit
