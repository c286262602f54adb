// Broken mix kernels (AIC:AIV = 1:2, the Matmul API on the cube, a softmax on the vector cores):
// each scenario is one mistake, which the simulator must report at the marked line.
// usage: mix_checks_harness SCENARIO; prints y (M x N half) on success.
// A line marked "// @name" is where scenario "name" must be reported.
//
// Kernel "fused" (CANN's documented fused style): each vector core owns ROWS rows of y;
//   Iterate<true> + GetTensorC into a VECIN tile, SoftMax in place with a shared tmp buffer, Cast, DataCopyPad.
//   Scenarios: fused_ok; softmax_tmp_small / flashv2_tmp_small (a tmp buffer below Get*MinTmpSize);
//   getc_without_iterate (GetTensorC before any Iterate); c_never_fetched (the softmax reads the VECIN tile
//   that GetTensorC never filled).
// Kernel "shared": vector core 0 of each block runs the Matmul of the block's 2 * ROWS rows into a GM
//   workspace with IterateAll and tells vector core 1 with a mode-1 cross-core flag; both run the softmax
//   of their half. Scenarios: shared_ok; crosscore_never_set (vector core 1 waits for a flag nobody sets).
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"

using namespace AscendC;
static std::string S;

constexpr uint32_t BLOCKS = 2;
constexpr uint32_t ROWS = 16;                  // rows of y per vector core
constexpr uint32_t M = BLOCKS * 2 * ROWS;
constexpr uint32_t N = 48;                     // a whole number of 16-element rows: one C tile spans the row
constexpr uint32_t K = 40;
constexpr uint16_t LOGITS_READY = 3;           // vector core 0 -> vector core 1: the block's logits are in GM
constexpr uint16_t LOGITS_READY_TYPO = 4;
constexpr uint32_t TMP_BYTES = 16 * 1024;      // the SoftMax's shared tmp buffer: ample for a [ROWS, N] float tile
constexpr uint32_t SMALL_TMP_BYTES = 64;       // the broken scenarios: below even one row's Get*MinTmpSize

struct MixTiling {
    TCubeTiling mm;
    SoftMaxTiling sm;
    uint32_t tmpBytes;
    uint32_t pad;
};

__aicore__ inline void CopyTiling(MixTiling& t, GM_ADDR tiling)
{
    auto* src = reinterpret_cast<__gm__ uint32_t*>(tiling);
    for (size_t i = 0; i < sizeof(MixTiling) / sizeof(uint32_t); ++i) {
        reinterpret_cast<uint32_t*>(&t)[i] = src[i];
    }
}

