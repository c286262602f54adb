// opkit simulator (host side): the Matmul tiling API (namespace matmul_tiling) and the host
// TCubeTiling class. Included by tiling/tiling_api.h.
//
//   matmul_tiling::MultiCoreMatmulTiling mm(platform);
//   mm.SetDim(aicNum);
//   mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
//   mm.SetBType(...); mm.SetCType(...); mm.SetBiasType(...);
//   mm.SetShape(M, N, K); mm.SetOrgShape(M, N, K); mm.SetBias(true);
//   if (mm.GetTiling(tilingData.mm) == -1) return ge::GRAPH_FAILED;
//
// opkit's engine is simpler than CANN's search but respects the same capacities, so that what it
// produces is a tiling the chip could run:
//   - cores: MultiCoreMatmulTiling splits M and N over at most SetDim cores (the split with the
//     least work per core, then the fewest cores); singleCoreM/N are multiples of 16 (the last core
//     takes the tail); K is not split; MatmulApiTiling is one core with SetShape as its shape;
//   - base block: baseM/baseN multiples of 16 (at most 128/256), baseK a multiple of 32 bytes of
//     A's type, with A and B double-buffered in L0A/L0B and baseM*baseN*4 B in L0C; SetFixSplit
//     values are checked against the same capacities;
//   - L1: stepM = stepN = 1, stepKa = stepKb as large as the double-buffered A1/B1 (and the bias)
//     fit into L1 (SetBufferSpace or the chip's);
//   - iterateOrder 1 with SetTraverse(FIRSTN), else 0; dbL0A = dbL0B = 2, dbL0C = 1.
// GetTiling returns -1 (with a warning on stderr naming the reason) for shapes or splits the
// chip cannot run, as CANN does.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernel_tiling/kernel_tiling.h"
#include "opkit_host/diag.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, mxTypePara);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace matmul_tiling {
using half = double;  // host-side stand-in, as in CANN's host headers

enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_BFLOAT16 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E4M3FN = 35,
    DT_FLOAT8_E5M2 = 36,
    DT_MAX = 40,
};

enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

struct SysTilingTempBufSize {
    int32_t ubSize = 0;
    int32_t l1Size = 0;
    int32_t l0cSize = 0;
};

struct PlatformInfo {
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};

struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
    bool isSet = false;
};

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() = default;
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& p) {
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, plat_.l1Size);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, plat_.l0CSize);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, plat_.ubSize);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, plat_.l0ASize);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, plat_.l0BSize);
        plat_.socVersion = p.GetSocVersion();
        has_plat_ = true;
    }
    explicit MatmulApiTilingBase(const PlatformInfo& p) : plat_(p), has_plat_(true) {}
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dt, bool isTrans = false) { return SetType(a_, pos, type, dt, isTrans); }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dt, bool isTrans = false) { return SetType(b_, pos, type, dt, isTrans); }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dt) { return SetType(c_, pos, type, dt, false); }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dt) { return SetType(bias_, pos, type, dt, false); }
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        m_ = m;
        n_ = n;
        k_ = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t k) { return SetOrgShape(m, n, k, k); }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t ka, int32_t kb) {
        orgM_ = m;
        orgN_ = n;
        orgKa_ = ka;
        orgKb_ = kb;
        return 0;
    }
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { return Layout(aLayout_, b, s, n, g, d); }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { return Layout(bLayout_, b, s, n, g, d); }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) { return Layout(cLayout_, b, s, n, g, d); }
    int32_t SetBatchNum(int32_t batch) {
        batchNum_ = batch;
        return 0;
    }
    int32_t EnableBias(bool on = false) { return SetBias(on); }
    int32_t SetBias(bool on = false) {
        isBias = on;
        return 0;
    }
    int32_t SetFixSplit(int32_t bm = -1, int32_t bn = -1, int32_t bk = -1) {
        fixM_ = bm;
        fixN_ = bn;
        fixK_ = bk;
        return 0;
    }
    int32_t SetBufferSpace(int32_t l1 = -1, int32_t l0c = -1, int32_t ub = -1, int32_t bt = -1) {
        bufL1_ = l1;
        bufL0C_ = l0c;
        bufUb_ = ub;
        (void)bt;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse t) {
        traverse_ = t;
        return 0;
    }
    int32_t SetMadType(MatrixMadType t) {
        if (t != MatrixMadType::NORMAL)
            opkit::host::fail("matmul_tiling::SetMadType", "only MatrixMadType::NORMAL is simulated (HF32/MX change the arithmetic)");
        return 0;
    }
    int32_t SetSplitRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1, int32_t minM = -1, int32_t minN = -1, int32_t minK = -1) {
        maxBaseM_ = maxM;
        maxBaseN_ = maxN;
        maxBaseK_ = maxK;
        (void)minM;
        (void)minN;
        (void)minK;
        return 0;
    }
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true) {
        (void)a; (void)b; (void)c; (void)bias; (void)transND2NZ; (void)transNZ2ND;
        return 0;
    }
    virtual int64_t GetTiling(optiling::TCubeTiling& t) = 0;
    virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& t) = 0;
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }

    bool isBias = false;
    int32_t baseM = 0, baseN = 0, baseK = 0;

