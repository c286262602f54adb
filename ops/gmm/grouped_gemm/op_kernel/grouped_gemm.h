// GroupedGemm: the kernel class, y_i = x_i @ w_i (+ bias_i) for a list of independent problems, on the
// cube unit (AIC cores) with the cube instructions.
//
// Problem visitor: problem i is cut into ceil(M_i / baseM) x ceil(N_i / baseN) output tiles; the tiles
// of all problems form one queue in list order and core c visits tiles c, c + blockDim, ... of it, so
// many small problems share the cores in one launch. The tensors come as CANN's tensor lists
// (ListTensorDesc over the list arguments, y too: y_i [M_i, N_i]), the sizes from the tiling (mList /
// kList / nList).
// One tile is the GMM family's streamed tile (ops/gmm/common/op_kernel/gmm_cube.h, also used by
// ops/gmm/grouped_matmul): ND2NZ into L1, LoadData into L0A/L0B, Mmad into L0C (from the bias when there
// is one), Fixpipe out.
#ifndef GROUPED_GEMM_H
#define GROUPED_GEMM_H

#include "kernel_operator.h"
#include "gmm_cube.h"
#include "grouped_gemm_tiling_data.h"

namespace GroupedGemmKernel {
using namespace AscendC;
using GmmCube::CeilDiv;

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
        cube_.InitStreamed(t_.cube);
    }

    __aicore__ inline void Process()
    {
        const uint64_t cores = GetBlockNum();
        const uint64_t me = GetBlockIdx();
        const uint32_t baseM = t_.cube.baseM;
        const uint32_t baseN = t_.cube.baseN;
        ListTensorDesc xList(x_);
        ListTensorDesc wList(weight_);
        ListTensorDesc yList(y_);
        uint64_t tileBase = 0;  // index in the global queue of problem i's first tile
        for (uint32_t i = 0; i < t_.count; ++i) {
            const uint32_t M = t_.mList[i];
            const uint32_t K = t_.kList[i];
            const uint32_t N = t_.nList[i];
            const uint32_t nTiles = CeilDiv(N, baseN);
            const uint64_t tiles = static_cast<uint64_t>(CeilDiv(M, baseM)) * nTiles;
            uint64_t tile = GmmCube::FirstOwnTile(tileBase, me, cores);
            if (tile < tileBase + tiles) {
                xGm_.SetGlobalBuffer(xList.GetDataPtr<T>(i), static_cast<uint64_t>(M) * K);
                wGm_.SetGlobalBuffer(wList.GetDataPtr<T>(i), static_cast<uint64_t>(K) * N);
                yGm_.SetGlobalBuffer(yList.GetDataPtr<T>(i), static_cast<uint64_t>(M) * N);
                if (t_.cube.hasBias != 0) {
                    ListTensorDesc bList(bias_);
                    biasGm_.SetGlobalBuffer(bList.GetDataPtr<float>(i), N);
                }
            }
            for (; tile < tileBase + tiles; tile += cores) {
                const uint32_t local = static_cast<uint32_t>(tile - tileBase);
                const uint32_t m0 = (local / nTiles) * baseM;
                const uint32_t n0 = (local % nTiles) * baseN;
                cube_.StreamTile(xGm_[static_cast<uint64_t>(m0) * K], wGm_, biasGm_, n0,
                                 yGm_[static_cast<uint64_t>(m0) * N + n0], n0, M - m0 < baseM ? M - m0 : baseM,
                                 N - n0 < baseN ? N - n0 : baseN, K, N);
            }
            tileBase += tiles;
        }
    }

private:
    GmmCube::CubePath<T, float> cube_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> wGm_;
    GlobalTensor<float> biasGm_;
    GlobalTensor<T> yGm_;
    GM_ADDR x_ = nullptr;
    GM_ADDR weight_ = nullptr;
    GM_ADDR bias_ = nullptr;
    GM_ADDR y_ = nullptr;
    GroupedGemmTilingData t_;
};
}  // namespace GroupedGemmKernel

#endif  // GROUPED_GEMM_H
