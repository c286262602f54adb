// opkit simulator: debug output: printf/PRINTF and DumpTensor, prefixed with the core.
#pragma once
#include "impl/opkit/copy_engine.h"

namespace AscendC {

// ---- debugging: printf and DumpTensor (print to stdout, prefixed with the core) ------------------------------
template <class... Args>
inline void printf(const char* fmt, Args... args) {
    std::string prefix = "[" + opkit::sim::core_desc() + "] ";
    std::string body = opkit::sim::fmt(fmt, args...);
    std::fputs((prefix + body).c_str(), stdout);
    std::fflush(stdout);
}
template <class... Args>
inline void PRINTF(const char* fmt, Args... args) { AscendC::printf(fmt, args...); }

template <class T>
inline void opkit_dump(const char* where, const T* p, uint32_t desc, uint32_t n) {
    std::string s = opkit::sim::fmt("[%s] DumpTensor desc=%u %s (%u elements):", opkit::sim::core_desc().c_str(), desc, where, n);
    for (uint32_t i = 0; i < n; ++i) {
        if (i % 16 == 0) s += "\n ";
        if (std::is_integral<T>::value) s += opkit::sim::fmt(" %lld", (long long)p[i]);
        else s += opkit::sim::fmt(" %g", double(float(p[i])));
    }
    std::puts(s.c_str());
    std::fflush(stdout);
}
template <class T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, OPKIT_LOC) {
    uint32_t n = std::min(dumpSize, t.GetSize());
    if (t.arena() >= 0) {
        uint64_t k = opkit::sim::first_uninit(t.arena(), t.address_.bufferAddr, uint64_t(n) * sizeof(T));
        if (k < uint64_t(n) * sizeof(T))
            opkit::sim::warn_at("DumpTensor", loc, "dumps UB bytes that were never written (from element %llu)", (unsigned long long)(k / sizeof(T)));
    }
    opkit_dump("local", t.data(), desc, n);
}
template <class T>
inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize, OPKIT_LOC) {
    opkit::sim::gm_check(t.GetPhyAddr(), uint64_t(dumpSize) * sizeof(T), "DumpTensor", loc, "read");
    opkit_dump("global", t.GetPhyAddr(), desc, dumpSize);
}

}  // namespace AscendC