protected:
    static int32_t Bytes(DataType t) {
        switch (t) {
            case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
            case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_BFLOAT16: case DataType::DT_INT16:
            case DataType::DT_UINT16: return 2;
            case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_HIFLOAT8: case DataType::DT_FLOAT8_E4M3FN:
            case DataType::DT_FLOAT8_E5M2: return 1;
            default: return 0;
        }
    }
    static int32_t CeilDiv(int64_t a, int64_t b) { return static_cast<int32_t>((a + b - 1) / b); }
    static int32_t Align(int64_t a, int64_t b) { return static_cast<int32_t>((a + b - 1) / b * b); }
    int64_t Refuse(const char* why) {
        opkit::host::warn("matmul_tiling::GetTiling", "%s; returning -1", why);
        return -1;
    }

    // Fills the fields every tiling shares once the per-core shape is known. Returns -1 on failure.
    template <class Out>
    int64_t Solve(int32_t usedCores, int32_t sm, int32_t sn, int32_t sk, Out&& set) {
        if (!has_plat_) return Refuse("the tiling object has no platform (construct it from PlatformAscendC or PlatformInfo)");
        const int32_t aBytes = Bytes(a_.dataType), bBytes = Bytes(b_.dataType);
        if (aBytes == 0 || bBytes == 0) return Refuse("A or B has a dtype the cube unit does not take");
        if (sm <= 0 || sn <= 0 || sk <= 0) return Refuse("M, N and K must be positive (SetShape/SetOrgShape)");
        const uint64_t l0a = plat_.l0ASize, l0b = plat_.l0BSize;
        const uint64_t l0c = bufL0C_ > 0 ? static_cast<uint64_t>(bufL0C_) : plat_.l0CSize;
        const uint64_t l1 = bufL1_ > 0 ? static_cast<uint64_t>(bufL1_) : plat_.l1Size;
        const int32_t kAlign = 32 / aBytes;
        int32_t bm, bn, bk;
        if (fixM_ > 0 || fixN_ > 0 || fixK_ > 0) {
            bm = fixM_ > 0 ? fixM_ : std::min(Align(sm, 16), 128);
            bn = fixN_ > 0 ? fixN_ : std::min(Align(sn, 16), 256);
            bk = fixK_ > 0 ? fixK_ : std::min(Align(sk, kAlign), static_cast<int32_t>(l0a / 2 / (bm * aBytes)) / kAlign * kAlign);
            if (bm % 16 || bn % 16 || bk % kAlign)
                return Refuse("SetFixSplit: baseM and baseN must be multiples of 16, baseK of 32 bytes of A's type");
        } else {
            bm = std::min(Align(sm, 16), maxBaseM_ > 0 ? maxBaseM_ : 128);
            bn = std::min(Align(sn, 16), maxBaseN_ > 0 ? maxBaseN_ : 256);
            while (static_cast<uint64_t>(bm) * bn * 4 > l0c && bn > 16) bn -= 16;
            const int32_t kCap = static_cast<int32_t>(std::min(l0a / 2 / (static_cast<uint64_t>(bm) * aBytes),
                                                               l0b / 2 / (static_cast<uint64_t>(bn) * bBytes)));
            bk = std::min(Align(sk, kAlign), kCap / kAlign * kAlign);
            if (maxBaseK_ > 0) bk = std::min(bk, maxBaseK_ / kAlign * kAlign);
        }
        if (bk <= 0) return Refuse("no baseK fits L0A/L0B for this baseM/baseN");
        if (static_cast<uint64_t>(bm) * bk * aBytes * 2 > l0a) return Refuse("baseM * baseK of A, double-buffered, exceeds L0A");
        if (static_cast<uint64_t>(bn) * bk * bBytes * 2 > l0b) return Refuse("baseN * baseK of B, double-buffered, exceeds L0B");
        if (static_cast<uint64_t>(bm) * bn * 4 > l0c) return Refuse("baseM * baseN float32 results exceed L0C");
        const int32_t kIters = CeilDiv(sk, bk);
        const uint64_t biasBytes = isBias ? static_cast<uint64_t>(bn) * 4 : 0;
        int32_t stepK = kIters;
        auto l1Need = [&](int32_t s) {
            return static_cast<uint64_t>(2) * s * bk * (static_cast<uint64_t>(bm) * aBytes + static_cast<uint64_t>(bn) * bBytes) + biasBytes;
        };
        while (stepK > 1 && l1Need(stepK) > l1) --stepK;
        if (l1Need(stepK) > l1) return Refuse("one double-buffered base block of A and B does not fit L1");
        baseM = bm;
        baseN = bn;
        baseK = bk;
        const int32_t orgKb = orgKb_ > 0 ? orgKb_ : OrgKa();
        set("usedCoreNum", usedCores);
        set("M", OrgM());
        set("N", OrgN());
        set("Ka", OrgKa());
        set("Kb", orgKb);
        set("singleCoreM", sm);
        set("singleCoreN", sn);
        set("singleCoreK", sk);
        set("baseM", bm);
        set("baseN", bn);
        set("baseK", bk);
        set("depthA1", 2 * stepK);
        set("depthB1", 2 * stepK);
        set("stepM", 1);
        set("stepN", 1);
        set("stepKa", stepK);
        set("stepKb", stepK);
        set("isBias", isBias ? 1 : 0);
        set("iterateOrder", traverse_ == MatrixTraverse::FIRSTN ? 1 : 0);
        set("shareL1Size", static_cast<int32_t>(l1Need(stepK)));
        set("shareL0CSize", bm * bn * 4);
        set("batchM", 1);
        set("batchN", 1);
        set("singleBatchM", 1);
        set("singleBatchN", 1);
        set("dbL0A", 2);
        set("dbL0B", 2);
        set("dbL0C", 1);
        set("BatchNum", batchNum_);
        const int32_t* lay[3] = {aLayout_, bLayout_, cLayout_};
        const char* names[3][5] = {{"ALayoutInfoB", "ALayoutInfoS", "ALayoutInfoN", "ALayoutInfoG", "ALayoutInfoD"},
                                   {"BLayoutInfoB", "BLayoutInfoS", "BLayoutInfoN", "BLayoutInfoG", "BLayoutInfoD"},
                                   {"CLayoutInfoB", "CLayoutInfoS1", "CLayoutInfoN", "CLayoutInfoG", "CLayoutInfoS2"}};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 5; ++j) set(names[i][j], lay[i][j]);
        return 0;
    }
    int32_t OrgM() const { return orgM_ > 0 ? orgM_ : m_; }
    int32_t OrgN() const { return orgN_ > 0 ? orgN_ : n_; }
    int32_t OrgKa() const { return orgKa_ > 0 ? orgKa_ : k_; }

    // Writes one named field into either TCubeTiling type.
    static void Put(optiling::TCubeTiling& t, const char* f, int32_t v);
    static void Put(AscendC::tiling::TCubeTiling& t, const char* f, int32_t v);

    PlatformInfo plat_;
    bool has_plat_ = false;
    MatTilingType a_, b_, c_, bias_;
    int32_t m_ = -1, n_ = -1, k_ = -1;
    int32_t orgM_ = -1, orgN_ = -1, orgKa_ = -1, orgKb_ = -1;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1;
    int32_t maxBaseM_ = -1, maxBaseN_ = -1, maxBaseK_ = -1;
    int32_t bufL1_ = -1, bufL0C_ = -1, bufUb_ = -1;
    int32_t batchNum_ = 1;
    int32_t aLayout_[5] = {}, bLayout_[5] = {}, cLayout_[5] = {};
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;

