"""The Matmul API's template surface: MatmulConfig (CANN's fields, order and defaults), its helpers and
constants, GetMMConfig, MatmulType's members, MatmulApiStaticTiling / GetMatmulApiTiling, and
REGIST_MATMUL_OBJ with several objects and with a nullptr (constant) tiling."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from sim_util import CPP, build, compile_snippet

rng = np.random.default_rng(12)

HEAD = """
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
"""

# Compile-time facts, each a static_assert: the documented defaults of every template.
CONFIG_FACTS = HEAD + r"""
// a value-initialised config: zero except CANN's member defaults
constexpr MatmulConfig Z{};
static_assert(!Z.doNorm && Z.enUnitFlag && Z.enableInit && Z.enableEnd && Z.enableGetTensorC && Z.enableSetOrgShape
              && Z.enableSetBias && Z.enableSetTail && Z.enableQuantVector && Z.enableSetDefineData && Z.enableReuse
              && Z.isBiasBatch && !Z.enableUBReuse && Z.iterateMode == ITERATE_MODE_DEFAULT
              && Z.iterateOrder == IterateOrder::UNDEF && Z.scheduleType == ScheduleType::INNER_PRODUCT
              && Z.batchMode == BatchMode::NONE && Z.sharedCO1BufferSize == 64 * 1024
              && Z.bmmOutMode == BatchOutMode::SINGLE_BATCH && Z.decompMode == DecompressionMode::DECOMP_NONE, "zero config");
// CFG_NORM
static_assert(CFG_NORM.doNorm && !CFG_NORM.doMultiDataLoad && !CFG_NORM.doBasicBlock && CFG_NORM.enUnitFlag
              && CFG_NORM.batchMode == BatchMode::BATCH_LESS_THAN_L1 && CFG_NORM.enableUBReuse && !CFG_NORM.intrinsicsCheck
              && CFG_NORM.enableReuse && !CFG_NORM.enableMixDualMaster, "CFG_NORM");
// CFG_MDL: multi-data-load, unit flag off, batch mode NONE
static_assert(!CFG_MDL.doNorm && CFG_MDL.doMultiDataLoad && !CFG_MDL.enUnitFlag && CFG_MDL.batchMode == BatchMode::NONE
              && CFG_MDL.enableUBReuse && CFG_MDL.doMTE2Preload == 0, "CFG_MDL");
static_assert(CFG_IBSHARE_NORM.doIBShareNorm && !CFG_IBSHARE_NORM.doNorm && CFG_IBSHARE_NORM.enUnitFlag
              && !CFG_IBSHARE_NORM.enableDoubleCache, "CFG_IBSHARE_NORM");
static_assert(MM_CFG_BB.doBasicBlock && MM_CFG_BB.basicM == 128 && MM_CFG_BB.basicN == 128 && MM_CFG_BB.basicK == 128
              && !MM_CFG_BB.enUnitFlag, "MM_CFG_BB");
// the kernels' own *_EXCEED constants, as flash_attention_score_common.h builds them
constexpr MatmulConfig CFG_EXCEED = GetNormalConfig(true);
constexpr MatmulConfig CFG_DIS_UNIT_FLAG_EXCEED = GetNormalConfig(true, false, false, BatchMode::BATCH_LESS_THAN_L1, true,
                                                                  IterateOrder::UNDEF, ScheduleType::INNER_PRODUCT, false);
constexpr MatmulConfig CFG_IBSHARE_EXCEED = GetIBShareNormConfig(true);
constexpr MatmulConfig CFG_MDL_EXCEED = GetMDLConfig(true);
static_assert(CFG_EXCEED.intrinsicsCheck && CFG_EXCEED.doNorm && CFG_EXCEED.enUnitFlag, "CFG_EXCEED");
static_assert(CFG_DIS_UNIT_FLAG_EXCEED.intrinsicsCheck && !CFG_DIS_UNIT_FLAG_EXCEED.enUnitFlag, "CFG_DIS_UNIT_FLAG_EXCEED");
static_assert(CFG_IBSHARE_EXCEED.intrinsicsCheck && CFG_IBSHARE_EXCEED.doIBShareNorm, "CFG_IBSHARE_EXCEED");
static_assert(CFG_MDL_EXCEED.intrinsicsCheck && CFG_MDL_EXCEED.doMultiDataLoad, "CFG_MDL_EXCEED");
// every argument lands in its field
constexpr MatmulConfig N2 = GetNormalConfig(false, true, true, BatchMode::BATCH_LARGE_THAN_L1, false, IterateOrder::ORDER_N,
                                            ScheduleType::OUTER_PRODUCT, false, true, BatchOutMode::MULTI_BATCH);
