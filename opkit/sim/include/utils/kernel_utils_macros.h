// opkit simulator: the compiler-level macros Ascend C kernels use: likely/unlikely (branch hints),
// __forceinline__, and ASSERT (a failed assertion ends the run with one diagnostic at its line).
#pragma once
#include "impl/opkit/sim_diag.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
// bisheng's spelling of "always inline"; kernels write it with or without `inline` beside it.
#ifndef __forceinline__
#define __forceinline__ __attribute__((always_inline))
#endif
// ASSERT(cond) of the CPU-debug mode: a false condition ends the run (exit code 3) naming the
// condition and the kernel's file:line; a true one costs nothing.
#ifndef ASSERT
#define ASSERT(cond)                                                                                   \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            ::opkit::sim::fail_at("ASSERT", ::opkit::sim::SrcLoc(__FILE__, __LINE__), "assertion `%s` failed", #cond); \
    } while (0)
#endif

// Pipe annotations of CANN's declarations (`__inout_pipe__(S)`, ...): no meaning on the CPU.
#ifndef __inout_pipe__
#define __inout_pipe__(p)
#endif
#ifndef __in_pipe__
#define __in_pipe__(p)
#endif
#ifndef __out_pipe__
#define __out_pipe__(p)
#endif
