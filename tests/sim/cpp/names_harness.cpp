// Test harness of the CANN names (math APIs, Axpy, mask helpers, intrinsics, scalar helpers), one emulated core.
// usage: names_harness DIR OP key=value...   (DIR holds in0.bin, in1.bin, in2.bin, dst.bin; writes out.bin)
#include "harness_common.h"


#define MATH_OPS(X) X(Asin) X(Acos) X(Atan) X(Asinh) X(Acosh) X(Atanh) X(Sin) X(Cos) X(Tan) X(Sinh) X(Cosh) X(Tanh) \
    X(Erf) X(Erfc) X(Floor) X(Ceil) X(Round) X(Trunc) X(Frac) X(Sign) X(Lgamma) X(Log) X(Log2) X(Log10)

template <class T> bool run_math(const std::string& op, Bufs& B) {
    uint32_t n = uint32_t(pi("n"));
    const bool tmp = pi("tmp") != 0;
#define X(NAME)                                                                                 \
    if (op == #NAME) {                                                                          \
        if (tmp) NAME<T>(L<T>(B, 3), L<T>(B, 0), L<uint8_t>(B, 2), n);                         \
        else NAME<T>(L<T>(B, 3), L<T>(B, 0), n);                                               \
        return true;                                                                            \
    }
    MATH_OPS(X)
#undef X
    if (op == "ExpTaylor") { Exp<T, 10>(L<T>(B, 3), L<T>(B, 0), n); return true; }
    if (op == "ClampMax") { ClampMax<T>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), n); return true; }
    if (op == "ClampMin") { ClampMin<T>(L<T>(B, 3), L<T>(B, 0), L<uint8_t>(B, 2), T(float(pf("s"))), n); return true; }
    if (op == "PowerTT") { Power<T>(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), n); return true; }
    if (op == "PowerTS") { Power<T>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), n); return true; }
    if (op == "PowerST") { Power<T>(L<T>(B, 3), T(float(pf("s"))), L<T>(B, 1), n); return true; }
    if (op == "Axpy") {
        if (P.count("rep")) Axpy<T, T>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), uint64_t(pi("mask")), uint8_t(pi("rep")),
                                       UnaryRepeatParams(1, 1, 8, 8));
        else if (tmp) Axpy<T, T>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), L<uint8_t>(B, 2), n);
        else Axpy<T, T>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), int32_t(n));
        return true;
    }
    if (op == "AxpyMixed") {  // float destination, half source
        Axpy<float, half>(L<float>(B, 3), L<half>(B, 0), half(float(pf("s"))), int32_t(n));
        return true;
    }
    if (op == "ReduceMaxSpr" || op == "ReduceMinSpr") {
        LocalTensor<T> d = L<T>(B, 3);
        if (op == "ReduceMaxSpr") ReduceMax(d, L<T>(B, 0), L<T>(B, 1), int32_t(n), true);
        else ReduceMin(d, L<T>(B, 0), L<T>(B, 1), int32_t(n), true);
        set_flag(PIPE_V, PIPE_S, EVENT_ID2);  // the scalar unit reads the register and writes UB after the reduction
        wait_flag(PIPE_V, PIPE_S, EVENT_ID2);
        T v, idx, v1;
        GetReduceMaxMinCount<T>(v, idx);
        GetReduceMaxMinCount<T>(v1);
        d.SetValue(2, v);
        d.SetValue(3, idx);
        d.SetValue(4, v1);
        return true;
    }
    if (op == "MulsNoSetMask") {  // CANN's <T, isSetMask> spelling with the register set beforehand
        SetVectorMask<T>(0, pu("lo"));
        Muls<T, false>(L<T>(B, 3), L<T>(B, 0), T(float(pf("s"))), MASK_PLACEHOLDER, 1, {1, 1, DEFAULT_REPEAT_STRIDE, DEFAULT_REPEAT_STRIDE});
        ResetMask();
        return true;
    }
    if (op == "ConcatSort") {  // Concat then Sort of 32 scores (one repeat), as ops-transformer's top-k kernels do
        LocalTensor<T> concat;
        LocalTensor<T> src = L<T>(B, 0);
        Concat(concat, src, L<T>(B, 2), 1);
        LocalTensor<T> tmp = L<T>(B, 2);
        Sort<T, true>(L<T>(B, 3), concat, L<uint32_t>(B, 1), tmp, 1);
        return true;
    }
    if (op == "MrgSortArray") {  // two sorted lists of n pairs each, merged with the array form
        uint32_t n = uint32_t(pi("n"));
        LocalTensor<T> s = L<T>(B, 0);
        MrgSortSrcList<T> lists(s, s[n * 8 / sizeof(T)], s, s);
        uint16_t counts[4] = {uint16_t(n), uint16_t(n), 0, 0};
        uint32_t sorted[4] = {9, 9, 9, 9};
        MrgSort<T, false>(L<T>(B, 3), lists, counts, sorted, 3, 1);
        set_flag(PIPE_V, PIPE_S, EVENT_ID2);
        wait_flag(PIPE_V, PIPE_S, EVENT_ID2);
        LocalTensor<uint32_t> d = L<uint32_t>(B, 3);
        d.SetValue(4 * n, sorted[0]);
        d.SetValue(4 * n + 1, sorted[1]);
        return true;
    }
    if (op == "BroadcastRow") {  // Broadcast (current spelling): [1, k] -> [m, k]
        uint32_t dstShape[2] = {uint32_t(pi("m")), uint32_t(pi("k"))}, srcShape[2] = {1, uint32_t(pi("k"))};
        Broadcast<T, 2, 0>(L<T>(B, 3), L<T>(B, 0), dstShape, srcShape);
        return true;
    }
    if (op == "SumRows") {
        SumParams sp{uint32_t(pi("outter")), uint32_t(pi("inner")), uint32_t(pi("nn"))};
        if (pi("tmp")) Sum<T>(L<T>(B, 3), L<T>(B, 0), L<uint8_t>(B, 2), sp);
        else Sum<T>(L<T>(B, 3), L<T>(B, 0), sp);
        return true;
    }
    if (op == "Cce") {  // the CCE intrinsics on raw UB addresses, with the mask register set by set_vector_mask
        std::string fn = ps("fn");
        auto d = (__ubuf__ T*)L<T>(B, 3).GetPhyAddr();
        auto a = (__ubuf__ T*)L<T>(B, 0).GetPhyAddr();
        auto b = (__ubuf__ T*)L<T>(B, 1).GetPhyAddr();
        set_vector_mask(pu("hi", ~0ull), pu("lo", ~0ull));
        const uint8_t rep = uint8_t(pi("rep", 1));
        if (fn == "vadd") vadd(d, a, b, rep, 1, 1, 1, 8, 8, 8);
        else if (fn == "vmul") vmul(d, a, b, rep, 1, 1, 1, 8, 8, 8);
        else if (fn == "vmax") vmax(d, a, b, rep, 1, 1, 1, 8, 8, 8);
        else if (fn == "vadds") vadds(d, a, T(float(pf("s"))), rep, 1, 1, 8, 8);
        else if (fn == "vmuls") vmuls(d, a, T(float(pf("s"))), rep, 1, 1, 8, 8);
        else if (fn == "vexp") vexp(d, a, rep, 1, 1, 8, 8);
        else if (fn == "vabs") vabs(d, a, rep, 1, 1, 8, 8);
        else if (fn == "vcadd") vcadd(d, a, rep, 1, 1, 8, int(pi("mode")));  // @vcadd
        else if (fn == "vector_dup") vector_dup(d, T(float(pf("s"))), rep, 1, 1, 8, 8);
        else if (fn == "vcgadd") vcgadd(d, a, rep, 1, 1, 8);
        else if (fn == "vcgmax") BlockReduceMaxIntrinsicsImpl(d, a, rep, 1, 1, 8);  // CANN's impl entry point
        else if (fn == "vcgmin") vcgmin(d, a, rep, 1, 1, 8);
        else return false;
        ResetMask();
        return true;
    }
    if (op == "SetMaskAdd") {
        // AscendCUtils::SetMask<T>(len), then Add with isSetMask = false uses that register
        AscendCUtils::SetMask<T>(int32_t(pi("len")));
        Add<T, false>(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), ~0ull, uint8_t(pi("rep", 1)), BinaryRepeatParams());
        AscendCUtils::ResetMask();
        return true;
    }
    if (op == "SetMaskHiLoAdd") {
        AscendCUtils::SetMask<T>(pu("hi"), pu("lo"));
        Add<T, false>(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), ~0ull, 1, BinaryRepeatParams());
        ResetMask();
        return true;
    }
    if (op == "IntrinsicMaskAdd") {
        set_vector_mask(pu("hi"), pu("lo"));
        Add<T, false>(L<T>(B, 3), L<T>(B, 0), L<T>(B, 1), ~0ull, 1, BinaryRepeatParams());
        set_mask_count();
        set_vector_mask(0, pu("cnt"));
        Add<T, false>(L<T>(B, 3)[256 / sizeof(T)], L<T>(B, 0), L<T>(B, 1), ~0ull, 1, BinaryRepeatParams());
        set_mask_norm();
        ResetMask();
        return true;
    }
    return false;
}

