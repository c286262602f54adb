// opkit simulator: data movement (DataCopy, DataCopyPad, Copy, InitOutput, atomics).
#pragma once
#include "kernel_launch.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t c, uint16_t l, uint16_t s, uint16_t d) : blockCount(c), blockLen(l), srcStride(s), dstStride(d) {}
};
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t c, uint32_t l, uint32_t s, uint32_t d, uint32_t r = 0)
        : blockCount(c), blockLen(l), srcStride(s), dstStride(d), rsv(r) {}
};
template <class T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool p, uint8_t l, uint8_t r, T v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool p, uint8_t l, uint8_t r, uint64_t v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

}  // namespace AscendC

namespace opkit {
namespace sim {

// An API without a caller-provided tmp buffer takes its scratch from Ascend C's reserved UB area
// (the top OPKIT_SIM_UB_RESERVED bytes below GetCoreMemSize(UB)); the kernel's own buffers must
// stay below it unless the build disables the reserve (--cce-disable-asc-reserved-ubuf, here
// -DOPKIT_SIM_DISABLE_ASC_RESERVED_UBUF).
inline void claim_reserved_ub(const char* api, const SrcLoc& loc) {
#ifndef OPKIT_SIM_DISABLE_ASC_RESERVED_UBUF
    uint64_t limit = uint64_t(OPKIT_SIM_UB_CAP) - uint64_t(OPKIT_SIM_UB_RESERVED);
    uint64_t used = core().mem(A_UB).used;
    if (used > limit)
        fail_at(api, loc,
                "this API uses Ascend C's reserved UB area (%d bytes below GetCoreMemSize(UB) = %d), but the kernel's buffers "
                "reach UB byte %llu; keep them below %llu, pass a sharedTmpBuffer, or build with --cce-disable-asc-reserved-ubuf",
                OPKIT_SIM_UB_RESERVED, OPKIT_SIM_UB_CAP, (unsigned long long)used, (unsigned long long)limit);
#else
    (void)api; (void)loc;
#endif
}

template <class T>
inline int local_arena(const AscendC::LocalTensor<T>& t, const char* api, const SrcLoc& loc) {
    if (!t.address_.absAddr) fail_at(api, loc, "local tensor has no buffer (not allocated / Get() not called)");
    int a = t.arena();
    if (a < 0) fail_at(api, loc, "tensor position has no on-chip memory");
    if (t.address_.bufferAddr % arena_align(a))
        fail_at(api, loc, "%s address %u is not %u-byte aligned", arena_name(a), t.address_.bufferAddr, arena_align(a));
    return a;
}
// Bounds check + pipe record for bytes [off, off+bytes) relative to the tensor start.
template <class T>
inline void local_touch(const AscendC::LocalTensor<T>& t, uint64_t off, uint64_t bytes, int pipe, bool write, uint32_t seq,
                        uint16_t site, const char* api, const SrcLoc& loc, const char* role) {
    if (bytes == 0) return;
    if (off + bytes > t.address_.dataLen)
        fail_at(api, loc, "%s local tensor out of bounds: bytes [%llu, %llu) accessed, tensor holds %u bytes (%u elements)", role,
                (unsigned long long)off, (unsigned long long)(off + bytes), t.address_.dataLen, t.GetSize());
    touch(t.arena(), t.address_.bufferAddr + off, bytes, pipe, write, seq, site, api, loc);
}

template <class T>
inline void gm_align(const T* p, const char* api, const SrcLoc& loc) {
    if (uintptr_t(p) % sizeof(T)) fail_at(api, loc, "GM address %p is not aligned to the element size %zu", (const void*)p, sizeof(T));
}

template <class T> struct atomic_tag { static constexpr int v = 0; };
template <> struct atomic_tag<float> { static constexpr int v = 1; };
template <> struct atomic_tag<half> { static constexpr int v = 2; };
template <> struct atomic_tag<bfloat16_t> { static constexpr int v = 3; };
template <> struct atomic_tag<int32_t> { static constexpr int v = 4; };
template <> struct atomic_tag<int16_t> { static constexpr int v = 5; };
template <> struct atomic_tag<int8_t> { static constexpr int v = 6; };

template <class T>
inline T atomic_combine(int mode, T old, T v) {
    if (mode == 1) {
        if (std::is_integral<T>::value) return T(old + v);
        return T(float(old) + float(v));
    }
    if (mode == 2) return float(v) > float(old) ? v : old;
    if (mode == 3) return float(v) < float(old) ? v : old;
    return v;
}

// Store `bytes` bytes from UB to GM honouring the atomic mode.
template <class T>
inline void gm_store(T* dst, const uint8_t* src, uint64_t bytes, const char* api, const SrcLoc& loc) {
    CoreState& c = core();
    if (c.atomic_mode != 0 && c.atomic_dtype != atomic_tag<T>::v)
        fail_at(api, loc, "an atomic mode set for another dtype is active while storing this dtype (SetAtomicAdd<T> must match)");
    if (trace_only()) return;  // no data bytes in trace-only mode
    if (c.atomic_mode == 0) { std::memcpy(dst, src, bytes); return; }
    std::lock_guard<std::mutex> lk(G().atomic_mu);
    uint64_t n = bytes / sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        T o, v;
        std::memcpy(&o, reinterpret_cast<uint8_t*>(dst) + i * sizeof(T), sizeof(T));
        std::memcpy(&v, src + i * sizeof(T), sizeof(T));
        T r = atomic_combine<T>(c.atomic_mode, o, v);
        std::memcpy(reinterpret_cast<uint8_t*>(dst) + i * sizeof(T), &r, sizeof(T));
    }
}

template <class T>
inline void require_init(const AscendC::LocalTensor<T>& t, uint64_t off, uint64_t bytes, const char* api, const SrcLoc& loc,
                         const char* where) {
    int a = t.arena();
    uint64_t base = t.address_.bufferAddr + off;
    uint64_t k = first_uninit(a, base, bytes);
    if (k < bytes)
        fail_at(api, loc, "never-written %s bytes would reach %s: byte %llu of the source tensor (%s offset %llu) was never written",
                arena_name(a), where, (unsigned long long)(off + k), arena_name(a), (unsigned long long)(base + k));
}

// GM -> local, blocks of `blen` bytes; gaps in bytes on both sides (already converted).
template <class T>
inline void copy_in(const AscendC::LocalTensor<T>& dst, const T* src, uint32_t count, uint64_t blen, uint64_t src_gap,
                    uint64_t dst_gap, const char* api, const SrcLoc& loc) {
    if (on_aic() && (dst.arena() == A_UB)) return;  // GM<->UB / UB moves execute on vector cores only

    CoreState& c = core();
    int a = local_arena(dst, api, loc);
    gm_align(src, api, loc);
    int pipe = P_MTE2;
    uint32_t seq = issue(pipe);
    uint16_t site = c.site(api, loc);
    uint64_t so = 0, dof = 0;
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(reinterpret_cast<const uint8_t*>(src) + so, blen, api, loc, "read");
        local_touch(dst, dof, blen, pipe, true, seq, site, api, loc, "destination");
        if (!trace_only()) std::memcpy(dst.address_.absAddr + dof, reinterpret_cast<const uint8_t*>(src) + so, blen);
        set_init(a, dst.address_.bufferAddr + dof, blen);
        so += blen + src_gap;
        dof += blen + dst_gap;
    }
    trace(pipe, blen * count, count, api, dtype_name<T>());
}

