// Test harness of the names grouped_matmul's kernel uses beside the Matmul API: the operator forms on
// LocalTensor (`dst = a + b`, -, *, /, &, |, comparisons) and the typed Ceil, one emulated core.
// usage: gmm_names_harness DIR OP key=value...   (DIR holds in0.bin, in1.bin, in2.bin, dst.bin; writes out.bin)
#include "harness_common.h"

// dst = a OP b over the whole destination (the operator form's element count is dst.GetSize()).
template <class T> bool run_arith(const std::string& op, Bufs& B, uint32_t n) {
    if (op != "add" && op != "sub" && op != "mul" && op != "div") return false;
    LocalTensor<T> d = L<T>(B, 3), a = L<T>(B, 0), b = L<T>(B, 1);
    d.SetSize(n);
    if (op == "add") d = a + b;
    else if (op == "sub") d = a - b;
    else if (op == "mul") d = a * b;
    else if constexpr (std::is_floating_point<T>::value || std::is_same<T, half>::value) {
        if (op == "div") d = a / b;  // Div takes half and float only
        else return false;
    } else return false;
    return true;
}

template <class T> bool run_bits(const std::string& op, Bufs& B, uint32_t n) {
    if (op != "and" && op != "or") return false;
    LocalTensor<T> d = L<T>(B, 3), a = L<T>(B, 0), b = L<T>(B, 1);
    d.SetSize(n);
    if (op == "and") d = a & b;
    else if (op == "or") d = a | b;
    else return false;
    return true;
}

// The mask of a OP b: one bit per element of a (the comparison form's count is the source's size).
template <class T> bool run_cmp(const std::string& op, Bufs& B, uint32_t n) {
    LocalTensor<uint8_t> d = L<uint8_t>(B, 3);
    LocalTensor<T> a = L<T>(B, 0), b = L<T>(B, 1);
    a.SetSize(n);
    if (op == "lt") d = a < b;
    else if (op == "gt") d = a > b;
    else if (op == "eq") d = a == b;
    else if (op == "ne") d = a != b;
    else if (op == "le") d = a <= b;
    else if (op == "ge") d = a >= b;
    else return false;
    return true;
}

// AscendAntiQuant: src int8 [K, N] (in0; [N, K] with tr=1; int4=1: int4b_t packed two per byte), offset (in1) and
// scale (in2) of `g` groups along K, or the per-tensor values so/ss (scalar=1); off=0 drops the offset; tmp=1 passes
// the dst buffer's tail as tmp.
template <class S, class T, bool tr> bool run_antiquant_as(Bufs& B) {
    const uint32_t K = uint32_t(pi("k")), N = uint32_t(pi("nn")), g = uint32_t(pi("g"));
    LocalTensor<int8_t> bytes = L<int8_t>(B, 0);
    bytes.SetSize(std::is_same<S, int4b_t>::value ? K * N / 2 : K * N);
    LocalTensor<S> src = bytes.ReinterpretCast<S>();
    LocalTensor<T> dst = L<T>(B, 3), off = L<T>(B, 1), sc = L<T>(B, 2);
    LocalTensor<uint8_t> tmp = L<uint8_t>(B, 3)[uint32_t(K * N * sizeof(T))];
    AntiQuantShapeInfo si;
    if (pi("info", 1)) si = tr ? AntiQuantShapeInfo{N, g, N, g} : AntiQuantShapeInfo{g, N, g, N};
    if (!pi("scalar")) {
        off.SetSize(g * N);
        sc.SetSize(g * N);
    }
    const bool useTmp = pi("tmp") != 0;
    if (pi("scalar")) {
        const T so = T(float(pf("so"))), ss = T(float(pf("ss")));
        if (!pi("off")) AscendAntiQuant<S, T, tr>(dst, src, ss, tmp, K, si);
        else if (useTmp) AscendAntiQuant<S, T, tr>(dst, src, so, ss, tmp, K, si);
        else AscendAntiQuant<S, T, tr>(dst, src, so, ss, K, si);
    } else if (!pi("off")) {
        AscendAntiQuant<S, T, tr>(dst, src, sc, tmp, K, si);  // @aq_noff
    } else if (useTmp) {
        AscendAntiQuant<S, T, tr>(dst, src, off, sc, tmp, K, si);
    } else {
        AscendAntiQuant<S, T, tr>(dst, src, off, sc, K, si);  // @aq
    }
    return true;
}

template <class T, bool tr> bool run_antiquant(Bufs& B) {
    if (pi("int4")) return run_antiquant_as<int4b_t, T, tr>(B);
    return run_antiquant_as<int8_t, T, tr>(B);
}

extern "C" __global__ __aicore__ void gmm_names_kernel(GM_ADDR g0, GM_ADDR g1, GM_ADDR g2, GM_ADDR gd, GM_ADDR ws, GM_ADDR tiling) {
    TPipe pipe;
    Bufs B;
    stage_operands(pipe, B, g0, g1, g2, gd, tiling);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    std::string op = ps("op"), dt = ps("dt");
    const uint32_t n = uint32_t(pi("n"));
    bool ok = false;
    if (op == "cast_to_int4") {  // half (in0) -> int4b_t packed into the destination bytes, round mode rm
        LocalTensor<int4b_t> d = L<int8_t>(B, 3).ReinterpretCast<int4b_t>();
        Cast<int4b_t, half>(d, L<half>(B, 0), RoundMode(pi("rm")), n);  // @cast4
        ok = true;
    } else if (op == "cast_from_int4") {  // int4b_t packed in in0 -> half
        Cast<half, int4b_t>(L<half>(B, 3), L<int8_t>(B, 0).ReinterpretCast<int4b_t>(), RoundMode::CAST_NONE, n);
        ok = true;
    } else if (op == "antiquant") {
        const bool tr = pi("tr") != 0;
        if (dt == "f16") ok = tr ? run_antiquant<half, true>(B) : run_antiquant<half, false>(B);
        else if (dt == "bf16") ok = tr ? run_antiquant<bfloat16_t, true>(B) : run_antiquant<bfloat16_t, false>(B);
    } else if (dt == "f16") ok = run_arith<half>(op, B, n) || run_cmp<half>(op, B, n);
    else if (dt == "f32") ok = run_arith<float>(op, B, n) || run_cmp<float>(op, B, n);
    else if (dt == "i16") ok = run_arith<int16_t>(op, B, n) || run_bits<int16_t>(op, B, n);
    else if (dt == "u16") ok = run_bits<uint16_t>(op, B, n);
    else if (dt == "i32") ok = run_arith<int32_t>(op, B, n) || run_bits<int32_t>(op, B, n);
    else if (dt == "u32") ok = run_bits<uint32_t>(op, B, n);
    if (!ok) { std::fprintf(stderr, "harness: unknown op/dtype %s/%s\n", op.c_str(), dt.c_str()); std::exit(2); }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    write_back(B, gd);
}

int main(int argc, char** argv) { return run_harness(argc, argv, "gmm_names_kernel", gmm_names_kernel); }
