// opkit simulator: the Matmul API's cube steps, the data path of the default (CFG_NORM) template, run on an AIC.
//
// One C tile of rows x cols at (r0, c0) of the single-core result: K is walked in GM -> L1 copies of
// stepK * baseK (DataCopy ND2NZ, MTE2), each copy fed to L0A/L0B in base blocks of baseK (LoadData, MTE1;
// transposing where the GM layout needs it, as CANN's loads do) and multiplied into L0C (Mmad, M), accumulating
// over K in order; the tile leaves L0C through Fixpipe (FIX, NZ -> ND) to GM. Bias: GM -> L1 (C1, ND2NZ of one
// row) -> BiasTable (C2, MTE1) -> the first Mmad of the tile starts from it. L1 and L0A/L0B are ping-ponged when
// the tiling gives two buffers (depthA1/depthB1 >= 2 x stepK, dbL0A/dbL0B = 2), with SetFlag/WaitFlag (event IDs 0
// and 1 of MTE2<->MTE1 and MTE1<->M, ID 0 of M<->FIX), as the hand-written kernel of the cube template does, and
// PipeBarrier<PIPE_M> after each Mmad with (m / 16) * (n / 16) < 10, as CANN's Matmul (the Mmad page's rule).
// Every instruction is the simulator's own, so its capacity, alignment, layout and pipe-order checks and the
// trace see the Matmul's real movement. Buffers come from the AIC's TPipe at the first job (TPipe::InitBuffer);
// a tiling that does not fit fails there with the Matmul step named.
//
// IBShare (MatmulType's IBSHARE on A or B): the shared matrix is held in L1 whole (the single shape, as the
// IBShare template requires: "the reused matrix must be fully loaded in L1"), its K chunks and tiles each in the
// place a normal copy would fill. The two AIVs of the AIC walk their shared matrices in lock-step on the chip, so
// the simulator pairs the n-th job of one AIV on the object with the n-th job of the other (the server runs the
// AIV threads in whatever order the host schedules them): both copy the shared matrix (GM -> L1, MTE2), so the L1
// data is right whatever order the threads ran in, and when their operands have the same GM address, layout and
// shape the model is charged one copy, always the first AIV's (the job the model serves first): a second AIV's job
// that ran first has its copy taken back from the trace when the first AIV's job comes (begin_job), and one that
// runs second copies without a trace event. Jobs whose shared operands differ both copy, traced.
#pragma once
#include "kernel_operator.h"
#include "adv_api/matmul/matmul_server.h"

namespace AscendC {
namespace opkit_mm {

// The operands of one job (a snapshot of the client object).
template <class SrcAT, class SrcBT, class BiasT>
struct Operands {
    const SrcAT* a = nullptr;
    const SrcBT* b = nullptr;
    const BiasT* bias = nullptr;
    bool ta = false, tb = false, bias_on = false;
    uint64_t lda = 0, ldb = 0;  // ND: elements per stored row
    bool a_nz = false, b_nz = false;
    uint64_t a_pad = 0, b_pad = 0;  // NZ: rows of one stored column block (the stored matrix's rows rounded up to 16)
    int m = 0, n = 0, k = 0;
    TCubeTiling tiling{};  // the client's tiling: the server's buffers are made for it at the first job
};

template <class SrcT, class DstT, class BiasT>
class CubeSteps {
    using Acc = typename opkit::sim::cube::acc_of<SrcT>::type;
    static constexpr int ESZ = int(sizeof(SrcT));
    static constexpr int K0 = 32 / ESZ;                    // k elements of one fractal row
    static constexpr int KAL = ESZ == 1 ? 32 : 16;          // K granularity of the loads (fp32: two 8-wide blocks)
    static constexpr uint32_t FE = 512 / ESZ;               // elements of one 512-B fractal
    static constexpr bool F32 = std::is_same<SrcT, float>::value;
    static constexpr bool I8 = ESZ == 1;
    static int up(int v, int a) { return (v + a - 1) / a * a; }

public:
    bool ready() const { return ready_; }
    int baseM() const { return bm_; }
    int baseN() const { return bn_; }

