// Test harness: runs one vector API on data read from files, on one emulated core.
// usage: vec_harness DIR OP key=value...   (DIR holds in0.bin, in1.bin, in2.bin, dst.bin; writes out.bin)
#include "harness_common.h"

BinaryRepeatParams bparams() {
    return BinaryRepeatParams(pi("db", 1), pi("s0b", 1), pi("s1b", 1), pi("dr", 8), pi("s0r", 8), pi("s1r", 8));
}
UnaryRepeatParams uparams() { return UnaryRepeatParams(pi("db", 1), pi("sb", 1), pi("dr", 8), pi("sr", 8)); }

#define BIN_OPS(X) X(Add) X(Sub) X(Mul) X(Div) X(Max) X(Min)
#define UN_OPS(X) X(Exp) X(Ln) X(Abs) X(Sqrt) X(Rsqrt) X(Reciprocal) X(Relu)
#define SC_OPS(X) X(Adds) X(Muls) X(Maxs) X(Mins)

template <class T> bool run_binary(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    uint64_t m[2] = {pu("m0", ~0ull), pu("m1", ~0ull)};
    bool masked = P.count("rep") > 0;
    bool bits = P.count("m0") > 0;
#define X(NAME)                                                                                            \
    if (op == #NAME) {                                                                                     \
        if (!masked) NAME(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n);                                        \
        else if (bits) NAME(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), m, uint8_t(pi("rep")), bparams());       \
        else NAME(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), uint64_t(pi("mask")), uint8_t(pi("rep")), bparams()); \
        return true;                                                                                       \
    }
    BIN_OPS(X)
#undef X
    return false;
}
template <class T> bool run_binary_int(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
#define X(NAME) if (op == #NAME) { NAME(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n); return true; }
    X(Add) X(Sub) X(Mul) X(Max) X(Min)
#undef X
    return false;
}
template <class T> bool run_unary(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    bool masked = P.count("rep") > 0;
#define X(NAME)                                                                                        \
    if (op == #NAME) {                                                                                 \
        if (!masked) NAME(L<T>(B, 3), L<T>(B, 0), n);                                                \
        else NAME(L<T>(B, 3), L<T>(B, 0), uint64_t(pi("mask")), uint8_t(pi("rep")), uparams());      \
        return true;                                                                                   \
    }
    UN_OPS(X)
#undef X
    return false;
}
template <class T> bool run_scalar(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    bool masked = P.count("rep") > 0;
#define X(NAME)                                                                                                      \
    if (op == #NAME) {                                                                                               \
        if (!masked) NAME(L<T>(B, 3), L<T>(B, 0), scalar_of<T>(), n);                                              \
        else NAME(L<T>(B, 3), L<T>(B, 0), scalar_of<T>(), uint64_t(pi("mask")), uint8_t(pi("rep")), uparams());    \
        return true;                                                                                                 \
    }
    SC_OPS(X)
#undef X
    return false;
}

template <class T> bool run_shift(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    const T sc = static_cast<T>(pi("s", 0));
    if (op == "ShiftLeft") {
        if (!P.count("rep")) ShiftLeft(L<T>(B, 3), L<T>(B, 0), sc, n);
        else ShiftLeft(L<T>(B, 3), L<T>(B, 0), sc, uint64_t(pi("mask")), uint8_t(pi("rep")), uparams());
        return true;
    }
    if (op == "ShiftRight") {
        if (!P.count("rep")) ShiftRight(L<T>(B, 3), L<T>(B, 0), sc, n);
        else if (!P.count("round")) ShiftRight(L<T>(B, 3), L<T>(B, 0), sc, uint64_t(pi("mask")), uint8_t(pi("rep")), uparams());
        else ShiftRight(L<T>(B, 3), L<T>(B, 0), sc, uint64_t(pi("mask")), uint8_t(pi("rep")), uparams(), pi("round") != 0);
        return true;
    }
    return false;
}

