// opkit simulator (host side): the Matmul tiling classes (namespace matmul_tiling) and the host
// TCubeTiling class. Included by tiling/tiling_api.h.
//
//   matmul_tiling::MultiCoreMatmulTiling mm(platform);
//   mm.SetDim(aicNum);
//   mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
//   mm.SetBType(...); mm.SetCType(...); mm.SetBiasType(...);
//   mm.SetShape(M, N, K); mm.SetOrgShape(M, N, K); mm.SetBias(true);
//   if (mm.GetTiling(tilingData.mm) == -1) return ge::GRAPH_FAILED;
//
// MatmulApiTiling tiles one core's SetShape; MultiCoreMatmulTiling first splits SetShape's M and N
// (and K after EnableMultiCoreSplitK) over at most SetDim cores: the split with the fewest cycles per
// core (16 x 16 x k0 cube steps plus its A, B and C bytes at 64 B per cycle), then the fewest cores; a piece is the whole dimension or a multiple of 16 (SetAlignSplit's
// alignment, K: 32 bytes of A), SetSingleShape and SetSingleRange bound it, and the pieces cover
// the dimension exactly (the last one is the tail). BatchMatmulTiling spreads SetBatch's batches,
// singleBatchM x singleBatchN per core. The base block and the L1 split of a core are the engine's
// of tiling/opkit_matmul_tiling_base.h. GetTiling returns -1 with a warning naming the reason for
// what the chip cannot run, as CANN's does.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>  // CANN's matmul_tiling.h includes it; hosts rely on it

#include "tiling/opkit_matmul_tiling_base.h"
#include "tiling/opkit_matmul_tiling_types.h"

namespace matmul_tiling {

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MatmulApiTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    ~MatmulApiTiling() override = default;
    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Finish(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Finish(tiling); }
    // L1 bank-conflict layout: not modelled; the tiling is never adjusted for it.
    bool EnableL1BankConflictOptimise() { return false; }

protected:
    int64_t Compute() override {
        if (CheckInputs() == -1) return -1;
        return SolveBlock(1, ShapeM(), ShapeN(), ShapeK());
    }
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    // The cores the tiling may use (MIX kernels that drive the Matmul from the AIV: the AIV count).
    int32_t SetDim(int32_t dim) {
        blockDim = dim;
        return dim < 1 ? Reject("SetDim", "a core count of %d; at least 1 is needed", dim) : 0;
    }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override { return MatmulApiTilingBase::SetShape(m, n, k); }
    // One core's shape; -1 leaves a dimension to the tiling.
    virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
        userM_ = singleCoreM = singleMIn;
        userN_ = singleCoreN = singleNIn;
        userK_ = singleCoreK = singleKIn;
        return 0;
    }
    virtual int32_t SetSingleRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1, int32_t minM = -1,
                                   int32_t minN = -1, int32_t minK = -1) {
        maxSingleM = maxM;
        maxSingleN = maxN;
        maxSingleK = maxK;
        minSingleM = minM;
        minSingleN = minN;
        minSingleK = minK;
        return 0;
    }
    // singleCoreM/N/K multiples of alignM/N/K (-1: the tiling's own 16, 16, 32 bytes of A).
    int32_t SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK) {
        if (alignM == 0 || alignN == 0 || alignK == 0 || alignM < -1 || alignN < -1 || alignK < -1)
            return Reject("SetAlignSplit", "alignments %d, %d, %d; each must be -1 or positive", alignM, alignN, alignK);
        alignSingleM = alignM > 0 ? alignM : 1;
        alignSingleN = alignN > 0 ? alignN : 1;
        alignSingleK = alignK > 0 ? alignK : 1;
        return 0;
    }
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
        shapeM = singleCoreM;
        shapeN = singleCoreN;
        shapeK = singleCoreK;
        return 0;
    }
    // dim: the cores the last GetTiling uses (mDim * nDim * the K split), mDim/nDim: along M and N.
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        dim = mDim_ * nDim_ * kDim_;
        mDim = mDim_;
        nDim = nDim_;
        return 0;
    }
    // Lets the tiling split K over cores as well (each core's result is added into C: the kernel
    // writes with atomic accumulation); without it K is never split.
    void EnableMultiCoreSplitK(bool flag) { enableSplitK_ = flag; }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }
    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Finish(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Finish(tiling); }
    bool EnableL1BankConflictOptimise() { return false; }