template <class T>
inline void copy_out(T* dst, const AscendC::LocalTensor<T>& src, uint32_t count, uint64_t blen, uint64_t src_gap,
                     uint64_t dst_gap, const char* api, const SrcLoc& loc) {
    if (on_aic() && (src.arena() == A_UB)) return;  // GM<->UB / UB moves execute on vector cores only

    CoreState& c = core();
    local_arena(src, api, loc);
    gm_align(dst, api, loc);
    int pipe = P_MTE3;
    uint32_t seq = issue(pipe);
    uint16_t site = c.site(api, loc);
    uint64_t so = 0, dof = 0;
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(reinterpret_cast<uint8_t*>(dst) + dof, blen, api, loc, "write");
        local_touch(src, so, blen, pipe, false, seq, site, api, loc, "source");
        require_init(src, so, blen, api, loc, "GM");
        gm_store(reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst) + dof), src.address_.absAddr + so, blen, api, loc);
        so += blen + src_gap;
        dof += blen + dst_gap;
    }
    trace(pipe, blen * count, count, api, dtype_name<T>());
}

template <class T>
inline void copy_local(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t count, uint64_t blen,
                       uint64_t src_gap, uint64_t dst_gap, const char* api, const SrcLoc& loc) {
    if (on_aic() && (dst.arena() == A_UB || src.arena() == A_UB)) return;  // GM<->UB / UB moves execute on vector cores only

    CoreState& c = core();
    int da = local_arena(dst, api, loc);
    int sa = local_arena(src, api, loc);
    int pipe = (sa == A_UB && da == A_UB) ? P_V : (da == A_L1 && sa == A_UB ? P_MTE3 : P_MTE1);
    uint32_t seq = issue(pipe);
    uint16_t site = c.site(api, loc);
    uint64_t so = 0, dof = 0;
    for (uint32_t i = 0; i < count; ++i) {
        local_touch(src, so, blen, pipe, false, seq, site, api, loc, "source");
        local_touch(dst, dof, blen, pipe, true, seq, site, api, loc, "destination");
        if (!trace_only()) {
            std::memmove(dst.address_.absAddr + dof, src.address_.absAddr + so, blen);
            // the written-state travels with the bytes
            std::memmove(c.mem(da).init.data() + dst.address_.bufferAddr + dof, c.mem(sa).init.data() + src.address_.bufferAddr + so, blen);
        }
        so += blen + src_gap;
        dof += blen + dst_gap;
    }
    trace(pipe, blen * count, count, api, dtype_name<T>());
}

