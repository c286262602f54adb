// opkit simulator: the high-level Matmul API (kernel side): the client object.
//
// C[singleM x singleN] = A[singleM x singleK] * B[singleK x singleN] (+ bias[1 x singleN]) with ND
// operands in GM (or UB). Every call becomes a job of cube instructions (matmul_cube_steps.h): products
// are exact and accumulate in fp32 (int32 for int8) along K in order in L0C; Fixpipe rounds once to C's
// dtype (RINT). Where the job runs: in MIX launches on the AIC of the calling AIV (its REGIST_MATMUL_OBJ
// runs the server loop, matmul_server.h); in AIC-only launches inline on the calling AIC. Sync calls post
// and wait; async ones (template argument false) post and return, the Wait* calls block.
#pragma once
#include "kernel_operator.h"
#include "adv_api/matmul/matmul_config.h"
#include "adv_api/matmul/matmul_cube_steps.h"
#include "adv_api/matmul/matmul_server.h"

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
inline const char* tpos_name(TPosition p) {
    switch (p) {
        case TPosition::GM: return "GM";
        case TPosition::A1: return "A1";
        case TPosition::A2: return "A2";
        case TPosition::B1: return "B1";
        case TPosition::B2: return "B2";
        case TPosition::C1: return "C1";
        case TPosition::C2: return "C2";
        case TPosition::CO1: return "CO1";
        case TPosition::CO2: return "CO2";
        case TPosition::VECIN: return "VECIN";
        case TPosition::VECOUT: return "VECOUT";
        case TPosition::VECCALC: return "VECCALC";
        case TPosition::TSCM: return "TSCM";
        default: return "other-position";
    }
}
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

    using CfgT = typename std::decay<decltype(MM_CFG)>::type;
    static_assert(std::is_same<CfgT, MatmulConfig>::value || opkit_mm::is_static_tiling<CfgT>::value,
                  "Ascend C Matmul: MM_CFG must be a MatmulConfig (CFG_NORM, GetMDLConfig(), ...) or a "
                  "MatmulApiStaticTiling (GetMatmulApiTiling<...>(cfg))");
    using Ops = opkit_mm::Operands<SrcAT, SrcBT, BiasT>;
    using Acc = typename opkit::sim::cube::acc_of<SrcAT>::type;

