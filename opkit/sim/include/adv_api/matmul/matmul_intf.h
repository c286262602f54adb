// opkit simulator: the high-level Matmul API (kernel side).
//
// C[singleM x singleN] = A[singleM x singleK] * B[singleK x singleN] (+ bias[1 x singleN]) with ND
// operands in GM (or UB). Products are exact and accumulate in fp32 (int32 for int8) along K in
// order; the result is rounded once to C's dtype (RINT). The tiling only shapes Iterate/GetTensorC
// tiles; results do not depend on it. The core that calls the object computes: in MIX launches
// REGIST_MATMUL_OBJ returns on AIC cores (the AIV client computes, as the MIX server loop serves it
// on the NPU); in cube-only launches the AIC computes itself.
#pragma once
#include "kernel_operator.h"
#include "adv_api/matmul/matmul_config.h"

namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    static constexpr TPosition pos = POSITION;
    static constexpr CubeFormat format = FORMAT;
    using T = TYPE;
    static constexpr bool isTrans = ISTRANS;
    static constexpr LayoutMode layout = LAYOUT;
    static constexpr bool ibShare = IBSHARE;
    static constexpr TPosition srcPos = SRCPOS;
};

}  // namespace AscendC
#include "adv_api/matmul/constant_tiling.h"
namespace AscendC {

template <void* a = nullptr, void* b = nullptr, void* c = nullptr>
struct MatmulCallBackFunc {};

namespace opkit_mm {
template <class A, class B, class Bias, class C> struct legal : std::false_type {};
#define OPKIT_MM(A, B, BIAS, C) template <> struct legal<A, B, BIAS, C> : std::true_type {};
OPKIT_MM(float, float, float, float) OPKIT_MM(float, float, float, half) OPKIT_MM(float, float, half, float)
OPKIT_MM(float, float, half, half) OPKIT_MM(float, float, float, bfloat16_t)
OPKIT_MM(half, half, float, float) OPKIT_MM(half, half, float, half) OPKIT_MM(half, half, float, bfloat16_t)
OPKIT_MM(half, half, half, float) OPKIT_MM(half, half, half, half) OPKIT_MM(half, half, half, bfloat16_t)
OPKIT_MM(bfloat16_t, bfloat16_t, float, float) OPKIT_MM(bfloat16_t, bfloat16_t, float, half) OPKIT_MM(bfloat16_t, bfloat16_t, float, bfloat16_t)
OPKIT_MM(bfloat16_t, bfloat16_t, half, float) OPKIT_MM(bfloat16_t, bfloat16_t, half, half)
OPKIT_MM(int8_t, int8_t, int32_t, int32_t) OPKIT_MM(int8_t, int8_t, int32_t, half)
#undef OPKIT_MM
template <class T> using acc_t = typename std::conditional<std::is_integral<T>::value, int64_t, float>::type;
}  // namespace opkit_mm

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>, class POLICY = void>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    static_assert(opkit_mm::legal<SrcAT, SrcBT, BiasT, DstT>::value,
                  "Ascend C Matmul: this (A, B, bias -> C) dtype combination (see 'with A_TYPE = ...' above) is not supported "
                  "by the cube unit of " OPKIT_SIM_SOC " (" OPKIT_SIM_ARCH_NAME ")");
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND,
                  "opkit simulator: Matmul operands in NZ format are not simulated yet");

    using CfgT = typename std::decay<decltype(MM_CFG)>::type;
    static_assert(std::is_same<CfgT, MatmulConfig>::value || opkit_mm::is_static_tiling<CfgT>::value,
                  "Ascend C Matmul: MM_CFG must be a MatmulConfig (CFG_NORM, GetMDLConfig(), ...) or a "
                  "MatmulApiStaticTiling (GetMatmulApiTiling<...>(cfg))");