template <class D, class S> void do_cast(Bufs& B) {
    if (P.count("rep")) Cast(L<D>(B, 3), L<S>(B, 0), rmode(), uint64_t(pi("mask")), uint8_t(pi("rep")), uparams());
    else Cast(L<D>(B, 3), L<S>(B, 0), rmode(), uint32_t(pi("n")));
}
bool run_cast(Bufs& B) {
    std::string s = ps("src"), d = ps("dst");
#define C2(SN, ST, DN, DT) if (s == SN && d == DN) { do_cast<DT, ST>(B); return true; }
    C2("f16", half, "f32", float) C2("bf16", bfloat16_t, "f32", float) C2("s16", int16_t, "f32", float)
    C2("s8", int8_t, "f16", half) C2("u8", uint8_t, "f16", half) C2("s32", int32_t, "s64", int64_t)
    C2("s64", int64_t, "s32", int32_t) C2("s32", int32_t, "s16", int16_t) C2("f32", float, "f16", half)
    C2("f32", float, "bf16", bfloat16_t) C2("f32", float, "s32", int32_t) C2("f32", float, "s16", int16_t)
    C2("f32", float, "s64", int64_t) C2("f32", float, "f32", float) C2("f16", half, "s32", int32_t)
    C2("f16", half, "s16", int16_t) C2("f16", half, "s8", int8_t) C2("f16", half, "u8", uint8_t)
    C2("s16", int16_t, "f16", half) C2("s32", int32_t, "f32", float) C2("s64", int64_t, "f32", float)
    C2("bf16", bfloat16_t, "s32", int32_t)
#undef C2
    return false;
}

