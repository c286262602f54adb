// opkit simulator: the cube unit of Ascend C (matrix instructions).
//
// Memory hierarchy: GM -> L1 (A1/B1/C1, TSCM) -> L0A (A2) / L0B (B2) / BiasTable (C2) -> Mmad -> L0C (CO1) -> Fixpipe -> GM.
// Data is kept exactly as the hardware lays it out in 512-byte fractals, so a kernel that lays data out
// wrongly gets wrong numbers, as on the chip:
//   L1 after DataCopy(..., Nd2NzParams):  "NZ": column blocks of C0 = 32 B / sizeof(T) elements, each block nValue rows
//   L0A (what Mmad reads as A, m x k):    "ZZ": 16 x k0 fractals, row-major inside, fractals row-major (mi * kBlocks + ki)
//   L0B (what Mmad reads as B, k x n):    "ZN": k0 x 16 fractals, column-major inside, fractals row-major (ki * nBlocks + ni)
//   L0C (what Mmad writes, m x n):        "NZ": 16 x 16 fractals, row-major inside, fractals column-major (ni * mBlocks + mi)
// with k0 = 16 for fp16/bf16, 32 for int8, 8 for fp32 (16 for fp32 with MmadParams::kDirectionAlign).
//
// Pipes: GM -> L1 on MTE2, L1 -> L0A/L0B/BT on MTE1, Mmad on M, Fixpipe on FIX; the pipe-ordering check of the
// runtime sees every access, so a Fixpipe that reads L0C without an M -> FIX edge is reported.
#pragma once
#include "basic_api/kernel_operator_data_copy_intf.h"
#include "basic_api/kernel_struct_mm.h"


