// opkit simulator: the row engine behind SoftMax, SimpleSoftMax, SoftmaxFlash and SoftmaxFlashV2.
//
// The source is srcM rows of srcK elements, ND (row-major) or NZ (srcK / C0 column blocks of srcM
// rows of C0 = 32 B / sizeof(T) elements each). Reductions run over the first oriSrcK columns of
// every row; padded columns are computed too (documented: they are overwritten). Per-row values
// (max, sum, expMax and their inputs) are ND: each row's value repeated over one 32-byte block of
// their type, or one value per row under SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC.
//
// Arithmetic (assumed): every step in float (half sources are widened first, as the scratch
// sizes show), one rounding to each output's type; row sums by the reduction tree; a NaN in a
// row propagates through its max.
//
// Scratch (documented rule): the API needs at least Get<Api>MinTmpSize bytes, and with a tiling
// that splits the rows into blocks of splitM rows it uses one block's worth (the row formulas of
// softmax_plan.h). A sharedTmpBuffer below either is an error naming the API, the size given and
// the size needed; without a sharedTmpBuffer the scratch comes from the UB above the kernel's
// buffers (Ascend C's reserved area and what is left of UB), checked the same way.
#pragma once
#include "adv_api/activation/softmax_plan.h"
#include "adv_api/activation/softmax_utils.h"
#include "impl/opkit/adv_unary.h"
#include "impl/opkit/copy_engine.h"
#include "impl/opkit/reduce_util.h"

