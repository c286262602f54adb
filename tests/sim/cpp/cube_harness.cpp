// The cube instructions (DataCopy Nd2Nz, LoadData, Mmad, Fixpipe) on one AIC core.
// usage: cube_harness DIR DTYPE M N K RELU BIAS SCENARIO
//   DTYPE: f16 (half in, half out), bf16 (bf16 in, bf16 out), f16f32 (half in, float out), f32 (float in, B given as [N, K]),
//          s8 (int8 in, int32 out, B given as [N, K]), s8h (int8 in, int32 L0C, half out = 0.5 x C by DEQF16)
//   SCENARIO "gemm" computes C = act(A x B + bias); the others are broken kernels (a line marked "// @name" is where
//   scenario "name" must be reported), or "b_no_transpose" (B loaded without transposing its fractals).
// Reads DIR/a.bin, b.bin, bias.bin (float or int32); writes DIR/out.bin.
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S, DT;
static int M, N, K, RELU, BIAS;

static std::vector<uint8_t> rd(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

template <class T> constexpr QuantMode_t quant_for() {
    return std::is_same<T, half>::value ? QuantMode_t::F322F16 : std::is_same<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::NoQuant;
}

template <class T, class L0CT, class OutT, bool B_TRANS>
void gemm(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    constexpr int k0 = 32 / sizeof(T);
    const int mB = (M + 15) / 16, nB = (N + 15) / 16, kB = (K + k0 - 1) / k0;
    const int mPad = mB * 16, nPad = nB * 16, kPad = kB * k0;
    GlobalTensor<T> ag, bg;
    GlobalTensor<L0CT> biasg;
    GlobalTensor<OutT> cg;
    ag.SetGlobalBuffer((__gm__ T*)a);
    bg.SetGlobalBuffer((__gm__ T*)b);
    biasg.SetGlobalBuffer((__gm__ L0CT*)bias);
    cg.SetGlobalBuffer((__gm__ OutT*)c);
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TSCM<TPosition::GM, 1> qscm;  // scenario "tscm": A in L1 through the TSCM position
    const bool tscm = S == "tscm";
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    TQue<TPosition::C1, 1> qbias1;
    TQue<TPosition::C2, 1> qbias2;
    TBuf<TPosition::CO1> craw;
    TBuf<TPosition::A1> chainL1;
    TBuf<TPosition::A2> chainA2;
    if (S == "l1_over") {
        pipe.InitBuffer(qa1, 1, OPKIT_SIM_L1_CAP - 1024);
        pipe.InitBuffer(qb1, 1, 1024 + 32);  // @l1_over
    }
    if (S == "l0a_over") pipe.InitBuffer(qa2, 2, 32768 + 512);  // @l0a_over
    if (S == "l0c_over") pipe.InitBuffer(qc, 1, 131072 + 64);  // @l0c_over
    if (tscm) pipe.InitBuffer(qscm, 1, mPad * kPad * sizeof(T));
    else pipe.InitBuffer(qa1, 1, mPad * kPad * sizeof(T));
    pipe.InitBuffer(qb1, 1, (B_TRANS ? nPad * kPad : kPad * nPad) * sizeof(T));
    pipe.InitBuffer(qa2, 1, mPad * kPad * sizeof(T) + 1024);
    pipe.InitBuffer(qb2, 1, kPad * nPad * sizeof(T) + 1024);
    pipe.InitBuffer(qc, 1, mPad * nPad * sizeof(L0CT) + 1024);
    pipe.InitBuffer(qbias1, 1, nPad * sizeof(L0CT));
    pipe.InitBuffer(qbias2, 1, nPad * sizeof(L0CT));
    pipe.InitBuffer(craw, mPad * nPad * sizeof(L0CT));
    if (S == "chain" || S == "chain_nosync") {
        pipe.InitBuffer(chainL1, mPad * nPad * sizeof(T));
        pipe.InitBuffer(chainA2, mPad * nPad * sizeof(T));
    }

    // GM -> L1, ND -> NZ
    LocalTensor<T> a1 = tscm ? qscm.AllocTensor<T>() : qa1.AllocTensor<T>();
    LocalTensor<T> b1 = qb1.AllocTensor<T>();
    if (S == "nd2nz_overlap")
        DataCopy(a1, ag, Nd2NzParams(1, M, K, 0, K, M - 1, 1, 0));  // @nd2nz_overlap
    if (S == "ldt") DataCopy(a1, ag, mPad * kPad);  // a raw L1 image of fractals
    else DataCopy(a1, ag, Nd2NzParams(1, M, K, 0, K, mPad, 1, 0));
    if (B_TRANS) DataCopy(b1, bg, Nd2NzParams(1, N, K, 0, K, nPad, 1, 0));
    else DataCopy(b1, bg, Nd2NzParams(1, K, N, 0, N, kPad, 1, 0));
    if (tscm) qscm.EnQue(a1);
    else qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = tscm ? qscm.DeQue<T>() : qa1.DeQue<T>();
    b1 = qb1.DeQue<T>();

    // L1 -> L0A (ZZ), L1 -> L0B (ZN)
    LocalTensor<T> a2 = qa2.AllocTensor<T>();
    LocalTensor<T> b2 = qb2.AllocTensor<T>();
    if (S == "l0a_misaligned") LoadData(a2[16], a1, LoadData2DParams(0, 1, 0, 0, 0, false, 0));  // @l0a_misaligned
    if (S == "l0a_not_loaded") {
        DataCopy(a2, a1, mPad * kPad);
    } else if (S == "ldt") {
        // each repeat transposes one square (two fractals for b8/b32) into two consecutive A2 fractals
        if constexpr (sizeof(T) != 2) LoadDataWithTranspose(a2, a1, LoadData2dTransposeParams(0, mB * kB / 2, 1, 1, 0, 0));
    } else if (S == "a_zero_fill") {
        if constexpr (sizeof(T) == 2) Fill(a2, InitConstValueParams<T>(1, mB * kB, 0, T(0)));  // a zero A by the fill instruction
    } else {
        for (int i = 0; i < mB; ++i) LoadData(a2[i * kB * 16 * k0], a1[i * 16 * k0], LoadData2DParams(0, kB, mB, 0, 0, false, 0));
    }
    if (B_TRANS) {
        LoadData(b2, b1, LoadData2DParams(0, kB * nB, 1, 0, 0, false, 0));
    } else {
        bool tr = S != "b_no_transpose";
        for (int i = 0; i < kB; ++i) LoadData(b2[i * nB * 256], b1[i * 256], LoadData2DParams(0, nB, kB, 0, 0, tr, 0));
    }
    if (tscm) qscm.FreeTensor(a1);
    else qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    qa2.EnQue(a2);
    qb2.EnQue(b2);
    a2 = qa2.DeQue<T>();
    b2 = qb2.DeQue<T>();

    LocalTensor<L0CT> bias2;
    if (BIAS) {
        LocalTensor<L0CT> bias1 = qbias1.AllocTensor<L0CT>();
        DataCopy(bias1, biasg, nPad);
        qbias1.EnQue(bias1);
        bias1 = qbias1.DeQue<L0CT>();
        bias2 = qbias2.AllocTensor<L0CT>();
        DataCopy(bias2, bias1, nPad);
        qbias1.FreeTensor(bias1);
        qbias2.EnQue(bias2);
        bias2 = qbias2.DeQue<L0CT>();
    }

    const bool raw = S == "no_m_fix_sync" || S == "m_fix_flag" || S == "unit_flag";  // L0C from a TBuf: ordering is the kernel's job
    LocalTensor<L0CT> c1 = raw ? craw.Get<L0CT>() : qc.AllocTensor<L0CT>();
    MmadParams mp;
    mp.m = S == "mmad_shape" ? 4096 : M;
    mp.n = N;
    mp.k = S == "l0a_uninit" ? K + k0 : K;
    if (S == "l0a_uninit") {
        Mmad(c1, a2, b2, mp);  // @l0a_uninit
    } else if (S == "mmad_shape") {
        Mmad(c1, a2, b2, mp);  // @mmad_shape
    } else if (S == "l0c_misaligned") {
        Mmad(c1[64], a2, b2, mp);  // @l0c_misaligned
    } else if (S == "l0a_not_loaded") {
        Mmad(c1, a2, b2, mp);  // @l0a_not_loaded
    } else if (S == "accumulate_uninit") {
        mp.cmatrixInitVal = false;
        Mmad(c1, a2, b2, mp);  // @accumulate_uninit
    } else if (S == "unit_flag") {
        mp.unitFlag = 3;
        Mmad(c1, a2, b2, mp);
    } else if (BIAS) {
        Mmad(c1, a2, b2, bias2, mp);
    } else if (S == "accumulate_twice") {
        Mmad(c1, a2, b2, mp);
        if ((M / 16) * (N / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page's rule for small accumulating Mmads
        MmadParams again = mp;
        again.cmatrixInitVal = false;  // C += A x B
        Mmad(c1, a2, b2, again);
    } else if (S.rfind("acc_", 0) == 0) {  // C = A x B, then C += A x B twice, ordered as the scenario says
        Mmad(c1, a2, b2, mp);  // @acc_first
        if (S == "acc_barrier_all") PipeBarrier<PIPE_ALL>();
        if (S == "acc_wrong_pipe") PipeBarrier<PIPE_MTE1>();
        if (S == "acc_gap") PipeBarrier<PIPE_M>();  // ordered before the second Mmad, but not the second before the third
        MmadParams again = mp;
        again.cmatrixInitVal = false;
        Mmad(c1, a2, b2, again);  // @acc_no_barrier
        if (S == "acc_barrier_all") PipeBarrier<PIPE_ALL>();
        Mmad(c1, a2, b2, again);  // @acc_gap
    } else {
        Mmad(c1, a2, b2, mp);
    }
    qa2.FreeTensor(a2);
    const bool chain = S == "chain" || S == "chain_nosync";  // multiplies by B again: B is freed after that
    if (!chain) qb2.FreeTensor(b2);
    if (BIAS) qbias2.FreeTensor(bias2);
    if (S == "m_fix_flag") {
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    } else if (!raw) {
        qc.EnQue(c1);
        c1 = qc.DeQue<L0CT>();
    }
    FixpipeParamsV220 fp(N, M, mPad, N, RELU != 0);
    fp.quantPre = quant_for<OutT>();
    if (std::is_same<L0CT, int32_t>::value && std::is_same<OutT, half>::value) {
        float scale = 0.5f;  // int32 -> half, x 0.5 (the scale's float bits in deqScalar)
        uint32_t bits;
        std::memcpy(&bits, &scale, 4);
        fp.quantPre = QuantMode_t::DEQF16;
        fp.deqScalar = bits;
    }
    if (S == "fixpipe_quant") {
        fp.quantPre = QuantMode_t::NoQuant;
        Fixpipe(cg, c1, fp);  // @fixpipe_quant
    }
    if (S == "no_m_fix_sync") {
        Fixpipe(cg, c1, fp);  // @no_m_fix_sync
    } else if (S == "m_fix_flag") {
        Fixpipe(cg, c1, fp);
    } else if (S == "unit_flag") {
        fp.unitFlag = 3;  // Mmad and Fixpipe hand over fractal by fractal: no M_FIX flag needed
        Fixpipe(cg, c1, fp);
    } else if (S == "chain" || S == "chain_nosync") {
        // C1 = A x B -> Fixpipe to L1 as fp16 NZ -> LoadData as the next A -> C2 = C1 x B -> GM
        if constexpr (std::is_same<T, half>::value && std::is_same<OutT, half>::value) {
            LocalTensor<T> l1c = chainL1.Get<T>();
            LocalTensor<T> a2c = chainA2.Get<T>();
            FixpipeParamsV220 toL1(N, M, mPad, mPad, false);  // NZ columns of mPad rows x 32 B
            toL1.quantPre = QuantMode_t::F322F16;
            Fixpipe<T, L0CT, CFG_NZ>(l1c, c1, toL1);
            if (S == "chain") {
                SetFlag<HardEvent::FIX_MTE1>(EVENT_ID0);
                WaitFlag<HardEvent::FIX_MTE1>(EVENT_ID0);
            }
            const int nB16 = (N + 15) / 16;
            for (int i = 0; i < mB; ++i) LoadData(a2c[i * nB16 * 256], l1c[i * 256], LoadData2DParams(0, nB16, mB, 0, 0, false, 0));  // @chain_nosync
            SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
            WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
            SetFlag<HardEvent::FIX_M>(EVENT_ID0);  // the first Fixpipe has read c1 before the Mmad overwrites it
            WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
            MmadParams p2;
            p2.m = M; p2.n = N; p2.k = N;
            Mmad(c1, a2c, b2, p2);
            SetFlag<HardEvent::M_FIX>(EVENT_ID0);
            WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
            Fixpipe(cg, c1, fp);
        }
        qb2.FreeTensor(b2);
        qc.FreeTensor(c1);
    } else if (S == "nz_out") {
        fp.dstStride = mPad * 16 * sizeof(OutT) / 32;  // 32-B blocks between the fractal columns of the NZ result
        Fixpipe<OutT, L0CT, CFG_NZ>(cg, c1, fp);
        qc.FreeTensor(c1);
    } else {
        Fixpipe(cg, c1, fp);
        qc.FreeTensor(c1);
    }
}

extern "C" __global__ __aicore__ void cube_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    if (DT == "f16") gemm<half, float, half, false>(a, b, bias, c);
    else if (DT == "bf16") gemm<bfloat16_t, float, bfloat16_t, false>(a, b, bias, c);
    else if (DT == "f16f32") gemm<half, float, float, false>(a, b, bias, c);
    else if (DT == "f32") gemm<float, float, float, true>(a, b, bias, c);
    else if (DT == "s8") gemm<int8_t, int32_t, int32_t, true>(a, b, bias, c);
    else if (DT == "s8h") gemm<int8_t, int32_t, half, true>(a, b, bias, c);
}

int main(int, char** argv) {
    std::string d = argv[1];
    DT = argv[2];
    M = std::atoi(argv[3]); N = std::atoi(argv[4]); K = std::atoi(argv[5]);
    RELU = std::atoi(argv[6]); BIAS = std::atoi(argv[7]);
    S = argv[8];
    size_t out_es = (DT == "f16" || DT == "bf16" || DT == "s8h") ? 2 : 4;
    const char* names[3] = {"a.bin", "b.bin", "bias.bin"};
    uint8_t* g[3];
    for (int i = 0; i < 3; ++i) {
        std::vector<uint8_t> v = rd(d + "/" + names[i]);
        size_t sz = v.size() + 64 * 4;  // bias is read in whole 16-element blocks
        g[i] = (uint8_t*)GmAlloc(sz);
        std::memcpy(g[i], v.data(), v.size());
    }
    size_t cbytes = size_t(M) * N * out_es;
    uint8_t* c = (uint8_t*)GmAlloc(cbytes);
    opkit::sim::set_kernel_type(S == "cube_on_aiv" ? KERNEL_TYPE_AIV_ONLY : KERNEL_TYPE_AIC_ONLY);
    ICPU_RUN_KF(cube_kernel, 1, g[0], g[1], g[2], c);
    std::ofstream f(d + "/out.bin", std::ios::binary);
    f.write((const char*)c, cbytes);
    return 0;
}