public:
    using AType = A_TYPE;
    using BType = B_TYPE;
    using CType = C_TYPE;
    using BiasType = BIAS_TYPE;
    using SrcT = SrcAT;
    using CallBack = MM_CB;
    // The MatmulConfig the object was declared with (the cfg of a static tiling).
    static constexpr const MatmulConfig& config = opkit_mm::to_config(MM_CFG);

    Matmul() = default;
    Matmul(const Matmul&) = delete;
    Matmul& operator=(const Matmul&) = delete;
    ~Matmul() {
        if (all_pending_ && opkit::sim::cur_launch())
            opkit::sim::fail_at("Matmul::WaitIterateAll", all_loc_,
                                "the kernel ended with the asynchronous IterateAll<false> called here (waitIterateAll = true) "
                                "still outstanding: call WaitIterateAll() before reading C or ending the kernel");
    }

    // A nullptr tiling takes the shapes of a MatmulApiStaticTiling MM_CFG (fields it leaves -1 stay
    // for SetOrgShape / SetSingleShape); a runtime tiling replaces them.
    void Init(const TCubeTiling* tiling, TPipe* pipe = nullptr) {
        pipe_ = pipe;
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
    void SetTensorA(const LocalTensor<SrcAT>& t, bool isTransposeA = false) { a_local_ = true; a_lt_ = t; ta_ = isTransposeA || A_TYPE::isTrans; }
    void SetTensorB(const LocalTensor<SrcBT>& t, bool isTransposeB = false) { b_local_ = true; b_lt_ = t; tb_ = isTransposeB || B_TYPE::isTrans; }
    void SetBias(const GlobalTensor<BiasT>& gm) { bias_ = gm.GetPhyAddr(); bias_local_ = false; bias_on_ = true; }
    // A bias in UB (VECIN/VECCALC) of an AIV client: it travels UB -> GM workspace (MTE3, at the call that computes)
    // and from there the GM bias path (L1, BiasTable).
    void SetBias(const LocalTensor<BiasT>& t) { bias_lt_ = t; bias_local_ = true; bias_ = nullptr; bias_on_ = true; }
    void DisableBias() { bias_on_ = false; }
    void ClearBias() { bias_on_ = false; }
    // CANN's UB scratch of the Matmul (VECCALC, at least MatmulGetTmpBufSize's ubSize = max(shareUbSize,
    // 2 * transLength) bytes of the tiling). Only the cores whose cube reads ND operands and writes C through UB use
    // it (NPU arch 1001/2002: ND2NZ and NZ2ND in UB); the 910B data path (ND2NZ DataCopy into L1, Fixpipe out) has
    // no use for it: the buffer is checked, then left to the kernel. On an AIC, which has no UB, it is an error.
    void SetLocalWorkspace(const LocalTensor<uint8_t>& tmpBuffer, OPKIT_LOC) {
        using namespace opkit::sim;
        static_assert(!config.enableMixDualMaster,
                      "Ascend C Matmul: SetLocalWorkspace is not supported with enableMixDualMaster (MatmulConfig)");
        const char* api = "Matmul::SetLocalWorkspace";
        const uint64_t need = std::max<uint64_t>(uint64_t(std::max(tiling_.shareUbSize, 0)),
                                                 2 * uint64_t(std::max(tiling_.transLength, 0)));
        if (core().core_type == CT_AIC)
            fail_at(api, loc, "called on an AIC, which has no UB: on %s (%s) the Matmul stages nothing in UB (ND2NZ DataCopy "
                    "into L1, Fixpipe out), so CANN's cube-side Matmul refuses the call; remove it (kernels call it only "
                    "for __CCE_AICORE__ < 220)", OPKIT_SIM_SOC, OPKIT_SIM_ARCH_NAME);
        if (!tmpBuffer.address_.absAddr)
            fail_at(api, loc, "tmpBuffer has no buffer (not allocated, or Get() / AllocTensor() not called): give a VECCALC "
                    "tensor of at least %llu bytes (MatmulGetTmpBufSize's ubSize)", (unsigned long long)need);
        if (tmpBuffer.arena() != A_UB || tmpBuffer.GetPosition() != TPosition::VECCALC)
            fail_at(api, loc, "tmpBuffer is a %s tensor in %s: it must be a VECCALC tensor in UB (TBuf<TPosition::VECCALC>) of at "
                    "least %llu bytes (MatmulGetTmpBufSize's ubSize)", opkit_mm::tpos_name(tmpBuffer.GetPosition()),
                    tmpBuffer.arena() >= 0 ? arena_name(tmpBuffer.arena()) : "no buffer", (unsigned long long)need);
        const uint64_t have = uint64_t(tmpBuffer.GetSize());
        if (have < need)
            fail_at(api, loc, "tmpBuffer holds %llu bytes; the tiling needs at least %llu (MatmulGetTmpBufSize's ubSize = "
                    "max(shareUbSize %d, 2 x transLength %d)): allocate at least %llu bytes", (unsigned long long)have,
                    (unsigned long long)need, tiling_.shareUbSize, tiling_.transLength, (unsigned long long)need);
    }
    template <class T> void SetWorkspace(const GlobalTensor<T>& ws) {
        ws_ = reinterpret_cast<uint8_t*>(ws.GetPhyAddr());
        ws_bytes_ = uint64_t(ws.GetSize()) * sizeof(T);
    }
    template <class T> void SetWorkspace(__gm__ const T* addr, int size) {
        ws_ = reinterpret_cast<uint8_t*>(const_cast<T*>(addr));
        ws_bytes_ = uint64_t(size);
    }
    void SetQuantScalar(uint64_t) { quant_ = true; }
    template <class T> void SetQuantVector(const GlobalTensor<T>&) { quant_ = true; }
    void End(OPKIT_LOC) {
        if (all_pending_)
            opkit::sim::fail_at("Matmul::End", loc,
                                "the asynchronous IterateAll<false> called at %s:%d (waitIterateAll = true) is still outstanding: call "
                                "WaitIterateAll() before End()",
                                all_loc_.file ? all_loc_.file : "?", all_loc_.line);
        wait_all("Matmul::End", loc);
        if (opkit::sim::core().core_type == opkit::sim::CT_AIC && steps_.ready()) steps_.end_job();  // AIC-only: inline
        iter_ = -1;
    }
    void WaitIterateAll(OPKIT_LOC) {
        wait_all("Matmul::WaitIterateAll", loc);
        all_pending_ = false;
    }
    template <bool sync = true> void WaitIterateBatch(OPKIT_LOC) { wait_all("Matmul::WaitIterateBatch", loc); }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false, OPKIT_LOC) {
        (void)enSequentialWrite;
        if (fakeMsg) return;
        Ops op = operands("Matmul::IterateAll", loc, true);
        DstT* c = gm.GetPhyAddr();
        const CLayout cl = c_layout();
        const uint8_t atomic = enAtomic;
        TileWalk w = walk();
        if (cl.nz) cl.check(w.bn, "Matmul::IterateAll", loc);
        submit("Matmul::IterateAll", loc, 0, [op, c, cl, atomic, w, loc](Matmul* s) {
            s->prepare(op, w, loc);
            for (int t = 0; t < w.count(); ++t) {
                int r0, c0, rows, cols;
                w.at(t, r0, c0, rows, cols);
                s->steps_.tile(op, r0, c0, rows, cols, loc);
                s->steps_.out(c + cl.offset(r0, c0), cl.ld, rows, cols, atomic, cl.nz, loc);
            }
        }, sync);
        // async with waitIterateAll: the kernel promises a WaitIterateAll (without it, the kernel waits its own way;
        // End waits for the job)
        if (!sync && waitIterateAll) {
            all_pending_ = true;
            all_loc_ = loc;
        }
    }
    // The whole result to UB (VECIN): L0C -> GM workspace (Fixpipe, on the AIC) -> UB (DataCopy, on the AIV).
    void IterateAll(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, OPKIT_LOC) {
        if (enAtomic) opkit::sim::fail_at("Matmul::IterateAll", loc, "enAtomic with a UB (VECIN) destination is not simulated");
        both_shared("Matmul::IterateAll", loc);
        Ops op = operands("Matmul::IterateAll", loc);
        const uint64_t ld = uint64_t(n_);
        DstT* ws = workspace(uint64_t(m_) * n_ * sizeof(DstT), "Matmul::IterateAll", loc);
        TileWalk w = walk();
        submit("Matmul::IterateAll", loc, 0, [op, ws, ld, w, loc](Matmul* s) {
            s->prepare(op, w, loc);
            for (int t = 0; t < w.count(); ++t) {
                int r0, c0, rows, cols;
                w.at(t, r0, c0, rows, cols);
                s->steps_.tile(op, r0, c0, rows, cols, loc);
                s->steps_.out(ws + uint64_t(r0) * ld + c0, ld, rows, cols, 0, false, loc);
            }
        }, true);
        to_ub(ub, ws, uint64_t(m_) * n_, "Matmul::IterateAll", loc);
    }

    // Tile by tile: baseM x baseN tiles, M first (N first with iterateOrder 1). The tile stays in L0C (the
    // server serves only this client) until GetTensorC reads it out.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, OPKIT_LOC) {
        if (enPartialSum) opkit::sim::fail_at("Matmul::Iterate", loc, "enPartialSum (accumulating onto the previous L0C tile) is not simulated");
        both_shared("Matmul::Iterate", loc);
        TileWalk w = walk();
        if (iter_ < 0) iter_ = 0; else ++iter_;
        if (iter_ >= w.count()) { iter_ = -1; return false; }
        w.at(iter_, r0_, c0_, rows_, cols_);
        Ops op = operands("Matmul::Iterate", loc, true);
        const int r0 = r0_, c0 = c0_, rows = rows_, cols = cols_;
        submit("Matmul::Iterate", loc, 1, [op, w, r0, c0, rows, cols, loc](Matmul* s) {
            s->prepare(op, w, loc);
            s->steps_.tile(op, r0, c0, rows, cols, loc);
        }, sync);
        return true;
    }
    // The tile into an L0C tensor of the kernel's own (operands it placed in L1 itself): refused.
    template <bool sync = true, typename T>
    bool Iterate(bool enPartialSum, const LocalTensor<T>& localCmatrix, OPKIT_LOC) {
        (void)enPartialSum; (void)localCmatrix;
        opkit::sim::fail_at("Matmul::Iterate", loc, "Iterate into a local L0C matrix (the kernel's own CO1 tensor, operands the kernel "
                            "placed in L1) is not simulated: use Iterate() and GetTensorC");
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, OPKIT_LOC) {
        if (iter_ < 0) opkit::sim::fail_at("Matmul::GetTensorC", loc, "no tile: call Iterate() first");
        CLayout cl = c_layout();
        if (cl.nz && enSequentialWrite)
            opkit::sim::fail_at("Matmul::GetTensorC", loc, "enSequentialWrite with a C in NZ format is not simulated");
        if (cl.nz) cl.check(walk().bn, "Matmul::GetTensorC", loc);
        if (enSequentialWrite) cl.ld = uint64_t(cols_);
        DstT* c = gm.GetPhyAddr() + (enSequentialWrite ? 0 : cl.offset(r0_, c0_));
        const int rows = rows_, cols = cols_;
        const uint8_t atomic = enAtomic;
        submit("Matmul::GetTensorC", loc, -1, [c, cl, rows, cols, atomic, loc](Matmul* s) {
            s->steps_.out(c, cl.ld, rows, cols, atomic, cl.nz, loc);
        }, sync);
    }
    // The tile to UB (VECIN): L0C -> GM workspace (Fixpipe, on the AIC) -> UB (DataCopy, on the AIV), rows of cols elements.
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0, bool enSequentialWrite = false, OPKIT_LOC) {
        (void)enSequentialWrite;
        if (iter_ < 0) opkit::sim::fail_at("Matmul::GetTensorC", loc, "no tile: call Iterate() first");
        if (!sync) opkit::sim::fail_at("Matmul::GetTensorC", loc, "GetTensorC<false> to a UB (VECIN) tensor is not simulated: use GetTensorC<true>");
        if (enAtomic) opkit::sim::fail_at("Matmul::GetTensorC", loc, "enAtomic with a UB (VECIN) destination is not simulated");
        const uint64_t ld = uint64_t(cols_);
        DstT* ws = workspace(uint64_t(rows_) * cols_ * sizeof(DstT), "Matmul::GetTensorC", loc);
        const int rows = rows_, cols = cols_;
        submit("Matmul::GetTensorC", loc, -1, [ws, ld, rows, cols, loc](Matmul* s) {
            s->steps_.out(ws, ld, rows, cols, 0, false, loc);
        }, true);
        to_ub(ub, ws, uint64_t(rows) * cols, "Matmul::GetTensorC", loc);
    }

    // A batch of max(batchA, batchB) products of the single shape (layout NORMAL or none: matrices one after another,
    // matrixStrideA/B/C elements apart, 0 = dense), one job; batchA or batchB 1 broadcasts that operand.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0,
                      const bool enPartialSum = false, const uint8_t enAtomic = 0, OPKIT_LOC) {
        using namespace opkit::sim;
        const char* api = "Matmul::IterateBatch";
        (void)enSequentialWrite;
        for (LayoutMode l : {A_TYPE::layout, B_TYPE::layout, C_TYPE::layout})
            if (l != LayoutMode::NONE && l != LayoutMode::NORMAL)
                fail_at(api, loc, "layout %s is not simulated: IterateBatch takes LayoutMode::NORMAL (matrices one after another)",
                        l == LayoutMode::BSNGD ? "BSNGD" : l == LayoutMode::SBNGD ? "SBNGD" : "BNGS1S2");
        if (enPartialSum) fail_at(api, loc, "enPartialSum is not simulated");
        if (batchA == 0 || batchB == 0) fail_at(api, loc, "batchA %u and batchB %u must be at least 1", batchA, batchB);
        if (batchA != batchB && batchA != 1 && batchB != 1)
            fail_at(api, loc, "batchA %u and batchB %u: only equal batches or a batch of 1 (broadcast) are simulated", batchA, batchB);
        Ops op = operands(api, loc);
        if (op.a_nz || op.b_nz) fail_at(api, loc, "NZ operands in IterateBatch are not simulated: give ND matrices");
        const uint32_t nb = std::max(batchA, batchB);
        const uint64_t sa = matrixStrideA ? matrixStrideA : uint64_t(ta_ ? k_ : m_) * op.lda;
        const uint64_t sb = matrixStrideB ? matrixStrideB : uint64_t(tb_ ? n_ : k_) * op.ldb;
        const uint64_t ldc = ldc_();
        const uint64_t sc = matrixStrideC ? matrixStrideC : uint64_t(m_) * ldc;
        DstT* c = gm.GetPhyAddr();
        const uint8_t atomic = enAtomic;
        const uint32_t ba = batchA, bb = batchB;
        TileWalk w = walk();
        submit(api, loc, 0, [op, c, ldc, atomic, w, nb, ba, bb, sa, sb, sc, loc](Matmul* s) {
            s->prepare(op, w, loc);
            for (uint32_t i = 0; i < nb; ++i) {
                Ops o = op;
                o.a = op.a + (ba == 1 ? 0 : uint64_t(i) * sa);
                o.b = op.b + (bb == 1 ? 0 : uint64_t(i) * sb);
                for (int t = 0; t < w.count(); ++t) {
                    int r0, c0, rows, cols;
                    w.at(t, r0, c0, rows, cols);
                    s->steps_.tile(o, r0, c0, rows, cols, loc);
                    s->steps_.out(c + uint64_t(i) * sc + uint64_t(r0) * ldc + c0, ldc, rows, cols, atomic, false, loc);
                }
            }
        }, sync || waitIterateBatch);
    }

    // Used by REGIST_MATMUL_OBJ: the object's place in the registration (the server finds its own instance by it).
    void opkit_set_index(int i) { index_ = i; }

