// opkit simulator: GatherMask (tensor pattern or built-in pattern).
#pragma once
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_struct_gather.h"

namespace AscendC {

template <class T, class U>
inline void opkit_gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>* pattern, uint8_t builtin,
                              bool reduceMode, uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("GatherMask", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    if (::opkit::sim::on_aic()) return;  // vector unit: AIV only
    using namespace opkit::sim;
    const char* api = "GatherMask";
    CoreState& c = core();
    if (!pattern && (builtin < 1 || builtin > 7)) fail_at(api, loc, "built-in pattern %u is outside 1..7", builtin);
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src0, false, p.src0BlockStride, p.src0RepeatStride, "src0", api, loc);
    Opd pt;
    if (pattern) pt = opd(*pattern, false, 1, 8, "src1Pattern", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    const uint32_t E = reduceMode ? mask : 256 / sizeof(T);
    const uint32_t epb = 32 / sizeof(T);
    uint32_t reps = p.repeatTimes;
    std::vector<T> out;
    std::vector<uint8_t> out_ok;
    bool ok = true;
    for (uint32_t r = 0; r < reps; ++r) {
        for (uint32_t e = 0; e < E; ++e) {
            bool take;
            if (pattern) {
                uint64_t bit = uint64_t(r) * p.src1RepeatStride * 32 * 8 + e;
                if (bit / 8 >= pt.len) fail_at(api, loc, "src1Pattern out of bounds at repeat %u lane %u", r, e);
                touch(A_UB, pt.ub + bit / 8, 1, P_V, false, seq, site, api, loc);
                ok &= all_init(A_UB, pt.ub + bit / 8, 1);
                take = (pt.p[bit / 8] >> (bit % 8)) & 1;
            } else {
                switch (builtin) {
                    case 1: take = e % 2 == 0; break;
                    case 2: take = e % 2 == 1; break;
                    case 3: take = e % 4 == 0; break;
                    case 4: take = e % 4 == 1; break;
                    case 5: take = e % 4 == 2; break;
                    case 6: take = e % 4 == 3; break;
                    default: take = true;
                }
            }
            if (!take) continue;
            uint64_t el = uint64_t(r) * p.src0RepeatStride * epb + uint64_t(e / epb) * p.src0BlockStride * epb + e % epb;
            if ((el + 1) * sizeof(T) > s.len)  // a lane past the tensor, as the NPU reads it
                local_oob(api, loc, s.role, A_UB, s.ub, s.len, s.ub + el * sizeof(T), s.ub + (el + 1) * sizeof(T), false, seq);
            touch(A_UB, s.ub + el * sizeof(T), sizeof(T), P_V, false, seq, site, api, loc);
            const bool w = all_init(A_UB, s.ub + el * sizeof(T), sizeof(T));
            ok &= w;
            out_ok.push_back(uint8_t(w));
            out.push_back(ld<T>(s.p + el * sizeof(T)));
        }
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the elements gathered from them are marked unwritten too)");
    if (!out.empty()) {
        write_dst<T>(d, 0, out.data(), out.size(), true, seq, site, api, loc);
        for (size_t k = 0; k < out.size() && !ok; ++k)  // each element keeps its source's written-state
            if (!out_ok[k]) set_init(A_UB, d.ub + k * sizeof(T), sizeof(T), false);
    }
    rsvdCnt = out.size();
    trace(P_V, uint64_t(reps) * E * sizeof(T), reps, api, dtype_name<T>());
}
template <class T, class U, GatherMaskMode m = GatherMaskMode::DEFAULT>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, OPKIT_LOC) {
    opkit_gather_mask<T, U>(dst, src0, &src1Pattern, 0, reduceMode, mask, p, rsvdCnt, loc);
}
template <class T, GatherMaskMode m = GatherMaskMode::DEFAULT>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, OPKIT_LOC) {
    opkit_gather_mask<T, uint16_t>(dst, src0, nullptr, src1Pattern, reduceMode, mask, p, rsvdCnt, loc);
}

}  // namespace AscendC
