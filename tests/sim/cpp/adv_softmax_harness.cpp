// Test harness: runs one API of the SoftMax family, AdjustSoftMaxRes or DropOut on data read from files.
// usage: adv_softmax_harness DIR OP key=value...
//   in0.bin: the source; in1.bin: inMax | inSum (inSum at byte i_sum); in2.bin: DropOut's mask;
//   dst.bin: the output area: dst | max (o_max) | sum (o_sum) | expMax (o_em) | outReduceMax (o_rm).
//   dt=f16|f32, mixed=1 (half source, float max/sum), m, k, kv (oriSrcK), update, basic, nz,
//   cfg=normal|nobrc|nocheck, tmp=<sharedTmpBuffer bytes, 0: none>, ws=<tiling workspace bytes>,
//   tl=plan|other (a tiling made for another shape)|zero.
#include "harness_common.h"

constexpr SoftmaxConfig CFG_NOBRC = {true, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};
constexpr SoftmaxConfig CFG_NOCHECK = {false, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};
constexpr SoftmaxConfig CFG_CONST = {true, 5, 21};  // a constant [5, 21] shape (f32: padded to 24)
constexpr SoftmaxConfig CFG_FA = {false, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};  // FlashAttention's

struct Ctx {
    Bufs* B;
    LocalTensor<uint8_t> tmp;
    bool has_tmp = false;
    SoftMaxTiling tl;
    SoftMaxShapeInfo si;
};

template <class X> LocalTensor<X> at(Bufs& B, int i, const char* key) {
    return B.t[i][uint32_t(pi(key))].template ReinterpretCast<X>();
}

static SoftMaxTiling make_tiling(const std::string& op, uint32_t m, uint32_t k, uint32_t s1, uint32_t s2, bool upd, bool basic,
                                 bool nobrc) {
    std::string how = ps("tl", "plan");
    if (how == "zero") return SoftMaxTiling{};
    if (how == "other") m += 8;
    uint32_t ws = uint32_t(pi("ws", 0));
    if (op == "V2" || op == "V2Rmax") {
        SoftMaxShapeInfo s{m, k, m, k};
        return SoftMaxFlashV2TilingFunc(s, s1, s2, ws, upd, basic, false, nobrc);
    }
    if (op == "Flash") return opkit_softmax::FlashPlan(m, k, s1, ws, upd);
    return opkit_softmax::SoftMaxPlan(m, k, s1, ws);
}

// FlashAttention's pattern: everything in place in the output area (x -> dst, inMax/inSum -> max/sum),
// the tiling from the kernel-side function for the tmp buffer, no SoftMaxShapeInfo.
template <class T, bool upd, bool basic> static void run_v2_fa(Ctx& c) {
    Bufs& B = *c.B;
    LocalTensor<T> x = at<T>(B, 3, "o_dst"), mx = at<T>(B, 3, "o_max"), sm = at<T>(B, 3, "o_sum"), em = at<T>(B, 3, "o_em");
    SoftMaxTiling t = SoftMaxFlashV2TilingFuncImpl(uint32_t(pi("m")), uint32_t(pi("k")), sizeof(T), sizeof(T),
                                                   c.tmp.GetSize() / sizeof(T), upd, basic, false, true);
    SoftmaxFlashV2<T, upd, true, basic, false, CFG_FA>(x, sm, mx, x, em, sm, mx, c.tmp, t);
}