// Scalar helpers write int32 results into dst.
bool run_scalar_names(const std::string& op, Bufs& B) {
    LocalTensor<int32_t> d = L<int32_t>(B, 3);
    if (op == "CeilHelpers") {
        uint32_t a = uint32_t(pi("a")), b = uint32_t(pi("b"));
        d.SetValue(0, int32_t(Ceil(a, b)));
        d.SetValue(1, int32_t(DivCeil(a, b)));
        d.SetValue(2, int32_t(AlignUp(a, b)));
        d.SetValue(3, int32_t(ConstCeil(a, b)));
        d.SetValue(4, CeilDivision(int32_t(pi("a")), int32_t(pi("b"))));
        d.SetValue(5, CeilDivision(int32_t(pi("a")), 0));
        return true;
    }
    if (op == "SortLen") {
        d.SetValue(0, int32_t(GetSortLen<float>(uint32_t(pi("a")))));
        d.SetValue(1, int32_t(GetSortLen<half>(uint32_t(pi("a")))));
        d.SetValue(2, int32_t(GetSortOffset<float>(uint32_t(pi("a")))));
        d.SetValue(3, int32_t(GetSortOffset<half>(uint32_t(pi("a")))));
        return true;
    }
    if (op == "Scalars") {
        uint64_t v = pu("v");
        d.SetValue(0, int32_t(GetBitCount(v)));
        d.SetValue(1, int32_t(CountLeadingZero(v)));
        d.SetValue(2, int32_t(GetSFFValue<1>(v)));
        d.SetValue(3, int32_t(ScalarGetCountOfValue<0>(v)));
        d.SetValue(4, int32_t(CountBitsCntSameAsSignBit(int64_t(v))));
        d.SetValue(5, int32_t(ToFloat(bfloat16_t(float(pf("f")))) * 1000.0f));
        d.SetValue(6, int32_t(ToFloat(half(float(pf("f")))) * 1000.0f));
        d.SetValue(7, int32_t(Cast<float, int32_t, RoundMode::CAST_FLOOR>(float(pf("f")))));
        int4b_t q(int(pi("q")));
        d.SetValue(8, int32_t(q));
        float16_t h = float16_t(1.5f);
        float32_t f = 2.25f;
        d.SetValue(9, int32_t(float(h) * 100 + f * 100));
        using C1 = Conditional<true, int32_t, float>::type;
        using C2 = Conditional<false, int32_t, float>::type;
        static_assert(std::is_same<C1, int32_t>::value && std::is_same<C2, float>::value, "Conditional");
        d.SetValue(10, (likely(v > 0) ? 1 : 0) + (unlikely(v == 0) ? 2 : 0));
        return true;
    }
    if (op == "Constants") {
        d.SetValue(0, int32_t(ONE_BYTE_BIT_SIZE));
        d.SetValue(1, int32_t(BLOCK_CUBE));
        d.SetValue(2, int32_t(CACHE_LINE_SIZE));
        d.SetValue(3, int32_t(ONE_BLK_FLOAT_NUM));
        d.SetValue(4, int32_t(ONE_BLK_HALF_NUM));
        d.SetValue(5, int32_t(g_coreType == AIV_TYPE));
        d.SetValue(6, int32_t(ToFloat(ToBfloat16(1.5f)) * 10));
        d.SetValue(7, int32_t(B16_BYTE_SIZE) * 10 + int32_t(B32_BYTE_SIZE));
        return true;
    }
    if (op == "AscendcAssert") {
        int32_t x = int32_t(pi("a"));
        ASCENDC_ASSERT((x < 10), { KERNEL_LOG(KERNEL_ERROR, "x is %d, must be below %d", x, 10); });  // @ascendc_assert
        KERNEL_LOG(KERNEL_INFO, "x = %d", x);
        d.SetValue(0, x);
        return true;
    }
    if (op == "Assert") {
        int32_t x = int32_t(pi("a"));
        ASSERT(x < 10);  // @assert
        d.SetValue(0, x);
        return true;
    }
    return false;
}