template <class T> bool run_move(const std::string& op, Bufs& B) {
    int n = int(pi("n")); (void)n;
    if (op == "Duplicate") {
        if (P.count("rep")) Duplicate(L<T>(B, 3), scalar_of<T>(), uint64_t(pi("mask")), uint8_t(pi("rep")), uint16_t(pi("db", 1)), uint8_t(pi("dr", 8)));
        else Duplicate(L<T>(B, 3), scalar_of<T>(), n);
        return true;
    }
    if (op == "Brcb") { Brcb(L<T>(B, 3), L<T>(B, 0), uint8_t(pi("rep")), BrcbRepeatParams(pi("db", 1), pi("dr", 8))); return true; }
    if (op == "GatherMask") {
        GatherMaskParams gp(uint8_t(pi("sb", 1)), uint16_t(pi("rep", 1)), uint16_t(pi("sr", 8)), uint8_t(pi("pr", 8)));
        if (P.count("pattern")) GatherMask(L<T>(B, 3), L<T>(B, 0), uint8_t(pi("pattern")), bool(pi("reduce")), uint32_t(pi("mask")), gp, g_rsvd);
        else GatherMask(L<T>(B, 3), L<T>(B, 0), L<uint32_t>(B, 1), bool(pi("reduce")), uint32_t(pi("mask")), gp, g_rsvd);
        return true;
    }
    if (op == "Gather") { Gather(L<T>(B, 3), L<T>(B, 0), L<uint32_t>(B, 1), uint32_t(pi("base")), uint32_t(n)); return true; }
    if (op == "Copy") { Copy(L<T>(B, 3), L<T>(B, 0), uint64_t(pi("mask")), uint8_t(pi("rep")), CopyRepeatParams(pi("db", 1), pi("sb", 1), pi("dr", 8), pi("sr", 8))); return true; }
    
    return false;
}
template <class T> bool run_arith(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    if (op == "ArithProgression") { ArithProgression(L<T>(B, 3), static_cast<T>(pf("first")), static_cast<T>(pf("diff")), n); return true; }
    return false;
}
template <class T> bool run_misc(const std::string& op, Bufs& B) {
    int n = int(pi("n"));
    if (op == "Compare") { Compare(L<uint8_t>(B, 3), L<T>(B, 0), L<T>(B, 1), cmode(), uint32_t(n)); return true; }
    if (op == "CompareScalar") { CompareScalar(L<uint8_t>(B, 3), L<T>(B, 0), scalar_of<T>(), cmode(), uint32_t(n)); return true; }
    if (op == "CompareMasked") { Compare(L<uint8_t>(B, 3), L<T>(B, 0), L<T>(B, 1), cmode(), uint64_t(pi("mask")), uint8_t(pi("rep")), bparams()); return true; }
    if (op == "SelectMasked") {
        SELMODE md = pi("mode") == 0 ? SELMODE::VSEL_CMPMASK_SPR : SELMODE::VSEL_TENSOR_TENSOR_MODE;
        Select(L<T>(B, 3), L<uint8_t>(B, 2), L<T>(B, 0), L<T>(B, 1), md, uint64_t(pi("mask")), uint8_t(pi("rep")), bparams());
        return true;
    }
    if (op == "Select") { Select(L<T>(B, 3), L<uint8_t>(B, 2), L<T>(B, 0), L<T>(B, 1), SELMODE::VSEL_TENSOR_TENSOR_MODE, uint32_t(n)); return true; }
    if (op == "SelectScalar") { Select(L<T>(B, 3), L<uint8_t>(B, 2), L<T>(B, 0), scalar_of<T>(), SELMODE::VSEL_TENSOR_SCALAR_MODE, uint32_t(n)); return true; }
    if (op == "ReduceSum") { ReduceSum(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n); return true; }
    if (op == "ReduceMax") { ReduceMax(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n, bool(pi("idx"))); return true; }
    if (op == "ReduceMin") { ReduceMin(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n, bool(pi("idx"))); return true; }
    if (op == "WholeReduceSum") { WholeReduceSum(L<T>(B, 3), L<T>(B, 0), int32_t(pi("mask")), int32_t(pi("rep")), int32_t(pi("dr", 1)), int32_t(pi("sb", 1)), int32_t(pi("sr", 8))); return true; }
    if (op == "WholeReduceMax") { WholeReduceMax(L<T>(B, 3), L<T>(B, 0), int32_t(pi("mask")), int32_t(pi("rep")), int32_t(pi("dr", 1)), int32_t(pi("sb", 1)), int32_t(pi("sr", 8))); return true; }
    if (op == "BlockReduceSum") { BlockReduceSum(L<T>(B, 3), L<T>(B, 0), int32_t(pi("rep")), int32_t(pi("mask")), int32_t(pi("dr", 1)), int32_t(pi("sb", 1)), int32_t(pi("sr", 8))); return true; }
    if (op == "BlockReduceMax") { BlockReduceMax(L<T>(B, 3), L<T>(B, 0), int32_t(pi("rep")), int32_t(pi("mask")), int32_t(pi("dr", 1)), int32_t(pi("sb", 1)), int32_t(pi("sr", 8))); return true; }
    if (op == "PairReduceSum") { PairReduceSum(L<T>(B, 3), L<T>(B, 0), int32_t(pi("rep")), int32_t(pi("mask")), int32_t(pi("dr", 1)), int32_t(pi("sb", 1)), int32_t(pi("sr", 8))); return true; }
    return run_move<T>(op, B) || run_arith<T>(op, B);
}
template <class T> bool run_sort(const std::string& op, Bufs& B) {
    if (op == "Sort32") { Sort32(L<T>(B, 3), L<T>(B, 0), L<uint32_t>(B, 1), int32_t(pi("rep"))); return true; }
    if (op == "SortFull") { LocalTensor<T> tmp = L<T>(B, 2); Sort<T, true>(L<T>(B, 3), L<T>(B, 0), L<uint32_t>(B, 1), tmp, int32_t(pi("rep"))); return true; }
    if (op == "MrgSort") {
        uint16_t lens[4] = {uint16_t(pi("l0")), uint16_t(pi("l1")), uint16_t(pi("l2")), uint16_t(pi("l3"))};
        LocalTensor<T> s = L<T>(B, 0);
        uint32_t per = 8 / sizeof(T);
        uint32_t o1 = lens[0] * per, o2 = o1 + lens[1] * per, o3 = o2 + lens[2] * per;
        MrgSortSrcList<T> list(s, s[o1], s[o2], s[o3]);
        MrgSort(L<T>(B, 3), list, MrgSort4Info(lens, bool(pi("susp")), uint16_t(pi("valid", 15)), uint16_t(pi("rep", 1))));
        uint16_t c[4];
        GetMrgSortResult(c[0], c[1], c[2], c[3]);
        g_rsvd = c[0] | (uint64_t(c[1]) << 16) | (uint64_t(c[2]) << 32) | (uint64_t(c[3]) << 48);
        return true;
    }
    if (op == "Gelu") { Gelu(L<T>(B, 3), L<T>(B, 0), uint32_t(pi("n"))); return true; }
    if (op == "FasterGelu") { FasterGelu(L<T>(B, 3), L<T>(B, 0), uint32_t(pi("n"))); return true; }
    if (op == "Silu") { Silu(L<T>(B, 3), L<T>(B, 0), uint32_t(pi("n"))); return true; }
    if (op == "ReduceSumMasked") { ReduceSum(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), int32_t(pi("mask")), int32_t(pi("rep")), int32_t(pi("sr", 8))); return true; }
    if (op == "ReduceMaxMasked") { ReduceMax(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), int32_t(pi("mask")), int32_t(pi("rep")), int32_t(pi("sr", 8)), true); return true; }
    if (op == "BroadCast2") {
        uint32_t ds[2] = {uint32_t(pi("r")), uint32_t(pi("c"))};
        uint32_t ss[2] = {uint32_t(pi("r")), 1};
        BroadCast<T, 2, 1>(L<T>(B, 3), L<T>(B, 0), ds, ss);
        return true;
    }
    if (op == "SelectBytes") {
        SelectWithBytesMaskShapeInfo info;
        info.firstAxis = uint32_t(pi("r")); info.srcLastAxis = uint32_t(pi("c")); info.maskLastAxis = uint32_t(pi("mc"));
        LocalTensor<uint8_t> tmp;
        if (pi("scalar_first")) SelectWithBytesMask(L<T>(B, 3), scalar_of<T>(), L<T>(B, 0), L<uint8_t>(B, 2), tmp, info);
        else SelectWithBytesMask(L<T>(B, 3), L<T>(B, 0), scalar_of<T>(), L<uint8_t>(B, 2), tmp, info);
        return true;
    }
    if (op == "SoftmaxFlashV2") {
        // in0: x [m, k]; in1: inMax [m, B] followed by inSum [m, B]; dst: y | max | sum | expMax
        uint32_t m = uint32_t(pi("m")), k = uint32_t(pi("k")), b = 32 / sizeof(T);
        SoftMaxTiling tl = SoftMaxFlashV2TilingFuncImpl(m, k, sizeof(T), sizeof(T), 0, bool(pi("update")));
        SoftMaxShapeInfo si;
        si.srcM = m; si.srcK = k; si.oriSrcM = m; si.oriSrcK = uint32_t(pi("kv", k));
        LocalTensor<T> out = L<T>(B, 3), in1 = L<T>(B, 1);
        LocalTensor<T> y = out, mx = out[m * k], sm = out[m * k + m * b], em = out[m * k + 2 * m * b];
        if (pi("update")) SoftmaxFlashV2<T, true>(y, sm, mx, L<T>(B, 0), em, in1[m * b], in1, tl, si);
        else SoftmaxFlashV2<T, false>(y, sm, mx, L<T>(B, 0), em, in1[m * b], in1, tl, si);
        return true;
    }
    if (op == "Dequant") {
        DequantParams dp;
        dp.m = uint32_t(pi("m")); dp.n = uint32_t(pi("nn")); dp.calCount = uint32_t(pi("cc"));
        if (pi("scalar")) AscendDequant<T, float>(L<T>(B, 3), L<int32_t>(B, 0), float(pf("s")), dp);
        else AscendDequant<T, float>(L<T>(B, 3), L<int32_t>(B, 0), L<float>(B, 1), dp);
        return true;
    }
    if (op == "Sigmoid") { Sigmoid(L<T>(B, 3), L<T>(B, 0), uint32_t(pi("n"))); return true; }
    return false;
}