    // Buffers of the tiling (first job). `m`, `n`: the single shape, used where the tiling leaves a base size 0.
    // shareA / shareB: that operand is IBShare (held whole in L1, above).
    void init(const TCubeTiling& t, int m, int n, int k, bool bias, TPipe* pipe, const opkit::sim::SrcLoc& loc,
              bool shareA = false, bool shareB = false) {
        using namespace opkit::sim;
        if (!pipe) pipe = static_cast<TPipe*>(core().pipe);
        if (!pipe) fail_at("Matmul::Init", loc, "no TPipe on the cube core: pass the kernel's TPipe to REGIST_MATMUL_OBJ / Init");
        bm_ = t.baseM > 0 ? t.baseM : m;
        bn_ = t.baseN > 0 ? t.baseN : n;
        bk_ = t.baseK > 0 ? t.baseK : k;
        if (bm_ <= 0 || bn_ <= 0 || bk_ <= 0)
            fail_at("Matmul::Init", loc, "the tiling's baseM %d, baseN %d, baseK %d (and the single shape %d x %d x %d) leave an empty "
                    "base block", t.baseM, t.baseN, t.baseK, m, n, k);
        int sk = std::max(1, std::min(t.stepKa > 0 ? t.stepKa : 1, t.stepKb > 0 ? t.stepKb : 1));
        if (bk_ % KAL) sk = 1;  // several base blocks per copy only when they start on whole load blocks
        stepK_ = sk;
        nb1_ = (t.depthA1 >= 2 * sk && t.depthB1 >= 2 * sk) ? 2 : 1;
        depthA1_ = t.depthA1;
        depthB1_ = t.depthB1;
        nb0_ = (t.dbL0A >= 2 && t.dbL0B >= 2) ? 2 : 1;
        const int kL1 = sk * bk_;
        mP_ = up(bm_, I8 ? 32 : 16);
        nP_ = up(bn_, I8 ? 32 : 16);
        kP1_ = up(kL1, KAL);
        kP0_ = up(bk_, KAL);
        a1Len_ = uint32_t(mP_) * kP1_;
        b1Len_ = uint32_t(kP1_) * nP_;
        a2Len_ = uint32_t(mP_) * kP0_;
        b2Len_ = uint32_t(kP0_) * nP_;
        kChunks_ = (k + kL1 - 1) / kL1;
        shareA_ = shareA;
        shareB_ = shareB;
        // a shared matrix takes its own size in L1: with the whole K in one copy, a slot holds that K, not stepK x baseK
        const uint32_t kShared = uint32_t(kChunks_ == 1 ? up(k, KAL) : kP1_);
        if (shareA) a1Len_ = uint32_t(mP_) * kShared;
        if (shareB) b1Len_ = kShared * uint32_t(nP_);
        const uint32_t aSlots = shareA ? uint32_t(((m + bm_ - 1) / bm_) * kChunks_) : uint32_t(nb1_);
        const uint32_t bSlots = shareB ? uint32_t(((n + bn_ - 1) / bn_) * kChunks_) : uint32_t(nb1_);
        char step[240];
        std::snprintf(step, sizeof step, "baseM %d, baseN %d, baseK %d, stepKa/stepKb %d, %d buffer(s)%s%s", bm_, bn_, bk_, sk, nb1_,
                      shareA ? "; IBShare A: the whole A (singleCoreM x singleCoreK) in L1" : "",
                      shareB ? "; IBShare B: the whole B (singleCoreK x singleCoreN) in L1" : "");
        need(A_L1, (uint64_t(aSlots) * a1Len_ + uint64_t(bSlots) * b1Len_) * ESZ + (bias ? 2 * uint64_t(nP_) * sizeof(BiasT) : 0),
             "Matmul::Init (A1/B1 L1 buffers of the tiling", step, loc);
        slotsA_ = shareA ? aSlots : 0;
        slotsB_ = shareB ? bSlots : 0;
        std::snprintf(step, sizeof step, "baseM %d, baseK %d, dbL0A %d", bm_, bk_, nb0_);
        need(A_L0A, uint64_t(nb0_) * a2Len_ * ESZ, "Matmul::Init (A2 L0A buffers of the tiling", step, loc);
        std::snprintf(step, sizeof step, "baseK %d, baseN %d, dbL0B %d", bk_, bn_, nb0_);
        need(A_L0B, uint64_t(nb0_) * b2Len_ * ESZ, "Matmul::Init (B2 L0B buffers of the tiling", step, loc);
        std::snprintf(step, sizeof step, "baseM %d x baseN %d x %zu B", bm_, bn_, sizeof(Acc));
        need(A_L0C, uint64_t(mP_) * nP_ * sizeof(Acc), "Matmul::Init (CO1 L0C buffer of the tiling", step, loc);
        if (bias) need(A_BT, uint64_t(nP_) * sizeof(Acc), "Matmul::Init (C2 BiasTable buffer of the tiling", step, loc);
        pipe->InitBuffer(a1_, aSlots * a1Len_ * ESZ, loc);
        pipe->InitBuffer(b1_, bSlots * b1Len_ * ESZ, loc);
        pipe->InitBuffer(a2_, nb0_ * a2Len_ * ESZ, loc);
        pipe->InitBuffer(b2_, nb0_ * b2Len_ * ESZ, loc);
        pipe->InitBuffer(c1_, uint32_t(mP_) * nP_ * sizeof(Acc), loc);
        if (bias) {
            pipe->InitBuffer(bias1_, uint32_t(nP_) * sizeof(BiasT), loc);
            pipe->InitBuffer(bias2_, uint32_t(nP_) * sizeof(Acc), loc);
        }
        has_bias_ = bias;
        ready_ = true;
    }