template <TPosition C_POS>
class MixSoftmax {
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using BType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using CType = MatmulType<C_POS, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

public:
    Matmul<AType, BType, CType, BiasType> mm;
    MixTiling t;

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR ws, TPipe* pipe)
    {
        xGm_.SetGlobalBuffer((__gm__ half*)x, M * K);
        wGm_.SetGlobalBuffer((__gm__ half*)w, K * N);
        yGm_.SetGlobalBuffer((__gm__ half*)y, M * N);
        logitsGm_.SetGlobalBuffer((__gm__ float*)ws, M * N);
        pipe->InitBuffer(inQueue_, 1, ROWS * N * sizeof(float));
        pipe->InitBuffer(outQueue_, 1, ROWS * N * sizeof(half));
        pipe->InitBuffer(tmpBuf_, t.tmpBytes);
        pipe->InitBuffer(statBuf_, 3 * ROWS * 8 * sizeof(float));  // max, sum, expMax: one 32-byte block per row
    }

    // Documented fused style: the C tile goes from the cube straight into this vector core's VECIN tile.
    __aicore__ inline void ProcessFused()
    {
        const uint32_t row0 = GetBlockIdx() * ROWS;
        mm.SetTensorA(xGm_[row0 * K]);
        mm.SetTensorB(wGm_);
        mm.SetTail(ROWS, N, K);
        if (S == "getc_without_iterate") {
            LocalTensor<float> c = inQueue_.AllocTensor<float>();
            mm.template GetTensorC<true>(c, false, true);  // @getc_without_iterate
            inQueue_.FreeTensor(c);
        }
        while (mm.template Iterate<true>()) {
            LocalTensor<float> c = inQueue_.AllocTensor<float>();
            if (S != "c_never_fetched") {
                mm.template GetTensorC<true>(c, false, true);
            }
            inQueue_.EnQue(c);
            Softmax(row0);
        }
        mm.End();
    }

    // Vector core 0 computes the block's logits into GM; vector core 1 waits for its flag.
    __aicore__ inline void ProcessShared()
    {
        const uint32_t block = GetBlockIdx() / GetTaskRation();
        const uint32_t sub = GetSubBlockIdx();
        const uint32_t blockRow0 = block * 2 * ROWS;
        if (sub == 0) {
            mm.SetTensorA(xGm_[blockRow0 * K]);
            mm.SetTensorB(wGm_);
            mm.SetTail(2 * ROWS, N, K);
            mm.IterateAll(logitsGm_[blockRow0 * N]);
            CrossCoreSetFlag<1, PIPE_MTE3>(LOGITS_READY);
        } else {
            if (S == "crosscore_never_set") {
                CrossCoreWaitFlag(LOGITS_READY_TYPO);  // @crosscore_never_set
            } else {
                CrossCoreWaitFlag(LOGITS_READY);
            }
        }
        const uint32_t row0 = blockRow0 + sub * ROWS;
        LocalTensor<float> c = inQueue_.AllocTensor<float>();
        DataCopy(c, logitsGm_[row0 * N], ROWS * N);
        inQueue_.EnQue(c);
        Softmax(row0);
        mm.End();
    }

private:
    __aicore__ inline void Softmax(uint32_t row0)
    {
        LocalTensor<float> c = inQueue_.DeQue<float>();
        LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();
        LocalTensor<uint8_t> small = tmp[0];
        small.SetSize(SMALL_TMP_BYTES);  // a tmp buffer too small for even one row of the tile
        const SoftMaxShapeInfo shape{ROWS, N, ROWS, N};
        if (S == "softmax_tmp_small") {
            SoftMax<float>(c, c, small, t.sm, shape);  // @softmax_tmp_small
        } else if (S == "flashv2_tmp_small") {
            LocalTensor<float> stats = statBuf_.Get<float>();
            LocalTensor<float> maxT = stats, sumT = stats[ROWS * 8], expMaxT = stats[2 * ROWS * 8];
            SoftmaxFlashV2<float, false>(c, sumT, maxT, c, expMaxT, sumT, maxT, small, t.sm, shape);  // @flashv2_tmp_small
        } else if (S == "c_never_fetched") {
            SoftMax<float>(c, c, tmp, t.sm, shape);  // @c_never_fetched_softmax
        } else {
            SoftMax<float>(c, c, tmp, t.sm, shape);
        }
        LocalTensor<half> out = outQueue_.AllocTensor<half>();
        Cast(out, c, RoundMode::CAST_RINT, ROWS * N);
        inQueue_.FreeTensor(c);
        outQueue_.EnQue(out);
        out = outQueue_.DeQue<half>();
        DataCopyPad(yGm_[row0 * N], out, DataCopyExtParams{ROWS, N * sizeof(half), 0, 0, 0});  // @c_never_fetched
        outQueue_.FreeTensor(out);
    }

    TQue<TPosition::VECIN, 1> inQueue_;
    TQue<TPosition::VECOUT, 1> outQueue_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    TBuf<TPosition::VECCALC> statBuf_;
    GlobalTensor<half> xGm_;
    GlobalTensor<half> wGm_;
    GlobalTensor<half> yGm_;
    GlobalTensor<float> logitsGm_;
};

