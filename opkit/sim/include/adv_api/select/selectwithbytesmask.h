// opkit simulator: SelectWithBytesMask (advanced API).
#pragma once
#include "impl/opkit/reduce_util.h"

namespace AscendC {

// ---- SelectWithBytesMask (advanced API): byte-per-element mask, 0 -> src0, otherwise -> src1 ------------------
struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};
template <class T, class U>
inline void opkit_select_bytes(const LocalTensor<T>& dst, const LocalTensor<T>* t0, T s0, const LocalTensor<T>* t1, T s1,
                               const LocalTensor<U>& mask, const SelectWithBytesMaskShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("SelectWithBytesMask", T, half, float);
    using namespace opkit::sim;
    const char* api = "SelectWithBytesMask";
    if (on_aic()) return;
    if (info.maskLastAxis < info.srcLastAxis)
        fail_at(api, loc, "maskLastAxis %u is smaller than srcLastAxis %u", info.maskLastAxis, info.srcLastAxis);
    if ((uint64_t(info.srcLastAxis) * sizeof(T)) % 32)
        fail_at(api, loc, "srcLastAxis %u x %zu B is not 32-byte aligned", info.srcLastAxis, sizeof(T));
    if ((uint64_t(info.maskLastAxis) * sizeof(U)) % 32 || info.maskLastAxis % 16)
        fail_at(api, loc, "maskLastAxis %u must be 32-byte aligned and a multiple of 16", info.maskLastAxis);
    CoreState& c = core();
    const LocalTensor<T>& src = t0 ? *t0 : *t1;
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc), m = opd(mask, false, 1, 8, "mask", api, loc);
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    uint64_t rows = info.firstAxis, cols = info.srcLastAxis, mcols = info.maskLastAxis;
    std::vector<T> sv;
    std::vector<U> mv;
    bool ok = read_src<T>(s, 0, rows * cols, seq, site, api, loc, sv);
    ok &= read_src<U>(m, 0, rows * mcols, seq, site, api, loc, mv);
    std::vector<T> out(rows * cols);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t k = 0; k < cols; ++k) {
            bool zero = float(mv[r * mcols + k]) == 0.0f;
            T a = t0 ? sv[r * cols + k] : s0, b = t1 ? sv[r * cols + k] : s1;
            out[r * cols + k] = zero ? a : b;
        }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(d, 0, out.data(), out.size(), ok, seq, site, api, loc);
    trace(P_V, out.size() * sizeof(T), (out.size() * sizeof(T) + 255) / 256, api, dtype_name<T>());
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_select_bytes<T, U>(dst, &src0, T(0), nullptr, src1, mask, info, loc);
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_select_bytes<T, U>(dst, nullptr, src0, &src1, T(0), mask, info, loc);
}

}  // namespace AscendC
