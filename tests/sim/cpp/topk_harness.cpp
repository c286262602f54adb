// Test harness of the TopK and SoftMax advanced APIs, one emulated core.
// usage: topk_harness DIR OP key=value...
//   DIR holds in0.bin (the source rows), in1.bin (int32 indices), in2.bin (one byte per row: finish flags);
//   writes out.bin: the value buffer then the index buffer (TopK), or the destination (SoftMax).
// TopK parameters: dt=f16|f32 mode=normal|small init finish largest tmp k inner n outter, and the two
// TopkTiling fields the API reads (tls = tmpLocalSize, srep = sortRepeat); vlen/ilen size the outputs,
// tmpbytes the tmpLocal buffer, fill_ub a buffer that leaves less free UB; inplace=1 writes over the source.
#include "harness_common.h"

static std::vector<uint8_t> g_out;

template <class T, bool init, bool finish, TopKMode mode>
static void run_topk(GM_ADDR src, GM_ADDR idx, GM_ADDR fin, GM_ADDR out) {
    TPipe pipe;
    const int32_t k = int32_t(pi("k")), inner = int32_t(pi("inner")), outter = int32_t(pi("outter"));
    const uint32_t srcN = uint32_t(inner * outter), vlen = uint32_t(pi("vlen")), ilen = uint32_t(pi("ilen"));
    TBuf<TPosition::VECCALC> bs, bi, bf, bv, bo, bt;
    pipe.InitBuffer(bs, srcN * sizeof(T));
    pipe.InitBuffer(bi, srcN * 4);
    pipe.InitBuffer(bf, 32 * ((outter + 31) / 32));
    pipe.InitBuffer(bv, vlen * sizeof(T));
    pipe.InitBuffer(bo, ilen * 4);
    if (pi("tmp")) pipe.InitBuffer(bt, uint32_t(pi("tmpbytes")));
    if (pi("fill_ub")) {  // leave less free UB than the stack form needs
        TBuf<TPosition::VECCALC> rest;
        pipe.InitBuffer(rest, uint32_t(pi("fill_ub")));
    }
    LocalTensor<T> s = bs.Get<T>(), v = bv.Get<T>();
    LocalTensor<int32_t> si = bi.Get<int32_t>(), o = bo.Get<int32_t>();
    LocalTensor<bool> f = bf.Get<bool>();
    GlobalTensor<T> gs;
    gs.SetGlobalBuffer((__gm__ T*)src, srcN);
    GlobalTensor<int32_t> gi;
    gi.SetGlobalBuffer((__gm__ int32_t*)idx, srcN);
    GlobalTensor<uint8_t> gf;
    gf.SetGlobalBuffer((__gm__ uint8_t*)fin, 32);
    DataCopy(s, gs, srcN);
    DataCopy(si, gi, srcN);
    DataCopy(f.ReinterpretCast<uint8_t>(), gf, 32 * ((outter + 31) / 32));
    Duplicate(v, T(-7.0f), vlen);  // lanes TopK leaves alone keep -7
    Duplicate(o, int32_t(-7), ilen);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    PipeBarrier<PIPE_V>();
    TopkTiling t;
    t.tmpLocalSize = int32_t(pi("tls"));
    t.sortRepeat = uint32_t(pi("srep"));
    TopKInfo info;
    info.outter = outter;
    info.inner = inner;
    info.n = int32_t(pi("n"));
    const bool largest = pi("largest", 1) != 0;
    if (pi("inplace")) {  // results over the source and its indices
        v = s;
        o = si;
    }
    if (pi("tmp")) {
        LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
        TopK<T, init, finish, false, mode>(v, o, s, si, f, tmp, k, t, info, largest);  // @topk_tmp
    } else {
        TopK<T, init, finish, false, mode>(v, o, s, si, f, k, t, info, largest);  // @topk_stack
    }
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    GlobalTensor<T> gv;
    gv.SetGlobalBuffer((__gm__ T*)out, vlen);
    GlobalTensor<int32_t> go;
    go.SetGlobalBuffer((__gm__ int32_t*)(out + vlen * sizeof(T)), ilen);
    DataCopy(gv, v, vlen);
    DataCopy(go, o, ilen);
}

