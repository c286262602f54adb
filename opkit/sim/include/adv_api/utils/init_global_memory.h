// opkit simulator: InitGlobalMemory (and the InitOutput/Fill spellings of it).
#pragma once
#include "impl/opkit/copy_engine.h"

namespace AscendC {

template <class T>
inline void InitGlobalMemory(const GlobalTensor<T>& gm, const uint64_t size, const T value, OPKIT_LOC) {
    using namespace opkit::sim;
    T* p = gm.GetPhyAddr();
    gm_check(p, size * sizeof(T), "InitGlobalMemory", loc, "write");
    issue(P_MTE3);
    if (!trace_only())
        for (uint64_t i = 0; i < size; ++i) p[i] = value;
    trace(P_MTE3, size * sizeof(T), 1, "InitGlobalMemory", dtype_name<T>());
}
template <class T>
inline void InitOutput(const GlobalTensor<T>& gm, uint32_t size, T value = T(0), OPKIT_LOC) {
    InitGlobalMemory(gm, uint64_t(size), value, loc);
}
template <class T>
inline void Fill(const GlobalTensor<T>& gm, const uint64_t size, const T value, OPKIT_LOC) {
    InitGlobalMemory(gm, size, value, loc);
}

}  // namespace AscendC