public:
    using AType = A_TYPE;
    using BType = B_TYPE;
    using CType = C_TYPE;
    using BiasType = BIAS_TYPE;
    using SrcT = SrcAT;
    using CallBack = MM_CB;
    // The MatmulConfig the object was declared with (the cfg of a static tiling).
    static constexpr const MatmulConfig& config = opkit_mm::to_config(MM_CFG);

    // A nullptr tiling takes the shapes of a MatmulApiStaticTiling MM_CFG (fields it leaves -1 stay
    // for SetOrgShape / SetSingleShape); a runtime tiling replaces them.
    void Init(const TCubeTiling* tiling, TPipe* pipe = nullptr) {
        (void)pipe;
        if constexpr (opkit_mm::is_static_tiling<CfgT>::value) {
            if (!tiling) tiling_ = from_static(MM_CFG);
        }
        if (tiling) tiling_ = *tiling;
        m_ = tiling_.singleCoreM ? tiling_.singleCoreM : tiling_.M;
        n_ = tiling_.singleCoreN ? tiling_.singleCoreN : tiling_.N;
        k_ = tiling_.singleCoreK ? tiling_.singleCoreK : tiling_.Ka;
        orgM_ = tiling_.M; orgN_ = tiling_.N; orgKa_ = tiling_.Ka; orgKb_ = tiling_.Kb ? tiling_.Kb : tiling_.Ka; orgKc_ = 0;
        bias_on_ = tiling_.isBias != 0;
        inited_ = true;
    }
    void SetSubBlockIdx(uint8_t) {}
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, 0); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        orgM_ = orgM; orgN_ = orgN; orgKa_ = orgKa; orgKb_ = orgKb; orgKc_ = orgKc;
    }
    void SetSingleShape(int m, int n, int k) { m_ = m; n_ = n; k_ = k; }
    void SetTail(int m = -1, int n = -1, int k = -1) {
        if (m >= 0) m_ = m;
        if (n >= 0) n_ = n;
        if (k >= 0) k_ = k;
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) { a_ = gm.GetPhyAddr(); a_local_ = false; ta_ = isTransposeA || A_TYPE::isTrans; }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) { b_ = gm.GetPhyAddr(); b_local_ = false; tb_ = isTransposeB || B_TYPE::isTrans; }
    void SetTensorA(const LocalTensor<SrcAT>& t, bool isTransposeA = false) { a_ = t.data(); a_local_ = true; a_lt_ = t.template ReinterpretCast<uint8_t>(); ta_ = isTransposeA || A_TYPE::isTrans; }
    void SetTensorB(const LocalTensor<SrcBT>& t, bool isTransposeB = false) { b_ = t.data(); b_local_ = true; b_lt_ = t.template ReinterpretCast<uint8_t>(); tb_ = isTransposeB || B_TYPE::isTrans; }
    void SetBias(const GlobalTensor<BiasT>& gm) { bias_ = gm.GetPhyAddr(); bias_on_ = true; }
    void DisableBias() { bias_on_ = false; }
    void ClearBias() { bias_on_ = false; }
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    template <class T> void SetWorkspace(const GlobalTensor<T>&) {}
    void SetQuantScalar(uint64_t) { quant_ = true; }
    template <class T> void SetQuantVector(const GlobalTensor<T>&) { quant_ = true; }
    void End() { iter_ = -1; }
    void WaitIterateAll() {}
    template <bool sync = true> void WaitIterateBatch() {}

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, OPKIT_LOC) {
        (void)enSequentialWrite; (void)waitIterateAll;
        if (fakeMsg) return;
        std::vector<DstT> c;
        compute(0, 0, m_, n_, c, loc);
        uint64_t ldc = orgKc_ > 0 ? uint64_t(orgKc_) : uint64_t(orgN_ > 0 ? orgN_ : n_);
        store_gm(gm.GetPhyAddr(), ldc, 0, 0, m_, n_, c, enAtomic, loc);
    }
    void IterateAll(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, OPKIT_LOC) {
        std::vector<DstT> c;
        compute(0, 0, m_, n_, c, loc);
        store_ub(ub, uint64_t(n_), 0, 0, m_, n_, c, enAtomic, loc);
    }

    // Tile by tile: baseM x baseN tiles, M first (N first with iterateOrder 1).
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false) {
        (void)enPartialSum;
        int bm = tiling_.baseM > 0 ? tiling_.baseM : m_, bn = tiling_.baseN > 0 ? tiling_.baseN : n_;
        int tm = (m_ + bm - 1) / bm, tn = (n_ + bn - 1) / bn;
        if (iter_ < 0) iter_ = 0; else ++iter_;
        if (iter_ >= tm * tn) { iter_ = -1; return false; }
        bool n_first = tiling_.iterateOrder == 1;
        int im = n_first ? iter_ / tn : iter_ % tm, in = n_first ? iter_ % tn : iter_ / tm;
        r0_ = im * bm; c0_ = in * bn;
        rows_ = std::min(bm, m_ - r0_); cols_ = std::min(bn, n_ - c0_);
        return true;
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, OPKIT_LOC) {
        if (iter_ < 0) opkit::sim::fail_at("Matmul::GetTensorC", loc, "no tile: call Iterate() first");
        std::vector<DstT> c;
        compute(r0_, c0_, rows_, cols_, c, loc);
        if (enSequentialWrite) store_gm(gm.GetPhyAddr(), uint64_t(cols_), 0, 0, rows_, cols_, c, enAtomic, loc);
        else {
            uint64_t ldc = orgKc_ > 0 ? uint64_t(orgKc_) : uint64_t(orgN_ > 0 ? orgN_ : n_);
            store_gm(gm.GetPhyAddr(), ldc, r0_, c0_, rows_, cols_, c, enAtomic, loc);
        }
    }
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, bool enSequentialWrite = false, OPKIT_LOC) {
        (void)enSequentialWrite;
        if (iter_ < 0) opkit::sim::fail_at("Matmul::GetTensorC", loc, "no tile: call Iterate() first");
        std::vector<DstT> c;
        compute(r0_, c0_, rows_, cols_, c, loc);
        store_ub(ub, uint64_t(cols_), 0, 0, rows_, cols_, c, enAtomic, loc);
    }

