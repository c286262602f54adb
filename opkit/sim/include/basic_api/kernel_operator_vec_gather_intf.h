// opkit simulator: Gather (by byte offsets).
#pragma once
#include "impl/opkit/reduce_util.h"

namespace AscendC {

// ---- Gather / GatherMask ---------------------------------------------------------------------------
template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("Gather", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Gather";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc),
        o = opd(srcOffset, false, 1, 8, "srcOffset", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    std::vector<uint32_t> off;
    bool ok = read_src<uint32_t>(o, 0, count, seq, site, api, loc, off);
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t b = uint64_t(srcBaseAddr) + off[i];
        if (b % sizeof(T)) fail_at(api, loc, "srcOffset[%u] = %u gives byte offset %llu, not a multiple of %zu", i, off[i], (unsigned long long)b, sizeof(T));
        if (b + sizeof(T) > s.len)
            fail_at(api, loc, "srcOffset[%u] = %u (+ base %u) reads byte %llu, outside the source tensor's %u bytes", i, off[i], srcBaseAddr,
                    (unsigned long long)b, s.len);
        touch(A_UB, s.ub + b, sizeof(T), P_V, false, seq, site, api, loc);
        ok &= all_init(A_UB, s.ub + b, sizeof(T));
        out[i] = ld<T>(s.p + b);
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out.data(), count, ok, seq, site, api, loc);
    trace(P_V, uint64_t(count) * sizeof(T), (uint64_t(count) * sizeof(T) + 255) / 256, api, dtype_name<T>());
}

}  // namespace AscendC
