// opkit simulator (host side): the types and limits of Huawei's securec (libboundscheck):
// errno_t, EOK, SECUREC_MEM_MAX_LEN / SECUREC_STRING_MAX_LEN and the "... and reset" codes.
#pragma once
#include <cerrno>
#include <cstddef>

#ifndef SECUREC_ERRNO_T_DEFINED
#define SECUREC_ERRNO_T_DEFINED
typedef int errno_t;
#endif
#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL
#define EINVAL 22
#endif
#ifndef ERANGE
#define ERANGE 34
#endif
// The destination was cleared (memory functions: all destMax bytes; string functions: the first
// character) before the error was returned.
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET (22 | 128)
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET (34 | 128)
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128)
#endif
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#endif
