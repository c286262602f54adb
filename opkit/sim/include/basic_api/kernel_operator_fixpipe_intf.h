// opkit simulator: Fixpipe — moves results out of L0C (CO1) to GM on the FIX pipe, with the in-flight
// NZ -> ND conversion, ReLU and quantisation / down-conversion of the chip (FixpipeParamsV220, NPU arch 2201).
#pragma once
#include <cmath>
#include <limits>

#include "basic_api/kernel_operator_mm_intf.h"

enum QuantMode_t {
    NoQuant = 0,   // float -> float, int32 -> int32
    F322F16,       // float -> half, RINT
    F322BF16,      // float -> bfloat16, RINT
    DEQF16,        // int32 -> half, x scalar scale
    VDEQF16,       // int32 -> half, per-channel scale (tensor)
    QF322B8_PRE,   // float -> int8, x scalar scale
    VQF322B8_PRE,  // float -> int8, per-channel scale (tensor)
    REQ8,          // int32 -> int8, x scalar scale
    VREQ8,         // int32 -> int8, per-channel scale (tensor)
};

namespace AscendC {

using ::QuantMode_t;

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;   // between N-direction fractal columns of L0C, in 16-element rows (>= mSize rounded up to 16)
    uint32_t dstStride = 0;   // ND: elements per destination row; NZ: 32-B blocks between destination fractal columns
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint32_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t sStride, uint32_t dStride, bool relu)
        : nSize(n), mSize(m), srcStride(sStride), dstStride(dStride), reluEn(relu) {}
};
using FixpipeParams = FixpipeParamsV220;

}  // namespace AscendC

namespace opkit {
namespace sim {
namespace cube {

inline const char* quant_name(QuantMode_t q) {
    static const char* n[] = {"NoQuant", "F322F16", "F322BF16", "DEQF16", "VDEQF16", "QF322B8_PRE", "VQF322B8_PRE", "REQ8", "VREQ8"};
    return (int(q) >= 0 && int(q) < 9) ? n[int(q)] : "?";
}
// The quantPre a (src, dst) pair needs (scalar modes), or -1.
template <class SrcT, class DstT> constexpr int needed_quant() {
    return std::is_same<SrcT, float>::value
               ? (std::is_same<DstT, float>::value ? NoQuant
                  : std::is_same<DstT, half>::value ? F322F16
                  : std::is_same<DstT, bfloat16_t>::value ? F322BF16
                  : (std::is_same<DstT, int8_t>::value || std::is_same<DstT, uint8_t>::value) ? QF322B8_PRE : -1)
               : std::is_same<SrcT, int32_t>::value
                     ? (std::is_same<DstT, int32_t>::value ? NoQuant
                        : std::is_same<DstT, half>::value ? DEQF16
                        : (std::is_same<DstT, int8_t>::value || std::is_same<DstT, uint8_t>::value) ? REQ8 : -1)
                     : -1;
}
inline float deq_scale(uint64_t s) { uint32_t b = uint32_t(s & 0xffffffffu); float f; std::memcpy(&f, &b, 4); return f; }

template <class DstT>
inline DstT fix_convert(double v) {
    if (std::is_same<DstT, float>::value) return DstT(float(v));
    if (std::is_same<DstT, half>::value || std::is_same<DstT, bfloat16_t>::value) return DstT(float(v));
    if (std::is_integral<DstT>::value) {
        if (v != v) return DstT(0);
        double r = std::nearbyint(v);
        double lo = double(std::numeric_limits<DstT>::min()), hi = double(std::numeric_limits<DstT>::max());
        return DstT(r < lo ? lo : (r > hi ? hi : r));
    }
    return DstT(float(v));
}

}  // namespace cube
}  // namespace sim
}  // namespace opkit

