// opkit simulator: data-movement machinery shared by the copy APIs (GM/UB checks, atomics, reserved UB).
#pragma once
#include "kernel_launch.h"
#include "basic_api/kernel_struct_data_copy.h"

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
    if (off + bytes > t.address_.dataLen)  // past the tensor, as the NPU copies it
        local_oob(api, loc, role, t.arena(), t.address_.bufferAddr, t.address_.dataLen,
                  t.address_.bufferAddr + std::max<uint64_t>(off, t.address_.dataLen), t.address_.bufferAddr + off + bytes, write,
                  seq);
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
    const GmRange gm{src, blen, blen + src_gap, count};
    trace(pipe, blen * count, count, api, dtype_name<T>(), &gm);
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
    mte3_gm_store(uintptr_t(dst), blen, blen + dst_gap, count, seq, site, api, loc);
    for (uint32_t i = 0; i < count; ++i) {
        gm_check(reinterpret_cast<uint8_t*>(dst) + dof, blen, api, loc, "write");
        local_touch(src, so, blen, pipe, false, seq, site, api, loc, "source");
        require_init(src, so, blen, api, loc, "GM");
        gm_store(reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst) + dof), src.address_.absAddr + so, blen, api, loc);
        so += blen + src_gap;
        dof += blen + dst_gap;
    }
    const GmRange gm{dst, blen, blen + dst_gap, count};
    trace(pipe, blen * count, count, api, dtype_name<T>(), &gm);
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
    trace(pipe, blen * count, count, api, dtype_name<T>(), nullptr, da);
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
