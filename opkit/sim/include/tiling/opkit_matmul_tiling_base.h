// opkit simulator (host side): matmul_tiling::MatmulApiTilingBase, the setters every Matmul tiling
// class shares (CANN's declarations, defaults and return codes) and opkit's base-block engine.
// Included by tiling/opkit_matmul_tiling.h; docs/simulator.md ("Host Matmul tiling") gives the rules.
//
// The engine, for one core's singleM x singleN x singleK (bits(T) = bits per element of T):
//   k0 = 256 / bits(A) (32 bytes of A: 16 fp16/bf16, 8 fp32, 32 int8, 64 int4), K steps in k0;
//   baseM, baseN multiples of 16, at most 128 and 256 (SetSplitRange lowers them), never past the
//   16-aligned single shape; SetFixSplit values are kept as given or the tiling is refused;
//   L0A: dbL0A * baseM * baseK * bits(A) / 8 <= L0A, L0B: dbL0B * baseN * baseK * bits(B) / 8 <= L0B
//     (dbL0A/dbL0B = 2 when two buffers fit, else 1);
//   L0C: dbL0C * baseM * baseN * 4 <= L0C (SetBufferSpace's l0CSize), dbL0C = 1;
//   BiasTable (910B / 310B): with a bias, baseN * 4 <= btSize;
//   L1: depthA1 * baseM * baseK * bits(A) / 8 + depthB1 * baseN * baseK * bits(B) / 8
//       + (bias from GM: baseN * bytes(bias)) <= L1 (SetBufferSpace's l1Size), where
//       depthA1 = stepM * stepKa * db, depthB1 = stepN * stepKb * db, stepM = stepN = 1,
//       stepKa = stepKb = the most K blocks (<= ceil(singleK / baseK)) that fit with db = 2, else 1 with db = 1;
//       an operand at TPosition::TSCM is the kernel's own L1 and is not counted;
//   UB: a C at VECIN/VECOUT/VECCALC needs its baseM x baseN tile in UB: baseM * baseN * bytes(C) <= UB;
//   baseN, then baseM shrink by 16 (when not fixed) until the limits hold.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "opkit_host/diag.h"
#include "tiling/opkit_matmul_tiling_types.h"

