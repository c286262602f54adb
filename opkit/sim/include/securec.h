// opkit simulator (host side): the bounds-checked C functions of Huawei's securec
// (libboundscheck) that operator host code calls, with its documented return codes:
//
//   memset_s(dest, destMax, c, count)      count > destMax: fills destMax bytes, ERANGE_AND_RESET
//   memcpy_s(dest, destMax, src, count)    src null: EINVAL_AND_RESET; count > destMax:
//                                          ERANGE_AND_RESET; overlap: EOVERLAP_AND_RESET (dest
//                                          zeroed in all three)
//   memmove_s(dest, destMax, src, count)   overlap allowed; otherwise as memcpy_s
//   strcpy_s / strncpy_s / strcat_s / strncat_s   too long: dest[0] = '\0', ERANGE_AND_RESET
//   sprintf_s / vsprintf_s(dest, destMax, fmt, ...)  characters written, or -1 (dest[0] = '\0')
//                                          when the result does not fit
//   snprintf_s / vsnprintf_s(dest, destMax, count, fmt, ...)  at most count characters; -1 when
//                                          truncated (with count < destMax the truncated text
//                                          stays; count == (size_t)-1 truncates to destMax - 1)
//
// destMax of 0 or above SECUREC_*_MAX_LEN: ERANGE (or -1), dest untouched; dest null: EINVAL.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "securectype.h"

namespace opkit_securec {
inline bool overlap(const void* a, size_t na, const void* b, size_t nb) {
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    return pa < pb + nb && pb < pa + na;
}
inline bool bad_mem_max(size_t destMax) { return destMax == 0 || destMax > SECUREC_MEM_MAX_LEN; }
inline bool bad_str_max(size_t destMax) { return destMax == 0 || destMax > SECUREC_STRING_MAX_LEN; }
inline size_t bounded_len(const char* s, size_t limit) {
    size_t n = 0;
    while (n < limit && s[n] != '\0') ++n;
    return n;
}
// Copies srcLen characters of src after the first `at` characters of dest, with the checks of
// the string functions.
inline errno_t str_put(char* dest, size_t destMax, size_t at, const char* src, size_t srcLen) {
    if (at + srcLen + 1 > destMax) {
        dest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (overlap(dest, destMax, src, srcLen + 1)) {
        dest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    std::memcpy(dest + at, src, srcLen);
    dest[at + srcLen] = '\0';
    return EOK;
}
}  // namespace opkit_securec

extern "C" {

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (opkit_securec::bad_mem_max(destMax)) return ERANGE;
    if (dest == nullptr) return EINVAL;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (opkit_securec::bad_mem_max(destMax)) return ERANGE;
    if (dest == nullptr) return EINVAL;
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (dest == src || count == 0) return EOK;
    if (opkit_securec::overlap(dest, count, src, count)) {
        std::memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    std::memmove(dest, src, count);  // the ranges are disjoint here; memmove keeps compilers quiet about it
    return EOK;
}

inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (opkit_securec::bad_mem_max(destMax)) return ERANGE;
    if (dest == nullptr) return EINVAL;
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (dest != src && count > 0) std::memmove(dest, src, count);
    return EOK;
}

inline errno_t strcpy_s(char* strDest, size_t destMax, const char* strSrc) {
    if (opkit_securec::bad_str_max(destMax)) return ERANGE;
    if (strDest == nullptr) return EINVAL;
    if (strSrc == nullptr) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    if (strDest == strSrc) return EOK;
    return opkit_securec::str_put(strDest, destMax, 0, strSrc, opkit_securec::bounded_len(strSrc, destMax));
}

inline errno_t strncpy_s(char* strDest, size_t destMax, const char* strSrc, size_t count) {
    if (opkit_securec::bad_str_max(destMax)) return ERANGE;
    if (strDest == nullptr) return EINVAL;
    if (strSrc == nullptr || count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return strSrc == nullptr ? EINVAL_AND_RESET : ERANGE_AND_RESET;
    }
    if (count == 0) {
        strDest[0] = '\0';
        return EOK;
    }
    const size_t n = opkit_securec::bounded_len(strSrc, count < destMax ? count : destMax);
    if (strDest == strSrc) {
        if (n >= destMax) {
            strDest[0] = '\0';
            return ERANGE_AND_RESET;
        }
        strDest[n] = '\0';
        return EOK;
    }
    return opkit_securec::str_put(strDest, destMax, 0, strSrc, n);
}

inline errno_t strcat_s(char* strDest, size_t destMax, const char* strSrc) {
    if (opkit_securec::bad_str_max(destMax)) return ERANGE;
    if (strDest == nullptr) return EINVAL;
    if (strSrc == nullptr) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    const size_t at = opkit_securec::bounded_len(strDest, destMax);
    if (at == destMax) {  // dest is not terminated within destMax
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return opkit_securec::str_put(strDest, destMax, at, strSrc, opkit_securec::bounded_len(strSrc, destMax));
}

inline errno_t strncat_s(char* strDest, size_t destMax, const char* strSrc, size_t count) {
    if (opkit_securec::bad_str_max(destMax)) return ERANGE;
    if (strDest == nullptr) return EINVAL;
    if (strSrc == nullptr || count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return strSrc == nullptr ? EINVAL_AND_RESET : ERANGE_AND_RESET;
    }
    const size_t at = opkit_securec::bounded_len(strDest, destMax);
    if (at == destMax) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return opkit_securec::str_put(strDest, destMax, at, strSrc,
                                  opkit_securec::bounded_len(strSrc, count < destMax ? count : destMax));
}

inline int vsnprintf_s(char* strDest, size_t destMax, size_t count, const char* format, va_list argList) {
    const bool truncate_to_max = count == static_cast<size_t>(-1);
    if (strDest == nullptr || format == nullptr || opkit_securec::bad_str_max(destMax) ||
        (count > SECUREC_STRING_MAX_LEN - 1 && !truncate_to_max)) {
        if (strDest != nullptr && !opkit_securec::bad_str_max(destMax)) strDest[0] = '\0';
        return -1;
    }
    const size_t room = count < destMax ? count + 1 : destMax;  // bytes we may write, '\0' included
    va_list ap;
    va_copy(ap, argList);
    const int n = std::vsnprintf(strDest, room, format, ap);
    va_end(ap);
    if (n < 0) {
        strDest[0] = '\0';
        return -1;
    }
    if (static_cast<size_t>(n) < room) return n;
    // Truncated: kept when the caller asked for at most `count` (< destMax) characters or for
    // truncation to the buffer; cleared when the buffer itself is too small.
    if (!(count < destMax) && !truncate_to_max) strDest[0] = '\0';
    return -1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
inline int snprintf_s(char* strDest, size_t destMax, size_t count, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return n;
}

inline int vsprintf_s(char* strDest, size_t destMax, const char* format, va_list argList) {
    if (strDest == nullptr || format == nullptr || opkit_securec::bad_str_max(destMax)) {
        if (strDest != nullptr && !opkit_securec::bad_str_max(destMax)) strDest[0] = '\0';
        return -1;
    }
    va_list ap;
    va_copy(ap, argList);
    const int n = std::vsnprintf(strDest, destMax, format, ap);
    va_end(ap);
    if (n < 0 || static_cast<size_t>(n) >= destMax) {
        strDest[0] = '\0';
        return -1;
    }
    return n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
inline int sprintf_s(char* strDest, size_t destMax, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}

}  // extern "C"