    // C tile [rows x cols] at (r0, c0) into L0C.
    template <class SrcAT, class SrcBT>
    void tile(const Operands<SrcAT, SrcBT, BiasT>& op, int r0, int c0, int rows, int cols, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        if (rows > bm_ || cols > bn_)
            fail_at("Matmul::Iterate", loc, "a tile of %d x %d does not fit the base block of %d x %d the buffers were made for", rows,
                    cols, bm_, bn_);
        if (op.bias_on && !has_bias_)
            fail_at("Matmul::SetBias", loc, "the first Matmul job ran without a bias, so no BiasTable buffer was reserved: set isBias in "
                    "the tiling (MultiCoreMatmulTiling::SetBias(true)) when the kernel calls SetBias");
        const int mUse = (I8 && op.ta) ? up(rows, 32) : rows;  // int8 transposing loads move 32 x 32 squares
        const int nUse = (I8 && !op.tb) ? up(cols, 32) : cols;
        mB_ = (mUse + 15) / 16;
        const int mBlk = mB_;
        const int nBlk = (nUse + 15) / 16;
        GlobalTensor<SrcT> ga, gb;
        ga.SetGlobalBuffer(reinterpret_cast<__gm__ SrcT*>(const_cast<SrcAT*>(op.a)));
        gb.SetGlobalBuffer(reinterpret_cast<__gm__ SrcT*>(const_cast<SrcBT*>(op.b)));
        LocalTensor<Acc> c = c1_.template Get<Acc>();
        LocalTensor<Acc> bt;
        for (int i = 0; i < nb1_; ++i) SetFlag<HardEvent::MTE1_MTE2>(i);
        for (int i = 0; i < nb0_; ++i) SetFlag<HardEvent::M_MTE1>(i);
        if (op.bias_on) {
            GlobalTensor<BiasT> gbias;
            gbias.SetGlobalBuffer(reinterpret_cast<__gm__ BiasT*>(const_cast<BiasT*>(op.bias)));
            LocalTensor<BiasT> b1 = bias1_.template Get<BiasT>();
            bt = bias2_.template Get<Acc>();
            // one row, ND2NZ: the cols values zero-padded to whole 32-B blocks, contiguous in C1
            DataCopy(b1, gbias[c0], Nd2NzParams(1, 1, uint16_t(cols), 0, uint16_t(cols), 1, 1, 0), loc);
            SetFlag<HardEvent::MTE2_MTE1>(0);
            WaitFlag<HardEvent::MTE2_MTE1>(0);
            if constexpr (std::is_same<BiasT, Acc>::value) {
                DataCopy(bt, b1.template ReinterpretCast<Acc>(), uint32_t(up(cols, 32 / int(sizeof(Acc)))), loc);
            } else {  // half -> float on the way (blockLen in 64-B units of the BiasTable)
                DataCopy(bt, b1, DataCopyParams(1, uint16_t(up(cols, 64 / int(sizeof(Acc))) * sizeof(Acc) / 64), 0, 0), loc);
            }
        }
        const int K = op.k;
        const int kL1 = stepK_ * bk_;
        // Norm: the base blocks a copy leaves in A1/B1 stay there (MatmulConfig), so when the operand's whole K for
        // this tile fits its depth, a chunk the previous tile of the job copied is not copied again
        const int chunks = (K + kL1 - 1) / kL1;
        const bool keepA = chunks * stepK_ <= depthA1_, keepB = chunks * stepK_ <= depthB1_;
        copiedA_.clear();
        copiedB_.clear();
        bool first = true;
        for (int k1 = 0; k1 < K; k1 += kL1) {
            const int kc = std::min(kL1, K - k1);
            const int l1 = int(n1_++ % uint32_t(nb1_));
            const uint32_t aSlot = shareA_ ? uint32_t((r0 / bm_) * kChunks_ + k1 / kL1) : uint32_t(l1);
            const uint32_t bSlot = shareB_ ? uint32_t((c0 / bn_) * kChunks_ + k1 / kL1) : uint32_t(l1);
            const bool overA = shareA_ && aSlot >= slotsA_;
            if (overA || (shareB_ && bSlot >= slotsB_))
                fail_at("Matmul::Iterate", loc, "IBShare: this job's %s (%d x %d) is larger than the single shape the L1 copy of the whole "
                        "shared matrix was made for at the first job (SetSingleShape / the tiling's singleCore shape)",
                        overA ? "A" : "B", overA ? op.m : op.k, overA ? op.k : op.n);
            LocalTensor<SrcT> a1 = a1_.template Get<SrcT>()[aSlot * a1Len_];
            LocalTensor<SrcT> b1 = b1_.template Get<SrcT>()[bSlot * b1Len_];
            WaitFlag<HardEvent::MTE1_MTE2>(l1);
            const Chunk ca{r0, k1, rows, kc}, cb{c0, k1, cols, kc};
            {
                // the other AIV's job of an IBShare pair copied this chunk (above), or the previous tile did
                Untraced quiet((shareA_ && hitA_) || (keepA && std::find(heldA_.begin(), heldA_.end(), ca) != heldA_.end()));
                Recorded rec(shareA_ ? recA_ : nullptr);
                copy_a(a1, ga, op, r0, k1, rows, kc, loc);
            }
            {
                Untraced quiet((shareB_ && hitB_) || (keepB && std::find(heldB_.begin(), heldB_.end(), cb) != heldB_.end()));
                Recorded rec(shareB_ ? recB_ : nullptr);
                copy_b(b1, gb, op, c0, k1, cols, kc, loc);
            }
            copiedA_.push_back(ca);
            copiedB_.push_back(cb);
            SetFlag<HardEvent::MTE2_MTE1>(l1);
            WaitFlag<HardEvent::MTE2_MTE1>(l1);
            for (int k2 = 0; k2 < kc; k2 += bk_) {
                const int kk = std::min(bk_, kc - k2);
                const int l0 = int(n0_++ % uint32_t(nb0_));
                LocalTensor<SrcT> a2 = a2_.template Get<SrcT>()[uint32_t(l0) * a2Len_];
                LocalTensor<SrcT> b2 = b2_.template Get<SrcT>()[uint32_t(l0) * b2Len_];
                WaitFlag<HardEvent::M_MTE1>(l0);
                load_a(a2, a1, op.ta, rows, mBlk, kc, k2, kk, loc);
                load_b(b2, b1, op.tb, cols, nBlk, kc, k2, kk, loc);
                if (k2 + bk_ >= kc) SetFlag<HardEvent::MTE1_MTE2>(l1);
                SetFlag<HardEvent::MTE1_M>(l0);
                WaitFlag<HardEvent::MTE1_M>(l0);
                MmadParams p;
                p.m = uint16_t(mUse);
                p.n = uint16_t(nUse);
                p.k = uint16_t(kk);
                p.kDirectionAlign = F32;
                if (first && op.bias_on) {
                    p.cmatrixSource = true;
                    p.cmatrixInitVal = false;
                    Mmad(c, a2, b2, bt, p, loc);
                } else {
                    p.cmatrixInitVal = first;
                    Mmad(c, a2, b2, p, loc);
                }
                // as CANN's Matmul does after each Mmad (the Mmad page's rule: small Mmads accumulating into one
                // L0C are not ordered by the hardware)
                if ((mUse / 16) * (nUse / 16) < 10) PipeBarrier<PIPE_M>();
                first = false;
                SetFlag<HardEvent::M_MTE1>(l0);
            }
        }
        heldA_.swap(copiedA_);
        heldB_.swap(copiedB_);
        for (int i = 0; i < nb1_; ++i) WaitFlag<HardEvent::MTE1_MTE2>(i);
        for (int i = 0; i < nb0_; ++i) WaitFlag<HardEvent::M_MTE1>(i);
        SetFlag<HardEvent::M_FIX>(0);
        WaitFlag<HardEvent::M_FIX>(0);
    }