namespace AscendC {

namespace opkit_fix {
// The Fixpipe proper; `store(byte offset from the destination start, bytes, data)` writes one run. `gm`: the
// destination's start when it is in GM (the trace records the GM range written, for the model's L2 term).
template <class DstT, class SrcT, const FixpipeConfig& config, class Store>
inline void fixpipe_impl(const LocalTensor<SrcT>& src, const FixpipeParamsV220& p, const opkit::sim::SrcLoc& loc, Store&& store,
                         const void* gm = nullptr) {
    using namespace opkit::sim;
    static_assert(__NPU_ARCH__ != 2002 || sizeof(DstT) == 0,
                  "Ascend C Fixpipe (FixpipeParamsV220) does not exist on " OPKIT_SIM_SOC " (" OPKIT_SIM_ARCH_NAME ")");
    constexpr int need = cube::needed_quant<SrcT, DstT>();
    static_assert(need >= 0, "Ascend C Fixpipe: this (L0C dtype -> GM dtype) pair is not supported on " OPKIT_SIM_SOC " (" OPKIT_SIM_ARCH_NAME
                             "): float -> float/half/bfloat16_t/int8_t/uint8_t, int32_t -> int32_t/half/int8_t/uint8_t");
    const char* api = "Fixpipe";
    cube::require_cube_core(api, loc);
    int sa = local_arena(src, api, loc);
    cube::require_pos(src, {TPosition::CO1}, "src", "CO1 (L0C)", api, loc);
    if (p.nSize == 0 || p.mSize == 0 || p.ndNum == 0) return;  // documented NOP
    const bool nd = config.format == CO2Layout::ROW_MAJOR;
    if (config.format == CO2Layout::COLUMN_MAJOR) fail_at(api, loc, "the NZ -> DN (COLUMN_MAJOR) output is not simulated");
    if (p.nSize > 4095) fail_at(api, loc, "nSize %u exceeds 4095", p.nSize);
    if (nd && p.mSize > 8192) fail_at(api, loc, "mSize %u exceeds 8192, the limit with the NZ -> ND conversion", p.mSize);
    if (!nd && p.nSize % 16) fail_at(api, loc, "nSize %u must be a multiple of 16 for NZ output", p.nSize);
    if (p.isChannelSplit) fail_at(api, loc, "isChannelSplit is not simulated");
    if (int(p.quantPre) != need)
        fail_at(api, loc, "L0C %s -> GM %s needs quantPre = QuantMode_t::%s, but it is QuantMode_t::%s%s", dtype_name<SrcT>(),
                dtype_name<DstT>(), cube::quant_name(QuantMode_t(need)), cube::quant_name(p.quantPre),
                (p.quantPre == VDEQF16 || p.quantPre == VQF322B8_PRE || p.quantPre == VREQ8)
                    ? " (per-channel tensor quantisation needs the Fixpipe overload with a cbufWorkspace, not simulated)" : "");
    const uint32_t mRound = (uint32_t(p.mSize) + 15) / 16 * 16;
    if (uint32_t(p.srcStride) < mRound)
        fail_at(api, loc, "srcStride %u is smaller than mSize %u rounded up to 16 (%u): L0C fractal columns would overlap", p.srcStride,
                p.mSize, mRound);
    if (nd && p.dstStride < p.nSize)
        fail_at(api, loc, "dstStride %u (elements per destination row) is smaller than nSize %u: rows would overlap in GM", p.dstStride, p.nSize);
    if (!nd && p.dstStride == 0) fail_at(api, loc, "dstStride must not be 0");
    const bool scaled = need == DEQF16 || need == QF322B8_PRE || need == REQ8;
    const double scale = scaled ? double(cube::deq_scale(p.deqScalar)) : 1.0;

    CoreState& c = core();
    if (p.unitFlag == 2 || p.unitFlag == 3) {
        // unit flag: the hardware hands each finished L0C fractal of the Mmad (also with unitFlag set) to the
        // Fixpipe, so M -> FIX needs no flag of the kernel's own
        uint32_t snap[NPIPE] = {};
        snapshot(P_M, snap);
        merge(P_FIX, snap);
    } else if (p.unitFlag != 0) {
        fail_at(api, loc, "unitFlag %u: use 0 (off), 2 or 3", p.unitFlag);
    }
    uint32_t seq = issue(P_FIX);
    uint16_t site = c.site(api, loc);
    const uint32_t nBlocks = (uint32_t(p.nSize) + 15) / 16;
    std::vector<DstT> row(p.nSize);
    for (uint32_t q = 0; q < p.ndNum; ++q) {
        const uint64_t sbase = uint64_t(q) * p.srcNdStride * 256;  // elements
        for (uint32_t nb = 0; nb < nBlocks; ++nb) {
            uint64_t col0 = sbase + uint64_t(nb) * p.srcStride * 16;
            local_touch(src, col0 * sizeof(SrcT), uint64_t(p.mSize) * 16 * sizeof(SrcT), P_FIX, false, seq, site, api, loc, "src");
        }
        for (uint32_t i = 0; i < p.mSize; ++i) {
            for (uint32_t nb = 0; nb < nBlocks; ++nb) {
                uint32_t cols = std::min<uint32_t>(16, p.nSize - nb * 16);
                uint64_t e = sbase + uint64_t(nb) * p.srcStride * 16 + uint64_t(i) * 16;
                uint64_t lo = src.address_.bufferAddr + e * sizeof(SrcT);
                uint64_t bad = first_uninit(sa, lo, uint64_t(cols) * sizeof(SrcT));
                if (bad < uint64_t(cols) * sizeof(SrcT))
                    fail_at(api, loc, "never-written L0C bytes would reach GM: element (m %u, n %u) of the source was never written by Mmad", i,
                            nb * 16 + uint32_t(bad / sizeof(SrcT)));
                const SrcT* s = src.data() + e;
                for (uint32_t t = 0; t < cols; ++t) {
                    double v = double(s[t]);
                    if (p.reluEn && v < 0) v = 0;  // NaN passes through (assumed)
                    if (scaled) v *= scale;
                    row[nb * 16 + t] = cube::fix_convert<DstT>(v);
                }
            }
            if (nd) {
                store((uint64_t(q) * p.dstNdStride + uint64_t(i) * p.dstStride) * sizeof(DstT), uint64_t(p.nSize) * sizeof(DstT),
                      reinterpret_cast<const uint8_t*>(row.data()), seq, site);
            } else {
                for (uint32_t nb = 0; nb < nBlocks; ++nb)
                    store(uint64_t(q) * p.dstNdStride * sizeof(DstT) + uint64_t(nb) * p.dstStride * 32 + uint64_t(i) * 16 * sizeof(DstT),
                          16 * sizeof(DstT), reinterpret_cast<const uint8_t*>(row.data() + nb * 16), seq, site);
            }
        }
    }
    const uint64_t esz = sizeof(DstT);
    const GmRange rows{gm, uint64_t(p.nSize) * esz, uint64_t(p.dstStride) * esz, p.mSize, p.ndNum, uint64_t(p.dstNdStride) * esz};
    const GmRange blocks{gm, uint64_t(p.mSize) * 16 * esz, uint64_t(p.dstStride) * 32, nBlocks, p.ndNum, uint64_t(p.dstNdStride) * esz};
    trace(P_FIX, uint64_t(p.ndNum) * p.mSize * p.nSize * sizeof(DstT), uint64_t(p.ndNum) * p.mSize, "Fixpipe", dtype_name<DstT>(),
          gm ? (nd ? &rows : &blocks) : nullptr, -1, 0, -1, p.unitFlag);
}
}  // namespace opkit_fix

// L0C (CO1, NZ) -> GM: ND rows (CFG_ROW_MAJOR, the default) or NZ fractals (CFG_NZ).
template <class DstT, class SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<DstT>& dst, const LocalTensor<SrcT>& src, const FixpipeParamsV220& p, OPKIT_LOC) {
    uint8_t* base = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
    opkit_fix::fixpipe_impl<DstT, SrcT, config>(src, p, loc, [&](uint64_t off, uint64_t bytes, const uint8_t* data, uint32_t, uint16_t) {
        opkit::sim::gm_check(base + off, bytes, "Fixpipe", loc, "write");
        opkit::sim::gm_store(reinterpret_cast<DstT*>(base + off), data, bytes, "Fixpipe", loc);
    }, base);
}

// L0C (CO1, NZ) -> L1 (A1/B1/C1): the same conversions, the result stays on the core (e.g. as the next Mmad's operand).
template <class DstT, class SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<DstT>& dst, const LocalTensor<SrcT>& src, const FixpipeParamsV220& p, OPKIT_LOC) {
    using namespace opkit::sim;
    int a = local_arena(dst, "Fixpipe", loc);
    if (a != A_L1) fail_at("Fixpipe", loc, "a local destination must be in L1 (A1/B1/C1), but it is in %s", arena_name(a));
    opkit_fix::fixpipe_impl<DstT, SrcT, config>(src, p, loc, [&](uint64_t off, uint64_t bytes, const uint8_t* data, uint32_t seq, uint16_t site) {
        local_touch(dst, off, bytes, P_FIX, true, seq, site, "Fixpipe", loc, "destination");
        std::memcpy(dst.address_.absAddr + off, data, bytes);
        set_init(a, dst.address_.bufferAddr + off, bytes);
    });
}

}  // namespace AscendC
