// opkit simulator: the vector mask register: SetMaskCount/SetMaskNorm, SetVectorMask, ResetMask,
// AscendCUtils::SetMask/ResetMask (the same register, as CANN's mask helpers set it).
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

inline void SetMaskCount() { opkit::sim::core().mask_counter = true; }
inline void SetMaskNorm() { opkit::sim::core().mask_counter = false; }
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    auto& c = opkit::sim::core();
    c.mask_hi = maskHigh;
    c.mask_lo = maskLow;
}
template <class T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
    auto& c = opkit::sim::core();
    if (mode == MaskMode::COUNTER || c.mask_counter) { c.mask_lo = uint64_t(len); c.mask_hi = 0; return; }
    constexpr int E = 256 / sizeof(T);
    int n = len > E ? E : len;
    c.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    c.mask_hi = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
}
inline void ResetMask() { auto& c = opkit::sim::core(); c.mask_hi = c.mask_lo = ~0ull; }

}  // namespace AscendC

namespace AscendC {

// CANN's mask helpers (used by kernels that drive the mask/repeat forms with isSetMask = false).
// SetMask<T>(len) sets the first len lanes in normal mode (len > 128 enables the high word) and the
// element count in counter mode; SetMask<T>(high, low) sets the two 64-bit words.
class AscendCUtils {
public:
    template <class T>
    static void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) { SetVectorMask<T>(maskHigh, maskLow); }
    template <class T>
    static void SetMask(int32_t len) {
        auto& c = opkit::sim::core();
        if (c.mask_counter) { c.mask_lo = uint64_t(len); c.mask_hi = 0; return; }
        const int n = len < 0 ? 0 : (len > 128 ? 128 : len);
        c.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
        c.mask_hi = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
    }
    template <class T>
    static void SetMaskCount() { AscendC::SetMaskCount(); }
    template <class T>
    static void SetMaskNorm() { AscendC::SetMaskNorm(); }
    static void ResetMask() { AscendC::ResetMask(); }
    // Scalar-unit overflow mode: accepted, no effect on the simulation.
    static void SetOverflow(uint64_t) {}
    template <class T, bool isSetMask = true>
    static void SetMask(const uint64_t mask[2]) { SetVectorMask<T>(mask[1], mask[0]); }
};

}  // namespace AscendC