private:
    static int32_t SetType(MatTilingType& t, TPosition pos, CubeFormat type, DataType dt, bool isTrans) {
        t.pos = pos;
        t.type = type;
        t.dataType = dt;
        t.isTrans = isTrans;
        t.isSet = true;
        return 0;
    }
    static int32_t Layout(int32_t* l, int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        l[0] = b; l[1] = s; l[2] = n; l[3] = g; l[4] = d;
        return 0;
    }
};

// The TCubeTiling fields the engine sets, for both TCubeTiling types.
#define OPKIT_TCUBE_FIELDS(X)                                                                                          \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN) X(baseK)      \
    X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(iterateOrder) X(shareL1Size) X(shareL0CSize) X(batchM)      \
    X(batchN) X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb) X(dbL0A) X(dbL0B) X(dbL0C) X(BatchNum)              \
    X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) X(ALayoutInfoG) X(ALayoutInfoD) X(BLayoutInfoB) X(BLayoutInfoS)  \
    X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD) X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG) \
    X(CLayoutInfoS2)

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() = default;
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MatmulApiTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    int64_t GetTiling(optiling::TCubeTiling& t) override { return Run(t); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& t) override { return Run(t); }

private:
    template <class T>
    int64_t Run(T& t) {
        const int32_t sm = m_ > 0 ? m_ : OrgM(), sn = n_ > 0 ? n_ : OrgN(), sk = k_ > 0 ? k_ : OrgKa();
        return Solve(1, sm, sn, sk, [&](const char* f, int32_t v) { Put(t, f, v); });
    }
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() = default;
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& p) : MatmulApiTilingBase(p) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& p) : MatmulApiTilingBase(p) {}
    int32_t SetDim(int32_t dim) {
        dim_ = dim;
        return 0;
    }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override { return MatmulApiTilingBase::SetShape(m, n, k); }
    virtual int32_t SetSingleShape(int32_t sm = -1, int32_t sn = -1, int32_t sk = -1) {
        singleM_ = sm;
        singleN_ = sn;
        singleK_ = sk;
        return 0;
    }
    int32_t SetAlignSplit(int32_t, int32_t, int32_t) { return 0; }
    int32_t GetSingleShape(int32_t& m, int32_t& n, int32_t& k) {
        m = outM_;
        n = outN_;
        k = outK_;
        return 0;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        dim = mDim_ * nDim_;
        mDim = mDim_;
        nDim = nDim_;
        return 0;
    }
    void EnableMultiCoreSplitK(bool flag) {
        if (flag) opkit::host::fail("matmul_tiling::EnableMultiCoreSplitK", "splitting K across cores is not simulated");
    }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }
    int64_t GetTiling(optiling::TCubeTiling& t) override { return Run(t); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& t) override { return Run(t); }