    // The tile in L0C -> GM rows of `ld` elements (CFG_ROW_MAJOR) or NZ fractals (nz); atomic add when asked.
    void out(DstT* dst, uint64_t ld, int rows, int cols, uint8_t atomic, bool nz, const opkit::sim::SrcLoc& loc) {
        GlobalTensor<DstT> g;
        g.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(dst));
        FixpipeParamsV220 f(uint16_t(cols), uint16_t(rows), uint16_t(mB_ * 16), uint32_t(ld), false);
        f.quantPre = QuantMode_t(opkit::sim::cube::needed_quant<Acc, DstT>());
        if (f.quantPre == DEQF16) {
            float one = 1.0f;
            uint32_t bits;
            std::memcpy(&bits, &one, 4);
            f.deqScalar = bits;
        }
        if (atomic) SetAtomicAdd<DstT>();
        LocalTensor<Acc> c = c1_.template Get<Acc>();
        if (nz) {
            f.nSize = uint16_t((cols + 15) / 16 * 16);
            Fixpipe<DstT, Acc, CFG_NZ>(g, c, f, loc);
        } else {
            Fixpipe<DstT, Acc, CFG_ROW_MAJOR>(g, c, f, loc);
        }
        if (atomic) SetAtomicNone();
        SetFlag<HardEvent::FIX_M>(0);
        WaitFlag<HardEvent::FIX_M>(0);
    }

private:
    // An IBShare operand of a job: its GM address, layout and shape.
    struct Held {
        const void* gm = nullptr;
        uint64_t ld = 0, pad = 0;
        bool trans = false, nz = false;
        int rows = 0, cols = 0;
        bool operator==(const Held& o) const {
            return gm == o.gm && ld == o.ld && pad == o.pad && trans == o.trans && nz == o.nz && rows == o.rows && cols == o.cols;
        }
    };
    // A chunk of an operand one tile copied: its row (A) or column (B) start, its K start and its extents.
    struct Chunk {
        int at = 0, k1 = 0, len = 0, kc = 0;
        bool operator==(const Chunk& o) const { return at == o.at && k1 == o.k1 && len == o.len && kc == o.kc; }
    };
    struct Pending {
        int64_t client = -1;
        Held a, b;
        std::vector<opkit::sim::CoreState::TraceRec> recA, recB;  // its traced copies of A and B (it is the second client's)
    };
    // The instructions of one scope neither traced nor counted (an IBShare copy the other AIV's job already made).
    struct Untraced {
        bool* on = nullptr;
        bool was = false;
        explicit Untraced(bool quiet) {
            if (!quiet) return;
            on = &opkit::sim::core().trace_quiet;
            was = *on;
            *on = true;
        }
        ~Untraced() {
            if (on) *on = was;
        }
        Untraced(const Untraced&) = delete;
        Untraced& operator=(const Untraced&) = delete;
    };
    // The instructions of one scope listed in `to` as well (CoreState::trace_record), when `to` is set.
    struct Recorded {
        std::vector<opkit::sim::CoreState::TraceRec>* was = nullptr;
        bool on = false;
        explicit Recorded(std::vector<opkit::sim::CoreState::TraceRec>* to) {
            if (!to) return;
            on = true;
            was = opkit::sim::core().trace_record;
            opkit::sim::core().trace_record = to;
        }
        ~Recorded() {
            if (on) opkit::sim::core().trace_record = was;
        }
        Recorded(const Recorded&) = delete;
        Recorded& operator=(const Recorded&) = delete;
    };

public:
    // Before a job's first tile: with IBShare, which of the two jobs of the same number carries the copy of a shared
    // operand they both name (module comment). The model serves the n-th job of the AIC's first AIV before the n-th of
    // its second (opkit/perf/mm_order.py), so the copy is always the first AIV's, whatever order the host threads ran
    // in: when the second AIV's job runs first, its copies are traced and listed, and the first AIV's job, which
    // copies again, takes them back (untrace) where its operand is the same.
    template <class SrcAT, class SrcBT>
    void begin_job(const Operands<SrcAT, SrcBT, BiasT>& op) {
        hitA_ = hitB_ = false;
        recA_ = recB_ = nullptr;
        heldA_.clear();  // a new job's operands may be new data at the same addresses
        heldB_.clear();
        const int64_t client = opkit::sim::mm::serving_client();
        if ((!shareA_ && !shareB_) || client < 0) return;
        const Held a{op.a, op.lda, op.a_pad, op.ta, op.a_nz, op.m, op.k};
        const Held b{op.b, op.ldb, op.b_pad, op.tb, op.b_nz, op.k, op.n};
        const uint64_t n = jobs_[client]++;
        const bool first = client == opkit::sim::cur_launch()->tid_aiv(opkit::sim::core().core_id, 0);
        auto it = pending_.find(n);
        if (it != pending_.end() && it->second.client != client) {
            Pending& p = it->second;
            const bool sameA = shareA_ && p.a == a, sameB = shareB_ && p.b == b;
            if (first) {  // the second AIV's job ran first: this job's copy is the one the model counts
                if (sameA) opkit::sim::untrace(p.recA);
                if (sameB) opkit::sim::untrace(p.recB);
            } else {
                hitA_ = sameA;
                hitB_ = sameB;
            }
            pending_.erase(it);
            return;
        }
        Pending& p = pending_[n];
        p = Pending{client, a, b, {}, {}};
        if (!first) {
            recA_ = &p.recA;
            recB_ = &p.recB;
        }
    }

private:
    void need(int a, uint64_t bytes, const char* step, const char* detail, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        ArenaMem& m = core().mem(a);
        uint64_t round = (bytes + 31) / 32 * 32, cap = arena_cap(a);
        if (m.used + round > cap)
            fail_at(step, loc,
                    "%s): %s capacity exceeded: the Matmul needs %llu bytes at offset %llu (end %llu), but the chip (%s) offers %llu "
                    "bytes (GetCoreMemSize); %llu bytes over: choose a smaller base block / fewer buffers in the tiling",
                    detail, arena_name(a), (unsigned long long)round, (unsigned long long)m.used, (unsigned long long)(m.used + round),
                    OPKIT_SIM_SOC, (unsigned long long)cap, (unsigned long long)(m.used + round - cap));
    }
    template <class O>
    void copy_a(const LocalTensor<SrcT>& a1, const GlobalTensor<SrcT>& ga, const O& op, int r0, int k1, int rows, int kc,
                const opkit::sim::SrcLoc& loc) {
        const uint16_t lda = uint16_t(op.lda);
        if (op.a_nz) {  // already fractal in GM: whole 32-B rows of each column block, no conversion
            if (!op.ta) copy_nz(a1, ga, op.a_pad, r0, rows, k1, kc, up(rows, 16), "A", loc);
            else if (!F32) copy_nz(a1, ga, op.a_pad, k1, kc, r0, rows, up(kc, KAL), "A", loc);
            else
                for (int s = 0; s * 16 < kc; ++s)
                    copy_nz(a1[uint32_t(s) * 16 * up(rows, 16)], ga, op.a_pad, k1 + 16 * s, std::min(16, kc - 16 * s), r0, rows, 16, "A", loc);
            return;
        }
        if (!op.ta) {  // A [M, K]: NZ with column blocks of K0 k, each mP16 rows
            DataCopy(a1, ga[uint64_t(r0) * op.lda + k1], Nd2NzParams(1, uint16_t(rows), uint16_t(kc), 0, lda, uint16_t(up(rows, 16)), 1, 0), loc);
        } else if (!F32) {  // A^T [K, M]: column blocks of K0 m, each kc rows (padded to the load's square)
            DataCopy(a1, ga[uint64_t(k1) * op.lda + r0], Nd2NzParams(1, uint16_t(kc), uint16_t(rows), 0, lda, uint16_t(up(kc, KAL)), 1, 0), loc);
        } else {  // fp32 A^T: strips of 16 k rows, so two 8-wide column blocks make one 16 x 16 square
            const int mp = up(rows, 16);
            for (int s = 0; s * 16 < kc; ++s)
                DataCopy(a1[uint32_t(s) * 16 * mp], ga[uint64_t(k1 + 16 * s) * op.lda + r0],
                         Nd2NzParams(1, uint16_t(std::min(16, kc - 16 * s)), uint16_t(rows), 0, lda, 16, 1, 0), loc);
        }
    }
    template <class O>
    void copy_b(const LocalTensor<SrcT>& b1, const GlobalTensor<SrcT>& gb, const O& op, int c0, int k1, int cols, int kc,
                const opkit::sim::SrcLoc& loc) {
        const uint16_t ldb = uint16_t(op.ldb);
        if (op.b_nz) {
            if (op.tb) copy_nz(b1, gb, op.b_pad, c0, cols, k1, kc, up(cols, 16), "B", loc);
            else if (!F32) copy_nz(b1, gb, op.b_pad, k1, kc, c0, cols, up(kc, KAL), "B", loc);
            else
                for (int s = 0; s * 16 < kc; ++s)
                    copy_nz(b1[uint32_t(s) * 16 * up(cols, 16)], gb, op.b_pad, k1 + 16 * s, std::min(16, kc - 16 * s), c0, cols, 16, "B", loc);
            return;
        }
        if (op.tb) {  // B^T [N, K]: column blocks of K0 k, each nP16 rows: already ZN fractals
            DataCopy(b1, gb[uint64_t(c0) * op.ldb + k1], Nd2NzParams(1, uint16_t(cols), uint16_t(kc), 0, ldb, uint16_t(up(cols, 16)), 1, 0), loc);
        } else if (!F32) {  // B [K, N]: column blocks of K0 n, each kc rows
            DataCopy(b1, gb[uint64_t(k1) * op.ldb + c0], Nd2NzParams(1, uint16_t(kc), uint16_t(cols), 0, ldb, uint16_t(up(kc, KAL)), 1, 0), loc);
        } else {
            const int np = up(cols, 16);
            for (int s = 0; s * 16 < kc; ++s)
                DataCopy(b1[uint32_t(s) * 16 * np], gb[uint64_t(k1 + 16 * s) * op.ldb + c0],
                         Nd2NzParams(1, uint16_t(std::min(16, kc - 16 * s)), uint16_t(cols), 0, ldb, 16, 1, 0), loc);
        }
    }
    // An NZ operand: rows [row0, row0 + nrows) of the stored column blocks holding columns [col0, col0 + ncols) (src_pad
    // rows per block in GM) -> L1 column blocks of dst_pad rows: one DataCopy (MTE2), a 32-B row per element row.
    void copy_nz(const LocalTensor<SrcT>& l1, const GlobalTensor<SrcT>& g, uint64_t src_pad, int row0, int nrows, int col0, int ncols,
                 int dst_pad, const char* which, const opkit::sim::SrcLoc& loc) {
        using namespace opkit::sim;
        if (col0 % K0)
            fail_at("Matmul", loc, "NZ %s: the tile starts at column %d of the stored matrix, inside a %d-element column block: the "
                    "base block must be a multiple of %d there", which, col0, K0, K0);
        if (uint64_t(row0 + nrows) > src_pad)
            fail_at("Matmul", loc, "NZ %s: rows [%d, %d) of a stored column block of %llu rows (SetOrgShape gives the stored shape)",
                    which, row0, row0 + nrows, (unsigned long long)src_pad);
        if (src_pad - uint64_t(nrows) > 65535)
            fail_at("Matmul", loc, "NZ %s: column blocks of %llu rows are too far apart for one copy (DataCopyParams::srcStride)", which,
                    (unsigned long long)src_pad);
        const int blocks = (ncols + K0 - 1) / K0;
        DataCopy(l1, g[(uint64_t(col0 / K0) * src_pad + uint64_t(row0)) * K0],
                 DataCopyParams(uint16_t(blocks), uint16_t(nrows), uint16_t(src_pad - uint64_t(nrows)), uint16_t(dst_pad - nrows)), loc);
    }
    // L1 -> L0A (ZZ: row block mi holds kkB fractals of 16 x K0).
    void load_a(const LocalTensor<SrcT>& a2, const LocalTensor<SrcT>& a1, bool ta, int rows, int mBlk, int kc, int k2, int kk,
                const opkit::sim::SrcLoc& loc) {
        const int kkB = F32 ? 2 * ((kk + 15) / 16) : (kk + K0 - 1) / K0;  // fp32: kDirectionAlign
        const int kb0 = k2 / K0;
        if (!ta) {  // one load per row block, or per K block when there are fewer of those
            const int mB16 = (rows + 15) / 16;
            if (mBlk <= kkB)
                for (int mi = 0; mi < mBlk; ++mi)
                    LoadData(a2[uint32_t(mi) * kkB * FE], a1[(uint32_t(kb0) * mB16 + mi) * FE],
                             LoadData2DParams(0, uint8_t(kkB), uint16_t(mB16), 0, 0, false, 0), loc);
            else
                for (int kb = 0; kb < kkB; ++kb)
                    LoadData(a2[uint32_t(kb) * FE], a1[uint32_t(kb0 + kb) * mB16 * FE],
                             LoadData2DParams(0, uint8_t(mBlk), 1, 0, uint16_t(kkB - 1), false, 0), loc);
        } else if (ESZ == 2) {
            const int kcB = up(kc, 16) / 16;
            for (int mi = 0; mi < mBlk; ++mi)
                LoadData(a2[uint32_t(mi) * kkB * FE], a1[(uint32_t(mi) * kcB + kb0) * FE], LoadData2DParams(0, uint8_t(kkB), 1, 0, 0, true, 0),
                         loc);
        } else if (F32) {  // per 16-row strip: squares of m, transposed into the fractals (mi, 2s) and (mi, 2s + 1)
            const int mB16 = (rows + 15) / 16;
            for (int s = 0; s < kkB / 2; ++s)
                LoadDataWithTranspose(a2[uint32_t(2 * s) * FE], a1,
                                      LoadData2dTransposeParams(uint16_t((k2 / 16 + s) * mB16), uint8_t(mB16), 1, uint16_t(kkB - 1), 0, 0), loc);
        } else {  // int8: per 32-wide m block j, 32 x 32 squares down K, transposed into the fractals (2j, kb) and (2j + 1, kb)
            const int kcB = up(kc, 32) / 32;
            for (int j = 0; j < mBlk / 2; ++j)
                LoadDataWithTranspose(a2[uint32_t(2 * j) * kkB * FE], a1,
                                      LoadData2dTransposeParams(uint16_t(j * kcB + kb0), uint8_t(kkB), 1, 0, uint16_t(kkB - 1), 0), loc);
        }
    }
    // L1 -> L0B (ZN: K block kb holds nBlk fractals of K0 x 16).
    void load_b(const LocalTensor<SrcT>& b2, const LocalTensor<SrcT>& b1, bool tb, int cols, int nBlk, int kc, int k2, int kk,
                const opkit::sim::SrcLoc& loc) {
        const int kkB = F32 ? 2 * ((kk + 15) / 16) : (kk + K0 - 1) / K0;
        const int kb0 = k2 / K0;
        if (tb) {
            const int nB16 = (cols + 15) / 16;
            for (int kb = 0; kb < kkB; ++kb)
                LoadData(b2[uint32_t(kb) * nBlk * FE], b1[(uint32_t(kb0 + kb) * nB16) * FE], LoadData2DParams(0, uint8_t(nB16), 1, 0, 0, false, 0),
                         loc);
        } else if (ESZ == 2) {
            const int kcB = up(kc, 16) / 16;
            for (int kb = 0; kb < kkB; ++kb)
                LoadData(b2[uint32_t(kb) * nBlk * FE], b1[uint32_t(kb0 + kb) * FE], LoadData2DParams(0, uint8_t(nBlk), uint16_t(kcB), 0, 0, true, 0),
                         loc);
        } else if (F32) {
            for (int s = 0; s < kkB / 2; ++s)
                LoadDataWithTranspose(b2[uint32_t(2 * s) * nBlk * FE], b1,
                                      LoadData2dTransposeParams(uint16_t((k2 / 16 + s) * nBlk), uint8_t(nBlk), 1, 0, uint16_t(nBlk - 1), 0), loc);
        } else {
            const int kcB = up(kc, 32) / 32;
            for (int kb = 0; kb < kkB; ++kb)
                LoadDataWithTranspose(b2[uint32_t(kb) * nBlk * FE], b1,
                                      LoadData2dTransposeParams(uint16_t(kb0 + kb), uint8_t(nBlk / 2), uint16_t(kcB), 1, 0, 0), loc);
        }
    }

