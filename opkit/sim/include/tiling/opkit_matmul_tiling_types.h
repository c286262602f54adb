// opkit simulator (host side): the types of the Matmul tiling API (namespace matmul_tiling) and the
// host TilingData class optiling::TCubeTiling, with CANN's names, values and field order
// (adv_api/matmul/matmul_tiling_base.h, matmul_tilingdata.h). Included by tiling/opkit_matmul_tiling.h.
#pragma once
#include <cstdint>
#include <map>

#include "kernel_tiling/kernel_tiling.h"
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

// Every TCubeTiling field, in order, for copying between the host class and the kernel struct.
#define OPKIT_TCUBE_ALL_FIELDS(X)                                                                                      \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN) X(baseK)      \
    X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength) X(iterateOrder) X(shareMode) X(shareL1Size)    \
    X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN) X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb)         \
    X(depthAL1CacheUB) X(depthBL1CacheUB) X(dbL0A) X(dbL0B) X(dbL0C) X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) \
    X(ALayoutInfoG) X(ALayoutInfoD) X(BLayoutInfoB) X(BLayoutInfoS) X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD) \
    X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG) X(CLayoutInfoS2) X(BatchNum) X(mxTypePara)

namespace matmul_tiling {
using half = double;  // host-side stand-in, as in CANN's host headers

constexpr int32_t UINT8_BYTES = 1;
constexpr int32_t INT8_BYTES = 1;
constexpr int32_t FP32_BYTES = 4;
constexpr int32_t FP16_BYTES = 2;
constexpr int32_t C0_SIZE = 16;
constexpr int32_t C0_BYTE_SIZE = 32;
constexpr int32_t BITS_PER_BYTE = 8;

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
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_BFLOAT16 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E4M3FN = 35,
    DT_FLOAT8_E5M2 = 36,
    DT_FLOAT4_E2M1 = 37,
    DT_FLOAT8_E8M0 = 38,
    DT_FLOAT4_E1M2 = 39,
    DT_MAX = 40,
};

// Bytes and bits per element of the types a Matmul operand may have (CANN's tables).
const std::map<DataType, uint32_t> DTYPE_BYTE_TAB = {
    {DataType::DT_FLOAT, 4},    {DataType::DT_FLOAT16, 2},       {DataType::DT_INT8, 1},
    {DataType::DT_INT16, 2},    {DataType::DT_UINT16, 2},        {DataType::DT_UINT8, 1},
    {DataType::DT_INT32, 4},    {DataType::DT_INT64, 8},         {DataType::DT_UINT32, 4},
    {DataType::DT_UINT64, 8},   {DataType::DT_BF16, 2},          {DataType::DT_BFLOAT16, 2},
    {DataType::DT_INT4, 1},     {DataType::DT_FLOAT4_E2M1, 1},   {DataType::DT_FLOAT4_E1M2, 1},
    {DataType::DT_HIFLOAT8, 1}, {DataType::DT_FLOAT8_E4M3FN, 1}, {DataType::DT_FLOAT8_E5M2, 1},
    {DataType::DT_FLOAT8_E8M0, 1}};
const std::map<DataType, uint32_t> DTYPE_BIT_TAB = {
    {DataType::DT_FLOAT, 32},   {DataType::DT_FLOAT16, 16},      {DataType::DT_INT8, 8},
    {DataType::DT_INT16, 16},   {DataType::DT_UINT16, 16},       {DataType::DT_UINT8, 8},
    {DataType::DT_INT32, 32},   {DataType::DT_INT64, 64},        {DataType::DT_UINT32, 32},
    {DataType::DT_UINT64, 64},  {DataType::DT_BF16, 16},         {DataType::DT_BFLOAT16, 16},
    {DataType::DT_INT4, 4},     {DataType::DT_FLOAT4_E2M1, 4},   {DataType::DT_FLOAT4_E1M2, 4},
    {DataType::DT_HIFLOAT8, 8}, {DataType::DT_FLOAT8_E4M3FN, 8}, {DataType::DT_FLOAT8_E5M2, 8},
    {DataType::DT_FLOAT8_E8M0, 8}};

enum class TPosition : int32_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    MAX,
};
enum class TilingPolicy : int32_t { FIXED_A_TSCM, FIXED_B_TSCM, FIXED_A_B_TSCM, NO_POLICY };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

struct SysTilingTempBufSize {
    int32_t ubSize = 0;
    int32_t l1Size = 0;
    int32_t l0cSize = 0;
};

struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
    bool isDB = false;
    bool hasSetScaleType = false;
    TPosition scalePos = TPosition::GM;
    CubeFormat scaleType = CubeFormat::ND;
    bool isScaleTrans = false;
};

struct BufferPool {
    int32_t l1Size;
    int32_t l0CSize;
    int32_t ubSize;
    int32_t l0ASize;
    int32_t l0BSize;
    int32_t btSize;
    int32_t l1AlignSize;
    int32_t l0CAlignSize;
    int32_t l0AAlignSize;
    int32_t l0BAlignSize;
    int32_t ubAlignSize;
};

struct PlatformInfo {
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};

struct MatmulConfigParams {
    int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                       ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn),
          enableL1CacheUB(enableL1CacheUBIn),
          scheduleType(scheduleTypeIn),
          traverse(traverseIn),
          enVecND2NZ(enVecND2NZIn) {}
};
}  // namespace matmul_tiling