template <class T>
static void run_softmax(GM_ADDR src, GM_ADDR out) {
    TPipe pipe;
    const uint32_t m = uint32_t(pi("m")), k = uint32_t(pi("k")), n = m * k, B = 32 / uint32_t(sizeof(T));
    TBuf<TPosition::VECCALC> bs, bd, bsum, bmax, bt;
    pipe.InitBuffer(bs, n * sizeof(T));
    pipe.InitBuffer(bd, n * sizeof(T));
    pipe.InitBuffer(bsum, m * 32);
    pipe.InitBuffer(bmax, m * 32);
    pipe.InitBuffer(bt, 4096);
    LocalTensor<T> s = bs.Get<T>(), d = bd.Get<T>(), sum = bsum.Get<T>(), mx = bmax.Get<T>();
    GlobalTensor<T> gs;
    gs.SetGlobalBuffer((__gm__ T*)src, n);
    const uint32_t unwritten = uint32_t(pi("unwritten"));  // the last elements (padding of the last row) stay unwritten
    DataCopy(s, gs, n - unwritten);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    SoftMaxTiling t;
    t.srcM = m;
    t.srcK = k;
    SoftMaxShapeInfo info{m, k, m, uint32_t(pi("ori"))};
    if (pi("stats")) SoftMax<T>(d, sum, mx, s, bt.Get<uint8_t>(), t, info);
    else if (pi("tmp")) SoftMax<T>(d, s, bt.Get<uint8_t>(), t, info);
    else SoftMax<T>(d, s, t, info);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    GlobalTensor<T> gd;
    gd.SetGlobalBuffer((__gm__ T*)out, n + 2 * m * B);
    DataCopy(gd, d, n - uint32_t(pi("copy_short")));  // @softmax_out
    if (pi("stats")) {
        DataCopy(gd[n], sum, m * B);
        DataCopy(gd[n + m * B], mx, m * B);
    }
}

template <class T>
static void dispatch_topk(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d) {
    const bool init = pi("init") != 0, finish = pi("finish") != 0, small = ps("mode") == "small";
    if (small && init) run_topk<T, true, false, TopKMode::TOPK_NSMALL>(a, b, c, d);
    else if (small) run_topk<T, false, false, TopKMode::TOPK_NSMALL>(a, b, c, d);
    else if (init && finish) run_topk<T, true, true, TopKMode::TOPK_NORMAL>(a, b, c, d);
    else if (init) run_topk<T, true, false, TopKMode::TOPK_NORMAL>(a, b, c, d);
    else if (finish) run_topk<T, false, true, TopKMode::TOPK_NORMAL>(a, b, c, d);
    else run_topk<T, false, false, TopKMode::TOPK_NORMAL>(a, b, c, d);
}

extern "C" __global__ __aicore__ void topk_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d, GM_ADDR ws, GM_ADDR t) {
    (void)ws;
    (void)t;
    const bool half_ = ps("dt") == "f16";
    if (P["op"] == "TopK") half_ ? dispatch_topk<half>(a, b, c, d) : dispatch_topk<float>(a, b, c, d);
    else half_ ? run_softmax<half>(a, d) : run_softmax<float>(a, d);
}

int main(int argc, char** argv) {
    if (!parse_args(argc, argv)) return 2;
    uint8_t* g[4] = {nullptr, nullptr, nullptr, nullptr};
    load_inputs(g);
    const uint64_t outBytes = uint64_t(pu("outbytes"));
    uint8_t* out = static_cast<uint8_t*>(AscendC::GmAlloc(outBytes));
    std::memset(out, 0, outBytes);
    uint8_t* ws = static_cast<uint8_t*>(AscendC::GmAlloc(32));
    for (int i = 0; i < 3; ++i)
        if (!g[i]) { g[i] = static_cast<uint8_t*>(AscendC::GmAlloc(256)); std::memset(g[i], 0, 256); }
    ICPU_RUN_KF(topk_kernel, 1, g[0], g[1], g[2], out, ws, ws);
    std::ofstream f(DIR + "/out.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(out), std::streamsize(outBytes));
    return 0;
}