static_assert(N2.isNBatch && N2.enVecND2NZ && N2.batchMode == BatchMode::BATCH_LARGE_THAN_L1 && !N2.enableReuse
              && N2.iterateOrder == IterateOrder::ORDER_N && N2.scheduleType == ScheduleType::OUTER_PRODUCT
              && !N2.enUnitFlag && N2.enableMixDualMaster && N2.bmmOutMode == BatchOutMode::MULTI_BATCH, "GetNormalConfig");
constexpr MatmulConfig D2 = GetMDLConfig(false, false, 2, true, true, true, true, false, false, true, true, true, true);
static_assert(D2.doMTE2Preload == 2 && D2.enVecND2NZ && D2.isPerTensor && D2.hasAntiQuantOffset && D2.enUnitFlag
              && !D2.enableReuse && !D2.enableUBReuse && D2.enableL1CacheUB && D2.enableMixDualMaster
              && D2.enableKdimReorderLoad && D2.enableL1BankConflictOptimise, "GetMDLConfig");
constexpr MatmulConfig S2 = GetSpecialMDLConfig(true, false, 1);
static_assert(S2.doSpecialMDL && !S2.doMultiDataLoad && S2.doMTE2Preload == 1 && !S2.enUnitFlag, "GetSpecialMDLConfig");
constexpr MatmulConfig B2 = GetBasicConfig(64, 32, 16, false, true, BatchMode::SINGLE_LARGE_THAN_L1);
static_assert(B2.doBasicBlock && B2.basicM == 64 && B2.basicN == 32 && B2.basicK == 16 && B2.isNBatch
              && B2.batchMode == BatchMode::SINGLE_LARGE_THAN_L1, "GetBasicConfig");
constexpr MatmulConfig I2 = GetIBShareNormConfig(false, false, false, BatchMode::NONE, true, false);
static_assert(I2.enableDoubleCache && !I2.enUnitFlag && I2.batchMode == BatchMode::NONE, "GetIBShareNormConfig");
// GetMMConfig: a template's defaults changed by the parameter structs, in any order
constexpr MatmulConfig G = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(
    MatmulBatchParams{true, BatchMode::BATCH_LESS_THAN_L1, false}, MatmulShapeParams{128, 256, 64, 64, 128, 32},
    MatmulQuantParams{true, false}, MatmulBiasParams{false},
    MatmulFuncParams{true, false, false, false, 1, IterateOrder::ORDER_M, ScheduleType::OUTER_PRODUCT});
static_assert(G.doMultiDataLoad && G.singleCoreM == 128 && G.singleCoreN == 256 && G.singleCoreK == 64 && G.basicM == 64
              && G.basicN == 128 && G.basicK == 32 && G.isNBatch && !G.isBiasBatch && G.isPerTensor && !G.enableSetBias
              && G.intrinsicsCheck && G.doMTE2Preload == 1 && G.iterateOrder == IterateOrder::ORDER_M
              && G.scheduleType == ScheduleType::OUTER_PRODUCT && G.enableReuse && !G.enableUBReuse, "GetMMConfig");
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_SPECIALMDL>().doSpecialMDL, "GetMMConfig SPECIALMDL");
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_IBSHARE>().doIBShareNorm, "GetMMConfig IBSHARE");
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_NORM>().doNorm, "GetMMConfig NORM");
// positional aggregate initialisation in CANN's field order (as grouped_matmul_utils.h writes it)
constexpr MatmulConfig P{false, false, true, 0, 0, 0, false, false, false, false, 0, 0, 0, 0, 0, 0, 0, 0, true, false, false,
                         false, false, true, BatchMode::NONE, true, true, true, true, true, true, true,
                         IterateMode::ITERATE_MODE_DEFAULT, true, false, false, false, IterateOrder::ORDER_N,
                         ScheduleType::OUTER_PRODUCT, false, true, false, false, false, false, false, true};