// CANN's declarations carry pipe annotations; kernels copy that style.
__aicore__ inline __inout_pipe__(S) void annotated(int32_t& x) { x += 1; }
__forceinline__ __aicore__ int32_t forced_twice(int32_t x) { return 2 * x; }

extern "C" __global__ __aicore__ void names_kernel(GM_ADDR g0, GM_ADDR g1, GM_ADDR g2, GM_ADDR gd, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    Bufs B;
    stage_operands(pipe, B, g0, g1, g2, gd, tiling);
    // the low-level intrinsics order MTE2 -> V and V -> MTE3 here (the Ascend C spelling is SetFlag/WaitFlag)
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID1);
    std::string op = ps("op"), dt = ps("dt");
    bool ok = false;
    if (op == "Intrinsics") {
        LocalTensor<int32_t> d = L<int32_t>(B, 3);
        d.SetValue(0, int32_t(get_block_idx()));
        d.SetValue(1, int32_t(get_block_num()));
        int32_t y = 20;
        annotated(y);
        d.SetValue(2, forced_twice(y));
        ok = true;
    } else if (op == "ListTensor" || op == "ListTensorBad") {
        LocalTensor<int32_t> d = L<int32_t>(B, 3);
        ListTensorDesc list(reinterpret_cast<__gm__ void*>(ws), 9 * 8, 2);
        uint64_t shape[2] = {0, 0};
        TensorDesc<float> desc;
        desc.SetShapeAddr(shape);
        d.SetValue(0, int32_t(list.GetSize()));
        for (uint32_t i = 0; i < 2; ++i) {
            list.GetDesc(desc, i);
            d.SetValue(1 + 4 * i, int32_t(desc.GetDim()));
            d.SetValue(2 + 4 * i, int32_t(desc.GetShape(0)));
            d.SetValue(3 + 4 * i, int32_t(desc.GetShape(1)));
            GM_ADDR want = i == 0 ? g0 : g1;
            d.SetValue(4 + 4 * i, int32_t(list.GetDataPtr<uint8_t>(i) == want && (GM_ADDR)desc.GetDataPtr() == want));
        }
        GlobalTensor<float> t1 = desc.GetDataObj();
        d.SetValue(9, int32_t(t1.GetSize()));
        d.SetValue(10, int32_t(t1.GetValue(3) * 100.0f));
        ok = true;
    } else if (op == "PadImplIn") {  // GM -> UB with raw addresses: rows of `len` halves, padded to 32 B with `pad`
        LocalTensor<half> d = L<half>(B, 3);
        uint16_t rows = uint16_t(pi("rows")), len = uint16_t(pi("len"));
        DataCopyExtParams p{rows, uint32_t(len * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> pad{true, 0, uint8_t(16 - len), half(float(pf("pad")))};
        DataCopyPadGm2UBImpl((__ubuf__ half*)d.GetPhyAddr(), (__gm__ half*)g0, p, pad);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID3);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID3);
        ok = true;
    } else if (op == "PadImplOut") {  // UB -> GM with raw addresses: the first `len` halves of each 32-B row of in0
        LocalTensor<half> s = L<half>(B, 0);
        uint16_t rows = uint16_t(pi("rows")), len = uint16_t(pi("len"));
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID3);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID3);
        DataCopyPadUB2GMImpl((__gm__ half*)gd, (__ubuf__ half*)s.GetPhyAddr(), DataCopyParams{rows, uint16_t(len * sizeof(half)), 0, 0});
        return;  // gd holds the result (no copy of the dst buffer over it)
    } else if (op == "PadImplBad") {
        DataCopyPadGm2UBImpl((__ubuf__ half*)uint64_t(190000), (__gm__ half*)g0, DataCopyParams{1, 32, 0, 0},  // @padbad
                             DataCopyPadParams{false, 0, 0, 0});
    } else if (op == "BadFlag") {
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // @badflag
    } else if (dt == "f16") ok = run_math<half>(op, B);
    else if (dt == "f32") ok = run_math<float>(op, B);
    else ok = run_scalar_names(op, B);
    if (!ok) { std::fprintf(stderr, "harness: unknown op/dtype %s/%s\n", op.c_str(), dt.c_str()); std::exit(2); }
    pipe_barrier(PIPE_ALL);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    set_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    write_back(B, gd);
}

