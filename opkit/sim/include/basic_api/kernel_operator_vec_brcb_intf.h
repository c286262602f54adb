// opkit simulator: Brcb (one element to one 32-B block).
#pragma once
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_struct_brcb.h"

namespace AscendC {

// ---- Brcb ------------------------------------------------------------------------------------------
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime, const BrcbRepeatParams& p, OPKIT_LOC) {
    OPKIT_DTYPES("Brcb", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "Brcb";
    CoreState& c = core();
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t epb = 32 / sizeof(T);
    std::vector<T> v;
    bool ok = read_src<T>(s, 0, uint64_t(repeatTime) * 8, seq, site, api, loc, v);
    std::vector<T> blk(epb);
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t j = 0; j < 8; ++j) {
            std::fill(blk.begin(), blk.end(), v[r * 8 + j]);
            uint64_t first = (uint64_t(r) * p.dstRepStride + uint64_t(j) * p.dstBlkStride) * epb;
            write_dst<T>(d, first, blk.data(), epb, ok, seq, site, api, loc);
        }
    trace(P_V, uint64_t(repeatTime) * 256, repeatTime, api, dtype_name<T>());
}

}  // namespace AscendC