protected:
    int64_t Compute() override {
        if (CheckInputs() == -1) return -1;
        if (blockDim < 1) return Refuse("SetDim was given a core count below 1 (%d)", blockDim);
        const int32_t M = ShapeM(), N = ShapeN(), K = ShapeK();
        const int32_t alM = alignSingleM > 1 ? alignSingleM : C0_SIZE;
        const int32_t alN = alignSingleN > 1 ? alignSingleN : C0_SIZE;
        const int32_t alK = alignSingleK > 1 ? alignSingleK : KAlign();
        const int32_t dim = blockDim;
        int64_t best = -1;
        int32_t bm = 0, bn = 0, bk = 0, dm = 0, dn = 0, dk = 0;
        for (int32_t a = 1; a <= dim; ++a) {
            const int32_t pm = Piece(M, a, alM, userM_, minSingleM, maxSingleM);
            const int32_t ma = static_cast<int32_t>(CeilDiv(M, pm));
            if (ma > dim || (a > 1 && ma < a)) continue;
            for (int32_t b = 1; ma * b <= dim; ++b) {
                const int32_t pn = Piece(N, b, alN, userN_, minSingleN, maxSingleN);
                const int32_t nb = static_cast<int32_t>(CeilDiv(N, pn));
                if (ma * nb > dim || (b > 1 && nb < b)) continue;
                const int32_t kMax = enableSplitK_ ? dim / (ma * nb) : 1;
                for (int32_t c = 1; c <= std::max(kMax, 1); ++c) {
                    const int32_t pk = Piece(K, c, alK, userK_, minSingleK, maxSingleK);
                    const int32_t kc = static_cast<int32_t>(CeilDiv(K, pk));
                    if (ma * nb * kc > dim || (c > 1 && kc < c)) continue;
                    const int64_t work = Cost(pm, pn, pk, kc > 1);
                    if (best < 0 || work < best || (work == best && ma * nb * kc < dm * dn * dk)) {
                        best = work;
                        bm = pm, bn = pn, bk = pk;
                        dm = ma, dn = nb, dk = kc;
                    }
                }
            }
        }
        if (best < 0)
            return Refuse("no split of %d x %d x %d fits %d cores (SetSingleShape %d x %d x %d, SetSingleRange, SetAlignSplit)",
                          M, N, K, dim, userM_, userN_, userK_);
        if (dk > 1 && !enableSplitK_) return Refuse("SetSingleShape splits K over cores; call EnableMultiCoreSplitK(true)");
        mDim_ = dm;
        nDim_ = dn;
        kDim_ = dk;
        return SolveBlock(dm * dn * dk, bm, bn, bk);
    }

private:
    // A core's cycles, roughly: 16 x 16 x k0 cube steps, plus the A and B bytes it loads and the C
    // bytes it writes (twice with a K split: atomic accumulation reads them too) at 64 B per cycle.
    int64_t Cost(int32_t pm, int32_t pn, int32_t pk, bool kSplit) const {
        const int64_t k0 = std::max(KAlign(), 1);
        const int64_t cube = CeilDiv(pm, C0_SIZE) * CeilDiv(pn, C0_SIZE) * CeilDiv(pk, k0);
        const int64_t ab = (static_cast<int64_t>(pm) * pk * Bits(aType_.dataType) + static_cast<int64_t>(pk) * pn * Bits(bType_.dataType)) / 8;
        const int64_t c = static_cast<int64_t>(pm) * pn * Bytes(cType_.dataType) * (kSplit ? 2 : 1);
        return cube + (ab + c) / 64;
    }
    // One core's piece of a dimension of `total` split `parts` ways.
    static int32_t Piece(int32_t total, int32_t parts, int32_t align, int32_t user, int32_t lo, int32_t hi) {
        if (user > 0) return std::min(user, total);
        int64_t p = parts == 1 ? total : std::min<int64_t>(Align(CeilDiv(total, parts), align), total);
        if (hi > 0) p = std::min<int64_t>(p, hi);
        if (lo > 0) p = std::max<int64_t>(p, std::min(lo, total));
        return static_cast<int32_t>(std::max<int64_t>(p, 1));
    }
    int32_t userM_ = -1, userN_ = -1, userK_ = -1;
    int32_t mDim_ = 1, nDim_ = 1, kDim_ = 1;
};

