{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_H" %}
// {{ T }}: the kernel class, y = act(x @ w + bias) on the cube unit (AIC cores).
//
// The data path of one output tile of baseM x baseN, with the buffers of the cube core:
//
//   x [M, K] (GM, ND)  -- DataCopy ND2NZ -->  A1 (L1)  -- LoadData -->                      A2 (L0A, "ZZ" fractals)
//   w [K, N] (GM, ND)  -- DataCopy ND2NZ -->  B1 (L1)  -- LoadData, fractals transposed -->  B2 (L0B, "ZN" fractals)
//   bias [N] (GM)      -- DataCopy ND2NZ -->  C1 (L1)  -- DataCopy -->                       C2 (BiasTable)
//   A2, B2, C2         -- Mmad -->            CO1 (L0C, fp32, NZ fractals)
//   CO1                -- Fixpipe: NZ -> ND, ReLU, fp32 -> fp16/bf16 (round to nearest even) -->  y [M, N] (GM, ND)
//
// L1 receives a K slice of stepK * baseK at a time; each slice feeds stepK Mmads of depth baseK.
// The first Mmad of a tile starts L0C from the bias (BiasTable), the others accumulate onto it.
// Tails: the last tile row has M % baseM rows, the last tile column N % baseN columns and the last
// K slice K % baseK: ND2NZ zero-fills the columns of x past K, and Mmad multiplies only the first k
// elements, so rows of w past K are never read. Queues (EnQue/DeQue, FreeTensor/AllocTensor)
// order the pipes: MTE2 (GM -> L1), MTE1 (L1 -> L0), M (Mmad), FIX (Fixpipe).
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include "kernel_operator.h"
#include "{{ cookiecutter.op_name }}_tiling_data.h"

namespace {{ T }}Kernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;   // double buffering of L1 and L0A/L0B: must match the tiling
constexpr uint32_t FRACTAL = 16;    // fp16/bf16 fractals are 16 x 16 (512 bytes)
constexpr uint32_t FRACTAL_ELEMS = FRACTAL * FRACTAL;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

template <typename T>
class {{ T }} {
public:
    __aicore__ inline {{ T }}() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR bias, GM_ADDR y, const {{ T }}TilingData& tiling)
    {
        t_ = tiling;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(t_.M) * t_.K);
        wGm_.SetGlobalBuffer((__gm__ T*)w, static_cast<uint64_t>(t_.K) * t_.N);
        biasGm_.SetGlobalBuffer((__gm__ float*)bias, t_.N);
        yGm_.SetGlobalBuffer((__gm__ T*)y, static_cast<uint64_t>(t_.M) * t_.N);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        pipe_.InitBuffer(a1Queue_, BUFFER_NUM, t_.baseM * kL1 * sizeof(T));
        pipe_.InitBuffer(b1Queue_, BUFFER_NUM, kL1 * t_.baseN * sizeof(T));
        pipe_.InitBuffer(a2Queue_, BUFFER_NUM, t_.baseM * t_.baseK * sizeof(T));
        pipe_.InitBuffer(b2Queue_, BUFFER_NUM, t_.baseK * t_.baseN * sizeof(T));
        pipe_.InitBuffer(c1Queue_, 1, t_.baseM * t_.baseN * sizeof(float));
        pipe_.InitBuffer(biasL1Queue_, 1, t_.baseN * sizeof(float));
        pipe_.InitBuffer(biasBtQueue_, 1, t_.baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        const uint32_t tiles = t_.mTiles * t_.nTiles;
        for (uint32_t tile = GetBlockIdx(); tile < tiles; tile += GetBlockNum()) {
            const uint32_t mt = tile / t_.nTiles;
            const uint32_t nt = tile % t_.nTiles;
            const uint32_t m0 = mt * t_.baseM;
            const uint32_t n0 = nt * t_.baseN;
            ComputeTile(m0, n0, std::min(t_.baseM, t_.M - m0), std::min(t_.baseN, t_.N - n0));
        }
    }

private:
    // y[m0 : m0 + m, n0 : n0 + n]
    __aicore__ inline void ComputeTile(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        LocalTensor<float> bias = LoadBias(n0, n);
        LocalTensor<float> c = c1Queue_.AllocTensor<float>();
        bool first = true;
        for (uint32_t k1 = 0; k1 < t_.K; k1 += kL1) {
            const uint32_t kc = std::min(kL1, t_.K - k1);
            const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
            // GM -> L1: x[m0 : m0 + m, k1 : k1 + kc] and w[k1 : k1 + kc, n0 : n0 + n] as NZ (column
            // blocks of 16; x's blocks hold mBlocks * 16 rows, w's kcBlocks * 16 rows)
            LocalTensor<T> a1 = a1Queue_.AllocTensor<T>();
            LocalTensor<T> b1 = b1Queue_.AllocTensor<T>();
            const Nd2NzParams xSlice(1, m, kc, 0, t_.K, mBlocks * FRACTAL, 1, 0);
            const Nd2NzParams wSlice(1, kc, n, 0, t_.N, kcBlocks * FRACTAL, 1, 0);
            DataCopy(a1, xGm_[static_cast<uint64_t>(m0) * t_.K + k1], xSlice);
            DataCopy(b1, wGm_[static_cast<uint64_t>(k1) * t_.N + n0], wSlice);
            a1Queue_.EnQue(a1);
            b1Queue_.EnQue(b1);
            a1 = a1Queue_.DeQue<T>();
            b1 = b1Queue_.DeQue<T>();
            for (uint32_t k2 = 0; k2 < kc; k2 += t_.baseK) {
                const uint32_t kk = std::min(t_.baseK, kc - k2);
                const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
                // L1 -> L0A: fractal row i of A2 (ZZ) gathers the kkBlocks fractals of row block i,
                // which sit mBlocks fractals apart in A1 (NZ)
                LocalTensor<T> a2 = a2Queue_.AllocTensor<T>();
                const LoadData2DParams aRow(0, kkBlocks, mBlocks, 0, 0, false, 0);
                for (uint32_t i = 0; i < mBlocks; ++i) {
                    LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], a1[((k2 / FRACTAL) * mBlocks + i) * FRACTAL_ELEMS], aRow);
                }
                // L1 -> L0B: fractal row j of B2 (ZN) gathers, transposed, the nBlocks fractals of K
                // block j, which sit kcBlocks fractals apart in B1 (NZ)
                LocalTensor<T> b2 = b2Queue_.AllocTensor<T>();
                const LoadData2DParams bRow(0, nBlocks, kcBlocks, 0, 0, true, 0);  // true: transpose each fractal
                for (uint32_t j = 0; j < kkBlocks; ++j) {
                    LoadData(b2[j * nBlocks * FRACTAL_ELEMS], b1[(k2 / FRACTAL + j) * FRACTAL_ELEMS], bRow);
                }
                a2Queue_.EnQue(a2);
                b2Queue_.EnQue(b2);
                a2 = a2Queue_.DeQue<T>();
                b2 = b2Queue_.DeQue<T>();
                MmadParams mmad;
                mmad.m = m;
                mmad.n = n;
                mmad.k = kk;
                if (first) {
                    Mmad(c, a2, b2, bias, mmad);  // L0C = bias + a2 x b2
                    first = false;
                } else {
                    mmad.cmatrixInitVal = false;  // L0C += a2 x b2
                    Mmad(c, a2, b2, mmad);
                }
                if ((m / 16) * (n / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page: small Mmads into one L0C
                a2Queue_.FreeTensor(a2);
                b2Queue_.FreeTensor(b2);
            }
            a1Queue_.FreeTensor(a1);
            b1Queue_.FreeTensor(b1);
        }
        biasBtQueue_.FreeTensor(bias);
        c1Queue_.EnQue(c);
        c = c1Queue_.DeQue<float>();
        // L0C -> GM: NZ -> ND rows of N elements, ReLU, fp32 -> T with round to nearest even
        FixpipeParamsV220 fix(n, m, mBlocks * FRACTAL, t_.N, t_.relu != 0);
        fix.quantPre = IsSameType<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::F322F16;
        Fixpipe(yGm_[static_cast<uint64_t>(m0) * t_.N + n0], c, fix);
        c1Queue_.FreeTensor(c);
    }

    // bias[n0 : n0 + n] -> L1 -> BiasTable. ND2NZ of one row reads exactly n floats from GM and
    // zero-fills the 32-byte block after them, so the L1 -> BiasTable copy moves whole blocks.
    __aicore__ inline LocalTensor<float> LoadBias(uint32_t n0, uint32_t n)
    {
        LocalTensor<float> b1 = biasL1Queue_.AllocTensor<float>();
        DataCopy(b1, biasGm_[n0], Nd2NzParams(1, 1, n, 0, n, 1, 1, 0));
        biasL1Queue_.EnQue(b1);
        b1 = biasL1Queue_.DeQue<float>();
        LocalTensor<float> bt = biasBtQueue_.AllocTensor<float>();
        DataCopy(bt, b1, CeilDiv(n, 8) * 8);
        biasL1Queue_.FreeTensor(b1);
        biasBtQueue_.EnQue(bt);
        return biasBtQueue_.DeQue<float>();
    }

    TPipe pipe_;
    TQue<TPosition::A1, 1> a1Queue_;
    TQue<TPosition::B1, 1> b1Queue_;
    TQue<TPosition::A2, 1> a2Queue_;
    TQue<TPosition::B2, 1> b2Queue_;
    TQue<TPosition::CO1, 1> c1Queue_;
    TQue<TPosition::C1, 1> biasL1Queue_;
    TQue<TPosition::C2, 1> biasBtQueue_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> wGm_;
    GlobalTensor<float> biasGm_;
    GlobalTensor<T> yGm_;
    {{ T }}TilingData t_;
};
}  // namespace {{ T }}Kernel

#endif  // {{ GUARD }}