namespace opkit {
namespace sim {
namespace cube {

template <class T> constexpr int k0_of() { return int(32 / sizeof(T)); }

// Hardware work of one Mmad in the unit the performance model costs: 16 x 16 x 16 MACs (4096) per
// step, counting the fractals the cube really processes (16 x k0 x 16 per cycle, padded).
template <class T>
inline uint64_t mac_units(uint64_t m, uint64_t n, uint64_t k, uint64_t kBlocks = 0) {
    const uint64_t k0 = uint64_t(k0_of<T>());
    if (!kBlocks) kBlocks = (k + k0 - 1) / k0;
    uint64_t padded = ((m + 15) / 16) * ((n + 15) / 16) * kBlocks * 256 * k0;
    return (padded + 4095) / 4096;
}

// Which L0A/L0B fractals arrived through a load (LoadData): a content hash and the element size of the load.
struct FractalStamps {
    CoreState* owner = nullptr;
    std::vector<uint64_t> hash[2];
    std::vector<uint8_t> esz[2];
    std::vector<uint16_t> site[2];
};
inline FractalStamps& stamps() {
    static thread_local FractalStamps s;
    CoreState* c = &core();
    if (s.owner != c) {
        s.owner = c;
        for (int i = 0; i < 2; ++i) {
            size_t n = size_t(arena_phys(i == 0 ? A_L0A : A_L0B) / 512);
            s.hash[i].assign(n, 0);
            s.esz[i].assign(n, 0);
            s.site[i].assign(n, 0);
        }
    }
    return s;
}
inline uint64_t fractal_hash(const uint8_t* p) {
    uint64_t h[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
    for (int i = 0; i < 64; i += 4)
        for (int l = 0; l < 4; ++l) {
            uint64_t w;
            std::memcpy(&w, p + 8 * (i + l), 8);
            h[l] = (h[l] ^ w) * 0x100000001B3ull;
            h[l] ^= h[l] >> 29;
        }
    return (h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7)) | 1;
}
inline void stamp(int arena, uint64_t off, int elem, uint16_t site) {
    if (arena != A_L0A && arena != A_L0B) return;
    FractalStamps& s = stamps();
    int w = arena == A_L0A ? 0 : 1;
    size_t f = size_t(off / 512);
    if (f >= s.hash[w].size()) return;
    s.hash[w][f] = fractal_hash(core().mem(arena).data + f * 512);
    s.esz[w][f] = uint8_t(elem);
    s.site[w][f] = site;
}

inline void require_cube_core(const char* api, const SrcLoc& loc) {
    if (core().core_type == CT_AIV)
        fail_at(api, loc, "cube instruction on a vector core (AIV): the cube unit belongs to the AIC cores; use a cube or mix kernel "
                          "type and guard cube code with ASCEND_IS_AIC");
}

template <class T>
inline void require_pos(const AscendC::LocalTensor<T>& t, std::initializer_list<AscendC::TPosition> ok, const char* role,
                        const char* want, const char* api, const SrcLoc& loc) {
    for (auto p : ok)
        if (t.GetPosition() == p) return;
    int a = t.arena();
    fail_at(api, loc, "%s must be in %s, but the tensor is in %s", role, want, a >= 0 ? arena_name(a) : "GM or an unknown position");
}

inline float to_f(half v) { return float(v); }
inline float to_f(bfloat16_t v) { return float(v); }
inline float to_f(float v) { return v; }
inline int32_t to_f(int8_t v) { return int32_t(v); }
inline int32_t to_f(uint8_t v) { return int32_t(v); }

template <class T> struct acc_of { using type = float; };
template <> struct acc_of<int8_t> { using type = int32_t; };
template <> struct acc_of<uint8_t> { using type = int32_t; };
template <> struct acc_of<AscendC::int4b_t> { using type = int32_t; };

// Element conversion of a run into the accumulator type (F16C 8 lanes at a time for half when available).
inline void convert_run(const half* s, float* d, int n) {
    int i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
#endif
    for (; i < n; ++i) d[i] = float(s[i]);
}
inline void convert_run(const bfloat16_t* s, float* d, int n) {
    for (int i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, s + i, 2);
        uint32_t u = uint32_t(b) << 16;
        std::memcpy(d + i, &u, 4);
    }
}
inline void convert_run(const float* s, float* d, int n) { std::memcpy(d, s, size_t(n) * 4); }
inline void convert_run(const int8_t* s, int32_t* d, int n) { for (int i = 0; i < n; ++i) d[i] = s[i]; }
inline void convert_run(const uint8_t* s, int32_t* d, int n) { for (int i = 0; i < n; ++i) d[i] = s[i]; }

// C (NZ, mBlocks x nBlocks fractals of 16 x 16) += A (m x k, row-major, Acc) * B (k x nPad, row-major, Acc).
// 4 x 16 blocks of C stay in registers (GCC vector extensions, 8 lanes) across the whole K loop; K is summed
// in order, so the result does not depend on the blocking.
template <class Acc>
inline void gemm_nz(Acc* C, const Acc* A, const Acc* B, int m, int nBlocks, int k) {
    typedef Acc v8 __attribute__((vector_size(8 * sizeof(Acc))));
    const int mBlocks = (m + 15) / 16;
    const size_t nPad = size_t(nBlocks) * 16;
    auto ld = [](const Acc* p) { v8 v; std::memcpy(&v, p, sizeof v); return v; };
    auto st = [](Acc* p, v8 v) { std::memcpy(p, &v, sizeof v); };
    for (int ni = 0; ni < nBlocks; ++ni) {
        const Acc* Bc = B + size_t(ni) * 16;
        int i = 0;
        for (; i + 4 <= m && (i % 16) + 4 <= 16; i += 4) {
            Acc* c0 = C + (size_t(ni) * mBlocks + i / 16) * 256 + (i % 16) * 16;
            v8 c00 = ld(c0), c01 = ld(c0 + 8), c10 = ld(c0 + 16), c11 = ld(c0 + 24);
            v8 c20 = ld(c0 + 32), c21 = ld(c0 + 40), c30 = ld(c0 + 48), c31 = ld(c0 + 56);
            const Acc* a0 = A + size_t(i) * k;
            const Acc* a1 = a0 + k;
            const Acc* a2 = a1 + k;
            const Acc* a3 = a2 + k;
            const Acc* b = Bc;
            for (int kk = 0; kk < k; ++kk, b += nPad) {
                const v8 b0 = ld(b), b1 = ld(b + 8);
                const Acc x0 = a0[kk], x1 = a1[kk], x2 = a2[kk], x3 = a3[kk];
                c00 += x0 * b0; c01 += x0 * b1;
                c10 += x1 * b0; c11 += x1 * b1;
                c20 += x2 * b0; c21 += x2 * b1;
                c30 += x3 * b0; c31 += x3 * b1;
            }
            st(c0, c00); st(c0 + 8, c01); st(c0 + 16, c10); st(c0 + 24, c11);
            st(c0 + 32, c20); st(c0 + 40, c21); st(c0 + 48, c30); st(c0 + 56, c31);
        }
        for (; i < m; ++i) {
            Acc* c0 = C + (size_t(ni) * mBlocks + i / 16) * 256 + (i % 16) * 16;
            v8 c00 = ld(c0), c01 = ld(c0 + 8);
            const Acc* a0 = A + size_t(i) * k;
            const Acc* b = Bc;
            for (int kk = 0; kk < k; ++kk, b += nPad) {
                const Acc x = a0[kk];
                c00 += x * ld(b);
                c01 += x * ld(b + 8);
            }
            st(c0, c00); st(c0 + 8, c01);
        }
    }
}

}  // namespace cube
}  // namespace sim
}  // namespace opkit