namespace matmul_tiling {

class MatmulApiTilingBase {
public:
    // Without a platform: the 910B capacities CANN's default constructor assumes.
    MatmulApiTilingBase() { Defaults(512 * 1024 - 256, 128 * 1024, 192 * 1024 - 256, 64 * 1024, 64 * 1024, 1024); }
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& p) {
        uint64_t l1 = 0, l0c = 0, ub = 0, l0a = 0, l0b = 0;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
        socVersion = p.GetSocVersion();
        Defaults(l1, l0c, ub, l0a, l0b, HasBiasTable(socVersion) ? 1024 : 0);
    }
    explicit MatmulApiTilingBase(const PlatformInfo& p) {
        socVersion = p.socVersion;
        Defaults(p.l1Size, p.l0CSize, p.ubSize, p.l0ASize, p.l0BSize, HasBiasTable(socVersion) ? 1024 : 0);
    }
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return SetType(aType_, pos, type, dataType, isTrans);
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return SetType(bType_, pos, type, dataType, isTrans);
    }
    int32_t SetScaleAType(TPosition scalePos, CubeFormat scaleType, bool isScaleTrans = false) {
        return SetScale(aType_, scalePos, scaleType, isScaleTrans);
    }
    int32_t SetScaleBType(TPosition scalePos, CubeFormat scaleType, bool isScaleTrans = true) {
        return SetScale(bType_, scalePos, scaleType, isScaleTrans);
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) { return SetType(cType_, pos, type, dataType, false); }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        return SetType(biasType_, pos, type, dataType, false);
    }
    int32_t SetDequantType(DequantType dequantType) {
        deqType = dequantType;
        return 0;
    }
    // The shape to tile (one core's for MatmulApiTiling, the whole problem for MultiCoreMatmulTiling);
    // it is also the original shape until SetOrgShape gives one.
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        singleM = m;
        singleN = n;
        singleK = k;
        if (orgM == -1 && orgN == -1 && orgKa == -1 && orgKb == -1) {
            orgM = m;
            orgN = n;
            orgKa = k;
            orgKb = k;
        }
        return 0;
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) { return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn); }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
        orgM = orgMIn;
        orgN = orgNIn;
        orgKa = orgKaIn;
        orgKb = orgKbIn;
        return 0;
    }
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        Layout5(aLayoutInfoB, aLayoutInfoS, aLayoutInfoN, aLayoutInfoG, aLayoutInfoD, b, s, n, g, d);
        return 0;
    }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        Layout5(bLayoutInfoB, bLayoutInfoS, bLayoutInfoN, bLayoutInfoG, bLayoutInfoD, b, s, n, g, d);
        return 0;
    }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        Layout5(cLayoutInfoB, cLayoutInfoS1, cLayoutInfoN, cLayoutInfoG, cLayoutInfoS2, b, s, n, g, d);
        return 0;
    }
    // The batched "normal" layout: A [batchA, m, k], B [batchB, k, n], C [max(batchA, batchB), m, n].
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
        Layout5(aLayoutInfoB, aLayoutInfoS, aLayoutInfoN, aLayoutInfoG, aLayoutInfoD, batchA, m, 1, 1, k);
        Layout5(bLayoutInfoB, bLayoutInfoS, bLayoutInfoN, bLayoutInfoG, bLayoutInfoD, batchB, n, 1, 1, k);
        Layout5(cLayoutInfoB, cLayoutInfoS1, cLayoutInfoN, cLayoutInfoG, cLayoutInfoS2, std::max(batchA, batchB), m, 1, 1, n);
        isBMNKBmm = true;
        return 0;
    }
    int32_t SetBatchNum(int32_t batch) {
        batchNum = batch;
        return 0;
    }
    int32_t EnableBias(bool isBiasIn = false) {
        isBias = isBiasIn;
        return 0;
    }
    int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
    // -1 for a 0, a baseM/baseN that is not a multiple of 16, a baseK that is not a multiple of
    // 32 bytes of A's type (call SetAType first); -1 leaves a dimension to the tiling.
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
        if (baseMIn == 0 || baseNIn == 0 || baseKIn == 0) return Reject("SetFixSplit", "a base size of 0");
        if (baseMIn != -1 && (baseMIn < 0 || baseMIn % C0_SIZE != 0))
            return Reject("SetFixSplit", "baseM %d is not a multiple of 16", baseMIn);
        if (baseNIn != -1 && (baseNIn < 0 || baseNIn % C0_SIZE != 0))
            return Reject("SetFixSplit", "baseN %d is not a multiple of 16", baseNIn);
        const int32_t k0 = KAlign();
        if (baseKIn != -1 && (baseKIn < 0 || k0 == 0 || baseKIn % k0 != 0))
            return Reject("SetFixSplit", "baseK %d is not a multiple of 32 bytes of A's type (%d elements)", baseKIn, k0);
        if (baseMIn != -1) baseM = fixM_ = adjust_.maxBaseM = adjust_.minBaseM = baseMIn;
        if (baseNIn != -1) baseN = fixN_ = adjust_.maxBaseN = adjust_.minBaseN = baseNIn;
        if (baseKIn != -1) baseK = fixK_ = adjust_.maxBaseK = adjust_.minBaseK = baseKIn;
        return 0;
    }
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true) {
        (void)a, (void)b, (void)c, (void)bias, (void)transND2NZ, (void)transNZ2ND;
        return 0;  // a reserved API in CANN
    }
    // The memory the tiling may use; -1 keeps a size; below -1, or more than the tiling may use now
    // (the chip's, or a smaller earlier SetBufferSpace: CANN compares with the current pool), is -1.
    // Sizes round down to 32 bytes.
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        const int32_t want[4] = {l1Size, l0CSize, ubSize, btSize};
        const int32_t have[4] = {bufferPool_.l1Size, bufferPool_.l0CSize, bufferPool_.ubSize, bufferPool_.btSize};
        const char* names[4] = {"L1", "L0C", "UB", "BiasTable"};
        for (int i = 0; i < 4; ++i)
            if (want[i] < -1 || want[i] > have[i])
                return Reject("SetBufferSpace", "the %s size %d is out of range (-1 .. %d)", names[i], want[i], have[i]);
        if (l1Size != -1) bufferPool_.l1Size = l1Size - l1Size % bufferPool_.l1AlignSize;
        if (l0CSize != -1) bufferPool_.l0CSize = l0CSize - l0CSize % bufferPool_.l0CAlignSize;
        if (ubSize != -1) bufferPool_.ubSize = ubSize - ubSize % bufferPool_.ubAlignSize;
        if (btSize != -1) bufferPool_.btSize = btSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    // HF32 and MX change the kernel's arithmetic, not the tiling's capacities; recorded only.
    int32_t SetMadType(MatrixMadType madType) {
        madType_ = madType;
        return 0;
    }
    // Bounds for baseM/baseN/baseK the tiling picks (rounded down to 16); a fixed split wins.
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1, int32_t minBaseM = -1,
                          int32_t minBaseN = -1, int32_t minBaseK = -1) {
        Range(fixM_, maxBaseM, minBaseM, adjust_.maxBaseM, adjust_.minBaseM);
        Range(fixN_, maxBaseN, minBaseN, adjust_.maxBaseN, adjust_.minBaseN);
        Range(fixK_, maxBaseK, minBaseK, adjust_.maxBaseK, adjust_.minBaseK);
        return 0;
    }
    void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                               MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false) {
        mmConfigType = mmConfigTypeIn;
        enableL1CacheUB = enableL1CacheUBIn;
        scheduleType = scheduleTypeIn;
        traverse_ = traverseIn;
        enVecND2NZ = enVecND2NZIn;
    }
    void SetMatmulConfigParams(const MatmulConfigParams& c) {
        SetMatmulConfigParams(c.mmConfigType, c.enableL1CacheUB, c.scheduleType, c.traverse, c.enVecND2NZ);
    }
    int32_t SetSparse(bool isSparseIn = false) {
        isSparse_ = isSparseIn;
        return 0;
    }
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }

    virtual int64_t GetTiling(optiling::TCubeTiling& tiling) = 0;
    virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) = 0;

    // CANN's public state, with CANN's names.
    optiling::TCubeTiling tiling_;
    MatTilingType aType_, bType_, cType_, biasType_;
    bool isBias = false;
    bool isSupportL0c2Out = true;
    int32_t blockDim = 1;
    int32_t orgM = -1, orgN = -1, orgKa = -1, orgKb = -1;
    int32_t aLayoutInfoB = 0, aLayoutInfoS = 0, aLayoutInfoN = 0, aLayoutInfoG = 0, aLayoutInfoD = 0;
    int32_t bLayoutInfoB = 0, bLayoutInfoS = 0, bLayoutInfoN = 0, bLayoutInfoG = 0, bLayoutInfoD = 0;
    int32_t cLayoutInfoB = 0, cLayoutInfoS1 = 0, cLayoutInfoN = 0, cLayoutInfoG = 0, cLayoutInfoS2 = 0;
    int32_t batchNum = 0;
    int32_t singleM = -1, singleN = -1, singleK = -1;
    int32_t singleCoreM = -1, singleCoreN = -1, singleCoreK = -1;
    int32_t baseM = -1, baseN = -1, baseK = -1;
    int32_t batchM = 1, batchN = 1, singleBatchM = 1, singleBatchN = 1;
    int32_t alignSingleM = 1, alignSingleN = 1, alignSingleK = 1;
    struct MnmAdjust {
        int32_t maxBaseM, maxBaseN, maxBaseK, minBaseM, minBaseN, minBaseK;
    } adjust_{0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, C0_SIZE, C0_SIZE, C0_SIZE};
    BufferPool oriBufferPool_{}, bufferPool_{};
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
    MatrixMadType madType_ = MatrixMadType::NORMAL;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool transND2NZ_ = false, transNZ2ND_ = false, isSparse_ = false;
    int32_t maxSingleM = 0, maxSingleN = 0, maxSingleK = 0, minSingleM = 0, minSingleN = 0, minSingleK = 0;
    DequantType deqType = DequantType::SCALAR;
    bool enableSplitK_ = false;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    int32_t mmConfigType = 1;  // 0: Norm, 1: MDL
    bool enableL1CacheUB = false, enVecND2NZ = false, isBMNKBmm = false;

