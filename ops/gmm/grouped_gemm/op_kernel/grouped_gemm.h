// GroupedGemm: the kernel class, y_i = x_i @ w_i (+ bias_i) for a list of independent problems, on the
// cube unit (AIC cores) with the cube instructions.
//
// Problem visitor: problem i is cut into ceil(M_i / baseM) x ceil(N_i / baseN) output tiles; the tiles
// of all problems form one queue in list order and core c visits tiles c, c + blockDim, ... of it, so
// many small problems share the cores in one launch. The tensors come as CANN's tensor lists
// (ListTensorDesc over the list arguments, y too: y_i [M_i, N_i]), the sizes from the tiling (mList /
// kList / nList).
// One tile's data path is that of ops/gmm/grouped_matmul (and ops/examples/matmul_bias_act):
// ND2NZ into L1, LoadData into L0A/L0B, Mmad into L0C (from the bias when there is one), Fixpipe out.
#ifndef GROUPED_GEMM_H
#define GROUPED_GEMM_H

#include "kernel_operator.h"
#include "grouped_gemm_tiling_data.h"

namespace GroupedGemmKernel {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t FRACTAL = 16;
constexpr uint32_t FRACTAL_ELEMS = FRACTAL * FRACTAL;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

template <typename T>
class GroupedGemm {
public:
    __aicore__ inline GroupedGemm() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR weight, GM_ADDR bias, GM_ADDR y, const GroupedGemmTilingData& tiling)
    {
        t_ = tiling;
        x_ = x;
        weight_ = weight;
        bias_ = bias;
        y_ = y;
        const uint32_t kL1 = t_.stepK * t_.baseK;
        pipe_.InitBuffer(a1Queue_, BUFFER_NUM, t_.baseM * kL1 * sizeof(T));
        pipe_.InitBuffer(b1Queue_, BUFFER_NUM, kL1 * t_.baseN * sizeof(T));
        pipe_.InitBuffer(a2Queue_, BUFFER_NUM, t_.baseM * t_.baseK * sizeof(T));
        pipe_.InitBuffer(b2Queue_, BUFFER_NUM, t_.baseK * t_.baseN * sizeof(T));
        pipe_.InitBuffer(c1Queue_, 1, t_.baseM * t_.baseN * sizeof(float));
        if (t_.hasBias != 0) {
            pipe_.InitBuffer(biasL1Queue_, 1, t_.baseN * sizeof(float));
            pipe_.InitBuffer(biasBtQueue_, 1, t_.baseN * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        const uint64_t cores = GetBlockNum();
        const uint64_t me = GetBlockIdx();
        ListTensorDesc xList(x_);
        ListTensorDesc wList(weight_);
        ListTensorDesc yList(y_);
        uint64_t tileBase = 0;  // index in the global queue of problem i's first tile
        for (uint32_t i = 0; i < t_.count; ++i) {
            M_ = t_.mList[i];
            K_ = t_.kList[i];
            N_ = t_.nList[i];
            const uint32_t nTiles = CeilDiv(N_, t_.baseN);
            const uint64_t tiles = static_cast<uint64_t>(CeilDiv(M_, t_.baseM)) * nTiles;
            uint64_t tile = tileBase + (me + cores - tileBase % cores) % cores;
            if (tile < tileBase + tiles) {
                xGm_.SetGlobalBuffer(xList.GetDataPtr<T>(i), static_cast<uint64_t>(M_) * K_);
                wGm_.SetGlobalBuffer(wList.GetDataPtr<T>(i), static_cast<uint64_t>(K_) * N_);
                yGm_.SetGlobalBuffer(yList.GetDataPtr<T>(i), static_cast<uint64_t>(M_) * N_);
                if (t_.hasBias != 0) {
                    ListTensorDesc bList(bias_);
                    biasGm_.SetGlobalBuffer(bList.GetDataPtr<float>(i), N_);
                }
            }
            for (; tile < tileBase + tiles; tile += cores) {
                const uint32_t local = static_cast<uint32_t>(tile - tileBase);
                const uint32_t m0 = (local / nTiles) * t_.baseM;
                const uint32_t n0 = (local % nTiles) * t_.baseN;
                ComputeTile(m0, n0, M_ - m0 < t_.baseM ? M_ - m0 : t_.baseM, N_ - n0 < t_.baseN ? N_ - n0 : t_.baseN);
            }
            tileBase += tiles;
        }
    }

private:
    // y_i[m0 : m0 + m, n0 : n0 + n] of the current problem
    __aicore__ inline void ComputeTile(uint32_t m0, uint32_t n0, uint32_t m, uint32_t n)
    {
        const uint32_t mBlocks = CeilDiv(m, FRACTAL);
        const uint32_t nBlocks = CeilDiv(n, FRACTAL);
        const uint32_t kL1 = t_.stepK * t_.baseK;
        LocalTensor<float> bias;
        if (t_.hasBias != 0) {
            bias = LoadBias(n0, n);
        }
        LocalTensor<float> c = c1Queue_.AllocTensor<float>();
        bool first = true;
        for (uint32_t k1 = 0; k1 < K_; k1 += kL1) {
            const uint32_t kc = K_ - k1 < kL1 ? K_ - k1 : kL1;
            const uint32_t kcBlocks = CeilDiv(kc, FRACTAL);
            LocalTensor<T> a1 = a1Queue_.AllocTensor<T>();
            LocalTensor<T> b1 = b1Queue_.AllocTensor<T>();
            DataCopy(a1, xGm_[static_cast<uint64_t>(m0) * K_ + k1], Nd2NzParams(1, m, kc, 0, K_, mBlocks * FRACTAL, 1, 0));
            if (t_.transWeight != 0) {
                DataCopy(b1, wGm_[static_cast<uint64_t>(n0) * K_ + k1], Nd2NzParams(1, n, kc, 0, K_, nBlocks * FRACTAL, 1, 0));
            } else {
                DataCopy(b1, wGm_[static_cast<uint64_t>(k1) * N_ + n0], Nd2NzParams(1, kc, n, 0, N_, kcBlocks * FRACTAL, 1, 0));
            }
            a1Queue_.EnQue(a1);
            b1Queue_.EnQue(b1);
            a1 = a1Queue_.DeQue<T>();
            b1 = b1Queue_.DeQue<T>();
            for (uint32_t k2 = 0; k2 < kc; k2 += t_.baseK) {
                const uint32_t kk = kc - k2 < t_.baseK ? kc - k2 : t_.baseK;
                const uint32_t kkBlocks = CeilDiv(kk, FRACTAL);
                LocalTensor<T> a2 = a2Queue_.AllocTensor<T>();
                const LoadData2DParams aRow(0, kkBlocks, mBlocks, 0, 0, false, 0);
                for (uint32_t i = 0; i < mBlocks; ++i) {
                    LoadData(a2[i * kkBlocks * FRACTAL_ELEMS], a1[((k2 / FRACTAL) * mBlocks + i) * FRACTAL_ELEMS], aRow);
                }
                LocalTensor<T> b2 = b2Queue_.AllocTensor<T>();
                if (t_.transWeight != 0) {
                    LoadData(b2, b1[(k2 / FRACTAL) * nBlocks * FRACTAL_ELEMS],
                             LoadData2DParams(0, kkBlocks * nBlocks, 1, 0, 0, false, 0));
                } else {
                    const LoadData2DParams bRow(0, nBlocks, kcBlocks, 0, 0, true, 0);
                    for (uint32_t j = 0; j < kkBlocks; ++j) {
                        LoadData(b2[j * nBlocks * FRACTAL_ELEMS], b1[(k2 / FRACTAL + j) * FRACTAL_ELEMS], bRow);
                    }
                }
                a2Queue_.EnQue(a2);
                b2Queue_.EnQue(b2);
                a2 = a2Queue_.DeQue<T>();
                b2 = b2Queue_.DeQue<T>();
                MmadParams mmad;
                mmad.m = m;
                mmad.n = n;
                mmad.k = kk;
                if (first && t_.hasBias != 0) {
                    Mmad(c, a2, b2, bias, mmad);
                } else {
                    mmad.cmatrixInitVal = first;
                    Mmad(c, a2, b2, mmad);
                }
                if ((m / 16) * (n / 16) < 10) PipeBarrier<PIPE_M>();  // the Mmad page: small Mmads into one L0C
                first = false;
                a2Queue_.FreeTensor(a2);
                b2Queue_.FreeTensor(b2);
            }
            a1Queue_.FreeTensor(a1);
            b1Queue_.FreeTensor(b1);
        }
        if (t_.hasBias != 0) {
            biasBtQueue_.FreeTensor(bias);
        }
        c1Queue_.EnQue(c);
        c = c1Queue_.DeQue<float>();
        FixpipeParamsV220 fix(n, m, mBlocks * FRACTAL, N_, false);
        fix.quantPre = IsSameType<T, bfloat16_t>::value ? QuantMode_t::F322BF16 : QuantMode_t::F322F16;
        Fixpipe(yGm_[static_cast<uint64_t>(m0) * N_ + n0], c, fix);
        c1Queue_.FreeTensor(c);
    }

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
    GM_ADDR x_ = nullptr;
    GM_ADDR weight_ = nullptr;
    GM_ADDR bias_ = nullptr;
    GM_ADDR y_ = nullptr;
    uint32_t M_ = 0;
    uint32_t K_ = 0;
    uint32_t N_ = 0;
    GroupedGemmTilingData t_;
};
}  // namespace GroupedGemmKernel

#endif  // GROUPED_GEMM_H
