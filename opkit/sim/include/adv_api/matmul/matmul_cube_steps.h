// opkit simulator: the Matmul API's cube steps, the data path of CANN's Norm, IBShare and MDL templates, run on an AIC.
//
// One C tile of rows x cols at (r0, c0) of the single-core result: K is walked in GM -> L1 copies (DataCopy ND2NZ,
// MTE2) of one base block (Norm, IBShare) or of stepK base blocks (MDL, CFG_MDL), each fed to L0A/L0B in base blocks
// of baseK (LoadData, MTE1; transposing where the GM layout needs it, as CANN's loads do) and multiplied into L0C
// (Mmad, M), accumulating over K in order; the tile leaves L0C through Fixpipe (FIX, NZ -> ND) to GM. Bias: GM -> L1
// (C1, ND2NZ of one row) -> BiasTable (C2, MTE1) -> the first Mmad of the tile starts from it. Every instruction is
// the simulator's own, so its capacity, alignment, layout and pipe-order checks and the trace see the Matmul's real
// movement. Buffers come from the AIC's TPipe at the first job (TPipe::InitBuffer); a tiling that does not fit fails
// there with the Matmul step named.
//
// How the pipes overlap follows CANN's templates (their cube-in buffer classes and event IDs; docs/simulator.md,
// "Matmul API"): nothing drains at the end of a tile, so tile t + 1's copies and loads go ahead as far as the buffers
// they reuse allow.
//   L1 (A1/B1), per operand: *cached* when its K fits the tiling's depth (depth >= kIter x stepM for A, kIter x stepN
//   for B, except depth 2 with one K block): the K blocks of one M tile (A) / one group of stepN N tiles (B) (mirrored
//   with iterateOrder 1) are copied once into one region and reused by the group's tiles; the next group frees the
//   region (MTE1 -> MTE2) and its first copy waits for the loads of the old one. Otherwise *streamed* through one or
//   two buffers (depth >= 2): every block is copied, into the buffer whose previous block MTE1 has finished.
//   IBShare operands are held whole (below).
//   L0A/L0B: two halves ping-ponged after every Mmad with M -> MTE1 event IDs 0 and 1, preset once per AIC (as CANN's
//   TPipe::Init does, with ID 2 for the BiasTable) and shared by every Matmul object of the core; waited at the end
//   of the core's TPipe.
//   L0C: with the config's unit flag (enUnitFlag, on by default in Norm and IBShare) one buffer handed between Mmad
//   and Fixpipe 512 B at a time (MmadParams/FixpipeParams unitFlag: 2 on the tile's Mmads, 3 on its last and on the
//   Fixpipe): the Fixpipe reads each block as soon as the last Mmad wrote it, the next tile's Mmads write each block
//   as soon as the Fixpipe read it. Without it (MDL's default) M -> FIX / FIX -> M events, with two buffers
//   alternating when the tiling's dbL0C is 2.
//   Between the jobs an AIC serves for its AIVs (MIX), CANN's server ends each with End(): the next job's copies
//   wait until MTE1 has finished with this job's L1 buffers, its first Mmad until the last Fixpipe.
// PipeBarrier<PIPE_M> follows each Mmad with (m / 16) * (n / 16) < 10, as CANN's Matmul (the Mmad page's rule).
//
// IBShare (MatmulType's IBSHARE on A or B): the shared matrix is held in L1 whole (the single shape, as the
// IBShare template requires: "the reused matrix must be fully loaded in L1"), its K blocks and tiles each in their own
// place. The two AIVs of the AIC walk their shared matrices in lock-step on the chip, so the simulator pairs the n-th
// job of one AIV on the object with the n-th job of the other (the server runs the AIV threads in whatever order the
// host schedules them): both copy the shared matrix (GM -> L1, MTE2), so the L1 data is right whatever order the
// threads ran in, and when their operands have the same GM address, layout and shape the model is charged one copy,
// always the first AIV's (the job the model serves first): a second AIV's job that ran first has its copy taken back
// from the trace when the first AIV's job comes (begin_job), and one that runs second copies without a trace event.
// Jobs whose shared operands differ both copy, traced.
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

