// opkit simulator: configuration macros (chip capacities from the build), call sites, pipes and arenas.
#pragma once

//
// Everything here is header-only (C++17 inline variables). Each emulated core is a thread;
// per-core state is thread_local, GM is shared.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "kernel_fp16.h"
#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

// ---------------------------------------------------------------------------------------------
// Configuration (the build passes these from opkit/data/socs.yaml; defaults: ascend910b2).
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __CCE_AICORE__
#if __NPU_ARCH__ == 2002
#define __CCE_AICORE__ 200
#else
#define __CCE_AICORE__ 220
#endif
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#ifndef OPKIT_SIM_SOC
#if __NPU_ARCH__ == 2002
#define OPKIT_SIM_SOC "ascend310p3"
#else
#define OPKIT_SIM_SOC "ascend910b2"
#endif
#endif
#if __NPU_ARCH__ == 2002
#define OPKIT_SIM_ARCH_NAME "NPU arch 2002: ascend310p"
#ifndef OPKIT_SIM_UB_SIZE
#define OPKIT_SIM_UB_SIZE 262144
#endif
#ifndef OPKIT_SIM_UB_CAP
#define OPKIT_SIM_UB_CAP 262144
#endif
#ifndef OPKIT_SIM_L1_SIZE
#define OPKIT_SIM_L1_SIZE 1048576
#endif
#ifndef OPKIT_SIM_L1_CAP
#define OPKIT_SIM_L1_CAP 1048576
#endif
#ifndef OPKIT_SIM_L0C_SIZE
#define OPKIT_SIM_L0C_SIZE 262144
#endif
#ifndef OPKIT_SIM_SYS_WORKSPACE
#define OPKIT_SIM_SYS_WORKSPACE 2097152
#endif
#else
#define OPKIT_SIM_ARCH_NAME "NPU arch 2201: ascend910b, ascend910_93"
#ifndef OPKIT_SIM_UB_SIZE
#define OPKIT_SIM_UB_SIZE 196608
#endif
#ifndef OPKIT_SIM_UB_CAP
#define OPKIT_SIM_UB_CAP 196352
#endif
#ifndef OPKIT_SIM_L1_SIZE
#define OPKIT_SIM_L1_SIZE 524288
#endif
#ifndef OPKIT_SIM_L1_CAP
#define OPKIT_SIM_L1_CAP 524032
#endif
#ifndef OPKIT_SIM_L0C_SIZE
#define OPKIT_SIM_L0C_SIZE 131072
#endif
#ifndef OPKIT_SIM_SYS_WORKSPACE
#define OPKIT_SIM_SYS_WORKSPACE 16777216
#endif
#endif
#ifndef OPKIT_SIM_UB_RESERVED
#define OPKIT_SIM_UB_RESERVED 8192
#endif
#ifndef OPKIT_SIM_L0A_SIZE
#define OPKIT_SIM_L0A_SIZE 65536
#endif
#ifndef OPKIT_SIM_L0B_SIZE
#define OPKIT_SIM_L0B_SIZE 65536
#endif
#ifndef OPKIT_SIM_BT_SIZE
#define OPKIT_SIM_BT_SIZE 1024
#endif
#ifndef OPKIT_SIM_GM_GUARD
#define OPKIT_SIM_GM_GUARD 512
#endif

namespace opkit {
namespace sim {

// ---------------------------------------------------------------------------------------------
// Source location of an API call (filled by default arguments at the call site).
struct SrcLoc {
    const char* file;
    int line;
    SrcLoc(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};
#define OPKIT_LOC ::opkit::sim::SrcLoc loc = ::opkit::sim::SrcLoc()

// ---------------------------------------------------------------------------------------------
// Pipes (instruction queues of one core) and memory arenas.
enum Pipe : int { P_S = 0, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX, NPIPE };
inline const char* pipe_name(int p) {
    static const char* n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    return (p >= 0 && p < NPIPE) ? n[p] : "?";
}
enum Arena : int { A_UB = 0, A_L1, A_L0A, A_L0B, A_L0C, A_BT, NARENA };
inline const char* arena_name(int a) {
    static const char* n[] = {"UB", "L1", "L0A", "L0B", "L0C", "BiasTable"};
    return n[a];
}
inline uint32_t arena_align(int a) {
    static const uint32_t n[] = {32, 32, 512, 512, 64, 64};
    return n[a];
}
inline uint64_t arena_phys(int a) {
    static const uint64_t n[] = {OPKIT_SIM_UB_SIZE, OPKIT_SIM_L1_SIZE, OPKIT_SIM_L0A_SIZE,
                                 OPKIT_SIM_L0B_SIZE, OPKIT_SIM_L0C_SIZE, OPKIT_SIM_BT_SIZE};
    return n[a];
}
// What the kernel may allocate (GetCoreMemSize on the chip).
inline uint64_t arena_cap(int a) {
    if (a == A_UB) return OPKIT_SIM_UB_CAP;
    if (a == A_L1) return OPKIT_SIM_L1_CAP;
    return arena_phys(a);
}

}  // namespace sim
}  // namespace opkit