static_assert(P.doMultiDataLoad && P.enUnitFlag && P.iterateOrder == IterateOrder::ORDER_N
              && P.scheduleType == ScheduleType::OUTER_PRODUCT && P.enableKdimReorderLoad && !P.isCO1Shared, "positional");
// designated initialisation (g++ accepts it in C++17 as the NPU compiler does)
constexpr MatmulConfig DI{.doMultiDataLoad = true, .enUnitFlag = true, .enableKdimReorderLoad = true};
static_assert(DI.doMultiDataLoad && DI.enUnitFlag && DI.enableKdimReorderLoad && !DI.doNorm && DI.enableInit, "designated");
// IterateMode flags
static_assert(ITERATE_MODE_NORMAL == 1 && ITERATE_MODE_ALL == 2 && ITERATE_MODE_BATCH == 4 && ITERATE_MODE_N_BATCH == 8
              && ITERATE_MODE_DEFAULT == 0xff, "IterateMode");
// MatmulType members
using AT = MatmulType<TPosition::GM, CubeFormat::NZ, half, true, LayoutMode::BSNGD, true, TPosition::VECOUT>;
static_assert(AT::pos == TPosition::GM && AT::format == CubeFormat::NZ && std::is_same<AT::T, half>::value && AT::isTrans
              && AT::layout == LayoutMode::BSNGD && AT::ibShare && AT::srcPos == TPosition::VECOUT, "MatmulType");
using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
static_assert(!A::isTrans && A::layout == LayoutMode::NONE && !A::ibShare && A::srcPos == TPosition::GM, "MatmulType defaults");
using MM = matmul::Matmul<A, A, C, C, CFG_MDL>;
static_assert(std::is_same<MM::AType, A>::value && std::is_same<MM::BType, A>::value && std::is_same<MM::CType, C>::value
              && std::is_same<MM::BiasType, C>::value && MM::config.doMultiDataLoad, "Matmul aliases");
// constant tiling: every field -1 until set; only the base block with a basic config
constexpr MatmulApiStaticTiling U{};
static_assert(U.M == -1 && U.baseM == -1 && U.depthA1 == -1 && U.mxTypePara == -1 && U.cfg.doNorm, "static tiling defaults");
constexpr MatmulApiStaticTiling BB = matmul::GetMatmulApiTiling<A, A, C, C>(GetBasicConfig(128, 128, 64));
static_assert(BB.baseM == 128 && BB.baseN == 128 && BB.baseK == 64 && BB.M == -1 && BB.singleCoreK == -1
              && BB.dbL0A == 2 && BB.dbL0B == 2 && BB.isBias == 1 && BB.cfg.doBasicBlock, "basic-only tiling");
// full constant tiling: shapes, double buffers, L1 use within the budget
constexpr MatmulConfig SH = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(MatmulShapeParams{256, 512, 4096, 128, 256, 64});
constexpr MatmulApiStaticTiling T = matmul::GetMatmulApiTiling<A, A, C, C>(SH);
static_assert(T.M == 256 && T.N == 512 && T.Ka == 4096 && T.Kb == 4096 && T.singleCoreM == 256 && T.baseM == 128
              && T.baseN == 256 && T.baseK == 64 && T.dbL0C == 1 && T.iterateOrder == 0 && T.shareMode == 0
              && T.shareL0CSize == 128 * 256 * 4 && T.shareUbSize == 0, "constant tiling shapes");
static_assert(T.dbL0A == 2 && T.dbL0B == 2, "L0A and L0B (64 KiB) hold two 128 x 64 / 64 x 256 fp16 tiles");
static_assert(matmul::GetMatmulApiTiling<A, A, C, C>(GetBasicConfig(128, 256, 128)).dbL0B == 1, "one 128 x 256 tile");
static_assert(T.shareL1Size <= 512 * 1024 && T.stepKa >= 1 && T.depthA1 >= T.stepKa && T.depthB1 >= T.stepKb,
              "constant tiling fits L1");