protected:
    virtual int64_t Compute() = 0;

    // Logs why and returns -1, as CANN's tiling does (on stderr, named).
    template <class... Args>
    static int64_t Refuse(const char* f, Args... args) {
        opkit::host::warn("matmul_tiling::GetTiling", "%s; returning -1", opkit::host::format(f, args...).c_str());
        return -1;
    }
    template <class... Args>
    static int32_t Reject(const char* api, const char* f, Args... args) {
        const std::string fn = std::string("matmul_tiling::") + api;
        opkit::host::warn(fn.c_str(), "%s; returning -1", opkit::host::format(f, args...).c_str());
        return -1;
    }
    static int32_t Bits(DataType t) {
        auto it = DTYPE_BIT_TAB.find(t);
        return it == DTYPE_BIT_TAB.end() ? 0 : static_cast<int32_t>(it->second);
    }
    static int32_t Bytes(DataType t) {
        auto it = DTYPE_BYTE_TAB.find(t);
        return it == DTYPE_BYTE_TAB.end() ? 0 : static_cast<int32_t>(it->second);
    }
    static int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
    static int64_t Align(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }
    // Elements of A in 32 bytes: the step of K.
    int32_t KAlign() const {
        const int32_t bits = Bits(aType_.dataType);
        return bits > 0 ? C0_BYTE_SIZE * BITS_PER_BYTE / bits : 0;
    }
    static bool IsUb(TPosition p) { return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC; }

    // Shape and type checks every Compute makes first; -1 with the reason.
    int64_t CheckInputs() const {
        const DataType cubeTypes[] = {DataType::DT_FLOAT, DataType::DT_FLOAT16, DataType::DT_BF16, DataType::DT_BFLOAT16,
                                      DataType::DT_INT8, DataType::DT_INT4};
        const bool fp8 = socVersion == platform_ascendc::SocVersion::ASCEND950;
        for (const MatTilingType* t : {&aType_, &bType_}) {
            bool ok = std::find(std::begin(cubeTypes), std::end(cubeTypes), t->dataType) != std::end(cubeTypes);
            ok = ok || (fp8 && (t->dataType == DataType::DT_HIFLOAT8 || t->dataType == DataType::DT_FLOAT8_E4M3FN ||
                                t->dataType == DataType::DT_FLOAT8_E5M2));
            if (!ok)
                return Refuse("%s has DataType %d, which the cube unit of this SoC does not take", t == &aType_ ? "A" : "B",
                              static_cast<int>(t->dataType));
        }
        if (Bytes(cType_.dataType) == 0) return Refuse("C has DataType %d, not a Matmul output type", static_cast<int>(cType_.dataType));
        if (isBias && Bytes(biasType_.dataType) == 0)
            return Refuse("the bias has DataType %d, not a Matmul bias type", static_cast<int>(biasType_.dataType));
        if (isSparse_) return Refuse("sparse B (SetSparse(true)) is not modelled by opkit's tiling");
        if (aType_.hasSetScaleType || bType_.hasSetScaleType || madType_ == MatrixMadType::MXMODE)
            return Refuse("MX scale matrices (SetScaleAType/SetScaleBType, MatrixMadType::MXMODE) are not modelled by opkit's tiling");
        if (singleM == 0 || singleN == 0 || singleK == 0) return Refuse("singleM/N/K can not be zero");
        if (OrgM() <= 0 || OrgN() <= 0 || OrgKa() <= 0 || OrgKb() <= 0)
            return Refuse("M, N and K must be positive (SetShape / SetOrgShape): M %d, N %d, Ka %d, Kb %d", OrgM(), OrgN(), OrgKa(), OrgKb());
        return 0;
    }
    int32_t OrgM() const { return orgM > 0 ? orgM : singleM; }
    int32_t OrgN() const { return orgN > 0 ? orgN : singleN; }
    int32_t OrgKa() const { return orgKa > 0 ? orgKa : singleK; }
    int32_t OrgKb() const { return orgKb > 0 ? orgKb : OrgKa(); }
    int32_t ShapeM() const { return singleM > 0 ? singleM : OrgM(); }
    int32_t ShapeN() const { return singleN > 0 ? singleN : OrgN(); }
    int32_t ShapeK() const { return singleK > 0 ? singleK : OrgKa(); }

    // The base block and L1 split for one core's sm x sn x sk; fills tiling_. 0, or -1 with the reason.
    int64_t SolveBlock(int32_t usedCores, int32_t sm, int32_t sn, int32_t sk) {
        const int64_t aBits = Bits(aType_.dataType), bBits = Bits(bType_.dataType);
        const int64_t l0a = bufferPool_.l0ASize, l0b = bufferPool_.l0BSize, l0c = bufferPool_.l0CSize;
        const int64_t l1 = bufferPool_.l1Size, ub = bufferPool_.ubSize, bt = bufferPool_.btSize;
        const int32_t k0 = KAlign();
        const bool btLimit = isBias && bt > 0 && HasBiasTable(socVersion);
        const int32_t capM = static_cast<int32_t>(std::min<int64_t>(Align(sm, C0_SIZE), 128));
        const int32_t capN = static_cast<int32_t>(std::min<int64_t>(Align(sn, C0_SIZE), btLimit ? std::min<int64_t>(256, bt / 4 / 16 * 16) : 256));
        int32_t bm = fixM_ > 0 ? fixM_ : Clamp(capM, adjust_.minBaseM, adjust_.maxBaseM);
        int32_t bn = fixN_ > 0 ? fixN_ : Clamp(capN, adjust_.minBaseN, adjust_.maxBaseN);
        if (btLimit && static_cast<int64_t>(bn) * 4 > bt)
            return Refuse("baseN %d: %d float32 bias values exceed the BiasTable (%lld B)", bn, bn, static_cast<long long>(bt));
        // L0C holds the float32 results; a C at a UB position also needs its tile in UB.
        const int64_t ubC = IsUb(cType_.pos) ? Bytes(cType_.dataType) : 0;
        while (static_cast<int64_t>(bm) * bn * 4 > l0c || static_cast<int64_t>(bm) * bn * ubC > ub) {
            if (fixN_ <= 0 && bn > C0_SIZE) bn -= C0_SIZE;
            else if (fixM_ <= 0 && bm > C0_SIZE) bm -= C0_SIZE;
            else if (static_cast<int64_t>(bm) * bn * 4 > l0c)
                return Refuse("baseM * baseN float32 results (%d x %d) exceed L0C (%lld B)", bm, bn, static_cast<long long>(l0c));
            else break;  // the UB refusal below names it
        }
        // baseK: the most K (in k0 steps, at most the aligned singleK) that A and B, double-buffered, leave room for.
        auto kFits = [&](int32_t m, int32_t n, int db) {
            return std::min(l0a * 8 / (db * m * aBits), l0b * 8 / (db * n * bBits)) / k0 * k0;
        };
        int32_t bk = fixK_;
        if (bk <= 0) {
            const int64_t kMax = std::min<int64_t>(Align(sk, k0), adjust_.maxBaseK >= k0 ? adjust_.maxBaseK / k0 * k0 : k0);
            while (kFits(bm, bn, 2) < k0 && kFits(bm, bn, 1) < k0) {
                if (fixN_ <= 0 && bn > C0_SIZE) bn -= C0_SIZE;
                else if (fixM_ <= 0 && bm > C0_SIZE) bm -= C0_SIZE;
                else break;
            }
            const int64_t fit = kFits(bm, bn, 2) >= k0 ? kFits(bm, bn, 2) : kFits(bm, bn, 1);
            bk = static_cast<int32_t>(std::min(kMax, fit));
            if (bk < k0) return Refuse("no baseK fits L0A/L0B for baseM %d, baseN %d", bm, bn);
        }
        const int64_t aTile = static_cast<int64_t>(bm) * bk * aBits / 8, bTile = static_cast<int64_t>(bn) * bk * bBits / 8;
        if (aTile > l0a) return Refuse("baseM * baseK of A (%d x %d, %lld B) exceeds L0A (%lld B)", bm, bk, static_cast<long long>(aTile), static_cast<long long>(l0a));
        if (bTile > l0b) return Refuse("baseN * baseK of B (%d x %d, %lld B) exceeds L0B (%lld B)", bn, bk, static_cast<long long>(bTile), static_cast<long long>(l0b));
        if (IsUb(cType_.pos) && static_cast<int64_t>(bm) * bn * Bytes(cType_.dataType) > ub)
            return Refuse("the baseM x baseN tile of C at a UB position (%d x %d, %lld B) exceeds the UB (%lld B)", bm, bn,
                          static_cast<long long>(static_cast<int64_t>(bm) * bn * Bytes(cType_.dataType)), static_cast<long long>(ub));
        const int32_t dbA = 2 * aTile <= l0a ? 2 : 1, dbB = 2 * bTile <= l0b ? 2 : 1;
        // L1: stepKa = stepKb = s K blocks of A and B, held twice (db 2) when that fits.
        const int64_t a1 = aType_.pos == TPosition::TSCM ? 0 : aTile, b1 = bType_.pos == TPosition::TSCM ? 0 : bTile;
        const int64_t biasL1 = isBias && biasType_.pos == TPosition::GM ? static_cast<int64_t>(bn) * Bytes(biasType_.dataType) : 0;
        const int32_t kIters = static_cast<int32_t>(CeilDiv(sk, bk));
        int32_t step = kIters, db = 2;
        auto l1Need = [&](int32_t s, int d) { return d * s * (a1 + b1) + biasL1; };
        while (step > 1 && l1Need(step, 2) > l1) --step;
        if (l1Need(step, 2) > l1) db = 1;
        if (l1Need(step, db) > l1)
            return Refuse("one base block of A and B (%lld B) and the bias (%lld B) exceed L1 (%lld B)",
                          static_cast<long long>(a1 + b1), static_cast<long long>(biasL1), static_cast<long long>(l1));
        baseM = bm;
        baseN = bn;
        baseK = bk;
        singleCoreM = sm;
        singleCoreN = sn;
        singleCoreK = sk;
        optiling::TCubeTiling& t = tiling_;
        t.set_usedCoreNum(usedCores);
        t.set_M(OrgM());
        t.set_N(OrgN());
        t.set_Ka(OrgKa());
        t.set_Kb(OrgKb());
        t.set_singleCoreM(sm);
        t.set_singleCoreN(sn);
        t.set_singleCoreK(sk);
        t.set_baseM(bm);
        t.set_baseN(bn);
        t.set_baseK(bk);
        t.set_depthA1(step * db);
        t.set_depthB1(step * db);
        t.set_stepM(1);
        t.set_stepN(1);
        t.set_stepKa(step);
        t.set_stepKb(step);
        t.set_isBias(isBias ? 1 : 0);
        t.set_transLength(0);
        t.set_iterateOrder(traverse_ == MatrixTraverse::FIRSTN ? 1 : 0);
        t.set_shareMode(0);
        t.set_shareL1Size(static_cast<int32_t>(l1Need(step, db)));
        t.set_shareL0CSize(bm * bn * 4);
        t.set_shareUbSize(0);
        t.set_batchM(batchM);
        t.set_batchN(batchN);
        t.set_singleBatchM(singleBatchM);
        t.set_singleBatchN(singleBatchN);
        t.set_depthAL1CacheUB(0);
        t.set_depthBL1CacheUB(0);
        t.set_dbL0A(dbA);
        t.set_dbL0B(dbB);
        t.set_dbL0C(1);
        t.set_ALayoutInfoB(aLayoutInfoB);
        t.set_ALayoutInfoS(aLayoutInfoS);
        t.set_ALayoutInfoN(aLayoutInfoN);
        t.set_ALayoutInfoG(aLayoutInfoG);
        t.set_ALayoutInfoD(aLayoutInfoD);
        t.set_BLayoutInfoB(bLayoutInfoB);
        t.set_BLayoutInfoS(bLayoutInfoS);
        t.set_BLayoutInfoN(bLayoutInfoN);
        t.set_BLayoutInfoG(bLayoutInfoG);
        t.set_BLayoutInfoD(bLayoutInfoD);
        t.set_CLayoutInfoB(cLayoutInfoB);
        t.set_CLayoutInfoS1(cLayoutInfoS1);
        t.set_CLayoutInfoN(cLayoutInfoN);
        t.set_CLayoutInfoG(cLayoutInfoG);
        t.set_CLayoutInfoS2(cLayoutInfoS2);
        t.set_BatchNum(batchNum);
        t.set_mxTypePara(0);
        return 0;
    }

    // Computes, then copies tiling_ into the caller's TilingData class or kernel struct.
    int64_t Finish(optiling::TCubeTiling& out) {
        const int64_t rc = Compute();
        if (rc == -1) return -1;
#define OPKIT_X(f) out.set_##f(tiling_.get_##f());
        OPKIT_TCUBE_ALL_FIELDS(OPKIT_X)
#undef OPKIT_X
        return rc;
    }
    int64_t Finish(AscendC::tiling::TCubeTiling& out) {
        const int64_t rc = Compute();
        if (rc == -1) return -1;
#define OPKIT_X(f) out.f = tiling_.get_##f();
        OPKIT_TCUBE_ALL_FIELDS(OPKIT_X)
#undef OPKIT_X
        return rc;
    }

    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1;

