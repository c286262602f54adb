// opkit simulator: data movement: DataCopy (count, DataCopyParams), DataCopyPad, Copy (UB -> UB on the vector pipe).
#pragma once
#include "impl/opkit/copy_engine.h"
#include "impl/opkit/vec_engine.h"

namespace AscendC {

// ---- DataCopy, contiguous count form -------------------------------------------------------
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count, OPKIT_LOC) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    opkit::sim::check_len32(bytes, "DataCopy", loc, count, sizeof(T));
    opkit::sim::copy_in(dst, src.GetPhyAddr(), 1, bytes, 0, 0, "DataCopy", loc);
}
template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, OPKIT_LOC) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    opkit::sim::check_len32(bytes, "DataCopy", loc, count, sizeof(T));
    opkit::sim::copy_out(dst.GetPhyAddr(), src, 1, bytes, 0, 0, "DataCopy", loc);
}
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, OPKIT_LOC) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    opkit::sim::check_len32(bytes, "DataCopy", loc, count, sizeof(T));
    opkit::sim::copy_local(dst, src, 1, bytes, 0, 0, "DataCopy", loc);
}

// ---- DataCopy, DataCopyParams form (lengths and gaps in 32-B blocks) ------------------------
inline void check_dcp(const DataCopyParams& p, const opkit::sim::SrcLoc& loc) {
    if (p.blockCount > 4095) opkit::sim::fail_at("DataCopy", loc, "blockCount %u exceeds 4095", p.blockCount);
}
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, OPKIT_LOC) {
    check_dcp(p, loc);
    opkit::sim::copy_in(dst, src.GetPhyAddr(), p.blockCount, uint64_t(p.blockLen) * 32, uint64_t(p.srcStride) * 32,
                        uint64_t(p.dstStride) * 32, "DataCopy", loc);
}
template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, OPKIT_LOC) {
    check_dcp(p, loc);
    opkit::sim::copy_out(dst.GetPhyAddr(), src, p.blockCount, uint64_t(p.blockLen) * 32, uint64_t(p.srcStride) * 32,
                         uint64_t(p.dstStride) * 32, "DataCopy", loc);
}
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, OPKIT_LOC) {
    check_dcp(p, loc);
    opkit::sim::copy_local(dst, src, p.blockCount, uint64_t(p.blockLen) * 32, uint64_t(p.srcStride) * 32,
                           uint64_t(p.dstStride) * 32, "DataCopy", loc);
}

// ---- DataCopy L1 (C1) -> BiasTable (C2) with a dtype conversion (the third form of the L1ToBiasTable page) ------
// On Atlas A2/A3 the only converting pair is half -> float; blockLen and dstGap count 64-B units of the BiasTable,
// srcGap 32-B units of L1. Each float of the BiasTable comes from one half of L1 (exact: every half is a float).
template <class T, class U, typename std::enable_if<!std::is_same<T, U>::value, int>::type = 0>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "DataCopy (L1 -> BiasTable)";
    if (!std::is_same<T, float>::value || !std::is_same<U, half>::value)
        fail_at(api, loc, "from %s to %s: a DataCopy between LocalTensors of two dtypes is L1 (C1) -> BiasTable (C2) "
                "from half to float on Atlas A2/A3; copy the same dtype otherwise", dtype_name<U>(), dtype_name<T>());
    check_dcp(p, loc);
    const int sa = local_arena(src, api, loc);
    const int da = local_arena(dst, api, loc);
    if (sa != A_L1 || da != A_BT)
        fail_at(api, loc, "the source is in %s and the destination in %s: the converting DataCopy goes from L1 (C1) to "
                "the BiasTable (C2)", arena_name(sa), arena_name(da));
    if (dst.address_.bufferAddr % 64) fail_at(api, loc, "BiasTable address %u is not 64-byte aligned", dst.address_.bufferAddr);
    if (p.blockCount == 0 || p.blockLen == 0) return;  // a NOP, as documented
    CoreState& c = core();
    const uint32_t seq = issue(P_MTE1);
    const uint16_t site = c.site(api, loc);
    const uint64_t dlen = uint64_t(p.blockLen) * 64, n = dlen / sizeof(T), slen = n * sizeof(U);
    uint64_t so = 0, dof = 0;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        local_touch(src, so, slen, P_MTE1, false, seq, site, api, loc, "source");
        local_touch(dst, dof, dlen, P_MTE1, true, seq, site, api, loc, "destination");
        if (!trace_only()) {
            const U* sp = reinterpret_cast<const U*>(src.address_.absAddr + so);
            T* dp = reinterpret_cast<T*>(dst.address_.absAddr + dof);
            const uint8_t* si = c.mem(sa).init.data() + src.address_.bufferAddr + so;
            uint8_t* di = c.mem(da).init.data() + dst.address_.bufferAddr + dof;
            for (uint64_t e = 0; e < n; ++e) {
                dp[e] = static_cast<T>(static_cast<float>(sp[e]));
                std::memset(di + e * sizeof(T), si[e * sizeof(U)] && si[e * sizeof(U) + 1], sizeof(T));  // the written-state
            }
        }
        so += slen + uint64_t(p.srcStride) * 32;
        dof += dlen + uint64_t(p.dstStride) * 64;
    }
    trace(P_MTE1, dlen * p.blockCount, p.blockCount, api, dtype_name<U>(), nullptr, da);
}