int main(int argc, char** argv) {
    if (!parse_args(argc, argv)) return 2;
    uint8_t* g[4] = {nullptr, nullptr, nullptr, nullptr};
    uint64_t* lens = load_inputs(g);
    uint8_t* ws = static_cast<uint8_t*>(AscendC::GmAlloc(32));
    if (P["op"].rfind("ListTensor", 0) == 0) {
        // a list of two tensors (in0 as 2 x n/2, in1 as 1 x n) packed as the host packs a dynamic input
        const uint64_t n = uint64_t(pi("n"));
        uint64_t* l = static_cast<uint64_t*>(AscendC::GmAlloc(9 * sizeof(uint64_t)));
        l[0] = 7 * sizeof(uint64_t);                      // data pointers start after 1 + 2 * (1 + 2) words
        l[1] = (uint64_t(P["op"] == "ListTensorBad" ? 3 : 2) << 32) | 2;  // dim 2, count 2 (3: malformed)
        l[2] = 2; l[3] = n / 2;
        l[4] = (uint64_t(1) << 32) | 2;                   // index 1, dim 2
        l[5] = 1; l[6] = n;
        l[7] = reinterpret_cast<uint64_t>(g[0]);
        l[8] = reinterpret_cast<uint64_t>(g[1]);
        ws = reinterpret_cast<uint8_t*>(l);
    }
    ICPU_RUN_KF(names_kernel, 1, g[0], g[1], g[2], g[3], ws, lens);
    return write_result(g[3]);
}
