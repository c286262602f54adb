// opkit simulator (host side): ge::AscendString, the string type of CANN's host interfaces.
#pragma once
#include <cstring>
#include <functional>
#include <string>

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : ""), null_(s == nullptr) {}  // NOLINT: implicit as in CANN
    AscendString(const char* s, size_t n) : s_(s ? std::string(s, n) : std::string()), null_(s == nullptr) {}
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    size_t Hash() const { return std::hash<std::string>()(s_); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator>(const AscendString& o) const { return s_ > o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
    bool operator!=(const AscendString& o) const { return s_ != o.s_; }
    bool operator<=(const AscendString& o) const { return s_ <= o.s_; }
    bool operator>=(const AscendString& o) const { return s_ >= o.s_; }
    size_t Find(const AscendString& o) const {
        size_t p = s_.find(o.s_);
        return p == std::string::npos ? static_cast<size_t>(-1) : p;
    }

private:
    std::string s_;
    bool null_ = true;
};
}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
    size_t operator()(const ge::AscendString& s) const { return s.Hash(); }
};
}  // namespace std