template <class T, class U, class E, bool upd, bool basic, bool nz, const SoftmaxConfig& cfg>
static void run_one(const std::string& op, Ctx& c) {
    Bufs& B = *c.B;
    LocalTensor<T> dst = at<T>(B, 3, "o_dst"), src = L<T>(B, 0);
    LocalTensor<U> mx = at<U>(B, 3, "o_max"), sm = at<U>(B, 3, "o_sum"), rm = at<U>(B, 3, "o_rm");
    LocalTensor<E> em = at<E>(B, 3, "o_em");
    LocalTensor<U> imx = at<U>(B, 1, "i_max"), ism = at<U>(B, 1, "i_sum");
    if (op == "SoftMax") {
        if (c.has_tmp) SoftMax<T, false, basic, nz, cfg>(dst, sm, mx, src, c.tmp, c.tl, c.si);  // @tmp_SoftMax
        else SoftMax<T, false, basic, nz, cfg>(dst, sm, mx, src, c.tl, c.si);
    } else if (op == "SoftMaxDst") {
        if constexpr (std::is_same<T, U>::value) {
            if (c.has_tmp) SoftMax<T, false, basic, cfg>(dst, src, c.tmp, c.tl, c.si);
            else SoftMax<T, false, basic, cfg>(dst, src, c.tl, c.si);
        }
    } else if (op == "Simple") {
        if (c.has_tmp) SimpleSoftMax<T, false, basic, nz, cfg>(dst, ism, imx, src, c.tmp, c.tl, c.si);  // @tmp_Simple
        else SimpleSoftMax<T, false, basic, nz, cfg>(dst, ism, imx, src, c.tl, c.si);
    } else if (op == "Flash") {
        if (c.has_tmp) SoftmaxFlash<T, false, basic>(dst, sm, mx, src, em, ism, imx, c.tmp, c.tl, upd, c.si);
        else SoftmaxFlash<T, false, basic>(dst, sm, mx, src, em, ism, imx, c.tl, upd, c.si);
    } else if (op == "V2") {
        if (c.has_tmp) SoftmaxFlashV2<T, upd, false, basic, nz, cfg>(dst, sm, mx, src, em, ism, imx, c.tmp, c.tl, c.si);  // @tmp_V2
        else SoftmaxFlashV2<T, upd, false, basic, nz, cfg>(dst, sm, mx, src, em, ism, imx, c.tl, c.si);
    } else if (op == "V2Rmax") {
        if constexpr (std::is_same<T, U>::value) {
            if (c.has_tmp) SoftmaxFlashV2<T, upd, false, false, false, cfg>(dst, rm, sm, mx, src, em, ism, imx, c.tmp, c.tl, c.si);
            else SoftmaxFlashV2<T, upd, false, false, false, cfg>(dst, rm, sm, mx, src, em, ism, imx, c.tl, c.si);
        }
    }
}

template <class T, class U, class E, bool upd, bool basic, bool nz>
static void pick_cfg(const std::string& op, Ctx& c) {
    std::string cfg = ps("cfg", "normal");
    if (cfg == "nobrc") run_one<T, U, E, upd, basic, nz, CFG_NOBRC>(op, c);
    else if (cfg == "nocheck") run_one<T, U, E, upd, basic, nz, CFG_NOCHECK>(op, c);
    else if (cfg == "const") run_one<T, U, E, upd, basic, nz, CFG_CONST>(op, c);
    else run_one<T, U, E, upd, basic, nz, SOFTMAX_DEFAULT_CFG>(op, c);
}
template <class T, class U, class E>
static void pick(const std::string& op, Ctx& c) {
    bool u = pi("update"), b = pi("basic"), z = pi("nz");
    if (u) {
        if (b) { if (z) pick_cfg<T, U, E, true, true, true>(op, c); else pick_cfg<T, U, E, true, true, false>(op, c); }
        else { if (z) pick_cfg<T, U, E, true, false, true>(op, c); else pick_cfg<T, U, E, true, false, false>(op, c); }
    } else {
        if (b) { if (z) pick_cfg<T, U, E, false, true, true>(op, c); else pick_cfg<T, U, E, false, true, false>(op, c); }
        else { if (z) pick_cfg<T, U, E, false, false, true>(op, c); else pick_cfg<T, U, E, false, false, false>(op, c); }
    }
}

template <class T> static void run_dropout(Ctx& c) {
    Bufs& B = *c.B;
    DropOutShapeInfo info;
    info.firstAxis = uint32_t(pi("rows"));
    info.srcLastAxis = uint32_t(pi("sn"));
    info.maskLastAxis = uint32_t(pi("mn"));
    float kp = float(pf("keep", 0.5));
    long mode = pi("mode", 0);
    if (pi("init")) DropOutBitModeInit(c.tmp);
#define DROP1(INIT, MODE)                                                                            \
    if (c.has_tmp) DropOut<T, INIT, MODE>(L<T>(B, 3), L<T>(B, 0), L<uint8_t>(B, 2), c.tmp, kp, info); \
    else DropOut<T, INIT, MODE>(L<T>(B, 3), L<T>(B, 0), L<uint8_t>(B, 2), kp, info);
#define DROP(MODE) if (pi("initmode")) { DROP1(true, MODE) } else { DROP1(false, MODE) }
    if (mode == 1) { DROP(DROPOUT_MODE_BYTE_MISALIGN) }
    else if (mode == 2) { DROP(DROPOUT_MODE_BYTE_ALIGN) }
    else if (mode == 3) { DROP(DROPOUT_MODE_BIT_ALIGN) }
    else if (mode == 4) { DROP(DROPOUT_MODE_BIT_MISALIGN) }
    else { DROP(0) }
#undef DROP
#undef DROP1
}