namespace opkit {
namespace sim {
namespace softmax {

enum class Kind { SoftMax, Simple, Flash, FlashV2 };

inline const char* kind_name(Kind k) {
    switch (k) {
        case Kind::SoftMax: return "SoftMax";
        case Kind::Simple: return "SimpleSoftMax";
        case Kind::Flash: return "SoftmaxFlash";
        default: return "SoftmaxFlashV2";
    }
}
inline const char* min_fn(Kind k) {
    switch (k) {
        case Kind::SoftMax:
        case Kind::Simple: return "GetSoftMaxMinTmpSize";
        case Kind::Flash: return "GetSoftMaxFlashMinTmpSize";
        default: return "GetSoftMaxFlashV2MinTmpSize";
    }
}

// The template switches and the flags of one call.
struct Flags {
    Kind kind = Kind::SoftMax;
    bool update = false, basic = false, nz = false, check_tiling = true, no_brc = false;
    uint32_t cfg_m = 0, cfg_k = 0;  // SoftmaxConfig::oriSrcM / oriSrcK (constant shape)
};

template <const AscendC::SoftmaxConfig& cfg>
inline Flags flags_of(Kind kind, bool update, bool basic, bool nz) {
    Flags f;
    f.kind = kind;
    f.update = update;
    f.nz = nz;
    f.check_tiling = cfg.isCheckTiling;
    f.no_brc = cfg.mode == AscendC::SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC;
    f.cfg_m = cfg.oriSrcM;
    f.cfg_k = cfg.oriSrcK;
    // A constant shape makes the API decide the basic-block path itself (documented for SoftMax and
    // SoftmaxFlashV2); SimpleSoftMax's isBasicBlock takes precedence over the constant shape.
    f.basic = basic && (kind == Kind::Simple || !(cfg.oriSrcM && cfg.oriSrcK));
    return f;
}

// The tensors of one call (absent ones are null).
template <class T, class U, class E>
struct Io {
    const AscendC::LocalTensor<T>* dst = nullptr;
    const AscendC::LocalTensor<T>* src = nullptr;
    const AscendC::LocalTensor<U>* sum = nullptr;        // output (Simple: the input sum)
    const AscendC::LocalTensor<U>* max = nullptr;        // output (Simple: the input max)
    const AscendC::LocalTensor<E>* exp_max = nullptr;    // output with isUpdate
    const AscendC::LocalTensor<U>* in_sum = nullptr;     // input with isUpdate
    const AscendC::LocalTensor<U>* in_max = nullptr;     // input with isUpdate
    const AscendC::LocalTensor<U>* reduce_max = nullptr; // SoftmaxFlashV2's outReduceMax
    const AscendC::LocalTensor<uint8_t>* tmp = nullptr;  // sharedTmpBuffer
};

struct Shape {
    uint32_t m = 0, k = 0, kv = 0;
};

template <class T>
inline Shape shape_of(const Flags& f, const AscendC::tiling::SoftMaxTiling& t, const AscendC::SoftMaxShapeInfo& info,
                      const char* api, const SrcLoc& loc) {
    // A constant shape (SoftmaxConfig oriSrcM/oriSrcK) gives the rows and the real last axis; the
    // padded last axis is the shape info's (or the real one rounded up to 32 bytes).
    Shape s;
    constexpr uint32_t per = 32 / sizeof(T);
    s.m = f.cfg_m ? f.cfg_m : (info.srcM ? info.srcM : t.srcM);
    s.k = info.srcK ? info.srcK : (f.cfg_k ? (f.cfg_k + per - 1) / per * per : t.srcK);
    s.kv = f.cfg_k ? f.cfg_k : (info.oriSrcK ? info.oriSrcK : s.k);
    if (s.m == 0 || s.k == 0)
        fail_at(api, loc, "the source is [%u, %u]; set SoftMaxShapeInfo srcM/srcK (or the tiling's) to the rows and the "
                "last axis", s.m, s.k);
    if ((uint64_t(s.k) * sizeof(T)) % 32)
        fail_at(api, loc, "srcK %u x %zu B is not 32-byte aligned; pad the last axis to %zu elements and pass the real "
                "length as oriSrcK", s.k, sizeof(T), size_t((s.k * sizeof(T) + 31) / 32 * 32 / sizeof(T)));
    if (s.kv > s.k) fail_at(api, loc, "oriSrcK %u exceeds srcK %u", s.kv, s.k);
    return s;
}

// The documented basic-block condition: k a multiple of 64 in [256 B / sizeof(T), 2048), m a multiple
// of 8, and a tiling without a tail block. The basic path works in 8-row tiles of 64-element repeats,
// so a shape off that grid is an error; a k outside the documented range or a tail block is a
// warning (what the basic path then does is not documented).
template <class T>
inline void check_basic(const Shape& s, const AscendC::tiling::SoftMaxTiling& t, const char* api, const SrcLoc& loc) {
    if (s.k % 64 != 0 || s.m % 8 != 0)
        fail_at(api, loc, "isBasicBlock is set but [%u, %u] is not a basic block (srcK a multiple of 64 in [%zu, 2048), "
                "srcM a multiple of 8, no tail block: IsBasicBlockInSoftMax); clear isBasicBlock", s.m, s.k,
                size_t(256 / sizeof(T)));
    if (s.k < 256 / sizeof(T) || s.k >= 2048 || t.tailM != 0)
        warn_at(api, loc, "isBasicBlock is set but [%u, %u] with a tail block of %u rows is outside the documented "
                "basic-block range (srcK in [%zu, 2048), no tail block: IsBasicBlockInSoftMax)", s.m, s.k, t.tailM,
                size_t(256 / sizeof(T)));
}

template <class T, class U>
inline uint32_t row_floats(const Flags& f, uint32_t k) {
    using namespace AscendC::opkit_softmax;
    const uint32_t pbT = kBlock / sizeof(T), pbU = kBlock / sizeof(U);
    switch (f.kind) {
        case Kind::Flash: return f.update ? FlashUpdateRow(k, pbT) : PlainRow(k, pbT);
        case Kind::FlashV2: return f.basic ? V2BasicRow(sizeof(T), k, pbU) : V2Row(sizeof(T), k, pbU);
        default: return PlainRow(k, pbT);
    }
}
template <class T, class U>
inline uint32_t min_bytes(const Flags& f, const Shape& s) {
    using namespace AscendC::opkit_softmax;
    switch (f.kind) {
        case Kind::Flash: return FlashBytes(s.m, s.k, sizeof(T), f.update, false, __NPU_ARCH__);
        case Kind::FlashV2:
            return V2MinBytes(s.m, s.k, sizeof(T), sizeof(U), f.update, f.basic, f.no_brc, __NPU_ARCH__);
        default: return SoftMaxMinBytes(s.m, s.k, sizeof(T), __NPU_ARCH__);
    }
}
template <class T, class U>
inline AscendC::tiling::SoftMaxTiling plan(const Flags& f, const Shape& s, uint32_t ws_bytes) {
    using namespace AscendC::opkit_softmax;
    switch (f.kind) {
        case Kind::Flash: return FlashPlan(s.m, s.k, sizeof(T), ws_bytes, f.update);
        case Kind::FlashV2: return V2Plan(s.m, s.k, sizeof(T), sizeof(U), ws_bytes, f.basic, f.no_brc);
        default: return SoftMaxPlan(s.m, s.k, sizeof(T), ws_bytes);
    }
}

inline bool overlaps(const Opd& a, uint64_t a_len, const Opd& b) {
    return a.arena == b.arena && a.ub < b.ub + b.len && b.ub < a.ub + a_len;
}
// The bytes of an operand the call actually touches (a sub-tensor's length runs to its buffer's end).
inline Opd span(Opd o, uint64_t bytes) {
    o.len = uint32_t(std::min<uint64_t>(o.len, bytes));
    return o;
}

// The scratch the call gets (sharedTmpBuffer or the UB above the kernel's buffers) against what it
// needs; returns the tiling the API runs with (recomputed under isCheckTiling when it does not match
// the shape). `ops` are the call's other operands (the documented no-overlap rule).
template <class T, class U>
inline AscendC::tiling::SoftMaxTiling scratch(const Flags& f, const Shape& s, const AscendC::tiling::SoftMaxTiling& given,
                                              const AscendC::LocalTensor<uint8_t>* tmp, const std::vector<Opd>& ops,
                                              uint32_t seq, uint16_t site, const char* api, const SrcLoc& loc) {
    uint64_t avail;
    Opd t;
    if (tmp) {
        adv_tmp_check(*tmp, api, loc);
        t = opd(*tmp, true, 1, 8, "sharedTmpBuffer", api, loc);
        avail = t.len;
    } else {
        claim_reserved_ub(api, loc);
        avail = uint64_t(OPKIT_SIM_UB_CAP) - std::min<uint64_t>(core().mem(A_UB).used, OPKIT_SIM_UB_CAP);
    }
    AscendC::tiling::SoftMaxTiling tl = given;
    if (given.srcM != s.m || given.srcK != s.k) {
        if (!f.check_tiling)
            fail_at(api, loc, "the tiling was made for [%u, %u] but the source is [%u, %u]; with SoftmaxConfig::isCheckTiling "
                    "false the API uses it as given: compute the tiling for this shape or leave isCheckTiling on",
                    given.srcM, given.srcK, s.m, s.k);
        tl = plan<T, U>(f, s, uint32_t(std::min<uint64_t>(avail, UINT32_MAX)));
    }
    if (f.basic) check_basic<T>(s, tl, api, loc);
    const uint32_t need_min = min_bytes<T, U>(f, s);
    const uint32_t use = AscendC::opkit_softmax::BlockBytes(tl, row_floats<T, U>(f, s.k), need_min);
    const char* dt = dtype_name<T>();
    if (tmp && avail < need_min)
        fail_at(api, loc, "sharedTmpBuffer holds %llu B; %s on [%u, %u] %s needs at least %u B (%s): allocate at least "
                "that much", (unsigned long long)avail, api, s.m, s.k, dt, need_min, min_fn(f.kind));
    if (tmp && avail < use)
        fail_at(api, loc, "with this tiling (blocks of %u rows) %s uses %u B of scratch, past the %llu-B sharedTmpBuffer: "
                "compute the tiling with localWorkSpaceSize = %llu", tl.splitM ? tl.splitM : tl.srcM, api, use,
                (unsigned long long)avail, (unsigned long long)avail);
    if (!tmp && avail < use)
        fail_at(api, loc, "without a sharedTmpBuffer %s takes its %u B of scratch (%s on [%u, %u] %s, blocks of %u rows) from "
                "the UB above the kernel's buffers, which has %llu B: pass a sharedTmpBuffer or split the rows further",
                api, use, api, s.m, s.k, dt, tl.splitM ? tl.splitM : tl.srcM, (unsigned long long)avail);
    if (tmp) {
        for (const Opd& o : ops)
            if (overlaps(t, use, o))
                fail_at(api, loc, "sharedTmpBuffer (UB %llu, %u B used) overlaps the %s tensor (UB %llu); the API does not "
                        "support that (documented): give the scratch its own buffer", (unsigned long long)t.ub, use, o.role,
                        (unsigned long long)o.ub);
        touch(A_UB, t.ub, use, P_V, true, seq, site, api, loc);
        set_init(A_UB, t.ub, use, true);
    }
    return tl;
}

// Element index of logical (r, c) in a [m, k] source: ND row-major, or NZ column blocks of C0.
template <class T>
inline uint64_t at(bool nz, uint32_t m, uint32_t k, uint32_t r, uint32_t c) {
    constexpr uint32_t C0 = 32 / sizeof(T);
    return nz ? (uint64_t(c / C0) * m + r) * C0 + c % C0 : uint64_t(r) * k + c;
}

template <class T>
inline bool read_matrix(const Opd& o, bool nz, const Shape& s, uint32_t seq, uint16_t site, const char* api,
                        const SrcLoc& loc, std::vector<float>& x) {
    std::vector<T> raw;
    bool ok = read_src<T>(o, 0, uint64_t(s.m) * s.k, seq, site, api, loc, raw);
    x.resize(raw.size());
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t c = 0; c < s.k; ++c) x[uint64_t(r) * s.k + c] = float(raw[at<T>(nz, s.m, s.k, r, c)]);
    return ok;
}
// Written-state per row of an ND source that is not wholly written: a row's results need its valid elements
// (its max and sum read them all); empty when every byte was written, or for NZ data (judged as a whole).
template <class T>
inline std::vector<uint8_t> rows_written(const Opd& src, bool nz, const Shape& s, bool ok) {
    if (ok || nz || trace_only()) return {};
    std::vector<uint8_t> rows(s.m);
    for (uint32_t r = 0; r < s.m; ++r) rows[r] = all_init(A_UB, src.ub + uint64_t(r) * s.k * sizeof(T), uint64_t(s.kv) * sizeof(T));
    return rows;
}

template <class T>
inline void write_matrix(const Opd& o, bool nz, const Shape& s, const std::vector<float>& y, bool ok, uint32_t seq,
                         uint16_t site, const char* api, const SrcLoc& loc, const std::vector<uint8_t>& rows = {},
                         const Opd* src = nullptr) {
    std::vector<T> raw(y.size());
    for (uint32_t r = 0; r < s.m; ++r)
        for (uint32_t c = 0; c < s.k; ++c) raw[at<T>(nz, s.m, s.k, r, c)] = T(y[uint64_t(r) * s.k + c]);
    if (rows.empty()) {
        write_dst<T>(o, 0, raw.data(), raw.size(), ok, seq, site, api, loc);
        return;
    }
    for (uint32_t r = 0; r < s.m; ++r) {  // a padding column's result also needs its own source element
        const uint64_t row = uint64_t(r) * s.k;
        write_dst<T>(o, row, raw.data() + row, s.k, rows[r] != 0, seq, site, api, loc);
        if (rows[r] && src)
            for (uint32_t j = s.kv; j < s.k; ++j)
                if (!all_init(A_UB, src->ub + (row + j) * sizeof(T), sizeof(T)))
                    set_init(A_UB, o.ub + (row + j) * sizeof(T), sizeof(T), false);
    }
}

// Per-row values: one per row (no_brc) or repeated over a 32-byte block of U.
template <class U>
inline uint32_t stride(bool no_brc) { return no_brc ? 1 : 32 / sizeof(U); }

template <class U>
inline bool read_rows(const AscendC::LocalTensor<U>& t, const char* role, bool no_brc, uint32_t m, uint32_t seq,
                      uint16_t site, const char* api, const SrcLoc& loc, std::vector<float>& v) {
    Opd o = opd(t, false, 1, 8, role, api, loc);
    std::vector<U> raw;
    const uint32_t st = stride<U>(no_brc);
    bool ok = read_src<U>(o, 0, uint64_t(m) * st, seq, site, api, loc, raw);
    v.resize(m);
    for (uint32_t r = 0; r < m; ++r) v[r] = float(raw[uint64_t(r) * st]);
    return ok;
}
template <class U>
inline void write_rows(const AscendC::LocalTensor<U>& t, const char* role, bool no_brc, const std::vector<float>& v,
                       bool ok, uint32_t seq, uint16_t site, const char* api, const SrcLoc& loc,
                       const std::vector<uint8_t>& rows = {}) {
    Opd o = opd(t, true, 1, 8, role, api, loc);
    const uint32_t st = stride<U>(no_brc);
    std::vector<U> raw(v.size() * st);
    for (size_t r = 0; r < v.size(); ++r)
        for (uint32_t j = 0; j < st; ++j) raw[r * st + j] = U(v[r]);
    if (rows.empty()) {
        write_dst<U>(o, 0, raw.data(), raw.size(), ok, seq, site, api, loc);
        return;
    }
    for (size_t r = 0; r < v.size(); ++r)
        write_dst<U>(o, r * st, raw.data() + r * st, st, rows[r] != 0, seq, site, api, loc);
}

inline float row_max(const float* row, uint32_t n) {
    std::vector<float> v(row, row + n);
    float best;
    uint32_t idx;
    arg_best(v, true, best, idx);
    return best;
}
inline float row_sum(const float* row, uint32_t n) { return tree_sum<float>(std::vector<float>(row, row + n)); }

// The whole call: checks, scratch, the documented formulas per row, the outputs.
template <class T, class U, class E>
inline void run(const Flags& f, const Io<T, U, E>& io, const AscendC::tiling::SoftMaxTiling& tiling,
                const AscendC::SoftMaxShapeInfo& info, const SrcLoc& loc) {
    OPKIT_DTYPES("SoftMax/SimpleSoftMax/SoftmaxFlash/SoftmaxFlashV2", T, half, float);
    OPKIT_DTYPES("SoftMax/SimpleSoftMax/SoftmaxFlash/SoftmaxFlashV2 (sum/max)", U, half, float);
    const char* api = kind_name(f.kind);
    if (on_aic()) return;
    if (f.no_brc && f.kind != Kind::FlashV2)
        fail_at(api, loc, "SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC is reserved for %s on this chip (only SoftmaxFlashV2 "
                "takes it): use SOFTMAX_NORMAL", api);
    if (f.no_brc && f.nz)
        fail_at(api, loc, "SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC does not apply to NZ data (documented): use "
                "SOFTMAX_NORMAL with isDataFormatNZ");
    const Shape s = shape_of<T>(f, tiling, info, api, loc);
    CoreState& c = core();
    const uint32_t seq = issue(P_V);
    const uint16_t site = c.site(api, loc);
    Opd so = opd(*io.src, false, 1, 8, "src", api, loc), dso = opd(*io.dst, true, 1, 8, "dst", api, loc);
    const uint64_t mat = uint64_t(s.m) * s.k * sizeof(T), rowv = uint64_t(s.m) * stride<U>(f.no_brc) * sizeof(U);
    std::vector<Opd> ops{span(so, mat), span(dso, mat)};
    std::vector<float> x, im, is;
    bool ok = read_matrix<T>(so, f.nz, s, seq, site, api, loc, x);
    const bool src_ok = ok;
    const bool stats_in = f.kind == Kind::Simple || f.update;
    const AscendC::LocalTensor<U>* mx_in = f.kind == Kind::Simple ? io.max : io.in_max;
    const AscendC::LocalTensor<U>* sm_in = f.kind == Kind::Simple ? io.sum : io.in_sum;
    if (stats_in) {
        ok &= read_rows<U>(*mx_in, "inMax", f.no_brc, s.m, seq, site, api, loc, im);
        ok &= read_rows<U>(*sm_in, f.kind == Kind::Simple ? "inSum" : "inExpSum", f.no_brc, s.m, seq, site, api, loc, is);
        ops.push_back(span(opd(*mx_in, false, 1, 8, "inMax", api, loc), rowv));
        ops.push_back(span(opd(*sm_in, false, 1, 8, "inSum", api, loc), rowv));
    }
    if (f.kind != Kind::Simple && io.max) ops.push_back(span(opd(*io.max, true, 1, 8, "max", api, loc), rowv));
    if (f.kind != Kind::Simple && io.sum) ops.push_back(span(opd(*io.sum, true, 1, 8, "sum", api, loc), rowv));
    scratch<T, U>(f, s, tiling, io.tmp, ops, seq, site, api, loc);

    std::vector<float> y(x.size()), omax(s.m), osum(s.m), oexp(s.m), ored(s.m);
    for (uint32_t r = 0; r < s.m; ++r) {
        const float* row = x.data() + uint64_t(r) * s.k;
        float* out = y.data() + uint64_t(r) * s.k;
        if (f.kind == Kind::Simple) {  // dst = exp(x - max) / sum with the given max and sum
            for (uint32_t j = 0; j < s.k; ++j) out[j] = std::exp(row[j] - im[r]) / is[r];
            continue;
        }
        const float rmax = row_max(row, s.kv);
        const float mnew = f.update ? std::max(im[r], rmax) : rmax;
        if (f.update && (std::isnan(im[r]) || std::isnan(rmax))) omax[r] = NAN;
        else omax[r] = mnew;
        ored[r] = rmax;
        for (uint32_t j = 0; j < s.k; ++j) out[j] = std::exp(row[j] - omax[r]);
        float rsum = row_sum(out, s.kv);
        if (f.update) {
            oexp[r] = std::exp(im[r] - omax[r]);
            rsum = oexp[r] * is[r] + rsum;
        }
        osum[r] = rsum;
        if (f.kind == Kind::SoftMax || f.kind == Kind::Flash)
            for (uint32_t j = 0; j < s.k; ++j) out[j] = out[j] / rsum;
        if (f.kind == Kind::Flash && f.update) oexp[r] = oexp[r] * is[r] / rsum;
    }
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the results they reach are marked unwritten too)");
    // Only the source left unwritten (statistics read in whole): the rows whose valid elements were written keep
    // their results (a never-written padding element spoils only its own column).
    const std::vector<uint8_t> rows = ok == src_ok ? rows_written<T>(so, f.nz, s, ok) : std::vector<uint8_t>{};
    write_matrix<T>(dso, f.nz, s, y, ok, seq, site, api, loc, rows, &so);
    if (f.kind != Kind::Simple) {
        if (io.max) write_rows<U>(*io.max, "max", f.no_brc, omax, ok, seq, site, api, loc, rows);
        if (io.sum)
            write_rows<U>(*io.sum, f.kind == Kind::FlashV2 ? "expSum" : "sum", f.no_brc, osum, ok, seq, site, api, loc, rows);
        if (f.update && io.exp_max) write_rows<E>(*io.exp_max, "expMax", f.no_brc, oexp, ok, seq, site, api, loc, rows);
        if (f.update && io.reduce_max)
            write_rows<U>(*io.reduce_max, "outReduceMax", f.no_brc, ored, ok, seq, site, api, loc, rows);
    }
    const uint64_t bytes = uint64_t(s.m) * s.k * sizeof(float);
    // The row count and the form: the model prices the per-row steps (statistics updates, broadcasts) by rows.
    trace(P_V, bytes, (bytes + 255) / 256, api, dtype_name<T>(), nullptr, -1, s.m, f.update ? 1 : 0);
}

}  // namespace softmax
}  // namespace sim
}  // namespace opkit