private:
    static TCubeTiling from_static(const MatmulApiStaticTiling& st) {
        TCubeTiling t{};
        auto pick = [](int32_t v) { return v < 0 ? 0 : v; };
        t.usedCoreNum = pick(st.usedCoreNum); t.M = pick(st.M); t.N = pick(st.N); t.Ka = pick(st.Ka); t.Kb = pick(st.Kb);
        t.singleCoreM = pick(st.singleCoreM); t.singleCoreN = pick(st.singleCoreN); t.singleCoreK = pick(st.singleCoreK);
        t.baseM = pick(st.baseM); t.baseN = pick(st.baseN); t.baseK = pick(st.baseK);
        t.depthA1 = pick(st.depthA1); t.depthB1 = pick(st.depthB1); t.stepM = pick(st.stepM); t.stepN = pick(st.stepN);
        t.isBias = pick(st.isBias); t.transLength = pick(st.transLength); t.iterateOrder = pick(st.iterateOrder);
        t.shareMode = pick(st.shareMode); t.shareL1Size = pick(st.shareL1Size); t.shareL0CSize = pick(st.shareL0CSize);
        t.shareUbSize = pick(st.shareUbSize); t.stepKa = pick(st.stepKa); t.stepKb = pick(st.stepKb);
        t.dbL0A = pick(st.dbL0A); t.dbL0B = pick(st.dbL0B); t.dbL0C = pick(st.dbL0C); t.BatchNum = pick(st.BatchNum);
        return t;
    }
    template <class T>
    T read(const T* base, bool local, const LocalTensor<uint8_t>& lt, uint64_t idx, const char* what, const opkit::sim::SrcLoc& loc) const {
        if (local) {
            if ((idx + 1) * sizeof(T) > lt.GetSize())
                opkit::sim::fail_at("Matmul", loc, "%s local tensor out of bounds at element %llu", what, (unsigned long long)idx);
            if (!opkit::sim::all_init(lt.arena(), lt.address_.bufferAddr + idx * sizeof(T), sizeof(T)))
                opkit::sim::fail_at("Matmul", loc, "%s element %llu in UB was never written", what, (unsigned long long)idx);
        }
        T v;
        std::memcpy(&v, base + idx, sizeof(T));
        return v;
    }
    void check_rows(const void* base, uint64_t row_elems, uint64_t ld, uint64_t rows, uint64_t first_row, uint64_t col0, size_t esz,
                    const char* what, const opkit::sim::SrcLoc& loc) const {
        for (uint64_t r = 0; r < rows; ++r)
            opkit::sim::gm_check(static_cast<const uint8_t*>(base) + ((first_row + r) * ld + col0) * esz, row_elems * esz, "Matmul", loc, what);
    }
    // C tile [rows x cols] at (r0, c0) of the single-core result.
    void compute(int r0, int c0, int rows, int cols, std::vector<DstT>& out, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        if (!inited_) fail_at("Matmul", loc, "Init (or REGIST_MATMUL_OBJ) was not called");
        if (!a_ || !b_) fail_at("Matmul", loc, "SetTensorA and SetTensorB must be called before computing");
        if (quant_) fail_at("Matmul", loc, "quantised outputs (SetQuantScalar/SetQuantVector) are not simulated yet");
        const int K = k_;
        // A: [M, K] row stride orgKa, or transposed storage [K, M] row stride orgM
        uint64_t lda = ta_ ? uint64_t(orgM_ > 0 ? orgM_ : m_) : uint64_t(orgKa_ > 0 ? orgKa_ : K);
        uint64_t ldb = tb_ ? uint64_t(orgKb_ > 0 ? orgKb_ : K) : uint64_t(orgN_ > 0 ? orgN_ : n_);
        if (!a_local_) {
            if (ta_) check_rows(a_, rows, lda, K, 0, r0, sizeof(SrcAT), "read of A", loc);
            else check_rows(a_, K, lda, rows, r0, 0, sizeof(SrcAT), "read of A", loc);
        }
        if (!b_local_) {
            if (tb_) check_rows(b_, K, ldb, cols, c0, 0, sizeof(SrcBT), "read of B", loc);
            else check_rows(b_, cols, ldb, K, 0, c0, sizeof(SrcBT), "read of B", loc);
        }
        if (bias_on_ && bias_) gm_check(bias_ + c0, uint64_t(cols) * sizeof(BiasT), "Matmul", loc, "read of bias");
        using Acc = opkit_mm::acc_t<SrcAT>;
        out.assign(size_t(rows) * cols, DstT(0));
        std::vector<Acc> arow(K);
        // Trace-only mode: no products when both operands are in GM (check_rows covered them).
        const bool skip = trace_only() && !a_local_ && !b_local_;
        for (int i = 0; i < (skip ? 0 : rows); ++i) {
            for (int k = 0; k < K; ++k) {
                uint64_t idx = ta_ ? uint64_t(k) * lda + (r0 + i) : uint64_t(r0 + i) * lda + k;
                arow[k] = Acc(read(a_, a_local_, a_lt_, idx, "A", loc));
            }
            for (int j = 0; j < cols; ++j) {
                Acc acc = 0;
                for (int k = 0; k < K; ++k) {
                    uint64_t idx = tb_ ? uint64_t(c0 + j) * ldb + k : uint64_t(k) * ldb + (c0 + j);
                    acc += arow[k] * Acc(read(b_, b_local_, b_lt_, idx, "B", loc));
                }
                if (bias_on_ && bias_) acc += Acc(bias_[c0 + j]);
                out[size_t(i) * cols + j] = cvt(acc);
            }
        }
        trace(P_M, uint64_t(rows) * cols * K, cube::mac_units<SrcAT>(rows, cols, K), "Mmad", dtype_name<SrcAT>());
    }
    static DstT cvt(float v) { return opkit::sim::cast_to_rint<DstT>(v); }
    static DstT cvt(int64_t v) {
        if (std::is_same<DstT, int32_t>::value) return DstT(int32_t(v));
        return DstT(float(v));
    }
    void store_gm(DstT* base, uint64_t ld, int r0, int c0, int rows, int cols, const std::vector<DstT>& c, uint8_t atomic,
                  const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        std::lock_guard<std::mutex> lk(G().atomic_mu);
        for (int i = 0; i < rows; ++i) {
            DstT* row = base + (uint64_t(r0 + i) * ld + c0);
            gm_check(row, uint64_t(cols) * sizeof(DstT), "Matmul", loc, "write of C");
            if (trace_only()) continue;  // no data bytes in trace-only mode
            for (int j = 0; j < cols; ++j) row[j] = atomic ? DstT(float(row[j]) + float(c[size_t(i) * cols + j])) : c[size_t(i) * cols + j];
        }
        trace(P_FIX, uint64_t(rows) * cols * sizeof(DstT), uint64_t(rows), "Fixpipe", dtype_name<DstT>());
    }
    void store_ub(const LocalTensor<DstT>& ub, uint64_t ld, int r0, int c0, int rows, int cols, const std::vector<DstT>& c, uint8_t atomic,
                  const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        uint64_t need = (uint64_t(r0 + rows - 1) * ld + c0 + cols) * sizeof(DstT);
        if (need > ub.GetLength()) fail_at("Matmul", loc, "C local tensor out of bounds: %llu bytes needed, tensor holds %u",
                                           (unsigned long long)need, ub.GetLength());
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                uint64_t idx = uint64_t(r0 + i) * ld + c0 + j;
                DstT v = c[size_t(i) * cols + j];
                if (atomic) v = DstT(float(ub.data()[idx]) + float(v));
                ub.data()[idx] = v;
                set_init(ub.arena(), ub.address_.bufferAddr + idx * sizeof(DstT), sizeof(DstT));
            }
    }

    TCubeTiling tiling_{};
    bool inited_ = false, ta_ = false, tb_ = false, bias_on_ = false, quant_ = false, a_local_ = false, b_local_ = false;
    int m_ = 0, n_ = 0, k_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    const SrcAT* a_ = nullptr;
    const SrcBT* b_ = nullptr;
    const BiasT* bias_ = nullptr;
    LocalTensor<uint8_t> a_lt_, b_lt_;
    int iter_ = -1, r0_ = 0, c0_ = 0, rows_ = 0, cols_ = 0;
};

template <class A, class B, class C, class BIAS = C, const auto& CFG = CFG_NORM, class CB = MatmulCallBackFunc<>, class P = void>
using MatmulImpl = Matmul<A, B, C, BIAS, CFG, CB, P>;

namespace opkit_mm {
inline void regist(TPipe*) {}
template <class MM, class... Rest>
inline void regist(TPipe* pipe, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    mm.SetSubBlockIdx(0);
    mm.Init(tiling, pipe);
    regist(pipe, rest...);
}
template <class MM>
inline void regist(TPipe* pipe, MM& mm) {
    mm.SetSubBlockIdx(0);
    mm.Init(nullptr, pipe);
}
}  // namespace opkit_mm

}  // namespace AscendC

namespace matmul = AscendC;

// On AIC cores the MIX server loop ends the kernel; the AIV client binds the objects to their tilings.
#define REGIST_MATMUL_OBJ(pipe, workspace, ...)                                 \
    if (g_coreType == AscendC::AIC && ::opkit::sim::launch_is_mix()) {         \
        return;                                                                 \
    }                                                                           \
    (void)(workspace);                                                          \
    AscendC::opkit_mm::regist((pipe), __VA_ARGS__)