// ---- DataCopyPad ------------------------------------------------------------------------------
template <class T>
inline void data_copy_pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, uint64_t blen,
                             uint64_t gm_gap, uint64_t ub_gap_blocks, bool isPad, uint32_t left, uint32_t right, T padv,
                             const opkit::sim::SrcLoc& loc) {
    if (opkit::sim::on_aic()) return;  // GM<->UB moves execute on vector cores only

    using namespace opkit::sim;
    const char* api = "DataCopyPad";
    if (count == 0 || blen == 0) return;
    if (blen % sizeof(T)) fail_at(api, loc, "blockLen %llu bytes is not a multiple of the element size %zu", (unsigned long long)blen, sizeof(T));
    if (blen > 2097151) fail_at(api, loc, "blockLen %llu bytes exceeds 2097151", (unsigned long long)blen);
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        fail_at(api, loc, "padding of %u/%u elements exceeds 32 bytes", left, right);
    CoreState& c = core();
    int a = local_arena(dst, api, loc);
    gm_align(src.GetPhyAddr(), api, loc);
    uint32_t seq = issue(P_MTE2);
    uint16_t site = c.site(api, loc);
    uint64_t row = left * sizeof(T) + blen + right * sizeof(T);
    uint64_t row32 = (row + 31) / 32 * 32;
    bool defined_fill = (left == 0 && right == 0) || isPad || c.pad_value_set;
    T fillv = padv;
    if (!isPad && c.pad_value_set) std::memcpy(static_cast<void*>(&fillv), &c.pad_value, sizeof(T));
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    uint64_t go = 0, uo = 0;
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(g + go, blen, api, loc, "read");
        local_touch(dst, uo, row32, P_MTE2, true, seq, site, api, loc, "destination");
        if (trace_only()) {  // no data bytes (and no written-state) in trace-only mode
            go += blen + gm_gap;
            uo += row32 + ub_gap_blocks * 32;
            continue;
        }
        uint8_t* u = dst.address_.absAddr + uo;
        uint64_t ub = dst.address_.bufferAddr + uo;
        std::memcpy(u + left * sizeof(T), g + go, blen);
        set_init(a, ub + left * sizeof(T), blen);
        // padding / alignment filler
        T filler = fillv;
        if (left == 0 && right == 0 && !isPad) std::memcpy(&filler, g + go, sizeof(T));  // dummy = first element
        for (uint64_t k = 0; k < left; ++k) std::memcpy(u + k * sizeof(T), &filler, sizeof(T));
        for (uint64_t k = left * sizeof(T) + blen; k + sizeof(T) <= row32; k += sizeof(T)) std::memcpy(u + k, &filler, sizeof(T));
        if (defined_fill) {
            set_init(a, ub, left * sizeof(T));
            set_init(a, ub + left * sizeof(T) + blen, row32 - left * sizeof(T) - blen);
        }
        go += blen + gm_gap;
        uo += row32 + ub_gap_blocks * 32;
    }
    const GmRange gm{g, blen, blen + gm_gap, count};
    trace(P_MTE2, blen * count, count, api, dtype_name<T>(), &gm);
}