    TBuf<TPosition::A1> a1_;
    TBuf<TPosition::B1> b1_;
    TBuf<TPosition::A2> a2_;
    TBuf<TPosition::B2> b2_;
    TBuf<TPosition::CO1> c1_;
    TBuf<TPosition::C1> bias1_;
    TBuf<TPosition::C2> bias2_;
    bool ready_ = false, has_bias_ = false, shareA_ = false, shareB_ = false, hitA_ = false, hitB_ = false;
    int kChunks_ = 1;
    uint32_t slotsA_ = 0, slotsB_ = 0;
    int depthA1_ = 0, depthB1_ = 0;
    std::vector<Chunk> heldA_, heldB_;  // the chunks the job's previous tile copied (Norm keeps them in A1/B1)
    std::vector<Chunk> copiedA_, copiedB_;  // the chunks the running tile copies (then held; storage reused)
    std::map<int64_t, uint64_t> jobs_;     // IBShare: jobs run so far, per client
    std::map<uint64_t, Pending> pending_;  // IBShare: job number -> the first of the pair's jobs, awaiting the other
    std::vector<opkit::sim::CoreState::TraceRec>*recA_ = nullptr, *recB_ = nullptr;  // where the running job lists its shared copies
    int bm_ = 0, bn_ = 0, bk_ = 0, stepK_ = 1, nb1_ = 1, nb0_ = 1, mP_ = 0, nP_ = 0, kP1_ = 0, kP0_ = 0, mB_ = 0;
    uint32_t a1Len_ = 0, b1Len_ = 0, a2Len_ = 0, b2Len_ = 0, n1_ = 0, n0_ = 0;
};

}  // namespace opkit_mm
}  // namespace AscendC
