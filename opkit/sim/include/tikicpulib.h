// opkit simulator: the CPU-debug entry points of the Ascend C toolchain (GmAlloc, GmFree,
// ICPU_SET_TILING_KEY, ICPU_RUN_KF). Blocks run as threads of this process.
#pragma once
#include "kernel_operator.h"

namespace AscendC {
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };
inline KernelMode& opkit_kernel_mode() { static KernelMode m = KernelMode::MIX_MODE; return m; }
inline void SetKernelMode(KernelMode m) {
    opkit_kernel_mode() = m;
    opkit::sim::G().kernel_mode = int(m);
}
inline void* GmAlloc(size_t size) { return opkit::sim::gm_alloc(size); }
inline void GmFree(void* p) { opkit::sim::gm_free(p); }
}  // namespace AscendC

namespace opkit {
namespace sim {
template <class P> inline uint8_t* as_gm(P* p) { return reinterpret_cast<uint8_t*>(const_cast<typename std::remove_cv<P>::type*>(p)); }
inline uint8_t* as_gm(std::nullptr_t) { return nullptr; }
inline uint8_t* as_gm(uintptr_t p) { return reinterpret_cast<uint8_t*>(p); }

template <class F, class... A>
inline void icpu_run(const char* name, F f, int64_t n, A... args) {
    static_assert(sizeof...(A) <= 32, "ICPU_RUN_KF takes at most 32 kernel arguments");
    uint8_t* ptrs[sizeof...(A) + 1] = {as_gm(args)..., nullptr};
    uint8_t* ws = sizeof...(A) >= 2 ? ptrs[sizeof...(A) - 2] : nullptr;
    if (!tiling_key_set_ref()) tiling_key_ref() = 0;
    // Kernel type: the runner's choice, else SetKernelMode (MIX -> 1 AIC + 2 AIV per block), else
    // vector cores only (CANN's CPU twin defaults to MIX; opkit defaults to AIV, see README).
    int kt = G().kernel_type;
    if (kt < 0) kt = G().kernel_mode == 0 ? KT_MIX_AIC_1_2 : G().kernel_mode == 1 ? KT_AIC_ONLY : KT_AIV_ONLY;
    run_blocks(name, n, ws, [&] {
        g_coreType = core().core_type == CT_AIC ? AscendC::AIC : AscendC::AIV;
        f(as_gm(args)...);
    }, kt);
}
}  // namespace sim
}  // namespace opkit

#define ICPU_SET_TILING_KEY(key)                              \
    do {                                                      \
        ::opkit::sim::tiling_key_ref() = (uint64_t)(key);     \
        ::opkit::sim::tiling_key_set_ref() = true;            \
    } while (0)
#define ICPU_RUN_KF(func, blockDim, ...) ::opkit::sim::icpu_run(#func, func, (int64_t)(blockDim), ##__VA_ARGS__)