template <class T>
inline void data_copy_pad_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, uint64_t blen,
                              uint64_t ub_gap_blocks, uint64_t gm_gap, const opkit::sim::SrcLoc& loc) {
    if (opkit::sim::on_aic()) return;  // GM<->UB moves execute on vector cores only

    using namespace opkit::sim;
    const char* api = "DataCopyPad";
    if (count == 0 || blen == 0) return;
    if (blen % sizeof(T)) fail_at(api, loc, "blockLen %llu bytes is not a multiple of the element size %zu", (unsigned long long)blen, sizeof(T));
    CoreState& c = core();
    local_arena(src, api, loc);
    gm_align(dst.GetPhyAddr(), api, loc);
    uint32_t seq = issue(P_MTE3);
    uint16_t site = c.site(api, loc);
    uint64_t row32 = (blen + 31) / 32 * 32;
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
    uint64_t go = 0, uo = 0;
    mte3_gm_store(uintptr_t(g), blen, blen + gm_gap, count, seq, site, api, loc);
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(g + go, blen, api, loc, "write");
        local_touch(src, uo, blen, P_MTE3, false, seq, site, api, loc, "source");
        require_init(src, uo, blen, api, loc, "GM");
        gm_store(reinterpret_cast<T*>(g + go), src.address_.absAddr + uo, blen, api, loc);
        go += blen + gm_gap;
        uo += row32 + ub_gap_blocks * 32;
    }
    const GmRange gm{g, blen, blen + gm_gap, count};
    trace(P_MTE3, blen * count, count, api, dtype_name<T>(), &gm);
}

template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, OPKIT_LOC) {
    data_copy_pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding, pad.rightPadding,
                     pad.paddingValue, loc);
}
template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, OPKIT_LOC) {
    T v;
    uint64_t pv = pad.paddingValue;
    std::memcpy(static_cast<void*>(&v), &pv, sizeof(T));
    data_copy_pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding, pad.rightPadding, v, loc);
}
template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, OPKIT_LOC) {
    data_copy_pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}
template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, OPKIT_LOC) {
    data_copy_pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}

template <class T>
inline void SetPadValue(T v) {
    auto& c = opkit::sim::core();
    c.pad_value = 0;
    std::memcpy(&c.pad_value, &v, sizeof(T));
    c.pad_value_set = true;
}

}  // namespace AscendC

namespace AscendC {

// ---- Copy (UB -> UB on the vector pipe) -----------------------------------------------------------
template <class T>
inline void opkit_copy_masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const opkit::sim::MaskSpec& ms, uint8_t repeat,
                              const CopyRepeatParams& p, const opkit::sim::SrcLoc& loc) {
    OPKIT_DTYPES("Copy", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[2] = {opd(dst, true, p.dstStride, p.dstRepeatSize, "destination", "Copy", loc),
                opd(src, false, p.srcStride, p.srcRepeatSize, "source", "Copy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_masked("Copy", loc, o, 256 / sizeof(T), ms, repeat,
               [&](const uint64_t* f) { std::memcpy(d + f[0] * sizeof(T), s + f[1] * sizeof(T), sizeof(T)); });
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& p, OPKIT_LOC) {
    opkit_copy_masked(dst, src, isSetMask ? opkit::sim::mask_cont(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& p, OPKIT_LOC) {
    opkit_copy_masked(dst, src, isSetMask ? opkit::sim::mask_bits(mask) : opkit::sim::mask_reg(), repeatTime, p, loc);
}
template <class T>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, OPKIT_LOC) {
    OPKIT_DTYPES("Copy", T, int16_t, uint16_t, half, OPKIT_BF16_COMMA int32_t, uint32_t, float);
    using namespace opkit::sim;
    Opd o[2] = {opd(dst, true, 1, 8, "destination", "Copy", loc), opd(src, false, 1, 8, "source", "Copy", loc)};
    uint8_t *d = o[0].p, *s = o[1].p;
    run_count_chunks("Copy", loc, o, count,
                     [&](uint64_t k0, uint64_t n) { std::memmove(d + k0 * sizeof(T), s + k0 * sizeof(T), n * sizeof(T)); });
}

}  // namespace AscendC