class BatchMatmulTiling : public MatmulApiTilingBase {
public:
    BatchMatmulTiling() {}
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    // dim: the cores the last GetTiling uses; one core per singleBatchM x singleBatchN batches.
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim, int32_t& batchCoreM, int32_t& batchCoreN) {
        batchCoreM = static_cast<int32_t>(CeilDiv(batchM, singleBatchM));
        batchCoreN = static_cast<int32_t>(CeilDiv(batchN, singleBatchN));
        mDim = 1;
        nDim = 1;
        dim = batchCoreM * batchCoreN;
        return 0;
    }
    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Finish(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Finish(tiling); }
    // The batches of A (batchMIn) and B (batchNIn).
    int32_t SetBatch(int32_t batchMIn = 1, int32_t batchNIn = 1) {
        if (batchMIn < 1 || batchNIn < 1) return Reject("SetBatch", "batch counts %d, %d; both must be at least 1", batchMIn, batchNIn);
        batchM = batchMIn;
        batchN = batchNIn;
        return 0;
    }
    // The batches one core computes; -1 keeps 1.
    int32_t SetSingleBatch(int32_t singleMIn = -1, int32_t singleNIn = -1) {
        if (singleMIn == 0 || singleNIn == 0 || singleMIn < -1 || singleNIn < -1)
            return Reject("SetSingleBatch", "batches per core %d, %d; each must be -1 or positive", singleMIn, singleNIn);
        singleBatchM = singleMIn > 0 ? singleMIn : 1;
        singleBatchN = singleNIn > 0 ? singleNIn : 1;
        return 0;
    }

protected:
    int64_t Compute() override {
        if (CheckInputs() == -1) return -1;
        if (singleBatchM > batchM || singleBatchN > batchN)
            return Refuse("SetSingleBatch (%d, %d) exceeds SetBatch (%d, %d)", singleBatchM, singleBatchN, batchM, batchN);
        const int32_t cores = static_cast<int32_t>(CeilDiv(batchM, singleBatchM) * CeilDiv(batchN, singleBatchN));
        return SolveBlock(cores, ShapeM(), ShapeN(), ShapeK());
    }
};
}  // namespace matmul_tiling

// The L1/L0C/UB a tiling's Matmul needs beside the kernel's own buffers: the larger of bufSize's
// and the tiling's share*Size (CANN's rule; UB also holds 2 * transLength).
inline int32_t MatmulGetTmpBufSize(optiling::TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize.l1Size = std::max(bufSize.l1Size, tiling.get_shareL1Size());
    bufSize.l0cSize = std::max(bufSize.l0cSize, tiling.get_shareL0CSize());
    bufSize.ubSize = std::max(bufSize.ubSize, std::max(tiling.get_shareUbSize(), 2 * tiling.get_transLength()));
    return 0;
}
inline int32_t MatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize.l1Size = std::max(bufSize.l1Size, tiling.shareL1Size);
    bufSize.l0cSize = std::max(bufSize.l0cSize, tiling.shareL0CSize);
    bufSize.ubSize = std::max(bufSize.ubSize, std::max(tiling.shareUbSize, 2 * tiling.transLength));
    return 0;
}
inline int32_t MultiCoreMatmulGetTmpBufSize(optiling::TCubeTiling& t, matmul_tiling::SysTilingTempBufSize& s) {
    return MatmulGetTmpBufSize(t, s);
}
inline int32_t BatchMatmulGetTmpBufSize(optiling::TCubeTiling& t, matmul_tiling::SysTilingTempBufSize& s) {
    return MatmulGetTmpBufSize(t, s);
}
inline int32_t MultiCoreMatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling& t, matmul_tiling::SysTilingTempBufSize& s) {
    return MatmulGetTmpBufSizeV2(t, s);
}
inline int32_t BatchMatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling& t, matmul_tiling::SysTilingTempBufSize& s) {
    return MatmulGetTmpBufSizeV2(t, s);
}