// The event IDs the Matmul objects of one AIC share, as CANN's TPipe hands them out per core: which ones a SetFlag
// left set (the next user of that buffer waits for it), and the L0A/L0B ping-pong. MTE1 -> MTE2 and MTE2 -> MTE1 IDs:
// A streamed 0/1, A cached or shared 2, B streamed 3/4, B cached or shared 5, the bias row in C1 6, End()'s drain 7.
// M -> MTE1: the L0 halves 0/1, the BiasTable 2 (preset). FIX -> M: the L0C buffers 0/1.
struct CoreFlags {
    uint64_t launch = ~uint64_t(0);
    bool armed = false;  // M -> MTE1 IDs 0, 1, 2 preset
    int l0 = 0;          // the L0A/L0B half the next K step loads
    bool l1[8] = {};     // MTE1 -> MTE2 set, not yet waited
    bool fix[2] = {};    // FIX -> M set, not yet waited
};
constexpr int ID_A = 0, ID_B = 3, ID_BIAS = 6, ID_DRAIN = 7, ID_BT = 2;
inline CoreFlags& core_flags() {
    thread_local CoreFlags f;
    const uint64_t now = opkit::sim::core().launch_serial;
    if (f.launch != now) {
        f = CoreFlags{};
        f.launch = now;
    }
    return f;
}
// Before MTE2 writes the L1 buffer of `id`: wait for MTE1's release of it, if one is pending.
inline void l1_take(int id) {
    CoreFlags& f = core_flags();
    if (!f.l1[id]) return;
    WaitFlag<HardEvent::MTE1_MTE2>(id);
    f.l1[id] = false;
}
// After MTE1's last read of the L1 buffer of `id` (a pending release is renewed: its wait orders after both).
inline void l1_release(int id) {
    CoreFlags& f = core_flags();
    if (f.l1[id]) WaitFlag<HardEvent::MTE1_MTE2>(id);
    SetFlag<HardEvent::MTE1_MTE2>(id);
    f.l1[id] = true;
}
// The end of the core's Matmul work (TPipe::Destroy, End() of an AIC-only kernel): every event still set is waited.
inline void finish_core() {
    CoreFlags& f = core_flags();
    for (int i = 0; i < 8; ++i)
        if (f.l1[i]) {
            WaitFlag<HardEvent::MTE1_MTE2>(i);
            f.l1[i] = false;
        }
    for (int i = 0; i < 2; ++i)
        if (f.fix[i]) {
            WaitFlag<HardEvent::FIX_M>(i);
            f.fix[i] = false;
        }
    if (f.armed) {
        for (int i = 0; i < 3; ++i) WaitFlag<HardEvent::M_MTE1>(i);
        f.armed = false;
        f.l0 = 0;
    }
}
// The preset M -> MTE1 IDs (CANN's TPipe::Init on an AIC), waited when `pipe` ends.
inline void arm_core(TPipe* pipe) {
    CoreFlags& f = core_flags();
    if (f.armed) return;
    for (int i = 0; i < 3; ++i) SetFlag<HardEvent::M_MTE1>(i);
    f.armed = true;
    f.l0 = 0;
    if (pipe) pipe->opkit_on_destroy(&finish_core);
}

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

    // A chunk of an operand one copy moves: the operand's GM address, its row (A) or column (B) start, its K start and
    // its extents.
    struct Chunk {
        const void* src = nullptr;
        int at = -1, k1 = 0, len = 0, kc = 0;
        bool operator==(const Chunk& o) const {
            return src == o.src && at == o.at && k1 == o.k1 && len == o.len && kc == o.kc;
        }
        bool operator!=(const Chunk& o) const { return !(*this == o); }
    };
    // The L1 buffers of A or B (module comment): streamed, cached, or shared (IBShare, the whole matrix).
    enum Mode { STREAM, CACHED, SHARED };
    struct Side {
        Mode mode = STREAM;
        int nbuf = 1;            // STREAM: buffers in the ring
        int id = 0;              // event IDs: id, id + 1 (streamed buffers), id + 2 (the cached or shared region)
        int groupTiles = 1;      // CACHED: M (A) or N (B) tiles whose K blocks the region holds at once
        uint32_t len = 0;        // elements of one slot (one copy)
        uint32_t slots = 0;
        int64_t group = -1;      // CACHED: the group the region holds (-1: none)
        std::vector<Chunk> held;  // CACHED, SHARED: the chunk in each slot
        uint32_t next = 0;       // STREAM: the next buffer of the ring
    };