namespace AscendC {

// ---- GM -> L1 with ND -> NZ conversion (MTE2) ------------------------------------------------
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "DataCopy(Nd2Nz)";
    int a = local_arena(dst, api, loc);
    if (a != A_L1) fail_at(api, loc, "the ND2NZ copy writes L1 (A1/B1/C1), but the destination is in %s", arena_name(a));
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;  // documented NOP
    if (p.ndNum > 4095 || p.nValue > 16384 || p.srcDValue < 1 || p.dstNzC0Stride < 1 || p.dstNzC0Stride > 16384 ||
        p.dstNzNStride < 1 || p.dstNzNStride > 16384 || p.dstNzMatrixStride > 16384)
        fail_at(api, loc,
                "Nd2NzParams out of range: ndNum %u (0..4095), nValue %u (0..16384), srcDValue %u (1..65535), dstNzC0Stride %u "
                "(1..16384), dstNzNStride %u (1..16384), dstNzMatrixStride %u (0..16384)",
                p.ndNum, p.nValue, p.srcDValue, p.dstNzC0Stride, p.dstNzNStride, p.dstNzMatrixStride);
    const uint32_t C0 = 32 / sizeof(T);
    const uint32_t dBlocks = (p.dValue + C0 - 1) / C0;
    if (dBlocks > 1 && uint32_t(p.dstNzC0Stride) < uint32_t(p.nValue - 1) * p.dstNzNStride + 1)
        fail_at(api, loc,
                "dstNzC0Stride %u (in 32-B rows) is smaller than the %u rows one column block needs (nValue %u x dstNzNStride %u): "
                "the column blocks of the NZ result would overwrite each other",
                p.dstNzC0Stride, uint32_t(p.nValue - 1) * p.dstNzNStride + 1, p.nValue, p.dstNzNStride);
    CoreState& c = core();
    uint32_t seq = issue(P_MTE2);
    uint16_t site = c.site(api, loc);
    const uint8_t* gsrc = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    uint64_t moved = 0;
    for (uint32_t nd = 0; nd < p.ndNum; ++nd) {
        const uint8_t* mat = gsrc + uint64_t(nd) * p.srcNdMatrixStride * sizeof(T);
        // every row lies inside [first row, end of last row): one check of the span covers them all
        gm_check(mat, (uint64_t(p.nValue - 1) * p.srcDValue + p.dValue) * sizeof(T), api, loc, "read");
        const uint64_t mbase = uint64_t(nd) * p.dstNzMatrixStride * sizeof(T);
        for (uint32_t b = 0; b < dBlocks; ++b) {
            const uint64_t bbase = mbase + uint64_t(b) * p.dstNzC0Stride * 32;
            const uint32_t cnt = std::min<uint32_t>(C0, p.dValue - b * C0);
            if (p.dstNzNStride == 1) local_touch(dst, bbase, uint64_t(p.nValue) * 32, P_MTE2, true, seq, site, api, loc, "destination");
            for (uint32_t r = 0; r < p.nValue; ++r) {
                const uint64_t dof = bbase + uint64_t(r) * p.dstNzNStride * 32;
                if (p.dstNzNStride != 1) local_touch(dst, dof, 32, P_MTE2, true, seq, site, api, loc, "destination");
                uint8_t* d = dst.address_.absAddr + dof;
                const uint8_t* srow = mat + (uint64_t(r) * p.srcDValue + uint64_t(b) * C0) * sizeof(T);
                if (cnt == C0) {
                    std::memcpy(d, srow, 32);
                } else {
                    std::memcpy(d, srow, cnt * sizeof(T));
                    std::memset(d + cnt * sizeof(T), 0, (C0 - cnt) * sizeof(T));  // documented zero padding to 32 B
                }
                if (p.dstNzNStride != 1) set_init(a, dst.address_.bufferAddr + dof, 32);
            }
            if (p.dstNzNStride == 1) set_init(a, dst.address_.bufferAddr + bbase, uint64_t(p.nValue) * 32);
        }
        moved += uint64_t(p.nValue) * p.dValue * sizeof(T);
    }
    const GmRange gm{gsrc, uint64_t(p.dValue) * sizeof(T), uint64_t(p.srcDValue) * sizeof(T), p.nValue, p.ndNum,
                     uint64_t(p.srcNdMatrixStride) * sizeof(T)};
    trace(P_MTE2, moved, uint64_t(p.ndNum) * p.nValue, "DataCopy", dtype_name<T>(), &gm);
}

// ---- LoadData 2D: 512-byte fractals L1 -> L0A/L0B (MTE1) or GM -> L0A/L0B (MTE2) ------------------
template <class T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "LoadData";
    cube::require_cube_core(api, loc);
    int da = local_arena(dst, api, loc);
    int sa = local_arena(src, api, loc);
    if (da != A_L0A && da != A_L0B) fail_at(api, loc, "the destination must be in A2 (L0A) or B2 (L0B), but it is in %s", arena_name(da));
    if (sa != A_L1) fail_at(api, loc, "the source must be in L1 (A1/B1) or GM, but it is in %s", arena_name(sa));
    if (p.repeatTimes == 0) return;  // documented NOP
    if (p.ifTranspose && sizeof(T) != 2)
        fail_at(api, loc, "ifTranspose needs a 16-bit dtype (this LoadData moves %zu-byte elements)", sizeof(T));
    CoreState& c = core();
    uint32_t seq = issue(P_MTE1);
    uint16_t site = c.site(api, loc);
    ArenaMem& sm = c.mem(sa);
    ArenaMem& dm = c.mem(da);
    // contiguous source / destination runs are recorded in one step
    const bool src_run = p.srcStride == 1 && p.addrMode == 0, dst_run = p.dstGap == 0;
    if (src_run) local_touch(src, uint64_t(p.startIndex) * 512, uint64_t(p.repeatTimes) * 512, P_MTE1, false, seq, site, api, loc, "source");
    if (dst_run) local_touch(dst, 0, uint64_t(p.repeatTimes) * 512, P_MTE1, true, seq, site, api, loc, "destination");
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        int64_t fi = p.addrMode == 0 ? int64_t(p.startIndex) + int64_t(r) * p.srcStride : int64_t(p.startIndex) - int64_t(r) * p.srcStride;
        if (fi < 0) fail_at(api, loc, "repeat %u reads source fractal %lld (addrMode 1 counts down below fractal 0)", r, (long long)fi);
        uint64_t so = uint64_t(fi) * 512, dof = uint64_t(r) * (1 + uint64_t(p.dstGap)) * 512;
        if (!src_run) local_touch(src, so, 512, P_MTE1, false, seq, site, api, loc, "source");
        if (!dst_run) local_touch(dst, dof, 512, P_MTE1, true, seq, site, api, loc, "destination");
        uint64_t sabs = src.address_.bufferAddr + so, dabs = dst.address_.bufferAddr + dof;
        if (!p.ifTranspose) {
            std::memmove(dm.data + dabs, sm.data + sabs, 512);
            std::memmove(dm.init.data() + dabs, sm.init.data() + sabs, 512);
        } else {
            uint16_t in[256], sin[256], out[256], sout[256];
            std::memcpy(in, sm.data + sabs, 512);
            std::memcpy(sin, sm.init.data() + sabs, 512);
            for (int i = 0; i < 16; ++i)
                for (int j = 0; j < 16; ++j) {
                    out[j * 16 + i] = in[i * 16 + j];
                    sout[j * 16 + i] = sin[i * 16 + j];  // the written-state of both bytes travels with the element
                }
            std::memcpy(dm.data + dabs, out, 512);
            std::memcpy(dm.init.data() + dabs, sout, 512);
        }
        cube::stamp(da, dabs, int(sizeof(T)), site);
    }
    trace(P_MTE1, uint64_t(p.repeatTimes) * 512, p.repeatTimes, "LoadData", dtype_name<T>(), nullptr, da);
}