private:
    template <class T>
    int64_t Run(T& t) {
        const int32_t M = m_ > 0 ? m_ : OrgM(), N = n_ > 0 ? n_ : OrgN(), K = k_ > 0 ? k_ : OrgKa();
        if (M <= 0 || N <= 0 || K <= 0) return Refuse("M, N and K must be positive (SetShape/SetOrgShape)");
        if (dim_ <= 0) return Refuse("SetDim was given a core count below 1");
        int32_t sm = singleM_, sn = singleN_;
        int32_t md = 1, nd = 1;
        if (sm > 0 && sn > 0) {
            md = CeilDiv(M, sm);
            nd = CeilDiv(N, sn);
            if (md * nd > dim_) return Refuse("SetSingleShape needs more cores than SetDim allows");
        } else {
            // The split with the least work per core (16-aligned pieces), then the fewest cores.
            int64_t best = -1;
            for (int32_t a = 1; a <= dim_; ++a)
                for (int32_t b = 1; a * b <= dim_; ++b) {
                    const int32_t pm = std::min(Align(CeilDiv(M, a), 16), Align(M, 16));
                    const int32_t pn = std::min(Align(CeilDiv(N, b), 16), Align(N, 16));
                    const int32_t ua = CeilDiv(M, pm), ub = CeilDiv(N, pn);
                    const int64_t work = static_cast<int64_t>(pm) * pn;
                    if (best < 0 || work < best || (work == best && ua * ub < md * nd)) {
                        best = work;
                        sm = pm;
                        sn = pn;
                        md = ua;
                        nd = ub;
                    }
                }
        }
        const int32_t sk = singleK_ > 0 ? singleK_ : K;
        mDim_ = md;
        nDim_ = nd;
        outM_ = sm;
        outN_ = sn;
        outK_ = sk;
        return Solve(md * nd, sm, sn, sk, [&](const char* f, int32_t v) { Put(t, f, v); });
    }
    int32_t dim_ = 1;  // CANN's constructors set blockDim = 1: without SetDim the tiling is for one core
    int32_t singleM_ = -1, singleN_ = -1, singleK_ = -1;
    int32_t mDim_ = 1, nDim_ = 1, outM_ = 0, outN_ = 0, outK_ = 0;
};

inline void MatmulApiTilingBase::Put(optiling::TCubeTiling& t, const char* f, int32_t v) {
#define OPKIT_X(name)                  \
    if (std::strcmp(f, #name) == 0) {  \
        t.set_##name(v);               \
        return;                        \
    }
    OPKIT_TCUBE_FIELDS(OPKIT_X)
#undef OPKIT_X
    opkit::host::fail("matmul_tiling", "internal: unknown TCubeTiling field %s", f);
}
inline void MatmulApiTilingBase::Put(AscendC::tiling::TCubeTiling& t, const char* f, int32_t v) {
#define OPKIT_X(name)                  \
    if (std::strcmp(f, #name) == 0) {  \
        t.name = v;                    \
        return;                        \
    }
    OPKIT_TCUBE_FIELDS(OPKIT_X)
#undef OPKIT_X
    opkit::host::fail("matmul_tiling", "internal: unknown TCubeTiling field %s", f);
}

// Scratch the matmul library needs in UB/L1/L0C outside the tiling's own buffers: none in opkit.
inline int32_t MatmulGetTmpBufSize(optiling::TCubeTiling&, SysTilingTempBufSize& s) {
    s = SysTilingTempBufSize{};
    return 0;
}
inline int32_t MatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling&, SysTilingTempBufSize& s) {
    s = SysTilingTempBufSize{};
    return 0;
}
}  // namespace matmul_tiling