private:
    static bool HasBiasTable(platform_ascendc::SocVersion v) {
        return v == platform_ascendc::SocVersion::ASCEND910B || v == platform_ascendc::SocVersion::ASCEND910_93 ||
               v == platform_ascendc::SocVersion::ASCEND310B;
    }
    void Defaults(uint64_t l1, uint64_t l0c, uint64_t ub, uint64_t l0a, uint64_t l0b, int32_t bt) {
        aType_.isDB = bType_.isDB = cType_.isDB = biasType_.isDB = true;
        oriBufferPool_ = BufferPool{static_cast<int32_t>(l1), static_cast<int32_t>(l0c), static_cast<int32_t>(ub),
                                    static_cast<int32_t>(l0a), static_cast<int32_t>(l0b), bt, 32, 32, 32, 32, 32};
        bufferPool_ = oriBufferPool_;
    }
    static int32_t Clamp(int32_t v, int32_t lo, int32_t hi) { return std::max(std::min(v, hi), std::min(lo, v)); }
    static void Range(int32_t fixed, int32_t mx, int32_t mn, int32_t& outMax, int32_t& outMin) {
        if (fixed != -1) return;
        if (mx != -1) outMax = mx - mx % C0_SIZE;
        if (mn != -1) outMin = mn - mn % C0_SIZE;
    }
    static int32_t SetType(MatTilingType& t, TPosition pos, CubeFormat type, DataType dt, bool isTrans) {
        t.pos = pos;
        t.type = type;
        t.dataType = dt;
        t.isTrans = isTrans;
        return 0;
    }
    static int32_t SetScale(MatTilingType& t, TPosition pos, CubeFormat type, bool isTrans) {
        t.hasSetScaleType = true;
        t.scalePos = pos;
        t.scaleType = type;
        t.isScaleTrans = isTrans;
        return 0;
    }
    static void Layout5(int32_t& b0, int32_t& s0, int32_t& n0, int32_t& g0, int32_t& d0, int32_t b, int32_t s, int32_t n,
                        int32_t g, int32_t d) {
        b0 = b;
        s0 = s;
        n0 = n;
        g0 = g;
        d0 = d;
    }
};
}  // namespace matmul_tiling