private:
    // The tiles of the single shape, in the tiling's order (CANN's Norm scheduler): iterateOrder 0 (ORDER_M) walks the
    // N tiles in groups of stepN, and within a group the M tiles, each over the group's N tiles; iterateOrder 1 the
    // same with M and N swapped (groups of stepM). With steps of 1: M fastest (ORDER_M), N fastest (ORDER_N).
    struct TileWalk {
        int m = 0, n = 0, bm = 1, bn = 1, tm = 0, tn = 0, step = 1;
        bool n_first = false;
        int count() const { return tm * tn; }
        void at(int t, int& r0, int& c0, int& rows, int& cols) const {
            const int outer = n_first ? tm : tn, inner = n_first ? tn : tm;  // grouped axis, the axis walked per group
            const int g = t / (inner * step), r = t % (inner * step), size = std::min(step, outer - g * step);
            const int grouped = g * step + r % size, walked = r / size;
            const int im = n_first ? grouped : walked, in = n_first ? walked : grouped;
            r0 = im * bm; c0 = in * bn;
            rows = std::min(bm, m - r0); cols = std::min(bn, n - c0);
        }
    };
    TileWalk walk() const {
        TileWalk w;
        w.m = m_; w.n = n_;
        w.bm = tiling_.baseM > 0 ? tiling_.baseM : std::max(m_, 1);
        w.bn = tiling_.baseN > 0 ? tiling_.baseN : std::max(n_, 1);
        w.tm = (m_ + w.bm - 1) / w.bm; w.tn = (n_ + w.bn - 1) / w.bn;
        w.n_first = tiling_.iterateOrder == 1;
        w.step = std::max(1, w.n_first ? tiling_.stepM : tiling_.stepN);
        return w;
    }
    uint64_t ldc_() const { return orgKc_ > 0 ? uint64_t(orgKc_) : uint64_t(orgN_ > 0 ? orgN_ : n_); }
    // Where tile (r0, c0) of C lands in GM: ND rows of ld elements, or NZ column blocks of 16 elements, each the
    // C's rows rounded up to 16 (ld = 32-B blocks between column blocks, Fixpipe CFG_NZ).
    struct CLayout {
        bool nz = false;
        uint64_t ld = 0, mpad = 0;
        uint64_t offset(int r0, int c0) const {
            return nz ? (uint64_t(c0 / 16) * mpad + uint64_t(r0)) * 16 : uint64_t(r0) * ld + uint64_t(c0);
        }
        void check(int bn, const char* api, const opkit::sim::SrcLoc& loc) const {
            if (bn % 16) opkit::sim::fail_at(api, loc, "a C in NZ format needs baseN a multiple of 16 (it is %d)", bn);
        }
    };
    CLayout c_layout() const {
        CLayout l;
        l.nz = C_TYPE::format == CubeFormat::NZ;
        if (!l.nz) {
            l.ld = ldc_();
            return l;
        }
        l.mpad = uint64_t(((orgM_ > 0 ? orgM_ : m_) + 15) / 16 * 16);
        l.ld = l.mpad * 16 * sizeof(DstT) / 32;
        return l;
    }
    void check_c(const char* api, const opkit::sim::SrcLoc& loc, bool nz_ok = false) const {
        if (C_TYPE::format != CubeFormat::ND && C_TYPE::format != CubeFormat::ND_ALIGN && !(nz_ok && C_TYPE::format == CubeFormat::NZ))
            opkit::sim::fail_at(api, loc, "a C matrix in this format is not simulated here: ND%s", nz_ok ? " or NZ" : " (NZ only to GM with IterateAll / GetTensorC)");
    }
    // IBShare on both A and B allows only IterateAll into GM (the IBShare template's documented restriction).
    static void both_shared(const char* api, const opkit::sim::SrcLoc& loc) {
        if (A_TYPE::ibShare && B_TYPE::ibShare)
            opkit::sim::fail_at(api, loc, "IBShare is enabled on both A and B: the result can then only be computed with IterateAll "
                                "into GM (the IBShare template's restriction); call IterateAll(GlobalTensor)");
    }
    // Server side, before the first tile of a job: the buffers of the tiling.
    void prepare(const Ops& op, const TileWalk& w, const opkit::sim::SrcLoc& loc) {
        (void)w;
        if (!steps_.ready())
            steps_.init(op.tiling, std::max(m_, op.m), std::max(n_, op.n), std::max(k_, op.k), op.bias_on || op.tiling.isBias, pipe_,
                        loc, A_TYPE::ibShare, B_TYPE::ibShare, config.doMultiDataLoad, config.enUnitFlag);
        steps_.begin_job(op);
    }
    // The operands of a call (client side); UB operands travel through the GM workspace.
    Ops operands(const char* api, const opkit::sim::SrcLoc& loc, bool c_nz_ok = false) {
        using namespace opkit::sim;
        if (!inited_) fail_at(api, loc, "Init (or REGIST_MATMUL_OBJ) was not called");
        if ((!a_ && !a_local_) || (!b_ && !b_local_)) fail_at(api, loc, "SetTensorA and SetTensorB must be called before computing");
        if (quant_) fail_at(api, loc, "quantised outputs (SetQuantScalar/SetQuantVector) are not simulated yet");
        if (m_ <= 0 || n_ <= 0 || k_ <= 0) fail_at(api, loc, "the single shape %d x %d x %d is empty (SetSingleShape / SetTail / the tiling)", m_, n_, k_);
        const bool with_bias = bias_on_ && (bias_ || bias_local_);  // a tiling's isBias without SetBias adds nothing
        // A half bias with float accumulation converts on its way L1 -> BiasTable (the converting DataCopy).
        if constexpr (!std::is_same<BiasT, Acc>::value && !(std::is_same<BiasT, half>::value && std::is_same<Acc, float>::value)) {
            if (with_bias)
                fail_at(api, loc, "a %s bias with %s accumulation is not simulated (the L1 -> BiasTable conversion): use a %s bias",
                        dtype_name<BiasT>(), dtype_name<Acc>(), dtype_name<Acc>());
        }
        for (auto f : {A_TYPE::format, B_TYPE::format})
            if (f != CubeFormat::ND && f != CubeFormat::NZ)
                fail_at(api, loc, "Matmul operands in CubeFormat::%s are not simulated: A and B are ND or NZ",
                        f == CubeFormat::ZN ? "ZN" : f == CubeFormat::ZZ ? "ZZ" : f == CubeFormat::NN ? "NN"
                        : f == CubeFormat::ND_ALIGN ? "ND_ALIGN" : f == CubeFormat::SCALAR ? "SCALAR" : f == CubeFormat::VECTOR ? "VECTOR" : "COLUMN_MAJOR");
        if ((A_TYPE::format == CubeFormat::NZ && a_local_) || (B_TYPE::format == CubeFormat::NZ && b_local_))
            fail_at(api, loc, "a local (UB) operand in NZ format is not simulated: NZ operands come from GM");
        check_c(api, loc, c_nz_ok);
        Ops op;
        op.ta = ta_; op.tb = tb_; op.k = k_;
        op.lda = ta_ ? uint64_t(orgM_ > 0 ? orgM_ : m_) : uint64_t(orgKa_ > 0 ? orgKa_ : k_);
        op.ldb = tb_ ? uint64_t(orgKb_ > 0 ? orgKb_ : k_) : uint64_t(orgN_ > 0 ? orgN_ : n_);
        op.a = a_local_ ? local_to_gm(a_lt_, 0, api, loc) : a_;
        op.b = b_local_ ? local_to_gm(b_lt_, 1, api, loc) : b_;
        if (with_bias && bias_local_ && uint64_t(bias_lt_.GetSize()) < uint64_t(n_))
            fail_at("Matmul::SetBias", loc, "the local bias holds %llu elements; the single shape's N is %d: give a bias of at least N "
                    "elements", (unsigned long long)bias_lt_.GetSize(), n_);
        op.bias = with_bias && bias_local_ ? local_to_gm(bias_lt_, 2, api, loc) : bias_;
        op.bias_on = with_bias;
        // NZ: the stored matrix's rows, rounded up to 16, make one column block
        auto pad16 = [](int v) { return uint64_t((v + 15) / 16 * 16); };
        op.a_nz = A_TYPE::format == CubeFormat::NZ;
        op.b_nz = B_TYPE::format == CubeFormat::NZ;
        op.a_pad = pad16(ta_ ? (orgKa_ > 0 ? orgKa_ : k_) : (orgM_ > 0 ? orgM_ : m_));
        op.b_pad = pad16(tb_ ? (orgN_ > 0 ? orgN_ : n_) : (orgKb_ > 0 ? orgKb_ : k_));
        op.tiling = tiling_;
        op.m = m_;
        op.n = n_;
        return op;
    }
    // A UB operand (MIX: AIV and AIC share no buffer): UB -> the client's GM workspace (DataCopy, MTE3, on the AIV).
    // `which`: 0 A, 1 B, 2 bias (its part of the slot: see workspace()).
    template <class T>
    const T* local_to_gm(const LocalTensor<T>& t, int which, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        static const char* const names[3] = {"A", "B", "bias"};
        if (core().core_type == CT_AIC || t.GetPosition() == TPosition::TSCM || t.arena() != A_UB)
            fail_at(api, loc, "a local %s in %s is not simulated: the Matmul takes local operands from UB (VECIN/VECCALC) of an AIV "
                    "client in a MIX launch", names[which], t.arena() >= 0 ? arena_name(t.arena()) : "this position");
        const uint64_t bytes = uint64_t(t.GetSize()) * sizeof(T);
        uint8_t* ws = reinterpret_cast<uint8_t*>(workspace(0, api, loc));
        const uint64_t s = slot_bytes_;
        const uint64_t lo = which == 0 ? s / 4 : which == 1 ? s / 2 : s - s / 16, hi = which == 0 ? s / 2 : which == 1 ? s - s / 16 : s;
        if (lo + bytes > hi)
            fail_at(api, loc, "the local %s operand (%llu bytes) does not fit the client's workspace slot (%llu bytes for it): give "
                    "the Matmul a workspace with SetWorkspace", names[which], (unsigned long long)bytes, (unsigned long long)(hi - lo));
        uint8_t* base = ws + lo;
        GlobalTensor<T> g;
        g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(base));
        PipeBarrier<PIPE_ALL>();
        if (bytes % 32 == 0) DataCopy(g, t, uint32_t(t.GetSize()), loc);
        else DataCopyPad(g, t, DataCopyExtParams(1, uint32_t(bytes), 0, 0, 0), loc);
        PipeBarrier<PIPE_ALL>();
        return reinterpret_cast<const T*>(base);
    }
    // The client's GM workspace: SetWorkspace's, else its slot of the system workspace (GetSysWorkSpacePtr): the
    // system workspace split evenly over the launch's AIVs. Bytes [0, slot/4) hold C, [slot/4, slot/2) a local A,
    // [slot/2, 15 slot/16) a local B, [15 slot/16, slot) a local bias.
    DstT* workspace(uint64_t c_bytes, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        Launch* L = cur_launch();
        uint8_t* base = ws_;
        uint64_t slot = ws_bytes_;
        if (!base) {
            base = L ? L->workspace : nullptr;
            if (!base) fail_at(api, loc, "the Matmul needs a GM workspace here (C to UB or a UB operand) but there is none: pass "
                               "GetSysWorkSpacePtr() with a workspace the host reserved, or call SetWorkspace");
            int64_t n_aiv = std::max<int64_t>(L->n_aiv, 1);
            slot = uint64_t(OPKIT_SIM_SYS_WORKSPACE) / uint64_t(n_aiv) / 512 * 512;
            int64_t me = core().core_type == CT_AIV ? core().tid - L->n_aic : 0;
            base += uint64_t(me) * slot;
        }
        slot_bytes_ = slot;
        if (c_bytes > slot / 4)
            fail_at(api, loc, "the C tile (%llu bytes) does not fit the client's workspace (%llu bytes for C: a quarter of %s of %llu "
                    "bytes): give the Matmul a larger workspace with SetWorkspace", (unsigned long long)c_bytes,
                    (unsigned long long)(slot / 4), ws_ ? "the SetWorkspace buffer" : "its slot of the system workspace",
                    (unsigned long long)slot);
        return reinterpret_cast<DstT*>(base);
    }
    // Client side: `count` elements of C from the workspace into UB (MTE2 on the AIV).
    void to_ub(const LocalTensor<DstT>& ub, DstT* ws, uint64_t count, const char* api, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        uint64_t bytes = count * sizeof(DstT);
        if (bytes > ub.GetSize() * sizeof(DstT))
            fail_at(api, loc, "C local tensor out of bounds: %llu bytes needed, tensor holds %llu", (unsigned long long)bytes,
                    (unsigned long long)(ub.GetSize() * sizeof(DstT)));
        GlobalTensor<DstT> g;
        g.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(ws));
        PipeBarrier<PIPE_ALL>();
        if (bytes % 32 == 0) DataCopy(ub, g, uint32_t(count), loc);
        else DataCopyPad(ub, g, DataCopyExtParams(1, uint32_t(bytes), 0, 0, 0), DataCopyPadExtParams<DstT>(false, 0, 0, DstT(0)), loc);
        PipeBarrier<PIPE_ALL>();
    }
    // Run `fn` on the object's server instance: inline on an AIC, as a job of the AIC's server from an AIV of a MIX launch.
    template <class F>
    void submit(const char* api, const opkit::sim::SrcLoc& loc, int lease, F&& fn, bool wait) {
        using namespace opkit::sim;
        CoreState& c = core();
        Launch* L = cur_launch();
        if (c.core_type == CT_AIC) {
            fn(this);
            return;
        }
        if (!L || L->n_aic == 0)
            fail_at(api, loc, "the Matmul needs a cube core, but this launch (kernel type %d) starts only vector cores: declare a MIX "
                    "kernel type (KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)) or run the Matmul in an AIC kernel", L ? L->ktype : 0);
        if (index_ < 0) fail_at(api, loc, "this Matmul object was not registered with REGIST_MATMUL_OBJ (the AIC serves only registered objects)");
        mm::Job j;
        j.obj = index_;
        j.type = typeid(Matmul).hash_code();
        j.lease = lease;
        j.loc = loc;
        j.what = api;
        // CANN's server ends every job that leaves no tile in L0C with End() (matmul_cube_steps.h, end_job)
        j.fn = [f = std::forward<F>(fn), lease](void* srv) {
            Matmul* s = static_cast<Matmul*>(srv);
            f(s);
            if (lease <= 0 && s->steps_.ready()) s->steps_.end_job();
        };
        last_job_ = mm::post(std::move(j));
        if (wait) mm::wait(last_job_, api, loc);
    }
    void wait_all(const char* api, const opkit::sim::SrcLoc& loc) {
        if (last_job_ && opkit::sim::core().core_type == opkit::sim::CT_AIV) opkit::sim::mm::wait(last_job_, api, loc);
    }
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

    TCubeTiling tiling_{};
    TPipe* pipe_ = nullptr;
    bool inited_ = false, ta_ = false, tb_ = false, bias_on_ = false, quant_ = false, a_local_ = false, b_local_ = false;
    bool all_pending_ = false;
    opkit::sim::SrcLoc all_loc_{nullptr, 0};
    int m_ = 0, n_ = 0, k_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    const SrcAT* a_ = nullptr;
    const SrcBT* b_ = nullptr;
    const BiasT* bias_ = nullptr;
    LocalTensor<SrcAT> a_lt_;
    LocalTensor<SrcBT> b_lt_;
    LocalTensor<BiasT> bias_lt_;
    bool bias_local_ = false;
    uint8_t* ws_ = nullptr;
    uint64_t ws_bytes_ = 0, slot_bytes_ = 0;
    int index_ = -1;
    uint64_t last_job_ = 0;
    int iter_ = -1, r0_ = 0, c0_ = 0, rows_ = 0, cols_ = 0;
    opkit_mm::CubeSteps<SrcAT, DstT, BiasT> steps_;
};

