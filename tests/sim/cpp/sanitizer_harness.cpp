// Scenarios for the poisoned-output checks (unwritten output bytes, uninitialised reads of outputs) and
// use after free of TQue buffers, cross-core GM write overlap.
// usage: sanitizer_harness SCENARIO. The output y (2048 x half, 4 blocks of 512) is poisoned before the
// launch as the harness does; after it the program prints "unwritten TOTAL" and the ranges, then y's bytes
// go to stdout's file named by the second argument (if any). A line marked "// @name" is where scenario
// "name" must be reported.
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;
constexpr uint32_t N = 2048, BLK = 512;

extern "C" __global__ __aicore__ void poison_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    GlobalTensor<half> gx, gy;
    gx.SetGlobalBuffer((__gm__ half*)x, N);
    gy.SetGlobalBuffer((__gm__ half*)y, N);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, BLK * sizeof(half));
    LocalTensor<half> t = b.Get<half>();
    const uint32_t blk = GetBlockIdx();
    uint32_t len = BLK;
    if (S == "unwritten_none") return;                       // a tiling key that selects no branch
    if (S == "unwritten_tail" && blk == 3) len = BLK - 16;  // the last block stops 16 elements short
    if (S == "unwritten_block" && blk == 2) return;         // one block returns early
    if (S == "untouched_partial" && blk >= 2) return;       // blocks 2 and 3 write nothing
    if (S == "untouched_ok" && blk >= 2) return;
    if (S == "read_before_write") {
        DataCopy(t, gy[blk * BLK], BLK);  // @read_before_write
    } else if (S == "getvalue_before_write") {
        half v = gy.GetValue(blk * BLK + 5);  // @getvalue_before_write
        (void)v;
    } else {
        DataCopy(t, gx[blk * BLK], BLK);
    }
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    if (S == "unwritten_pad_tail" && blk == 3) {  // 500 of 512 halves: the last 24 bytes end inside a 32-byte block
        DataCopyPad(gy[blk * BLK], t, DataCopyExtParams{1, 500 * sizeof(half), 0, 0, 0});
        return;
    }
    if (S == "unwritten_holes" && blk == 0) {  // one element of a never-written block, and one 32-byte block
        gy.SetValue(5, half(1.0f));
        DataCopy(gy[64], t, 16);
        return;
    }
    DataCopy(gy[blk * BLK], t, len);
    if (S == "read_after_write") {  // the kernel reads back what it wrote: clean
        PipeBarrier<PIPE_ALL>();
        DataCopy(t, gy[blk * BLK], BLK);
        PipeBarrier<PIPE_ALL>();
        DataCopy(gy[blk * BLK], t, BLK);
    }
    if (S == "raw_write" && blk == 0) {  // stores through GlobalTensor::operator() (no API sees them) count as writes
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < 4 * BLK; ++i) gy(i) = half(1.0f);
    }
}

// int8 output written with the poison byte itself (0xA5 = -91): written, not reported.
extern "C" __global__ __aicore__ void int8_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    GlobalTensor<int8_t> gy;
    gy.SetGlobalBuffer((__gm__ int8_t*)y, 4096);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<int8_t> t = b.Get<int8_t>();
    LocalTensor<int16_t> t16 = t.ReinterpretCast<int16_t>();
    Duplicate(t16, int16_t(S == "int8_poison_value" ? int16_t(0xA5A5) : int16_t(7)), 512);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    const uint32_t n = S == "int8_half" ? 2048 : 4096;
    for (uint32_t off = 0; off < n; off += 1024) DataCopy(gy[off], t, 1024);
}

// Use after free: a LocalTensor of a TQue used after its FreeTensor, before AllocTensor hands the buffer out again.
extern "C" __global__ __aicore__ void uaf_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    GlobalTensor<half> gx, gy;
    gx.SetGlobalBuffer((__gm__ half*)x, N);
    gy.SetGlobalBuffer((__gm__ half*)y, N);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qin;
    TQue<TPosition::VECOUT, 1> qout;
    pipe.InitBuffer(qin, 1, BLK * sizeof(half));
    pipe.InitBuffer(qout, 1, BLK * sizeof(half));
    for (uint32_t k = 0; k < 4; ++k) {
        LocalTensor<half> a = qin.AllocTensor<half>();
        DataCopy(a, gx[k * BLK], BLK);
        qin.EnQue(a);
        LocalTensor<half> in = qin.DeQue<half>();
        LocalTensor<half> out = qout.AllocTensor<half>();
        if (S == "uaf_vector_read" && k == 1) {
            qin.FreeTensor(in);
            Muls(out, in, half(2.0f), BLK);  // @uaf_vector_read
        } else {
            Muls(out, in, half(2.0f), BLK);
            qin.FreeTensor(in);
        }
        if (S == "uaf_vector_write" && k == 2) Duplicate(in, half(0.0f), BLK);  // @uaf_vector_write
        qout.EnQue(out);
        LocalTensor<half> o = qout.DeQue<half>();
        if (S == "uaf_copy_out" && k == 3) {
            qout.FreeTensor(o);
            DataCopy(gy[k * BLK], o, BLK);  // @uaf_copy_out
        } else {
            DataCopy(gy[k * BLK], o, BLK);
            qout.FreeTensor(o);
        }
        if (S == "uaf_realloc_ok" && k == 0) {
            // the freed buffer handed out again: the new tensor (same bytes) is valid
            LocalTensor<half> again = qin.AllocTensor<half>();
            Duplicate(again, half(1.0f), BLK);
            qin.FreeTensor(again);
        }
    }
}