public:
    bool ready() const { return ready_; }
    int baseM() const { return bm_; }
    int baseN() const { return bn_; }

    // Buffers of the tiling (first job). `m`, `n`, `k`: the single shape, used where the tiling leaves a base size 0.
    // shareA / shareB: that operand is IBShare (held whole in L1, above). mdl: the MDL template (copies of stepK base
    // blocks); unitFlag: the config's enUnitFlag (L0C single-buffered whatever dbL0C says).
    void init(const TCubeTiling& t, int m, int n, int k, bool bias, TPipe* pipe, const opkit::sim::SrcLoc& loc,
              bool shareA = false, bool shareB = false, bool mdl = false, bool unitFlag = true) {
        using namespace opkit::sim;
        if (!pipe) pipe = static_cast<TPipe*>(core().pipe);
        if (!pipe) fail_at("Matmul::Init", loc, "no TPipe on the cube core: pass the kernel's TPipe to REGIST_MATMUL_OBJ / Init");
        pipe_ = pipe;
        bm_ = t.baseM > 0 ? t.baseM : m;
        bn_ = t.baseN > 0 ? t.baseN : n;
        bk_ = t.baseK > 0 ? t.baseK : k;
        if (bm_ <= 0 || bn_ <= 0 || bk_ <= 0)
            fail_at("Matmul::Init", loc, "the tiling's baseM %d, baseN %d, baseK %d (and the single shape %d x %d x %d) leave an empty "
                    "base block", t.baseM, t.baseN, t.baseK, m, n, k);
        int sk = 1;
        if (mdl) sk = std::max(1, std::min(t.stepKa > 0 ? t.stepKa : 1, t.stepKb > 0 ? t.stepKb : 1));
        if (bk_ % KAL) sk = 1;  // several base blocks per copy only when they start on whole load blocks
        stepK_ = sk;
        nb0_ = (t.dbL0A >= 2 && t.dbL0B >= 2) ? 2 : 1;
        nbC_ = (!unitFlag && t.dbL0C >= 2) ? 2 : 1;
        unit_ = unitFlag;
        nOrder_ = t.iterateOrder == 1;
        const int kL1 = sk * bk_;
        mP_ = up(bm_, I8 ? 32 : 16);
        nP_ = up(bn_, I8 ? 32 : 16);
        kP1_ = up(kL1, KAL);
        kP0_ = up(bk_, KAL);
        a2Len_ = uint32_t(mP_) * kP0_;
        b2Len_ = uint32_t(kP0_) * nP_;
        kChunks_ = (k + kL1 - 1) / kL1;
        shareA_ = shareA;
        shareB_ = shareB;
        const int kIter = (k + bk_ - 1) / bk_;  // base blocks along K
        const int stepM = std::max(1, t.stepM), stepN = std::max(1, t.stepN);
        // a shared matrix takes its own size in L1: with the whole K in one copy, a slot holds that K, not stepK x baseK
        const uint32_t kShared = uint32_t(kChunks_ == 1 ? up(k, KAL) : kP1_);
        plan(a_, shareA, t.depthA1, kIter, stepM, nOrder_ ? stepM : 1, ID_A, uint32_t(mP_) * kP1_, uint32_t(mP_) * kShared,
             (m + bm_ - 1) / bm_);
        plan(b_, shareB, t.depthB1, kIter, stepN, nOrder_ ? 1 : stepN, ID_B, uint32_t(kP1_) * nP_, kShared * uint32_t(nP_),
             (n + bn_ - 1) / bn_);
        char step[240];
        std::snprintf(step, sizeof step, "baseM %d, baseN %d, baseK %d, %d base block(s) a copy, A1 %u and B1 %u slot(s)%s%s", bm_, bn_,
                      bk_, sk, a_.slots, b_.slots, shareA ? "; IBShare A: the whole A (singleCoreM x singleCoreK) in L1" : "",
                      shareB ? "; IBShare B: the whole B (singleCoreK x singleCoreN) in L1" : "");
        pipe->opkit_share_begin();  // every Matmul object of the core from one start (TPipe, CANN's shareMode 0)
        need(A_L1, (uint64_t(a_.slots) * a_.len + uint64_t(b_.slots) * b_.len) * ESZ + (bias ? 2 * uint64_t(nP_) * sizeof(BiasT) : 0),
             "Matmul::Init (A1/B1 L1 buffers of the tiling", step, loc);
        std::snprintf(step, sizeof step, "baseM %d, baseK %d, dbL0A %d", bm_, bk_, nb0_);
        need(A_L0A, uint64_t(nb0_) * a2Len_ * ESZ, "Matmul::Init (A2 L0A buffers of the tiling", step, loc);
        std::snprintf(step, sizeof step, "baseK %d, baseN %d, dbL0B %d", bk_, bn_, nb0_);
        need(A_L0B, uint64_t(nb0_) * b2Len_ * ESZ, "Matmul::Init (B2 L0B buffers of the tiling", step, loc);
        std::snprintf(step, sizeof step, "baseM %d x baseN %d x %zu B%s", bm_, bn_, sizeof(Acc), nbC_ == 2 ? ", two buffers (dbL0C 2)" : "");
        c1Len_ = uint32_t(mP_) * nP_;
        need(A_L0C, uint64_t(nbC_) * c1Len_ * sizeof(Acc), "Matmul::Init (CO1 L0C buffer of the tiling", step, loc);
        if (bias) need(A_BT, uint64_t(nP_) * sizeof(Acc), "Matmul::Init (C2 BiasTable buffer of the tiling", step, loc);
        pipe->InitBuffer(a1_, a_.slots * a_.len * ESZ, loc);
        pipe->InitBuffer(b1_, b_.slots * b_.len * ESZ, loc);
        // two L0 buffers: the halves of L0A / L0B, at the same places for every object of the core (the ping-pong
        // events are the core's), as CANN's L0 buffer pool splits them
        a2Half_ = nb0_ == 2 ? uint32_t(arena_cap(A_L0A) / 2 / ESZ) : 0;
        b2Half_ = nb0_ == 2 ? uint32_t(arena_cap(A_L0B) / 2 / ESZ) : 0;
        pipe->InitBuffer(a2_, nb0_ == 2 ? uint32_t(arena_cap(A_L0A)) : a2Len_ * ESZ, loc);
        pipe->InitBuffer(b2_, nb0_ == 2 ? uint32_t(arena_cap(A_L0B)) : b2Len_ * ESZ, loc);
        pipe->InitBuffer(c1_, uint32_t(nbC_) * c1Len_ * sizeof(Acc), loc);
        if (bias) {
            pipe->InitBuffer(bias1_, uint32_t(nP_) * sizeof(BiasT), loc);
            pipe->InitBuffer(bias2_, uint32_t(nP_) * sizeof(Acc), loc);
        }
        pipe->opkit_share_end();
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
        arm_core(pipe_);
        CoreFlags& fl = core_flags();
        const int mUse = (I8 && op.ta) ? up(rows, 32) : rows;  // int8 transposing loads move 32 x 32 squares
        const int nUse = (I8 && !op.tb) ? up(cols, 32) : cols;
        mB_ = (mUse + 15) / 16;
        const int mBlk = mB_;
        const int nBlk = (nUse + 15) / 16;
        GlobalTensor<SrcT> ga, gb;
        ga.SetGlobalBuffer(reinterpret_cast<__gm__ SrcT*>(const_cast<SrcAT*>(op.a)));
        gb.SetGlobalBuffer(reinterpret_cast<__gm__ SrcT*>(const_cast<SrcBT*>(op.b)));
        cbuf_ = nbC_ == 2 ? int(ntile_++ % 2) : 0;
        LocalTensor<Acc> c = c1_.template Get<Acc>()[uint32_t(cbuf_) * c1Len_];
        LocalTensor<Acc> bt;
        if (op.bias_on) {
            GlobalTensor<BiasT> gbias;
            gbias.SetGlobalBuffer(reinterpret_cast<__gm__ BiasT*>(const_cast<BiasT*>(op.bias)));
            LocalTensor<BiasT> b1 = bias1_.template Get<BiasT>();
            bt = bias2_.template Get<Acc>();
            // one row, ND2NZ: the cols values zero-padded to whole 32-B blocks, contiguous in C1
            l1_take(ID_BIAS);
            DataCopy(b1, gbias[c0], Nd2NzParams(1, 1, uint16_t(cols), 0, uint16_t(cols), 1, 1, 0), loc);
            SetFlag<HardEvent::MTE2_MTE1>(ID_BIAS);
            WaitFlag<HardEvent::MTE2_MTE1>(ID_BIAS);
            WaitFlag<HardEvent::M_MTE1>(ID_BT);  // the Mmad that read the BiasTable last
            if constexpr (std::is_same<BiasT, Acc>::value) {
                DataCopy(bt, b1.template ReinterpretCast<Acc>(), uint32_t(up(cols, 32 / int(sizeof(Acc)))), loc);
            } else {  // half -> float on the way (blockLen in 64-B units of the BiasTable)
                DataCopy(bt, b1, DataCopyParams(1, uint16_t(up(cols, 64 / int(sizeof(Acc))) * sizeof(Acc) / 64), 0, 0), loc);
            }
            l1_release(ID_BIAS);
        }
        if (!unit_ && fl.fix[cbuf_]) {  // the Fixpipe that last read this L0C buffer (with the unit flag: per block)
            WaitFlag<HardEvent::FIX_M>(cbuf_);
            fl.fix[cbuf_] = false;
        }
        const int K = op.k;
        const int kL1 = stepK_ * bk_;
        const int im = r0 / bm_, in = c0 / bn_;
        bool first = true;
        for (int k1 = 0; k1 < K; k1 += kL1) {
            const int kc = std::min(kL1, K - k1), kci = k1 / kL1;
            const Chunk ca{op.a, r0, k1, rows, kc}, cb{op.b, c0, k1, cols, kc};
            // the other AIV's job of an IBShare pair copied this chunk (begin_job): the copy is not charged
            const Place pa = place(a_, ca, im, nOrder_ ? im / a_.groupTiles : im, kci, shareA_ && hitA_, "A", op.m, op.k, loc);
            const Place pb = place(b_, cb, in, nOrder_ ? in : in / b_.groupTiles, kci, shareB_ && hitB_, "B", op.k, op.n, loc);
            LocalTensor<SrcT> a1 = a1_.template Get<SrcT>()[pa.slot * a_.len];
            LocalTensor<SrcT> b1 = b1_.template Get<SrcT>()[pb.slot * b_.len];
            if (pa.copy) {
                // the copy the other AIV's job made is neither traced nor counted; a shared copy is listed (begin_job)
                Scoped<bool> quiet(pa.quiet, &opkit::sim::CoreState::trace_quiet, true);
                Scoped<TraceList> rec(shareA_ && recA_, &opkit::sim::CoreState::trace_record, recA_);
                copy_a(a1, ga, op, r0, k1, rows, kc, loc);
                SetFlag<HardEvent::MTE2_MTE1>(pa.id);
            }
            if (pb.copy) {
                Scoped<bool> quiet(pb.quiet, &opkit::sim::CoreState::trace_quiet, true);
                Scoped<TraceList> rec(shareB_ && recB_, &opkit::sim::CoreState::trace_record, recB_);
                copy_b(b1, gb, op, c0, k1, cols, kc, loc);
                SetFlag<HardEvent::MTE2_MTE1>(pb.id);
            }
            if (pa.copy) WaitFlag<HardEvent::MTE2_MTE1>(pa.id);
            if (pb.copy) WaitFlag<HardEvent::MTE2_MTE1>(pb.id);
            for (int k2 = 0; k2 < kc; k2 += bk_) {
                const int kk = std::min(bk_, kc - k2);
                const int h = nb0_ == 2 ? fl.l0 : 0;
                LocalTensor<SrcT> a2 = a2_.template Get<SrcT>()[uint32_t(h) * a2Half_];
                LocalTensor<SrcT> b2 = b2_.template Get<SrcT>()[uint32_t(h) * b2Half_];
                WaitFlag<HardEvent::M_MTE1>(h);  // the Mmad that last read this half
                load_a(a2, a1, op.ta, rows, mBlk, kc, k2, kk, loc);
                load_b(b2, b1, op.tb, cols, nBlk, kc, k2, kk, loc);
                if (k2 + bk_ >= kc) {  // the chunk's last loads: a streamed buffer is free for the next copy
                    if (a_.mode == STREAM) l1_release(pa.id);
                    if (b_.mode == STREAM) l1_release(pb.id);
                }
                SetFlag<HardEvent::MTE1_M>(h);
                WaitFlag<HardEvent::MTE1_M>(h);
                MmadParams p;
                p.m = uint16_t(mUse);
                p.n = uint16_t(nUse);
                p.k = uint16_t(kk);
                p.kDirectionAlign = F32;
                if (unit_) p.unitFlag = (k1 + kc >= K && k2 + bk_ >= kc) ? 3 : 2;  // 3: the tile's last K step
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
                if (first && op.bias_on) SetFlag<HardEvent::M_MTE1>(ID_BT);
                first = false;
                SetFlag<HardEvent::M_MTE1>(h);
                if (nb0_ == 2) fl.l0 ^= 1;
            }
        }
        if (!unit_) SetFlag<HardEvent::M_FIX>(cbuf_);
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
        if (unit_) f.unitFlag = 3;  // each 512-B block as soon as the last Mmad has written it
        else WaitFlag<HardEvent::M_FIX>(cbuf_);
        if (atomic) SetAtomicAdd<DstT>();
        LocalTensor<Acc> c = c1_.template Get<Acc>()[uint32_t(cbuf_) * c1Len_];
        if (nz) {
            f.nSize = uint16_t((cols + 15) / 16 * 16);
            Fixpipe<DstT, Acc, CFG_NZ>(g, c, f, loc);
        } else {
            Fixpipe<DstT, Acc, CFG_ROW_MAJOR>(g, c, f, loc);
        }
        if (atomic) SetAtomicNone();
        if (unit_) return;  // the next Mmad waits per block (unit flag)
        SetFlag<HardEvent::FIX_M>(cbuf_);
        core_flags().fix[cbuf_] = true;
    }

    // The end of a job the AIC served for an AIV (CANN's server ends each with End()): the next job's copies wait
    // until MTE1 has finished with this job's L1 buffers (the IBShare region stays: its pair's job reads it), its
    // first Mmad until the last Fixpipe (the FIX -> M events still set are waited on M).
    void end_job() {
        CoreFlags& fl = core_flags();
        for (int i = 0; i < ID_DRAIN; ++i) l1_take(i);
        SetFlag<HardEvent::MTE1_MTE2>(ID_DRAIN);
        WaitFlag<HardEvent::MTE1_MTE2>(ID_DRAIN);
        if (unit_) {  // with the unit flag nothing was set: the drain (CANN's CubeOutBuffer::Destroy)
            SetFlag<HardEvent::FIX_M>(0);
            fl.fix[0] = true;
        }
        for (int i = 0; i < 2; ++i)
            if (fl.fix[i]) {
                WaitFlag<HardEvent::FIX_M>(i);
                fl.fix[i] = false;
            }
        for (Side* s : {&a_, &b_})
            if (s->mode == CACHED) {
                s->group = -1;
                s->held.assign(s->slots, Chunk{});
            }
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
    struct Pending {
        int64_t client = -1;
        Held a, b;
        std::vector<opkit::sim::CoreState::TraceRec> recA, recB;  // its traced copies of A and B (it is the second client's)
    };
    // A CoreState field set to `value` for one scope and put back after it, when `on` (a scope guard).
    template <class T>
    struct Scoped {
        T* field = nullptr;
        T was{};
        Scoped(bool on, T opkit::sim::CoreState::*member, T value) {
            if (!on) return;
            field = &(opkit::sim::core().*member);
            was = *field;
            *field = value;
        }
        ~Scoped() {
            if (field) *field = was;
        }
        Scoped(const Scoped&) = delete;
        Scoped& operator=(const Scoped&) = delete;
    };
    using TraceList = std::vector<opkit::sim::CoreState::TraceRec>*;

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
        for (Side* s : {&a_, &b_}) {  // a new job's operands may be new data at the same addresses
            if (s->mode == CACHED && s->group >= 0) l1_release(s->id + 2);  // its first copy waits for the old region's loads
            s->group = -1;
            s->held.assign(s->held.size(), Chunk{});
        }
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
    // How the operand's L1 buffers are kept (module comment): `step` is stepM (A) or stepN (B), `groupTiles` the
    // tiles of one cached group, `len` / `sharedLen` the elements of one slot, `tiles` the operand's M (A) or N (B)
    // tiles of the single shape.
    void plan(Side& s, bool shared, int depth, int kIter, int step, int groupTiles, int id, uint32_t len, uint32_t sharedLen,
              int tiles) {
        s = Side{};
        s.id = id;
        if (shared) {
            s.mode = SHARED;
            s.len = sharedLen;
            s.slots = uint32_t(tiles * kChunks_);
        } else if (depth >= kIter * step && !(depth == 2 && kIter == 1)) {
            s.mode = CACHED;
            s.groupTiles = groupTiles;
            s.len = len;
            s.slots = uint32_t(groupTiles * kChunks_);
        } else {
            s.mode = STREAM;
            s.nbuf = depth >= 2 ? 2 : 1;
            s.len = len;
            s.slots = uint32_t(s.nbuf);
        }
        s.held.assign(s.mode == STREAM ? 0 : s.slots, Chunk{});
    }
    // Where chunk `ch` (K block `kci` of tile `tile`, in cached group `group`) goes in the operand's L1 buffers, the
    // event ID of that buffer, and whether it must be copied (not when the slot holds it) and whether the copy is free
    // (`pairHit`: the IBShare pair's other job made it). Waits, on MTE2, for MTE1's release of the buffer it fills.
    struct Place {
        uint32_t slot = 0;
        int id = 0;
        bool copy = true, quiet = false;
    };
    Place place(Side& s, const Chunk& ch, int tile, int64_t group, int kci, bool pairHit, const char* which, int m, int k,
                const opkit::sim::SrcLoc& loc) {
        Place p;
        p.quiet = pairHit;
        if (s.mode == STREAM) {
            p.slot = s.next;
            p.id = s.id + int(s.next);
            s.next = (s.next + 1) % uint32_t(s.nbuf);
            l1_take(p.id);
            return p;
        }
        p.id = s.id + 2;
        if (s.mode == SHARED) {
            p.slot = uint32_t(tile * kChunks_ + kci);
            if (p.slot >= s.slots)
                opkit::sim::fail_at("Matmul::Iterate", loc, "IBShare: this job's %s (%d x %d) is larger than the single shape the L1 copy "
                                    "of the whole shared matrix was made for at the first job (SetSingleShape / the tiling's singleCore "
                                    "shape)", which, m, k);
        } else {
            if (group != s.group) {
                if (s.group >= 0) l1_release(p.id);
                s.group = group;
                s.held.assign(s.slots, Chunk{});
            }
            p.slot = uint32_t((tile % s.groupTiles) * kChunks_ + kci);
        }
        if (s.held[p.slot] == ch) {
            p.copy = false;
            return p;
        }
        l1_take(p.id);
        s.held[p.slot] = ch;
        return p;
    }
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
    TPipe* pipe_ = nullptr;
    bool ready_ = false, has_bias_ = false, shareA_ = false, shareB_ = false, hitA_ = false, hitB_ = false, nOrder_ = false;
    bool unit_ = true;  // the config's enUnitFlag: L0C handed between Mmad and Fixpipe 512 B at a time, no events
    int kChunks_ = 1;
    Side a_, b_;                            // the L1 buffers of A and B
    std::map<int64_t, uint64_t> jobs_;     // IBShare: jobs run so far, per client
    std::map<uint64_t, Pending> pending_;  // IBShare: job number -> the first of the pair's jobs, awaiting the other
    std::vector<opkit::sim::CoreState::TraceRec>*recA_ = nullptr, *recB_ = nullptr;  // where the running job lists its shared copies
    int bm_ = 0, bn_ = 0, bk_ = 0, stepK_ = 1, nb0_ = 1, nbC_ = 1, cbuf_ = 0, mP_ = 0, nP_ = 0, kP1_ = 0, kP0_ = 0, mB_ = 0;
    uint32_t a2Len_ = 0, b2Len_ = 0, c1Len_ = 0, a2Half_ = 0, b2Half_ = 0;
    uint64_t ntile_ = 0;
};

}  // namespace opkit_mm
}  // namespace AscendC
