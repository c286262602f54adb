// opkit simulator: reduction helpers: the vector unit's add tree, arg-best, masked-repeat gathering.
#pragma once
#include "impl/opkit/vec_engine.h"
#include <algorithm>
#include <numeric>

namespace opkit {
namespace sim {

// Adds as the reduction tree of the vector unit does: rounded to T after every add, and fp16
// sums saturate at +-65504 instead of overflowing to infinity (documented for BlockReduceSum,
// assumed for the other sum reductions).
template <class T>
inline T red_add(T a, T b) {
    if (std::is_same<T, half>::value) {
        float s = float(a) + float(b);
        if (s != s) return T(s);
        if (s > 65504.0f && !std::isinf(float(a)) && !std::isinf(float(b))) return T(65504.0f);
        if (s < -65504.0f && !std::isinf(float(a)) && !std::isinf(float(b))) return T(-65504.0f);
        return T(s);
    }
    return down<T>(up(a) + up(b));
}
// Binary tree over v (adjacent pairs, odd leftover carried), length may be any.
template <class T>
inline T tree_sum(std::vector<T> v) {
    if (v.empty()) return T(0);
    while (v.size() > 1) {
        std::vector<T> n;
        n.reserve((v.size() + 1) / 2);
        for (size_t i = 0; i + 1 < v.size(); i += 2) n.push_back(red_add(v[i], v[i + 1]));
        if (v.size() % 2) n.push_back(v.back());
        v.swap(n);
    }
    return v[0];
}
// Max/min with the first index on ties; a NaN wins (propagates) - assumed.
// The special register ReduceMax/ReduceMin leave their result in (value, index), per core.
struct MaxMinSpr {
    uint8_t bits[16] = {};
    bool set = false;
    template <class T> void record(const T (&out)[2]) { std::memcpy(bits, out, 2 * sizeof(T)); set = true; }
};
inline MaxMinSpr& max_min_spr() { static thread_local MaxMinSpr s; return s; }

template <class T>
inline void arg_best(const std::vector<T>& v, bool is_max, T& best, uint32_t& idx) {
    idx = 0;
    best = v[0];
    for (uint32_t i = 1; i < v.size(); ++i) {
        if (isnan_(best)) break;
        if (isnan_(v[i])) { best = v[i]; idx = i; break; }
        if (is_max ? up(v[i]) > up(best) : up(v[i]) < up(best)) { best = v[i]; idx = i; }
    }
}

template <class T>
inline void store_index(uint8_t* p, uint32_t idx) {
    if (sizeof(T) == 2) st<uint16_t>(p, uint16_t(idx));
    else st<uint32_t>(p, idx);
}

// Reads `n` contiguous elements of a source tensor with checks; returns whether all written.
template <class T>
inline bool read_src(const Opd& o, uint64_t first, uint64_t n, uint32_t seq, uint16_t site, const char* api, const SrcLoc& loc,
                     std::vector<T>& out) {
    if ((first + n) * sizeof(T) > o.len)  // past the tensor, as the NPU reads it
        local_oob(api, loc, o.role, A_UB, o.ub, o.len, o.ub + std::max<uint64_t>(first * sizeof(T), o.len),
                  o.ub + (first + n) * sizeof(T), false, seq);
    touch(A_UB, o.ub + first * sizeof(T), n * sizeof(T), P_V, false, seq, site, api, loc);
    out.resize(n);
    for (uint64_t i = 0; i < n; ++i) out[i] = ld<T>(o.p + (first + i) * sizeof(T));
    return all_init(A_UB, o.ub + first * sizeof(T), n * sizeof(T));
}
template <class T>
inline void write_dst(const Opd& o, uint64_t first, const T* v, uint64_t n, bool ok, uint32_t seq, uint16_t site, const char* api,
                      const SrcLoc& loc) {
    if ((first + n) * sizeof(T) > o.len)  // past the tensor, as the NPU writes it
        local_oob(api, loc, o.role, A_UB, o.ub, o.len, o.ub + std::max<uint64_t>(first * sizeof(T), o.len),
                  o.ub + (first + n) * sizeof(T), true, seq);
    touch(A_UB, o.ub + first * sizeof(T), n * sizeof(T), P_V, true, seq, site, api, loc);
    std::memcpy(o.p + first * sizeof(T), v, n * sizeof(T));
    set_init(A_UB, o.ub + first * sizeof(T), n * sizeof(T), ok);
}

// Gathers the enabled lanes of each repeat of a masked reduction (values; masked-off lanes excluded).
template <class T>
struct RepeatLanes {
    std::vector<T> v; std::vector<uint32_t> lane; std::vector<uint8_t> on;
    std::vector<uint8_t> w;  // per lane (E of them): its source bytes were written
};

template <class T>
inline bool collect_repeat(const Opd& s, int64_t r, const MaskSpec& ms, uint32_t E, uint32_t blk, uint32_t rep, uint32_t seq,
                           uint16_t site, const char* api, const SrcLoc& loc, RepeatLanes<T>& out) {
    CoreState& c = core();
    out.v.clear(); out.lane.clear(); out.on.assign(E, 0); out.w.assign(E, 1);
    bool ok = true;
    uint32_t epb = 32 / sizeof(T);
    for (uint32_t e = 0; e < E; ++e) {
        bool on;
        if (c.mask_counter) on = uint64_t(r) * E + e < (ms.bits ? ms.m0 : ms.cont);
        else if (ms.bits) on = e < 64 ? ((ms.m0 >> e) & 1) : ((ms.m1 >> (e - 64)) & 1);
        else on = e < ms.cont;
        if (!on) continue;
        uint64_t el = uint64_t(r) * rep * epb + uint64_t(e / epb) * blk * epb + e % epb;
        uint64_t b = el * sizeof(T);
        if (b + sizeof(T) > s.len)  // a lane past the tensor, as the NPU reads it
            local_oob(api, loc, s.role, A_UB, s.ub, s.len, s.ub + b, s.ub + b + sizeof(T), false, seq);
        touch(A_UB, s.ub + b, sizeof(T), P_V, false, seq, site, api, loc);
        const bool w = all_init(A_UB, s.ub + b, sizeof(T));
        ok &= w;
        out.w[e] = uint8_t(w);
        out.v.push_back(ld<T>(s.p + b));
        out.lane.push_back(e);
        out.on[e] = 1;
    }
    return ok;
}

}  // namespace sim
}  // namespace opkit