template <class A, class B, class C, class BIAS = C, const auto& CFG = CFG_NORM, class CB = MatmulCallBackFunc<>, class P = void>
using MatmulImpl = Matmul<A, B, C, BIAS, CFG, CB, P>;

namespace opkit_mm {
// Client side (and AIC-only launches): bind the objects to their tilings, in order.
inline void regist(TPipe*, int) {}
template <class MM, class... Rest>
inline void regist(TPipe* pipe, int i, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    mm.SetSubBlockIdx(0);
    mm.Init(tiling, pipe);
    mm.opkit_set_index(i);
    regist(pipe, i + 1, rest...);
}
template <class MM>
inline void regist(TPipe* pipe, int i, MM& mm) {
    mm.SetSubBlockIdx(0);
    mm.Init(nullptr, pipe);
    mm.opkit_set_index(i);
}
// The AIC of a MIX launch: its own instances of the objects, then the server loop.
inline void collect(std::vector<void*>&, std::vector<size_t>&) {}
template <class MM, class... Rest>
inline void collect(std::vector<void*>& o, std::vector<size_t>& t, MM& mm, const TCubeTiling*, Rest&&... rest) {
    o.push_back(&mm);
    t.push_back(typeid(MM).hash_code());
    collect(o, t, rest...);
}
template <class MM>
inline void collect(std::vector<void*>& o, std::vector<size_t>& t, MM& mm) {
    o.push_back(&mm);
    t.push_back(typeid(MM).hash_code());
}
template <class... Args>
inline void serve(TPipe* pipe, Args&&... args) {
    regist(pipe, 0, args...);
    std::vector<void*> objs;
    std::vector<size_t> types;
    collect(objs, types, args...);
    opkit::sim::mm::serve(objs, types);
}
}  // namespace opkit_mm

}  // namespace AscendC

namespace matmul = AscendC;

// On AIC cores of a MIX launch the Matmul server runs the AIVs' jobs and then ends the AIC's kernel; elsewhere the
// objects are bound to their tilings (AIC-only launches run the cube steps inline).
#define REGIST_MATMUL_OBJ(pipe, workspace, ...)                                 \
    if (g_coreType == AscendC::AIC && ::opkit::sim::launch_is_mix()) {         \
        AscendC::opkit_mm::serve((pipe), __VA_ARGS__);                          \
        return;                                                                 \
    }                                                                           \
    (void)(workspace);                                                          \
    AscendC::opkit_mm::regist((pipe), 0, __VA_ARGS__)