template <class T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "LoadData";
    cube::require_cube_core(api, loc);
    int da = local_arena(dst, api, loc);
    if (da != A_L0A && da != A_L0B) fail_at(api, loc, "the destination must be in A2 (L0A) or B2 (L0B), but it is in %s", arena_name(da));
    if (p.repeatTimes == 0) return;
    if (p.ifTranspose) fail_at(api, loc, "ifTranspose is only available on the L1 -> L0A/L0B path");
    CoreState& c = core();
    uint32_t seq = issue(P_MTE2);
    uint16_t site = c.site(api, loc);
    ArenaMem& dm = c.mem(da);
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        int64_t fi = p.addrMode == 0 ? int64_t(p.startIndex) + int64_t(r) * p.srcStride : int64_t(p.startIndex) - int64_t(r) * p.srcStride;
        if (fi < 0) fail_at(api, loc, "repeat %u reads source fractal %lld (addrMode 1 counts down below fractal 0)", r, (long long)fi);
        uint64_t dof = uint64_t(r) * (1 + uint64_t(p.dstGap)) * 512;
        gm_check(g + uint64_t(fi) * 512, 512, api, loc, "read");
        local_touch(dst, dof, 512, P_MTE2, true, seq, site, api, loc, "destination");
        uint64_t dabs = dst.address_.bufferAddr + dof;
        std::memcpy(dm.data + dabs, g + uint64_t(fi) * 512, 512);
        set_init(da, dabs, 512);
        cube::stamp(da, dabs, int(sizeof(T)), site);
    }
    // fractals srcStride apart from startIndex (addrMode 1 counts down: the same fractals from the last one)
    const uint64_t step = uint64_t(p.srcStride) * 512, span = uint64_t(p.repeatTimes - 1) * step;
    const uint64_t first = uint64_t(p.startIndex) * 512 - (p.addrMode == 0 ? 0 : span);
    const GmRange gm{g + first, 512, step ? step : 512, step ? p.repeatTimes : 1};
    trace(P_MTE2, uint64_t(p.repeatTimes) * 512, p.repeatTimes, "LoadData", dtype_name<T>(), &gm);
}

// ---- Fill (InitConstValue): L1 in 32-byte blocks (MTE2), L0A/L0B in 512-byte fractals (MTE1) -------------
template <class T>
struct InitConstValueParams {
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = T(0);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t repeat, uint16_t blocks, uint16_t gap, T value)
        : repeatTimes(repeat), blockNum(blocks), dstGap(gap), initValue(value) {}
};

template <class T, class U>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& p, OPKIT_LOC) {
    using namespace opkit::sim;
    static_assert(std::is_same<T, U>::value, "Ascend C Fill: the init value has the dtype of the destination");
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Ascend C Fill (InitConstValue): 16- and 32-bit dtypes only");
    const char* api = "Fill";
    int a = local_arena(dst, api, loc);
    if (a != A_L1 && a != A_L0A && a != A_L0B)
        fail_at(api, loc, "Fill with InitConstValueParams initialises L1, L0A or L0B, but the tensor is in %s", arena_name(a));
    if (a != A_L1) cube::require_cube_core(api, loc);
    if (p.repeatTimes == 0 || p.blockNum == 0) return;  // documented NOP
    if (p.repeatTimes > 32767 || p.blockNum > 32767 || p.dstGap > 32767)
        fail_at(api, loc, "repeatTimes %u, blockNum %u, dstGap %u: each must be in [0, 32767]", p.repeatTimes, p.blockNum, p.dstGap);
    const uint64_t blk = a == A_L1 ? 32 : 512;
    const int pipe = a == A_L1 ? P_MTE2 : P_MTE1;
    CoreState& c = core();
    uint32_t seq = issue(pipe);
    uint16_t site = c.site(api, loc);
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        uint64_t off = uint64_t(r) * (uint64_t(p.blockNum) + p.dstGap) * blk, bytes = uint64_t(p.blockNum) * blk;
        local_touch(dst, off, bytes, pipe, true, seq, site, api, loc, "destination");
        T* d = reinterpret_cast<T*>(dst.address_.absAddr + off);
        for (uint64_t i = 0; i < bytes / sizeof(T); ++i) d[i] = p.initValue;
        set_init(a, dst.address_.bufferAddr + off, bytes);
        for (uint64_t f = 0; a != A_L1 && f < p.blockNum; ++f) cube::stamp(a, dst.address_.bufferAddr + off + f * 512, int(sizeof(T)), site);
    }
    // an L1 fill moves no GM bytes: its MTE2 record carries none (the performance model costs MTE2 bytes as GM reads)
    const uint64_t filled = uint64_t(p.repeatTimes) * p.blockNum * blk;
    trace(pipe, a == A_L1 ? 0 : filled, p.repeatTimes, "Fill", dtype_name<T>(), nullptr, a);
}
template <class T, class U>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& p, OPKIT_LOC) { Fill(dst, p, loc); }

