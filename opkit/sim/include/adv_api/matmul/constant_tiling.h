// opkit simulator: constant (compile-time) Matmul tiling: MatmulApiStaticTiling and
// GetMatmulApiTiling<A, B, C, BIAS>(cfg, l1Size). A kernel passes the result as the Matmul's MM_CFG
// and registers the object with a nullptr tiling; Init then takes its shapes from the constants.
// The L1 split (stepM/stepN/stepKa/stepKb, depthA1/depthB1) is opkit's own: A held whole in L1 when
// it fits beside two B tiles, else both operands streamed along K, double-buffered, as many K tiles
// per load as half of L1 holds. Results never depend on it.
#pragma once
#include <cstdint>
#include "adv_api/matmul/matmul_config.h"
#include "impl/opkit/sim_config.h"

// Every field -1 (not set) until GetMatmulApiTiling fills it; cfg is the MatmulConfig the object uses.
struct MatmulApiStaticTiling {
    int32_t usedCoreNum = -1;
    int32_t M = -1;
    int32_t N = -1;
    int32_t Ka = -1;
    int32_t Kb = -1;
    int32_t singleCoreM = -1;
    int32_t singleCoreN = -1;
    int32_t singleCoreK = -1;
    int32_t baseM = -1;
    int32_t baseN = -1;
    int32_t baseK = -1;
    int32_t depthA1 = -1;
    int32_t depthB1 = -1;
    int32_t stepM = -1;
    int32_t stepN = -1;
    int32_t isBias = -1;
    int32_t transLength = -1;
    int32_t iterateOrder = -1;
    int32_t shareMode = -1;
    int32_t shareL1Size = -1;
    int32_t shareL0CSize = -1;
    int32_t shareUbSize = -1;
    int32_t stepKa = -1;
    int32_t stepKb = -1;
    int32_t depthAL1CacheUB = -1;
    int32_t depthBL1CacheUB = -1;
    int32_t dbL0A = -1;
    int32_t dbL0B = -1;
    int32_t dbL0C = -1;
    int32_t ALayoutInfoB = -1;
    int32_t ALayoutInfoS = -1;
    int32_t ALayoutInfoN = -1;
    int32_t ALayoutInfoG = -1;
    int32_t ALayoutInfoD = -1;
    int32_t BLayoutInfoB = -1;
    int32_t BLayoutInfoS = -1;
    int32_t BLayoutInfoN = -1;
    int32_t BLayoutInfoG = -1;
    int32_t BLayoutInfoD = -1;
    int32_t CLayoutInfoB = -1;
    int32_t CLayoutInfoS1 = -1;
    int32_t CLayoutInfoN = -1;
    int32_t CLayoutInfoG = -1;
    int32_t CLayoutInfoS2 = -1;
    int32_t BatchNum = -1;
    int32_t mxTypePara = -1;
    MatmulConfig cfg = CFG_NORM;
};

namespace AscendC {
namespace Impl {
constexpr int32_t L1_SIZE = OPKIT_SIM_L1_SIZE;
}  // namespace Impl

namespace opkit_mm {
constexpr int32_t ceil_div(int32_t a, int32_t b) { return b > 0 ? (a + b - 1) / b : 0; }
constexpr int32_t db_fits(int32_t tile_bytes, int32_t capacity) { return 2 * tile_bytes <= capacity ? 2 : 1; }
// The MatmulConfig of an MM_CFG template argument, which is a MatmulConfig or a MatmulApiStaticTiling.
constexpr const MatmulConfig& to_config(const MatmulConfig& c) { return c; }
constexpr const MatmulConfig& to_config(const MatmulApiStaticTiling& t) { return t.cfg; }
template <class T> struct is_static_tiling : std::false_type {};
template <> struct is_static_tiling<MatmulApiStaticTiling> : std::true_type {};
}  // namespace opkit_mm

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG, int32_t l1Size = Impl::L1_SIZE) {
    using namespace opkit_mm;
    constexpr int32_t sa = int32_t(sizeof(typename A_TYPE::T)), sb = int32_t(sizeof(typename B_TYPE::T));
    constexpr int32_t sc = int32_t(sizeof(typename C_TYPE::T)), sbias = int32_t(sizeof(typename BIAS_TYPE::T));
    MatmulApiStaticTiling t;
    t.cfg = mmCFG;
    const int32_t bm = int32_t(mmCFG.basicM), bn = int32_t(mmCFG.basicN), bk = int32_t(mmCFG.basicK);
    const int32_t tileA = bm * bk * sa, tileB = bk * bn * sb;
    if (mmCFG.singleCoreM == 0 || mmCFG.singleCoreN == 0 || mmCFG.singleCoreK == 0) {
        // Only the base block is constant; the shapes come at run time (SetOrgShape / SetSingleShape).
        if (bm != 0 && bn != 0 && bk != 0) {
            t.baseM = bm; t.baseN = bn; t.baseK = bk;
            t.dbL0A = db_fits(tileA, OPKIT_SIM_L0A_SIZE);
            t.dbL0B = db_fits(tileB, OPKIT_SIM_L0B_SIZE);
            t.isBias = mmCFG.enableSetBias;
        }
        return t;
    }
    const int32_t m = int32_t(mmCFG.singleCoreM), n = int32_t(mmCFG.singleCoreN), k = int32_t(mmCFG.singleCoreK);
    t.M = m; t.N = n; t.Ka = k; t.Kb = k;
    t.singleCoreM = m; t.singleCoreN = n; t.singleCoreK = k;
    t.baseM = bm; t.baseN = bn; t.baseK = bk;
    t.isBias = mmCFG.enableSetBias;
    const int32_t biasBytes = mmCFG.enableSetBias ? bn * sbias : 0;
    const int32_t kTiles = ceil_div(k, bk), mTiles = ceil_div(m, bm);
    if (mTiles * kTiles * tileA + 2 * tileB + biasBytes <= l1Size) {
        // A whole in L1, B streamed one K tile at a time, double-buffered.
        t.stepM = mTiles; t.stepKa = kTiles; t.depthA1 = mTiles * kTiles;
        t.stepN = 1; t.stepKb = 1; t.depthB1 = 2;
    } else {
        int32_t steps = 1;
        while (steps < kTiles && 2 * (steps + 1) * (tileA + tileB) + biasBytes <= l1Size) ++steps;
        const int32_t db = 2 * steps * (tileA + tileB) + biasBytes <= l1Size ? 2 : 1;
        t.stepM = 1; t.stepN = 1; t.stepKa = steps; t.stepKb = steps;
        t.depthA1 = steps * db; t.depthB1 = steps * db;
    }
    t.iterateOrder = mmCFG.iterateOrder == IterateOrder::ORDER_N ? 1 : 0;
    t.dbL0A = db_fits(tileA, OPKIT_SIM_L0A_SIZE);
    t.dbL0B = db_fits(tileB, OPKIT_SIM_L0B_SIZE);
    t.dbL0C = 1;
    const int32_t c1 = (C_TYPE::format == CubeFormat::ND || C_TYPE::pos == TPosition::GM) ? bm * bn * sc : 0;
    t.transLength = c1 > bn * sbias ? c1 : bn * sbias;
    t.shareMode = 0;
    t.shareL1Size = t.depthA1 * tileA + t.depthB1 * tileB + biasBytes;
    t.shareL0CSize = bm * bn * int32_t(sizeof(float));
    t.shareUbSize = 0;
    return t;
}

}  // namespace AscendC