// Cross-core GM write overlap: two cores writing the same output bytes in one SyncAll phase without atomics.
extern "C" __global__ __aicore__ void overlap_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    GlobalTensor<half> gx, gy;
    gx.SetGlobalBuffer((__gm__ half*)x, N);
    gy.SetGlobalBuffer((__gm__ half*)y, N);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2 * BLK * sizeof(half));
    LocalTensor<half> t = b.Get<half>();
    const uint32_t blk = GetBlockIdx();
    DataCopy(t, gx, 2 * BLK);
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    if (S == "overlap_off_by_one") {
        // each block's range one 32-byte block too long: it reaches into the next block's first elements
        const uint32_t len = blk == 3 ? BLK : BLK + 16;
        DataCopy(gy[blk * BLK], t, len);  // @overlap_off_by_one
    } else if (S == "overlap_setvalue") {
        gy.SetValue(blk * BLK, half(1.0f));
        // block 1 writes element BLK too
        if (blk == 2) gy.SetValue(BLK, half(2.0f));  // @overlap_setvalue
        SyncAll();
        DataCopy(gy[blk * BLK], t, BLK);  // after the SyncAll: a new phase, no overlap
    } else if (S == "overlap_atomic_ok") {
        // every block adds into the whole output: atomic stores are exempt
        SetAtomicAdd<half>();
        DataCopy(gy, t, 2 * BLK);
        DataCopy(gy[2 * BLK], t, 2 * BLK);
        SetAtomicNone();
    } else if (S == "atomic_into_poison") {
        SetAtomicAdd<half>();
        DataCopy(gy[blk * BLK], t, BLK);  // @atomic_into_poison
        SetAtomicNone();
    } else if (S == "overlap_phases_ok") {
        // block 0 writes everything, then after SyncAll every block rewrites its own quarter
        if (blk == 0) DataCopy(gy, t, 2 * BLK), DataCopy(gy[2 * BLK], t, 2 * BLK);
        SyncAll();
        DataCopy(gy[blk * BLK], t, BLK);
    }
}

int main(int argc, char** argv) {
    S = argv[1];
    uint8_t* x = (uint8_t*)GmAlloc(N * sizeof(half));
    for (uint32_t i = 0; i < N; ++i) ((half*)x)[i] = half(float(i % 100));
    uint8_t* y = (uint8_t*)GmAlloc(4096);
    uint8_t* tiling = (uint8_t*)GmAlloc(64);
    uint8_t pat[8];
    if (S.rfind("overlap", 0) == 0 || S == "atomic_into_poison") {
        opkit::sim::poison_pattern(2, true, opkit::sim::kPoisonByte, false, pat);
        opkit::sim::gm_poison(y, 2, pat);
        if (S == "overlap_atomic_ok") opkit::sim::gm_note_write(y, 4096);  // an InitValue(0) output: started, not poison
        ICPU_RUN_KF(overlap_kernel, 4, x, y, tiling);
    } else if (S.rfind("uaf", 0) == 0) {
        opkit::sim::poison_pattern(2, true, opkit::sim::kPoisonByte, false, pat);
        opkit::sim::gm_poison(y, 2, pat);
        ICPU_RUN_KF(uaf_kernel, 1, x, y, tiling);
    } else if (S.rfind("int8", 0) == 0) {
        opkit::sim::poison_pattern(1, false, opkit::sim::kPoisonByte, false, pat);
        opkit::sim::gm_poison(y, 1, pat);
        ICPU_RUN_KF(int8_kernel, 1, x, y, tiling);
    } else {
        opkit::sim::poison_pattern(2, true, opkit::sim::kPoisonByte, false, pat);
        std::vector<uint8_t> keep;
        if (S == "untouched_ok") keep.assign(N, 0), std::fill(keep.begin() + 2 * BLK, keep.end(), 1);
        if (S == "untouched_partial") keep.assign(N, 0), std::fill(keep.begin() + 3 * BLK, keep.end(), 1);
        opkit::sim::gm_poison(y, 2, pat, keep.empty() ? nullptr : keep.data());
        ICPU_RUN_KF(poison_kernel, 4, x, y, tiling);
    }
    uint64_t total = 0;
    auto ranges = opkit::sim::gm_unwritten_ranges(y, &total);
    std::printf("unwritten %llu", (unsigned long long)total);
    for (auto& r : ranges) std::printf(" [%llu,%llu)", (unsigned long long)r.first, (unsigned long long)r.second);
    std::printf("\n");
    if (argc > 2) {
        FILE* f = std::fopen(argv[2], "wb");
        std::fwrite(y, 1, 4096, f);
        std::fclose(f);
    }
    return 0;
}