extern "C" __global__ __aicore__ void mix_fused(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TPipe pipe;
    MixSoftmax<TPosition::VECIN> op;
    CopyTiling(op.t, tiling);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &op.t.mm);
    op.Init(x, w, y, GetUserWorkspace(workspace), &pipe);
    op.ProcessFused();
}

extern "C" __global__ __aicore__ void mix_shared(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TPipe pipe;
    MixSoftmax<TPosition::GM> op;
    CopyTiling(op.t, tiling);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &op.t.mm);
    op.Init(x, w, y, GetUserWorkspace(workspace), &pipe);
    op.ProcessShared();
}

// The host side: the Matmul tiling of one vector core's rows, with the sizes a MultiCoreMatmulTiling of this
// shape gives (a C tile of whole rows: baseM = ROWS, baseN = N; K in two Mmads of 32, the second a tail of 8);
// the SoftMaxTiling is left for the API to compute (SoftmaxConfig::isCheckTiling, on by default).
static MixTiling HostTiling(int32_t mmRows)
{
    MixTiling t{};
    TCubeTiling& mm = t.mm;
    mm.usedCoreNum = static_cast<int32_t>(M) / mmRows;
    mm.M = M;
    mm.N = N;
    mm.Ka = K;
    mm.Kb = K;
    mm.singleCoreM = mmRows;
    mm.singleCoreN = N;
    mm.singleCoreK = K;
    mm.baseM = ROWS;
    mm.baseN = N;
    mm.baseK = 32;
    mm.stepKa = 2;
    mm.stepKb = 2;
    mm.depthA1 = 4;
    mm.depthB1 = 4;
    mm.stepM = 1;
    mm.stepN = 1;
    mm.dbL0A = 2;
    mm.dbL0B = 2;
    mm.dbL0C = 1;
    mm.shareL0CSize = ROWS * N * 4;
    mm.BatchNum = 1;
    t.tmpBytes = TMP_BYTES;
    return t;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: mix_checks_harness SCENARIO\n");
        return 2;
    }
    S = argv[1];
    const bool shared = S.rfind("shared", 0) == 0 || S.rfind("crosscore", 0) == 0;
    half* x = (half*)GmAlloc(M * K * sizeof(half));
    half* w = (half*)GmAlloc(K * N * sizeof(half));
    half* y = (half*)GmAlloc(M * N * sizeof(half));
    for (uint32_t i = 0; i < M; ++i)
        for (uint32_t k = 0; k < K; ++k) x[i * K + k] = half(float(int((i * 7 + k * 3) % 11) - 5) / 8.0f);
    for (uint32_t k = 0; k < K; ++k)
        for (uint32_t j = 0; j < N; ++j) w[k * N + j] = half(float(int((k * 5 + j) % 9) - 4) / 8.0f);
    const size_t sys = 16 * 1024 * 1024;  // the system workspace of 910B (GetLibApiWorkSpaceSize)
    uint8_t* ws = (uint8_t*)GmAlloc(sys + M * N * sizeof(float));
    const MixTiling host = HostTiling(static_cast<int32_t>(shared ? 2 * ROWS : ROWS));
    uint8_t* tiling = (uint8_t*)GmAlloc(sizeof(MixTiling));
    std::memcpy(tiling, &host, sizeof(MixTiling));
    opkit::sim::set_kernel_type(KERNEL_TYPE_MIX_AIC_1_2);
    if (shared) {
        ICPU_RUN_KF(mix_shared, BLOCKS, (uint8_t*)x, (uint8_t*)w, (uint8_t*)y, ws, tiling);
    } else {
        ICPU_RUN_KF(mix_fused, BLOCKS, (uint8_t*)x, (uint8_t*)w, (uint8_t*)y, ws, tiling);
    }
    fwrite(y, sizeof(half), M * N, stdout);
    return 0;
}