// ---- LoadDataWithTranspose: square blocks transposed on the way L1 -> L0A/L0B (MTE1) ------------------------
// b16: one 16 x 16 fractal per repeat. b32: two consecutive 16 x 8 fractals side by side make a 16 x 16 square;
// its transpose is split again into two 16 x 8 fractals (columns 0-7, 8-15). b8: two consecutive 16 x 32
// fractals one above the other make a 32 x 32 square; its transpose is split into rows 0-15 and 16-31.
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;   // in squares
    uint16_t dstGap = 0;      // 512-B fractals from the end of a repeat's first fractal to the next repeat's first
    uint16_t dstFracGap = 0;  // 512-B fractals between the two fractals of one repeat (b8, b32)
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start, uint8_t repeat, uint16_t sStride, uint16_t gap, uint16_t fracGap, uint8_t mode)
        : startIndex(start), repeatTimes(repeat), srcStride(sStride), dstGap(gap), dstFracGap(fracGap), addrMode(mode) {}
};

template <class T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p, OPKIT_LOC) {
    using namespace opkit::sim;
    const char* api = "LoadDataWithTranspose";
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose: 8-, 16- or 32-bit dtypes");
    cube::require_cube_core(api, loc);
    int da = local_arena(dst, api, loc);
    int sa = local_arena(src, api, loc);
    if (da != A_L0A && da != A_L0B) fail_at(api, loc, "the destination must be in A2 (L0A) or B2 (L0B), but it is in %s", arena_name(da));
    if (sa != A_L1) fail_at(api, loc, "the source must be in L1 (A1/B1), but it is in %s", arena_name(sa));
    if (p.repeatTimes == 0) return;
    const int E = int(sizeof(T));
    const int side = E == 1 ? 32 : 16;                   // square side in elements
    const uint64_t sq = uint64_t(side) * side * E;       // square bytes: 512 (b16) or 1024 (b8, b32)
    const int fracs = E == 2 ? 1 : 2;
    CoreState& c = core();
    uint32_t seq = issue(P_MTE1);
    uint16_t site = c.site(api, loc);
    ArenaMem& sm = c.mem(sa);
    ArenaMem& dm = c.mem(da);
    std::vector<uint8_t> S(sq), Si(sq), Tt(sq), Ti(sq);
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        int64_t q = p.addrMode == 0 ? int64_t(p.startIndex) + int64_t(r) * p.srcStride : int64_t(p.startIndex) - int64_t(r) * p.srcStride;
        if (q < 0) fail_at(api, loc, "repeat %u reads source square %lld (addrMode 1 counts down below 0)", r, (long long)q);
        local_touch(src, uint64_t(q) * sq, sq, P_MTE1, false, seq, site, api, loc, "source");
        const uint64_t s0 = src.address_.bufferAddr + uint64_t(q) * sq;
        // assemble the square S (side x side, row-major) from the source fractals
        for (int i = 0; i < side; ++i)
            for (int j = 0; j < side; ++j) {
                uint64_t so;
                if (E == 4) so = uint64_t(j / 8) * 512 + uint64_t(i * 8 + j % 8) * 4;        // [F0 | F1], 16 x 8 each
                else if (E == 1) so = uint64_t(i / 16) * 512 + uint64_t((i % 16) * 32 + j);  // [F0 ; F1], 16 x 32 each
                else so = uint64_t(i * 16 + j) * 2;
                std::memcpy(&S[uint64_t(i * side + j) * E], sm.data + s0 + so, E);
                std::memcpy(&Si[uint64_t(i * side + j) * E], sm.init.data() + s0 + so, E);
            }
        for (int i = 0; i < side; ++i)
            for (int j = 0; j < side; ++j) {
                std::memcpy(&Tt[uint64_t(j * side + i) * E], &S[uint64_t(i * side + j) * E], E);
                std::memcpy(&Ti[uint64_t(j * side + i) * E], &Si[uint64_t(i * side + j) * E], E);
            }
        for (int f = 0; f < fracs; ++f) {
            uint64_t dof = uint64_t(r) * (1 + uint64_t(p.dstGap)) * 512 + uint64_t(f) * (1 + uint64_t(p.dstFracGap)) * 512;
            local_touch(dst, dof, 512, P_MTE1, true, seq, site, api, loc, "destination");
            uint8_t* d = dm.data + dst.address_.bufferAddr + dof;
            uint8_t* di = dm.init.data() + dst.address_.bufferAddr + dof;
            for (int row = 0; row < 16; ++row) {
                uint64_t to = uint64_t(row) * 32, from;
                if (E == 4) from = (uint64_t(row) * 16 + uint64_t(f) * 8) * 4;  // columns 8f .. 8f+7 of row `row`
                else if (E == 1) from = uint64_t(f * 16 + row) * 32;            // rows 16f .. 16f+15
                else from = uint64_t(row) * 32;
                std::memcpy(d + to, &Tt[from], 32);
                std::memcpy(di + to, &Ti[from], 32);
            }
            cube::stamp(da, dst.address_.bufferAddr + dof, E, site);
        }
    }
    trace(P_MTE1, uint64_t(p.repeatTimes) * sq, p.repeatTimes, "LoadData", dtype_name<T>(), nullptr, da);
}

}  // namespace AscendC