static_assert(matmul::GetMatmulApiTiling<A, A, C, C>(SH, 128 * 1024).shareL1Size <= 128 * 1024, "smaller L1 budget");
// A small problem keeps A whole in L1
constexpr MatmulApiStaticTiling W = matmul::GetMatmulApiTiling<A, A, C, C>(
    GetMMConfig<MatmulConfigMode::CONFIG_NORM>(MatmulShapeParams{64, 64, 128, 32, 32, 32}));
static_assert(W.stepM == 2 && W.stepKa == 4 && W.depthA1 == 8 && W.stepN == 1 && W.depthB1 == 2, "A whole in L1");
int main() { return 0; }
"""


def test_config_helpers_constants_and_static_tiling_match_the_documented_values(tmp_path):
    r = compile_snippet(CONFIG_FACTS, tmp_path)
    assert r.returncode == 0, r.stderr[-4000:]


def test_get_mm_config_refuses_an_unknown_argument(tmp_path):
    r = compile_snippet(HEAD + "constexpr MatmulConfig X = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(3);\n", tmp_path)
    assert r.returncode != 0 and "GetMMConfig: each argument must be a MatmulShapeParams" in r.stderr


def test_mm_cfg_must_be_a_config_or_a_static_tiling(tmp_path):
    src = HEAD + """
using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using C = MatmulType<TPosition::GM, CubeFormat::ND, float>;
constexpr int NOT_A_CONFIG = 3;
Matmul<A, A, C, C, NOT_A_CONFIG> mm;
"""
    r = compile_snippet(src, tmp_path)
    assert r.returncode != 0 and "MM_CFG must be a MatmulConfig" in r.stderr


@pytest.fixture(scope="module")
def exe():
    return build(CPP / "matmul_surface_harness.cpp")


def run(exe, tmp_path, mode, m, n, k):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.uniform(-1, 1, n).astype(np.float32)
    d = tmp_path / mode
    d.mkdir()
    for name, arr in [("a", a), ("b", b), ("bias", bias)]:
        (d / f"{name}.bin").write_bytes(arr.tobytes())
    r = subprocess.run([str(exe), str(d), mode, str(m), str(n), str(k)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = np.frombuffer((d / "c.bin").read_bytes(), np.float32).reshape(m, n)
    c2 = np.frombuffer((d / "c2.bin").read_bytes(), np.float32).reshape(m, n)
    return a.astype(np.float64), b.astype(np.float64), bias.astype(np.float64), c, c2


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_mdl_exceed_config_with_bias(exe, tmp_path):
    a, b, bias, c, _ = run(exe, tmp_path, "mdl", 37, 45, 70)
    close(c, a @ b + bias)


def test_two_objects_registered_together_each_with_its_tiling(exe, tmp_path):
    m, n, k = 33, 40, 24
    a, b, _, c, c2 = run(exe, tmp_path, "two", m, n, k)
    close(c, a @ b)
    # mm2 reads the same bytes as B^T stored [N, K]
    close(c2, a @ b.reshape(n, k).T)


def test_static_tiling_with_nullptr_registration_takes_the_constant_shapes(exe, tmp_path):
    a, b, bias, c, _ = run(exe, tmp_path, "static", 32, 48, 64)
    close(c, a @ b + bias)


def test_basic_block_static_tiling_with_runtime_shapes_tile_by_tile(exe, tmp_path):
    a, b, _, c, _ = run(exe, tmp_path, "basic", 37, 45, 70)
    close(c, a @ b)


def test_get_mm_config_as_mm_cfg_sequential_tiles(exe, tmp_path):
    m, n, k = 32, 64, 16
    a, b, _, c, _ = run(exe, tmp_path, "mmcfg", m, n, k)
    full = a @ b
    # 16 x 32 tiles of the runtime tiling, M first, written one after another
    tiles = [full[i * 16:(i + 1) * 16, j * 32:(j + 1) * 32] for j in range(2) for i in range(2)]
    close(c.reshape(-1), np.concatenate([t.ravel() for t in tiles]))