inline void check_len32(uint64_t bytes, const char* api, const SrcLoc& loc, uint32_t count, size_t esz) {
    if (bytes % 32)
        fail_at(api, loc,
                "length %u elements x %zu B = %llu bytes is not a multiple of 32 B; the hardware would copy only %llu bytes "
                "(use DataCopyPad for unaligned lengths)",
                count, esz, (unsigned long long)bytes, (unsigned long long)(bytes / 32 * 32));
}

}  // namespace sim
}  // namespace opkit

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
    trace(P_MTE2, blen * count, count, api, dtype_name<T>());
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
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(g + go, blen, api, loc, "write");
        local_touch(src, uo, blen, P_MTE3, false, seq, site, api, loc, "source");
        require_init(src, uo, blen, api, loc, "GM");
        gm_store(reinterpret_cast<T*>(g + go), src.address_.absAddr + uo, blen, api, loc);
        go += blen + gm_gap;
        uo += row32 + ub_gap_blocks * 32;
    }
    trace(P_MTE3, blen * count, count, api, dtype_name<T>());
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

// ---- GM fill and atomics --------------------------------------------------------------------
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

template <class T> inline void SetAtomicAdd() { auto& c = opkit::sim::core(); c.atomic_mode = 1; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicMax() { auto& c = opkit::sim::core(); c.atomic_mode = 2; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicMin() { auto& c = opkit::sim::core(); c.atomic_mode = 3; c.atomic_dtype = opkit::sim::atomic_tag<T>::v; }
template <class T> inline void SetAtomicType() { opkit::sim::core().atomic_dtype = opkit::sim::atomic_tag<T>::v; }
inline void SetAtomicNone() { opkit::sim::core().atomic_mode = 0; }
inline void DisableDmaAtomic() { SetAtomicNone(); }

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <class T, CacheLine cl = CacheLine::SINGLE_CACHE_LINE, DcciDst d = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

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