namespace opkit {
namespace sim {
namespace cube {

template <class T> struct mmad_legal : std::false_type {};
#if __NPU_ARCH__ == 2002
template <> struct mmad_legal<half> : std::true_type {};
template <> struct mmad_legal<int8_t> : std::true_type {};
template <> struct mmad_legal<uint8_t> : std::true_type {};
#else
template <> struct mmad_legal<half> : std::true_type {};
template <> struct mmad_legal<bfloat16_t> : std::true_type {};
template <> struct mmad_legal<float> : std::true_type {};
template <> struct mmad_legal<int8_t> : std::true_type {};
template <> struct mmad_legal<AscendC::int4b_t> : std::true_type {};  // int4 x int4 -> int32 (Atlas A2/A3)
#endif

// Checks that [m x k] of A (L0A, ZZ) / [k x n] of B (L0B, ZN) were written, and by a load.
template <class T>
inline void check_operand(const AscendC::LocalTensor<T>& t, int which, int rows16, int kBlocks, int k0, int valid_outer, int k,
                          bool a_side, const char* api, const SrcLoc& loc) {
    CoreState& c = core();
    ArenaMem& m = c.mem(t.arena());
    FractalStamps& s = stamps();
    const char* name = a_side ? "A (L0A)" : "B (L0B)";
    const int outerBlocks = rows16;
    for (int ob = 0; ob < outerBlocks; ++ob)
        for (int kb = 0; kb < kBlocks; ++kb) {
            int frac = a_side ? ob * kBlocks + kb : kb * outerBlocks + ob;
            uint64_t off = t.address_.bufferAddr + uint64_t(frac) * 512;
            // valid lines of the fractal (rows of A / columns of B) and valid k elements in each
            int lines = std::min(16, valid_outer - ob * 16);
            int kval = std::min(k0, k - kb * k0);
            if (kval <= 0) continue;
            // a fully used fractal in one look; otherwise line by line (to name the first element)
            if (lines == 16 && kval == k0 && first_uninit(t.arena(), off, 512) == 512) lines = 0;
            for (int l = 0; l < lines; ++l) {
                uint64_t lo = off + uint64_t(l) * 32;
                uint64_t bad = first_uninit(t.arena(), lo, uint64_t(kval) * sizeof(T));
                if (bad < uint64_t(kval) * sizeof(T))
                    fail_at(api, loc,
                            "%s element (%s %d, k %d) at %s byte offset %llu was never written: the operand (m %s) was not fully loaded",
                            name, a_side ? "m" : "n", ob * 16 + l, kb * k0 + int(bad / sizeof(T)), arena_name(t.arena()),
                            (unsigned long long)(lo + bad), a_side ? "x k" : "k x n");
            }
            size_t f = size_t(off / 512);
            if (f >= s.hash[which].size() || s.hash[which][f] == 0 || s.hash[which][f] != fractal_hash(m.data + f * 512))
                fail_at(api, loc,
                        "%s fractal %d (%s byte offset %llu) did not arrive through LoadData: Mmad reads L0A/L0B only in the layout a load "
                        "writes (ZZ for A, ZN for B); data written there otherwise (DataCopy, SetValue) or changed since is not an operand",
                        name, frac, arena_name(t.arena()), (unsigned long long)off);
            if (s.esz[which][f] != sizeof(T))
                fail_at(api, loc, "%s fractal %d was loaded as %d-byte elements but Mmad reads %zu-byte elements", name, frac,
                        int(s.esz[which][f]), sizeof(T));
        }
}

template <class DstT, class SrcT, class BiasT>
inline void mmad_bytes(const AscendC::LocalTensor<DstT>& dst, const AscendC::LocalTensor<SrcT>& fm,
                       const AscendC::LocalTensor<SrcT>& filter, const AscendC::LocalTensor<BiasT>* bias,
                       const AscendC::MmadParams& p, const SrcLoc& loc);

// Mmad: int4b_t operands are declared as CANN declares them (int4 x int4 -> int32 on Atlas A2/A3) but not computed
// yet; every whole-byte dtype goes through mmad_bytes.
template <class DstT, class SrcT, class BiasT>
inline void mmad_impl(const AscendC::LocalTensor<DstT>& dst, const AscendC::LocalTensor<SrcT>& fm, const AscendC::LocalTensor<SrcT>& filter,
                      const AscendC::LocalTensor<BiasT>* bias, const AscendC::MmadParams& p, const SrcLoc& loc) {
    if constexpr (std::is_same<SrcT, AscendC::int4b_t>::value) {
        require_cube_core("Mmad", loc);
        fail_at("Mmad", loc, "int4b_t operands (int4 x int4 -> int32, documented for this chip) are not simulated yet: the "
                "simulator's L0A/L0B model holds whole-byte elements, while int4 fractals pack 64 elements per 32-byte row");
    } else {
        mmad_bytes<DstT, SrcT, BiasT>(dst, fm, filter, bias, p, loc);
    }
}

template <class DstT, class SrcT, class BiasT>
inline void mmad_bytes(const AscendC::LocalTensor<DstT>& dst, const AscendC::LocalTensor<SrcT>& fm,
                       const AscendC::LocalTensor<SrcT>& filter, const AscendC::LocalTensor<BiasT>* bias,
                       const AscendC::MmadParams& p, const SrcLoc& loc) {
    using AscendC::TPosition;
    using Acc = typename acc_of<SrcT>::type;
    static_assert(std::is_same<DstT, Acc>::value || (__NPU_ARCH__ == 2002 && std::is_same<SrcT, half>::value && std::is_same<DstT, half>::value),
                  "Ascend C Mmad: L0C holds float for fp16/bf16/fp32 inputs and int32_t for int8 inputs on this chip (" OPKIT_SIM_ARCH_NAME ")");
    const char* api = "Mmad";
    require_cube_core(api, loc);
    int ca = local_arena(dst, api, loc);
    int aa = local_arena(fm, api, loc);
    int ba = local_arena(filter, api, loc);
    (void)ca; (void)aa; (void)ba;
    require_pos(dst, {TPosition::CO1}, "dst", "CO1 (L0C)", api, loc);
    require_pos(fm, {TPosition::A2}, "fm (A)", "A2 (L0A)", api, loc);
    require_pos(filter, {TPosition::B2}, "filter (B)", "B2 (L0B)", api, loc);
    if (dst.address_.bufferAddr % (256 * sizeof(DstT)))
        fail_at(api, loc, "dst L0C address %u is not aligned to 256 elements (%zu bytes)", dst.address_.bufferAddr, 256 * sizeof(DstT));
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        fail_at(api, loc, "m %u, n %u, k %u: each must be in [0, 4095]", p.m, p.n, p.k);
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    const int m = p.m, n = p.n, k = p.k;
    const int k0 = k0_of<SrcT>();
    int kBlocks = (k + k0 - 1) / k0;
    if (std::is_same<SrcT, float>::value && p.kDirectionAlign) kBlocks = (k + 15) / 16 * 2;
    const int mBlocks = (m + 15) / 16, nBlocks = (n + 15) / 16;
    const uint64_t aBytes = uint64_t(mBlocks) * kBlocks * 512, bBytes = uint64_t(kBlocks) * nBlocks * 512;
    const uint64_t cBytes = uint64_t(mBlocks) * nBlocks * 256 * sizeof(DstT);
    CoreState& c = core();
    const int unit = p.unitFlag;
    if (unit == 2 || unit == 3) {
        // unit flag: the hardware lets the Mmad write each 512-B block of L0C once the Fixpipe (with unitFlag 3)
        // that read it before has, so FIX -> M needs no flag of the kernel's own
        uint32_t snap[NPIPE] = {};
        snapshot(P_FIX, snap);
        merge(P_M, snap);
    } else if (unit != 0) {
        fail_at(api, loc, "unitFlag %u: use 0 (off), 2 or 3", unsigned(unit));
    }
    uint32_t seq = issue(P_M);
    uint16_t site = c.site(api, loc);
    local_touch(fm, 0, aBytes, P_M, false, seq, site, api, loc, "fm (A)");
    local_touch(filter, 0, bBytes, P_M, false, seq, site, api, loc, "filter (B)");
    check_operand(fm, 0, mBlocks, kBlocks, k0, m, k, true, api, loc);
    check_operand(filter, 1, nBlocks, kBlocks, k0, n, k, false, api, loc);
    // initial C: bias (BT), 0, or what L0C holds
    const bool from_bias = bias != nullptr;
    const bool accumulate = !from_bias && (p.isBias || (!p.cmatrixInitVal && !p.cmatrixSource));
    if (!from_bias && !p.isBias && !p.cmatrixInitVal && p.cmatrixSource)
        fail_at(api, loc, "cmatrixSource = true takes the initial C from the BiasTable (C2): call the Mmad overload with a bias tensor");
    if (accumulate) {  // (the read of C is covered by the write record below: a write is checked against reads and writes)
        for (int ni = 0; ni < nBlocks; ++ni)
            for (int i = 0; i < m; ++i) {
                uint64_t lo = dst.address_.bufferAddr + ((uint64_t(ni) * mBlocks + i / 16) * 256 + (i % 16) * 16) * sizeof(DstT);
                int cols = std::min(16, n - ni * 16);
                uint64_t bad = first_uninit(ca, lo, uint64_t(cols) * sizeof(DstT));
                if (bad < uint64_t(cols) * sizeof(DstT))
                    fail_at(api, loc, "accumulating onto L0C element (m %d, n %d) that was never written (first Mmad of a K loop needs "
                                      "cmatrixInitVal = true)", i, ni * 16 + int(bad / sizeof(DstT)));
            }
    }
    std::vector<Acc> bvec;
    if (from_bias) {
        int bpa = local_arena(*bias, api, loc);
        require_pos(*bias, {TPosition::C2}, "bias", "C2 (BiasTable)", api, loc);
        local_touch(*bias, 0, uint64_t(n) * sizeof(BiasT), P_M, false, seq, site, api, loc, "bias");
        uint64_t bad = first_uninit(bpa, bias->address_.bufferAddr, uint64_t(n) * sizeof(BiasT));
        if (bad < uint64_t(n) * sizeof(BiasT)) fail_at(api, loc, "bias element %d in the BiasTable was never written", int(bad / sizeof(BiasT)));
        bvec.assign(size_t(nBlocks) * 16, Acc(0));
        for (int j = 0; j < n; ++j) bvec[j] = Acc(bias->data()[j]);
    }
    if (accumulate) same_pipe_accumulate(ca, dst.address_.bufferAddr, cBytes, m, n, api, loc);
    local_touch(dst, 0, cBytes, P_M, true, seq, site, api, loc, "dst (C)");

    // operands into plain row-major matrices (conversion hoisted out of the MAC loop, 8 lanes at a time)
    static thread_local std::vector<Acc> Af, Bf;
    const int nPad = nBlocks * 16;
    Af.resize(size_t(m) * k);
    Bf.resize(size_t(k) * nPad);
    const SrcT* A = fm.data();
    const SrcT* B = filter.data();
    for (int i = 0; i < m; ++i)
        for (int kb = 0; kb < kBlocks; ++kb) {
            int cnt = std::min(k0, k - kb * k0);
            if (cnt <= 0) break;
            convert_run(A + (size_t(i / 16) * kBlocks + kb) * (16 * k0) + (i % 16) * k0, &Af[size_t(i) * k + size_t(kb) * k0], cnt);
        }
    Acc tmp[16 * 32];
    for (int kb = 0; kb < kBlocks; ++kb) {
        int cnt = std::min(k0, k - kb * k0);
        if (cnt <= 0) break;
        for (int ni = 0; ni < nBlocks; ++ni) {
            convert_run(B + (size_t(kb) * nBlocks + ni) * (16 * k0), tmp, 16 * k0);  // [16 n][k0 k]
            const int jv = std::min(16, n - ni * 16);
            for (int t = 0; t < cnt; ++t) {
                Acc* row = &Bf[size_t(kb * k0 + t) * nPad + size_t(ni) * 16];
                for (int jj = 0; jj < 16; ++jj) row[jj] = jj < jv ? tmp[jj * k0 + t] : Acc(0);
            }
        }
    }
    Acc* C = reinterpret_cast<Acc*>(dst.data());
    if (!accumulate)
        for (int ni = 0; ni < nBlocks; ++ni)
            for (int i = 0; i < m; ++i) {
                Acc* row = C + (size_t(ni) * mBlocks + i / 16) * 256 + (i % 16) * 16;
                for (int t = 0; t < 16; ++t) row[t] = from_bias ? bvec[ni * 16 + t] : Acc(0);
            }
    gemm_nz<Acc>(C, Af.data(), Bf.data(), m, nBlocks, k);
    for (int ni = 0; ni < nBlocks; ++ni)
        for (int mb = 0; mb < mBlocks; ++mb) {
            int rows = std::min(16, m - mb * 16);
            set_init(ca, dst.address_.bufferAddr + ((uint64_t(ni) * mBlocks + mb) * 256) * sizeof(DstT), uint64_t(rows) * 16 * sizeof(DstT));
        }
    trace(P_M, uint64_t(m) * n * k, mac_units<SrcT>(m, n, k, uint64_t(kBlocks)), "Mmad", dtype_name<SrcT>(), nullptr, -1, 0, -1,
          unit);
}

}  // namespace cube
}  // namespace sim
}  // namespace opkit