template <class T> static void run_broadcast(Ctx& c) {
    Bufs& B = *c.B;
    const uint32_t r = uint32_t(pi("r")), cols = uint32_t(pi("c"));
    const uint32_t dst2[2] = {r, cols};
    LocalTensor<T> src = pi("overlap") ? L<T>(B, 3) : L<T>(B, 0);
    if (pi("axis") == 0) {
        const uint32_t src2[2] = {1, cols};
        if (c.has_tmp) Broadcast<T, 2, 0>(L<T>(B, 3), src, dst2, src2, c.tmp);
        else Broadcast<T, 2, 0>(L<T>(B, 3), src, dst2, src2);
    } else {
        const uint32_t src2[2] = {r, 1};
        if (c.has_tmp) Broadcast<T, 2, 1>(L<T>(B, 3), src, dst2, src2, c.tmp);
        else Broadcast<T, 2, 1>(L<T>(B, 3), src, dst2, src2);
    }
}

template <class T1, class T2> static void run_adjust(Ctx& c) {
    Bufs& B = *c.B;
    bool hit;
    T1 to = T1(float(pf("to", 0)));
    uint32_t from = uint32_t(pu("from"));
    if (pi("step")) hit = AdjustSoftMaxRes<T1, T2, false, 1>(L<T1>(B, 3), L<T2>(B, 1), from, to, c.si);
    else if (pi("nz")) hit = AdjustSoftMaxRes<T1, T2, true, 0>(L<T1>(B, 3), L<T2>(B, 1), from, to, c.si);
    else hit = AdjustSoftMaxRes<T1, T2>(L<T1>(B, 3), L<T2>(B, 1), from, to, c.si);
    g_rsvd = hit;
}

extern "C" __global__ __aicore__ void adv_kernel(GM_ADDR g0, GM_ADDR g1, GM_ADDR g2, GM_ADDR gd, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    Bufs B;
    stage_operands(pipe, B, g0, g1, g2, gd, tiling);
    Ctx c;
    c.B = &B;
    TBuf<TPosition::VECCALC> tb;
    if (pi("tmp")) {
        pipe.InitBuffer(tb, uint32_t(pi("tmp")));
        c.tmp = tb.Get<uint8_t>();
        c.has_tmp = true;
    }
    TBuf<TPosition::VECCALC> fill;  // eats UB so that the framework's scratch area shrinks
    if (pi("fill")) pipe.InitBuffer(fill, uint32_t(pi("fill")));
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    std::string op = ps("op"), dt = ps("dt");
    uint32_t m = uint32_t(pi("m")), k = uint32_t(pi("k"));
    c.si.srcM = m; c.si.srcK = k; c.si.oriSrcM = m; c.si.oriSrcK = uint32_t(pi("kv", k));
    if (pi("noinfo")) c.si = SoftMaxShapeInfo{};
    bool mixed = pi("mixed");
    uint32_t s1 = dt == "f16" ? 2 : 4, s2 = mixed ? 4 : s1;
    c.tl = make_tiling(op, m, k, s1, s2, pi("update"), pi("basic"), ps("cfg", "") == std::string("nobrc"));
    if (op == "V2FA") {
        bool u = pi("update"), b = pi("basic");
        if (u && b) run_v2_fa<float, true, true>(c);
        else if (u) run_v2_fa<float, true, false>(c);
        else if (b) run_v2_fa<float, false, true>(c);
        else run_v2_fa<float, false, false>(c);
    } else if (op == "Broadcast") {
        if (dt == "f16") run_broadcast<half>(c); else if (dt == "u8") run_broadcast<uint8_t>(c); else run_broadcast<float>(c);
    } else if (op == "DropOut") {
        if (dt == "f16") run_dropout<half>(c); else run_dropout<float>(c);
    } else if (op == "Adjust") {
        std::string dt2 = ps("dt2", dt.c_str());
        if (dt == "f16" && dt2 == "f16") run_adjust<half, half>(c);
        else if (dt == "f16") run_adjust<half, float>(c);
        else if (dt2 == "f16") run_adjust<float, half>(c);
        else run_adjust<float, float>(c);
    } else if (mixed) {
        pick<half, float, half>(op, c);
    } else if (dt == "f16") {
        pick<half, half, half>(op, c);
    } else {
        pick<float, float, float>(op, c);
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    write_back(B, gd);
}

int main(int argc, char** argv) { return run_harness(argc, argv, "adv_kernel", adv_kernel); }
