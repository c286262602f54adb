// opkit simulator: DropOut (advanced API, adv_api/filter/dropout.h).
#pragma once
#include "basic_api/kernel_common.h"
#include "impl/opkit/adv_unary.h"
#include "impl/opkit/copy_engine.h"
#include "impl/opkit/reduce_util.h"

namespace AscendC {

// dropOutMode (CANN's names): 0 lets the API infer the mode from the shape (srcLastAxis < maskLastAxis:
// byte mode with padded mask rows; equal: byte mode; srcLastAxis == 8 * maskLastAxis: bit mode;
// otherwise bit mode with padded mask rows).
const uint32_t DROPOUT_MODE_BYTE_MISALIGN = 1;  // one mask byte per element, mask rows padded ("dirty")
const uint32_t DROPOUT_MODE_BYTE_ALIGN = 2;     // one mask byte per element, contiguous
const uint32_t DROPOUT_MODE_BIT_ALIGN = 3;      // one mask bit per element, contiguous
const uint32_t DROPOUT_MODE_BIT_MISALIGN = 4;   // one mask bit per element, mask rows padded ("dirty")

// firstAxis: rows; srcLastAxis: elements per source row; maskLastAxis: mask elements (uint8_t) per
// mask row, padding included.
struct DropOutShapeInfo {
    DropOutShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

// ---- DropOutBitModeInit: prepares the select-mode register the bit modes use ---------------------
// Clears the first 256 B of the buffer and loads the compare mask from it (CANN calls it inside
// DropOut unless isInitBitMode is true, which says the kernel called it beforehand on this core).
namespace opkit_dropout_detail {
inline const void*& bit_mode_core() {
    static thread_local const void* c = nullptr;
    return c;
}
}  // namespace opkit_dropout_detail

template <typename T>
inline void DropOutBitModeInit(const LocalTensor<T>& sharedTmpBuffer, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "DropOutBitModeInit";
    if (on_aic()) return;
    Opd t = opd(sharedTmpBuffer, true, 1, 8, "sharedTmpBuffer", api, loc);
    if (t.len < 256) fail_at(api, loc, "sharedTmpBuffer holds %u B; it needs at least 256 B (one vector repeat)", t.len);
    const uint32_t seq = issue(P_V);
    const uint16_t site = core().site(api, loc);
    std::vector<uint8_t> zero(256, 0);
    write_dst<uint8_t>(t, 0, zero.data(), zero.size(), true, seq, site, api, loc);
    ResetMask();
    opkit_dropout_detail::bit_mode_core() = &core();
    trace(P_V, 256, 1, api, "int16");
}
inline void DropOutBitModeInit(OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("DropOutBitModeInit", loc);
    if (opkit::sim::on_aic()) return;
    ResetMask();
    opkit_dropout_detail::bit_mode_core() = &opkit::sim::core();
}

// ---- DropOut: dst = mask ? src / keepProb : 0 ------------------------------------------------------
// Bit modes: element j of a row is kept when bit (j % 8) of mask byte j / 8 is set — the least
// significant bit first, Select's order: CANN's implementation selects with the mask bits, and the
// golden of CANN's own DropOut sample reads each byte that way (docs/simulator.md has the evidence;
// the API page's illustration reads 169 the other way). The scale is T(1 / keepProb), applied with
// one rounding to T (assumed).
// In the modes with padded mask rows the API compacts the mask in place: the mask's bytes are
// left unspecified (documented: they may be modified).
template <typename T, bool isInitBitMode, uint32_t mode>
inline void opkit_dropout(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& mask,
                          const LocalTensor<uint8_t>* tmp, const float keepProb, const DropOutShapeInfo& info,
                          const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("DropOut", T, half, float);
    static_assert(mode <= 4, "Ascend C DropOut: dropOutMode is 0 (inferred) or 1..4 (DROPOUT_MODE_*)");
    using namespace opkit::sim;
    const char* api = "DropOut";
    if (on_aic()) return;
    const uint32_t rows = info.firstAxis, sn = info.srcLastAxis, mn = info.maskLastAxis;
    if (rows == 0 || sn == 0 || mn == 0)
        fail_at(api, loc, "DropOutShapeInfo is firstAxis %u, srcLastAxis %u, maskLastAxis %u; all must be greater than 0",
                rows, sn, mn);
    if (!(keepProb > 0.0f && keepProb < 1.0f)) fail_at(api, loc, "keepProb is %g; it must lie in (0, 1)", double(keepProb));
    uint32_t md = mode;
    if (md == 0) md = sn < mn ? DROPOUT_MODE_BYTE_MISALIGN : sn == mn ? DROPOUT_MODE_BYTE_ALIGN
                     : sn == mn * 8 ? DROPOUT_MODE_BIT_ALIGN : DROPOUT_MODE_BIT_MISALIGN;
    const bool bits = md == DROPOUT_MODE_BIT_ALIGN || md == DROPOUT_MODE_BIT_MISALIGN;
    const bool padded = md == DROPOUT_MODE_BYTE_MISALIGN || md == DROPOUT_MODE_BIT_MISALIGN;
    if (padded && mn % 2)
        fail_at(api, loc, "maskLastAxis %u must be even when the mask rows are padded (dropOutMode %u)", mn, md);
    if (padded && (uint64_t(sn) * sizeof(T)) % 32)
        fail_at(api, loc, "srcLastAxis %u x %zu B is not 32-byte aligned; with padded mask rows (dropOutMode %u) every "
                "source row must be", sn, sizeof(T), md);
    if (md == DROPOUT_MODE_BYTE_MISALIGN && mn < sn)
        fail_at(api, loc, "maskLastAxis %u is below srcLastAxis %u in byte mode (one mask byte per element)", mn, sn);
    if (md == DROPOUT_MODE_BIT_MISALIGN && uint64_t(mn) * 8 < sn)
        fail_at(api, loc, "maskLastAxis %u bytes hold %u bits, fewer than srcLastAxis %u in bit mode", mn, mn * 8, sn);
    if (md == DROPOUT_MODE_BIT_ALIGN && sn % 8)
        fail_at(api, loc, "srcLastAxis %u is not a multiple of 8 in bit mode without padded mask rows", sn);
    if (bits && isInitBitMode && opkit_dropout_detail::bit_mode_core() != &core())
        warn_at(api, loc, "isInitBitMode is true but DropOutBitModeInit was not called on this core first: the select "
                "mode register holds whatever was last loaded (call DropOutBitModeInit, or leave isInitBitMode false)");
    const uint32_t seq = issue(P_V);
    const uint16_t site = core().site(api, loc);
    Opd so = opd(src, false, 1, 8, "src", api, loc), dso = opd(dst, true, 1, 8, "dst", api, loc);
    Opd mo = opd(mask, false, 1, 8, "mask", api, loc);
    const uint64_t n = uint64_t(rows) * sn;
    const uint64_t mbytes = padded ? uint64_t(rows) * mn : (bits ? (n + 7) / 8 : n);
    constexpr uint32_t kMinTmp = 512;  // GetDropOutMinTmpSize: two vector repeats
    if (tmp) {
        adv_tmp_check(*tmp, api, loc);
        Opd t = opd(*tmp, true, 1, 8, "sharedTmpBuffer", api, loc);
        if (t.len < kMinTmp)
            fail_at(api, loc, "sharedTmpBuffer holds %u B; DropOut needs at least %u B (GetDropOutMinTmpSize): allocate at "
                    "least that much", t.len, kMinTmp);
        const uint64_t ext[3] = {n * sizeof(T), n * sizeof(T), mbytes};  // the bytes the call touches
        const Opd* used[3] = {&so, &dso, &mo};
        for (int i = 0; i < 3; ++i)
            if (const Opd* o = used[i]; t.ub < o->ub + ext[i] && o->ub < t.ub + kMinTmp)
                fail_at(api, loc, "sharedTmpBuffer (UB %llu) overlaps the %s tensor (UB %llu); give the scratch its own buffer",
                        (unsigned long long)t.ub, o->role, (unsigned long long)o->ub);
        touch(A_UB, t.ub, kMinTmp, P_V, true, seq, site, api, loc);
    } else {
        claim_reserved_ub(api, loc);
    }
    std::vector<T> x;
    std::vector<uint8_t> mk;
    bool ok = read_src<T>(so, 0, n, seq, site, api, loc, x);
    ok &= read_src<uint8_t>(mo, 0, mbytes, seq, site, api, loc, mk);
    const T scale = T(1.0f / keepProb);
    std::vector<T> y(n);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t j = 0; j < sn; ++j) {
            const uint64_t i = uint64_t(r) * sn + j;
            bool keep;
            if (bits) {
                const uint64_t b = padded ? uint64_t(r) * mn * 8 + j : i;
                keep = (mk[b / 8] >> (b % 8)) & 1u;
            } else {
                keep = mk[padded ? uint64_t(r) * mn + j : i] != 0;
            }
            y[i] = keep ? down<T>(up(x[i]) * up(scale)) : T(0);
        }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    write_dst<T>(dso, 0, y.data(), y.size(), ok, seq, site, api, loc);
    if (padded) {  // compacted in place on the NPU: the mask's bytes are unspecified afterwards
        touch(A_UB, mo.ub, mbytes, P_V, true, seq, site, api, loc);
        set_init(A_UB, mo.ub, mbytes, false);
    }
    trace(P_V, n * sizeof(T), (n * sizeof(T) + 255) / 256, api, dtype_name<T>());
}

template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& maskLocal,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const float keepProb, const DropOutShapeInfo& info, OPKIT_LOC) {
    opkit_dropout<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, &sharedTmpBuffer, keepProb, info, loc);
}
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& maskLocal,
                    const float keepProb, const DropOutShapeInfo& info, OPKIT_LOC) {
    opkit_dropout<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, nullptr, keepProb, info, loc);
}

}  // namespace AscendC