namespace AscendC {

// C (CO1) = A (A2) x B (B2), or C += A x B (cmatrixInitVal = false / isBias = true); products exact, sums in K order.
template <class DstT, class Src0T, class Src1T>
inline void Mmad(const LocalTensor<DstT>& dst, const LocalTensor<Src0T>& fm, const LocalTensor<Src1T>& filter, const MmadParams& p,
                 OPKIT_LOC) {
    static_assert(std::is_same<Src0T, Src1T>::value, "opkit simulator: Mmad with different A and B dtypes is not simulated");
    static_assert(opkit::sim::cube::mmad_legal<Src0T>::value,
                  "Ascend C Mmad: this input dtype (see 'with Src0T = ...' above) is not supported by the cube unit of " OPKIT_SIM_SOC
                  " (" OPKIT_SIM_ARCH_NAME ")");
    opkit::sim::cube::mmad_impl<DstT, Src0T, DstT>(dst, fm, filter, nullptr, p, loc);
}
// C (CO1) = bias (C2, broadcast over rows) + A x B.
template <class DstT, class Src0T, class Src1T, class BiasT>
inline void Mmad(const LocalTensor<DstT>& dst, const LocalTensor<Src0T>& fm, const LocalTensor<Src1T>& filter, const LocalTensor<BiasT>& bias,
                 const MmadParams& p, OPKIT_LOC) {
    static_assert(std::is_same<Src0T, Src1T>::value, "opkit simulator: Mmad with different A and B dtypes is not simulated");
    static_assert(opkit::sim::cube::mmad_legal<Src0T>::value,
                  "Ascend C Mmad: this input dtype (see 'with Src0T = ...' above) is not supported by the cube unit of " OPKIT_SIM_SOC
                  " (" OPKIT_SIM_ARCH_NAME ")");
    static_assert(std::is_same<BiasT, DstT>::value, "Ascend C Mmad: the BiasTable holds the L0C dtype (float, or int32_t for int8 inputs)");
    opkit::sim::cube::mmad_impl<DstT, Src0T, BiasT>(dst, fm, filter, &bias, p, loc);
}

}  // namespace AscendC