extern "C" __global__ __aicore__ void vec_kernel(GM_ADDR g0, GM_ADDR g1, GM_ADDR g2, GM_ADDR gd, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    Bufs B;
    stage_operands(pipe, B, g0, g1, g2, gd, tiling);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    std::string op = ps("op"), dt = ps("dt");
    if (pi("counter")) SetMaskCount();
    bool ok = false;
    if (op == "Cast") ok = run_cast(B);
    else if (dt == "f16") ok = run_binary<half>(op, B) || run_unary<half>(op, B) || run_scalar<half>(op, B) || run_misc<half>(op, B) || run_sort<half>(op, B);
    else if (dt == "f32") ok = run_binary<float>(op, B) || run_unary<float>(op, B) || run_scalar<float>(op, B) || run_misc<float>(op, B) || run_sort<float>(op, B);
    else if (dt == "s32") ok = run_binary_int<int32_t>(op, B) || run_scalar<int32_t>(op, B) || run_shift<int32_t>(op, B) || run_move<int32_t>(op, B) || run_arith<int32_t>(op, B);
    else if (dt == "s16") ok = run_binary_int<int16_t>(op, B) || run_scalar<int16_t>(op, B) || run_shift<int16_t>(op, B) || run_move<int16_t>(op, B) || run_arith<int16_t>(op, B);
    else if (dt == "u32") ok = run_shift<uint32_t>(op, B) || run_move<uint32_t>(op, B);
    else if (dt == "u16") ok = run_shift<uint16_t>(op, B) || run_move<uint16_t>(op, B);
    else if (dt == "bf16") {
        ok = run_move<bfloat16_t>(op, B);
    }
    if (!ok) { std::fprintf(stderr, "harness: unknown op/dtype %s/%s\n", op.c_str(), dt.c_str()); std::exit(2); }
    SetMaskNorm();
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    write_back(B, gd);
}

int main(int argc, char** argv) { return run_harness(argc, argv, "vec_kernel", vec_kernel); }
